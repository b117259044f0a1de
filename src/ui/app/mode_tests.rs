//! Shift+Tab and the footer's mode (SPEC §14.2, §15.3): Shift+Tab asks the loop for the next
//! mode of its cycle; `/mode full-access` waits for `y` on the status line, and any other
//! key stays.
use super::*;
use crate::agent::protocol::SandboxInfo;
use crate::sandbox::{AgentMode, SandboxMode};
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

fn in_mode(app: &mut App, mode: impl Into<AgentMode>) {
    let mode = mode.into();
    app.on_agent_event(AgentEvent::Sandbox(SandboxInfo {
        mode: mode.sandbox(),
        network: false,
        plan: mode == AgentMode::Plan,
    }));
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| app.render(f)).unwrap();
    crate::ui::snapshot::symbols(t.backend().buffer())
}

#[test]
fn shift_tab_cycles_workspace_write_plan_read_only_and_never_enters_full_access() {
    let mut app = App::new(Locale::EnUs, false);
    for (from, to) in [
        (AgentMode::WorkspaceWrite, AgentMode::Plan),
        (AgentMode::Plan, AgentMode::ReadOnly),
        (AgentMode::ReadOnly, AgentMode::WorkspaceWrite),
        // Out of full-access, Shift+Tab goes back into the cycle.
        (AgentMode::FullAccess, AgentMode::WorkspaceWrite),
    ] {
        in_mode(&mut app, from);
        app.on_key(back_tab());
        assert_eq!(
            app.take_commands(),
            vec![AgentCommand::SetMode(to)],
            "Shift+Tab from {from:?}"
        );
    }
}

fn type_line(app: &mut App, text: &str) {
    for c in text.chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    app.on_key(key(KeyCode::Enter));
}

#[test]
fn mode_full_access_waits_for_y_and_any_other_key_stays_in_the_sandbox() {
    for locale in Locale::ALL {
        let mut app = App::new(locale, false);
        in_mode(&mut app, SandboxMode::WorkspaceWrite);
        type_line(&mut app, "/mode full-access");
        assert!(app.take_commands().is_empty(), "nothing switches yet");
        let ask = Localizer::new(locale).tr("tui-mode-confirm-full");
        // The question and its keys fit an 80-column status line.
        let s = screen(&mut app, 80, 20);
        assert!(
            s.contains(ask.trim_end()),
            "{locale:?}: the status line asks: {s}"
        );
        // Another key answers no, and is not typed into the composer.
        app.on_key(key(KeyCode::Char('n')));
        assert!(app.take_commands().is_empty());
        assert!(app.composer().is_empty());
        assert!(!screen(&mut app, 120, 20).contains(ask.trim_end()));
        // Asked again, `y` switches.
        type_line(&mut app, "/mode full-access");
        app.on_key(key(KeyCode::Char('y')));
        assert_eq!(
            app.take_commands(),
            vec![AgentCommand::SetMode(AgentMode::FullAccess)]
        );
        // The other modes switch at once.
        type_line(&mut app, "/mode read-only");
        assert_eq!(app.take_commands().len(), 1);
    }
}

#[test]
fn the_footer_names_the_mode_as_mode_spells_it_in_both_languages() {
    for locale in Locale::ALL {
        let mut app = App::new(locale, false);
        assert!(!screen(&mut app, 120, 12).contains("workspace-write"));
        in_mode(&mut app, SandboxMode::WorkspaceWrite);
        let s = screen(&mut app, 120, 12);
        let footer = s.lines().last().unwrap_or_default().to_string();
        assert!(footer.contains("workspace-write"), "{locale:?}: {footer}");
        assert!(
            !footer.contains("sandboxed") && !footer.contains("沙箱"),
            "{footer}"
        );
        in_mode(&mut app, SandboxMode::ReadOnly);
        let s = screen(&mut app, 120, 12);
        assert!(
            s.lines().last().unwrap_or_default().contains("read-only"),
            "{s}"
        );
        // Plan mode is named as `/mode` spells it, not as its read-only sandbox.
        in_mode(&mut app, AgentMode::Plan);
        let s = screen(&mut app, 120, 12);
        let footer = s.lines().last().unwrap_or_default().to_string();
        assert!(
            footer.contains("plan") && !footer.contains("read-only"),
            "{footer}"
        );
    }
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
