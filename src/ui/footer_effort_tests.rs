//! The footer shows the reasoning effort of the next request (SPEC §14.4) at 80 and 120
//! columns in both locales, and nothing when none is set.
use super::*;
use crate::agent::protocol::RouteInfo;
use crate::i18n::Locale;
use crate::session::effort::Effort;

fn text(effort: Option<Effort>, locale: Locale, width: u16) -> String {
    let route = RouteInfo {
        id: "deepseek/deepseek-flash".into(),
        caps: crate::session::event::Capabilities::plain(1_048_576),
        demo: false,
        effort,
    };
    let l = Localizer::new(locale);
    let line = footer_line(
        l,
        Some(&route),
        &FooterUsage {
            session: Usage::default(),
            last: None,
            cost: None,
            context_used: Some(0),
            unknown: 0,
            sandbox: None,
        },
        ToolCardMode::Collapsed,
        None,
        width,
    );
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

#[test]
fn the_footer_names_the_effort_next_to_the_model_in_both_locales() {
    for width in [80, 120] {
        let en = text(Some(Effort::Low), Locale::EnUs, width);
        assert!(en.contains("deepseek-flash · effort low"), "{width}: {en}");
        let zh = text(Some(Effort::Max), Locale::ZhCn, width);
        assert!(zh.contains("deepseek-flash · 强度 max"), "{width}: {zh}");
        let none = text(None, Locale::EnUs, width);
        assert!(!none.contains("effort"), "{width}: {none}");
    }
}
