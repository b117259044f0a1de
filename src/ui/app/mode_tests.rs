//! Shift+Tab and the footer's mode (SPEC §14.2): Shift+Tab asks the loop for the next mode;
//! entering full-access waits for `y` on the status line, and any other key stays.
use super::*;
use crate::agent::protocol::SandboxInfo;
use crate::sandbox::SandboxMode;
use crossterm::event::{KeyCode, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn back_tab() -> KeyEvent {
    // Terminals report Shift+Tab as BackTab, with or without the Shift modifier.
    KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT)
}

fn in_mode(app: &mut App, mode: SandboxMode) {
    app.on_agent_event(AgentEvent::Sandbox(SandboxInfo {
        mode,
        network: false,
    }));
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| app.render(f)).unwrap();
    crate::ui::snapshot::symbols(t.backend().buffer())
}

#[test]
fn shift_tab_asks_for_the_next_mode_from_read_only_and_wraps_back_from_full_access() {
    let mut app = App::new(Locale::EnUs, false);
    in_mode(&mut app, SandboxMode::ReadOnly);
    app.on_key(back_tab());
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::SetMode(SandboxMode::WorkspaceWrite)]
    );
    in_mode(&mut app, SandboxMode::FullAccess);
    app.on_key(back_tab());
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::SetMode(SandboxMode::ReadOnly)]
    );
}

#[test]
fn entering_full_access_waits_for_y_and_any_other_key_stays_in_the_sandbox() {
    for locale in Locale::ALL {
        let mut app = App::new(locale, false);
        in_mode(&mut app, SandboxMode::WorkspaceWrite);
        app.on_key(back_tab());
        assert!(app.take_commands().is_empty(), "nothing switches yet");
        let s = screen(&mut app, 120, 20);
        let ask = Localizer::new(locale).tr("tui-mode-confirm-full");
        let start: String = ask.chars().take(20).collect();
        assert!(s.contains(&start), "{locale:?}: the status line asks: {s}");
        // Another key answers no, and is not typed into the composer.
        app.on_key(key(KeyCode::Char('n')));
        assert!(app.take_commands().is_empty());
        assert!(app.composer().is_empty());
        assert!(!screen(&mut app, 120, 20).contains(&start));
        // Asked again, `y` switches.
        app.on_key(back_tab());
        app.on_key(key(KeyCode::Char('y')));
        assert_eq!(
            app.take_commands(),
            vec![AgentCommand::SetMode(SandboxMode::FullAccess)]
        );
    }
}

#[test]
fn the_footer_shows_the_mode_the_loop_announced() {
    let mut app = App::new(Locale::ZhCn, false);
    assert!(!screen(&mut app, 120, 12).contains("沙箱"));
    in_mode(&mut app, SandboxMode::WorkspaceWrite);
    assert!(screen(&mut app, 120, 12).contains("沙箱"));
}

#[test]
fn a_retry_is_one_transient_status_line_that_the_next_answer_clears() {
    use crate::agent::protocol::RetryStatus;
    use crate::llm::cause::Cause;
    for (locale, word) in [
        (Locale::EnUs, "reconnecting 2/4"),
        (Locale::ZhCn, "正在重连 2/4"),
    ] {
        let mut app = App::new(locale, false);
        app.on_agent_event(AgentEvent::Phase(TurnPhase::Waiting));
        app.on_agent_event(AgentEvent::Retrying(RetryStatus {
            attempt: 2,
            max: 4,
            cause: Cause::ConnectionRefused,
            seconds: 1.5,
        }));
        app.on_agent_event(AgentEvent::Phase(TurnPhase::Waiting));
        let s = screen(&mut app, 120, 20);
        assert!(s.contains(word), "{locale:?}: {s}");
        assert_eq!(s.matches(word).count(), 1, "one line, in the status row");
        app.on_agent_event(AgentEvent::Phase(TurnPhase::Responding));
        assert!(!screen(&mut app, 120, 20).contains(word));
    }
}
