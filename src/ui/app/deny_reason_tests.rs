//! `n` on an approval asks for an optional one-line reason that goes to the model with the
//! denial; Esc denies at once; the card then says the user's reason (§14.5).
use super::*;
use crate::agent::protocol::ApprovalDecision;
use crate::agent::tool_runner::denial_text_with_reason;
use crate::ui::sample::Script;
use crossterm::event::{KeyCode, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| app.render(f)).unwrap();
    crate::ui::snapshot::symbols(t.backend().buffer())
}

fn asking(app: &mut App) {
    let mut s = Script::new();
    s.user(1, "clean up");
    s.tool(1, 1, "c1", "run_cmd", r#"{"command":"rm -rf build"}"#, None);
    s.push(AgentEvent::ApprovalRequest {
        call_id: "c1".into(),
        tool: "run_cmd".into(),
        arguments: r#"{"command":"rm -rf build"}"#.into(),
    });
    for e in s.events {
        app.on_agent_event(e);
    }
}

#[test]
fn n_on_an_approval_takes_a_reason_that_is_sent_with_the_denial_and_shown_on_the_card() {
    for locale in Locale::ALL {
        let mut app = App::new(locale, false);
        asking(&mut app);
        app.on_key(key(KeyCode::Char('n')));
        assert!(app.take_commands().is_empty(), "n alone only asks why");
        // The letters the approval keys use are text now.
        for c in "ya, keep the cache".chars() {
            app.on_key(key(KeyCode::Char(c)));
        }
        let shown = screen(&mut app, 120, 30);
        assert!(shown.contains("ya, keep the cache"), "{locale:?}: {shown}");
        app.on_key(key(KeyCode::Backspace));
        app.on_key(key(KeyCode::Enter));
        assert_eq!(
            app.take_commands(),
            vec![AgentCommand::DenyWithReason {
                call_id: "c1".into(),
                reason: "ya, keep the cach".into(),
            }]
        );
        assert!(app.composer().is_empty(), "nothing leaked into the draft");
        // The loop answers with the model-facing denial; the card says the reason.
        let out = denial_text_with_reason("run_cmd", Some("ya, keep the cach"));
        let mut s = Script::new();
        let mut m = crate::session::event::Message::text(
            crate::session::event::Role::Tool,
            &out,
            crate::session::event::Source::kind("tool"),
        );
        m.tool_call_id = Some("c1".into());
        m.is_error = Some(true);
        s.commit(crate::session::event::EventKind::ToolResult(
            crate::session::event::ToolResultData {
                turn: 1,
                step: 1,
                message: m,
                error: Some(out.clone()),
                sandbox_retry: None,
            },
        ));
        for e in s.events {
            app.on_agent_event(e);
        }
        let l = Localizer::new(locale);
        let label = l.tra(
            "tui-approval-denied-reason",
            &[("reason", crate::i18n::Arg::from("ya, keep the cach"))],
        );
        let shown = screen(&mut app, 120, 30);
        assert!(
            shown.contains(&label),
            "{locale:?}: the card names the reason: {shown}"
        );
    }
}

#[test]
fn esc_on_an_approval_denies_at_once_and_esc_while_typing_denies_without_a_reason() {
    let mut app = App::new(Locale::EnUs, false);
    asking(&mut app);
    app.on_key(key(KeyCode::Esc));
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Approve {
            call_id: "c1".into(),
            decision: ApprovalDecision::Deny,
        }]
    );
    let mut app = App::new(Locale::EnUs, false);
    asking(&mut app);
    app.on_key(key(KeyCode::Char('n')));
    app.on_key(key(KeyCode::Char('x')));
    app.on_key(key(KeyCode::Esc));
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Approve {
            call_id: "c1".into(),
            decision: ApprovalDecision::Deny,
        }]
    );
}
