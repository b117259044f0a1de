//! The footer when narrow: fields go from the lowest priority up (§14.5), so context use
//! and the session hit stay and the mouse label goes first.
use super::*;
use crate::agent::protocol::RouteInfo;
use crate::i18n::Locale;
use crate::session::event::ToolUpdateMode;

fn route() -> RouteInfo {
    RouteInfo {
        id: "deepseek/deepseek-chat".into(),
        caps: crate::session::event::Capabilities {
            tool_update: Some(ToolUpdateMode::InHistory),
            ..crate::session::event::Capabilities::plain(64_000)
        },
        demo: false,
        effort: None,
    }
}

fn render(locale: Locale, width: u16) -> String {
    let session = Usage {
        input_tokens: 1_300,
        cache_read_tokens: 8_700,
        output_tokens: 100,
    };
    let last = Usage {
        input_tokens: 100,
        cache_read_tokens: 900,
        output_tokens: 10,
    };
    let l = Localizer::new(locale);
    let line = footer_line(
        l,
        Some(&route()),
        &FooterUsage {
            session,
            last: Some(&last),
            cost: Some(0.0123),
            context_used: Some(16_000),
            unknown: 0,
            sandbox: Some(crate::agent::protocol::SandboxInfo {
                mode: crate::sandbox::SandboxMode::ReadOnly,
                network: false,
                plan: false,
            }),
        },
        ToolCardMode::Collapsed,
        Some(mouse_label(l, false)),
        width,
    );
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    assert!(
        super::super::text::str_width(&text) <= usize::from(width),
        "{width}: {text:?}"
    );
    text
}

#[test]
fn a_narrow_footer_keeps_context_and_the_session_hit_and_drops_the_mouse_first() {
    for (locale, hit, ctx, mouse, last) in [
        (
            Locale::EnUs,
            "session hit 87%",
            "context 25%",
            "mouse: select",
            "last 90%",
        ),
        (
            Locale::ZhCn,
            "会话命中 87%",
            "上下文 25%",
            "鼠标：选择",
            "上次 90%",
        ),
    ] {
        for width in [40u16, 60, 80, 120] {
            let text = render(locale, width);
            assert!(text.contains(hit), "{width} {locale:?}: {text:?}");
            assert!(text.contains(ctx), "{width} {locale:?}: {text:?}");
        }
        // Wide, everything is there, the mouse at the right end.
        let wide = render(locale, 160);
        assert!(wide.contains(last) && wide.contains("↑1300"), "{wide:?}");
        assert!(wide.trim_end().ends_with(mouse), "{wide:?}");
        // The mouse goes before any figure: where it is gone, something else may still
        // be shown, but where it is shown every field is.
        for width in [40u16, 60, 80, 120] {
            let text = render(locale, width);
            if text.contains(mouse) {
                assert!(
                    text.contains("↑1300") && text.contains(last),
                    "{width}: {text:?}"
                );
            }
        }
        let narrow = render(locale, 40);
        assert!(!narrow.contains(mouse), "{narrow:?}");
    }
}

#[test]
fn the_footer_shows_the_sandbox_mode_in_both_languages_and_keeps_it_when_narrow() {
    // The mode as `/mode` spells it, in both languages.
    for (locale, mode) in [(Locale::EnUs, "read-only"), (Locale::ZhCn, "read-only")] {
        // Wide and at 80 columns the mode is there; it outlasts the token counts.
        for width in [80u16, 160] {
            let text = render(locale, width);
            assert!(text.contains(mode), "{width} {locale:?}: {text:?}");
        }
        let narrow = render(locale, 60);
        if narrow.contains("↑1300") {
            assert!(narrow.contains(mode), "{narrow:?}");
        }
    }
}
