//! A request whose usage the provider reported impossibly is logged without one (decision
//! 0028): the Trajectory shows its figures as unknown, the footer's context use is unknown
//! and its cost a lower bound, and the inspector says so. Nothing shows a made-up number.
use super::*;
use crate::agent::protocol::RouteInfo;
use crate::session::event::{AssistantMessageData, Message, Role, Source, StepRef, Usage};
use crate::ui::sample::Script;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn known() -> Usage {
    Usage {
        input_tokens: 1200,
        cache_read_tokens: 4800,
        output_tokens: 310,
    }
}

/// Turn 1 with a known usage, turn 2 with an unknown one, on a priced route.
fn app(locale: Locale) -> App {
    let mut s = Script::new();
    s.route(false).push(AgentEvent::Route(RouteInfo {
        id: "deepseek/deepseek-chat".into(),
        caps: crate::session::event::Capabilities {
            prices: Some(crate::llm::catalog::DEEPSEEK_FLASH_PRICES),
            ..crate::session::event::Capabilities::plain(128_000)
        },
        demo: false,
        effort: None,
    }));
    s.user(1, "q1").assistant_usage(1, 1, "first", known());
    s.user(2, "q2")
        .commit(EventKind::StepStart(StepRef { turn: 2, step: 1 }))
        .commit(EventKind::AssistantMessage(AssistantMessageData {
            turn: 2,
            step: 1,
            message: Message::text(Role::Assistant, "second", Source::kind("model")),
            usage: None,
            timing: Some(crate::session::event::Timing {
                ttft_ms: Some(420),
                duration_ms: 2300,
                thinking_ms: None,
            }),
            interrupted: None,
        }));
    // The loop counts known usage only.
    s.push(AgentEvent::SessionUsage(known()));
    let mut app = App::new(locale, false);
    for e in s.events {
        app.on_agent_event(e);
    }
    app
}

fn rows(app: &mut App, w: u16, h: u16) -> Vec<String> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| app.render(f)).unwrap();
    let buf = t.backend().buffer().clone();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect())
        .collect()
}

fn request_row(app: &App, n: usize, l: Localizer) -> String {
    let row = app
        .trajectory()
        .rows()
        .iter()
        .find(|r| matches!(r, crate::ui::trajectory::Row::Request { n: m, .. } if *m == n))
        .unwrap();
    crate::ui::trajectory::Trajectory::render_row(row, l, 120)
        .spans
        .iter()
        .map(|s| s.content.as_ref())
        .collect()
}

#[test]
fn unknown_usage_shows_as_unknown_in_the_trajectory_and_footer() {
    for (locale, context, cost) in [
        (Locale::EnUs, "context ?", "cost ≥$"),
        (Locale::ZhCn, "上下文 ?", "费用 ≥$"),
    ] {
        let l = Localizer::new(locale);
        let mut app = app(locale);
        let first = request_row(&app, 1, l);
        assert!(first.contains("1200") && first.contains("4800"), "{first}");
        assert!(!first.contains('?'), "{first}");
        let second = request_row(&app, 2, l);
        // In, cached, out and hit are unknown: a mark, not a dash (no figure) or a number.
        assert!(second.matches('?').count() >= 4, "{second}");
        assert!(!second.contains('—'), "{second}");
        assert!(!second.contains("310"), "{second}");
        assert!(!second.contains('$'), "{second}");
        assert_eq!(app.trajectory().unknown_usage(), 1);
        assert_eq!(
            app.trajectory().last_usage(),
            None,
            "the last request's hit is unknown"
        );
        let footer = rows(&mut app, 160, 30).pop().unwrap().replace(' ', "");
        assert!(footer.contains(&context.replace(' ', "")), "{footer}");
        assert!(footer.contains(&cost.replace(' ', "")), "{footer}");
    }
}

#[test]
fn a_known_usage_after_an_unknown_one_shows_again() {
    let mut app = app(Locale::EnUs);
    let mut s = Script::new();
    s.user(3, "q3").assistant_usage(3, 1, "third", known());
    for e in s.events {
        app.on_agent_event(e);
    }
    let footer = rows(&mut app, 160, 30).pop().unwrap().replace(' ', "");
    // (1200 + 4800 + 310) of 128 000.
    assert!(footer.contains("context4%"), "{footer}");
    assert!(app.trajectory().last_usage().is_some());
    // The session still had a request of unknown usage: the cost stays a lower bound.
    assert!(footer.contains("cost≥$"), "{footer}");
}

#[test]
fn inspector_says_the_usage_of_the_request_is_unknown() {
    for (locale, unknown) in [(Locale::EnUs, "usage unknown"), (Locale::ZhCn, "用量未知")] {
        for (n, shown) in [(2, true), (1, false)] {
            let mut app = app(locale);
            let req = |n: usize| {
                serde_json::json!({"n": n, "route": "p/m", "system": "s", "tools": [],
                    "messages": ["user: hi"], "body": "{}", "beta": null})
            };
            let data: crate::agent::inspect::InspectorData =
                serde_json::from_value(serde_json::json!({
                    "previous": if n > 1 { req(n - 1) } else { serde_json::Value::Null },
                    "selected": req(n),
                    "divergence": {"body_offset": null, "system": false, "tool": null, "message": null},
                    "reasons": ["Identical"],
                }))
                .unwrap();
            app.on_agent_event(AgentEvent::Inspector(Box::new(data)));
            // A wide character's second cell is a space.
            let screen = rows(&mut app, 160, 30).concat().replace(' ', "");
            assert_eq!(
                screen.contains(&unknown.replace(' ', "")),
                shown,
                "#{n}: {screen}"
            );
        }
    }
}
