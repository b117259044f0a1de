//! The footer shows the reasoning effort of the next request (SPEC §14.4) at 80 and 120
//! columns in both locales, a full footer too, and nothing when none is set.
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

/// The footer as a session shows it: every figure known, the sandbox mode and the mouse.
fn full(effort: Effort, locale: Locale, width: u16) -> String {
    let route = RouteInfo {
        id: "deepseek/deepseek-flash".into(),
        caps: crate::session::event::Capabilities {
            tool_update: Some(crate::session::event::ToolUpdateMode::InHistory),
            ..crate::session::event::Capabilities::plain(1_048_576)
        },
        demo: false,
        effort: Some(effort),
    };
    let session = Usage {
        input_tokens: 12_300,
        cache_read_tokens: 187_000,
        output_tokens: 2_100,
    };
    let last = Usage {
        input_tokens: 900,
        cache_read_tokens: 41_000,
        output_tokens: 300,
    };
    let l = Localizer::new(locale);
    let line = footer_line(
        l,
        Some(&route),
        &FooterUsage {
            session,
            last: Some(&last),
            cost: Some(0.0123),
            context_used: Some(42_000),
            unknown: 0,
            sandbox: Some(crate::agent::protocol::SandboxInfo {
                mode: crate::sandbox::SandboxMode::WorkspaceWrite,
                network: false,
                plan: false,
            }),
        },
        ToolCardMode::Collapsed,
        Some(mouse_label(l, false)),
        width,
    );
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

#[test]
fn a_full_footer_keeps_the_effort_at_80_columns_in_both_locales() {
    for width in [80, 120] {
        let en = full(Effort::High, Locale::EnUs, width);
        assert!(en.contains("deepseek-flash · effort high"), "{width}: {en}");
        let zh = full(Effort::Max, Locale::ZhCn, width);
        assert!(zh.contains("deepseek-flash · 强度 max"), "{width}: {zh}");
        for text in [&en, &zh] {
            assert!(
                super::super::text::str_width(text) <= usize::from(width),
                "{text}"
            );
        }
        // What makes room for it is the mouse label and the token counts (the
        // Trajectory and `/cost` say them), never the context or the session hit.
        assert!(
            en.contains("context 4%") && en.contains("session hit 94%"),
            "{en}"
        );
        assert!(
            zh.contains("上下文 4%") && zh.contains("会话命中 94%"),
            "{zh}"
        );
    }
    assert!(!full(Effort::Low, Locale::EnUs, 80).contains("mouse"));
}
