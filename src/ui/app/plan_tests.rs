//! The plan in the App (SPEC §15.3): pinned above the composer at 80 and 120 columns in
//! both languages, in Chat, back after a resume, and the question after a turn in plan
//! mode (`y` switches to workspace-write and sends "Go ahead with the plan.", `n` stays).

use super::*;
use crate::agent::protocol::SandboxInfo;
use crate::sandbox::{AgentMode, SandboxMode};
use crate::ui::sample::Script;
use crossterm::event::{KeyCode, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const PLAN: &str = r#"{"explanation":"Parser first","plan":[{"step":"Read the parser","status":"completed"},{"step":"Fix the off-by-one error in the tokenizer's lookahead so that a trailing backslash is kept","status":"in_progress"},{"step":"Run the tests","status":"pending"}]}"#;

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| app.render(f)).unwrap();
    crate::ui::snapshot::symbols(t.backend().buffer())
}

fn in_mode(app: &mut App, mode: AgentMode) {
    app.on_agent_event(AgentEvent::Sandbox(SandboxInfo {
        mode: mode.sandbox(),
        network: false,
        plan: mode == AgentMode::Plan,
    }));
}

/// A turn whose model set `PLAN` (and a failed call with two steps in progress).
fn planning_turn() -> Script {
    let mut s = Script::new();
    s.route(false).user(1, "plan the fix");
    s.tool(
        1,
        1,
        "c1",
        "update_plan",
        PLAN,
        Some(("Plan updated", false)),
    );
    s.tool(
        1,
        1,
        "c2",
        "update_plan",
        r#"{"plan":[{"step":"x","status":"in_progress"},{"step":"y","status":"in_progress"}]}"#,
        Some(("at most one step can be in_progress (got 2)", true)),
    );
    s
}

fn live(locale: Locale, mode: AgentMode) -> App {
    let mut app = App::new(locale, false);
    in_mode(&mut app, mode);
    for e in planning_turn().events {
        app.on_agent_event(e);
    }
    app
}

#[test]
fn the_plan_is_pinned_above_the_composer_and_fits_80_and_120_columns_in_both_languages() {
    for locale in Locale::ALL {
        let title = Localizer::new(locale).tra(
            "plan-title",
            &[("done", 1usize.into()), ("total", 3usize.into())],
        );
        for w in [80u16, 120] {
            let mut app = live(locale, AgentMode::WorkspaceWrite);
            let s = screen(&mut app, w, 30);
            let rows: Vec<&str> = s.lines().collect();
            // The pinned block sits right above the status line: title, then the steps.
            let status = rows.len() - 1 - app.bottom.height(w, 28) as usize - 1;
            let pinned = &rows[status - 4..status];
            assert!(pinned[0].contains(&title), "{locale:?} {w}: {s}");
            assert!(pinned[1].contains("☑ Read the parser"), "{s}");
            assert!(pinned[2].contains("▸ Fix the off-by-one"), "{s}");
            assert!(pinned[3].contains("☐ Run the tests"), "{s}");
            // A long step is clipped to the row, never wrapped into the status line.
            for r in pinned {
                assert!(str_width(r) <= usize::from(w), "{r}");
            }
            // The refused plan (two steps in progress) is not the one pinned.
            assert!(!pinned.iter().any(|r| r.contains("▸ x")));
            // Chat has the plan too.
            assert!(s.matches(&title).count() >= 1);
        }
    }
}

#[test]
fn a_resumed_session_pins_the_plan_its_log_had() {
    let history: Vec<_> = planning_turn()
        .events
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::Committed(e) => Some(e),
            _ => None,
        })
        .collect();
    let mut app = App::new(Locale::EnUs, false);
    app.on_agent_event(AgentEvent::SessionOpened {
        id: "s".into(),
        path: String::new(),
        history,
    });
    let s = screen(&mut app, 80, 30);
    assert!(s.contains("Plan · 1 of 3 done"), "{s}");
    assert!(s.contains("▸ Fix the off-by-one"), "{s}");
    // A replayed plan asks nothing.
    app.on_agent_event(AgentEvent::TurnFinished);
    assert!(!app.plan.confirm);
}

#[test]
fn a_turn_in_plan_mode_that_made_a_plan_asks_to_execute_it_and_y_switches_and_goes() {
    for locale in Locale::ALL {
        let l = Localizer::new(locale);
        let mut app = live(locale, AgentMode::Plan);
        app.on_agent_event(AgentEvent::TurnFinished);
        let ask = l.tr("plan-execute-question");
        for w in [80u16, 120] {
            let s = screen(&mut app, w, 30);
            let shown: String = ask.chars().take(20).collect();
            assert!(s.contains(&shown), "{locale:?} {w}: {s}");
        }
        app.on_key(KeyEvent::new(KeyCode::Char('y'), KeyModifiers::NONE));
        assert_eq!(
            app.take_commands(),
            vec![
                AgentCommand::SetMode(AgentMode::WorkspaceWrite),
                AgentCommand::Message(l.tr("plan-go-ahead")),
            ]
        );
        assert!(app.composer().is_empty(), "the y is not typed");
        assert!(!screen(&mut app, 80, 30).contains(&ask.chars().take(20).collect::<String>()));
    }
}

#[test]
fn n_stays_in_plan_mode_and_a_turn_outside_plan_mode_asks_nothing() {
    let mut app = live(Locale::EnUs, AgentMode::Plan);
    app.on_agent_event(AgentEvent::TurnFinished);
    app.on_key(KeyEvent::new(KeyCode::Char('n'), KeyModifiers::NONE));
    assert!(app.take_commands().is_empty());
    assert!(app.composer().is_empty(), "the answer is not typed");
    let mut app = live(Locale::EnUs, AgentMode::WorkspaceWrite);
    app.on_agent_event(AgentEvent::TurnFinished);
    assert!(!app.plan.confirm);
    // In plan mode, a turn without a plan asks nothing either.
    let mut app = App::new(Locale::EnUs, false);
    in_mode(&mut app, AgentMode::Plan);
    app.on_agent_event(AgentEvent::TurnFinished);
    assert!(!app.plan.confirm);
    let _ = SandboxMode::ReadOnly;
}
