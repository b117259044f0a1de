//! Unit tests of the App state machine: node selection, approvals, quit, scrolling.
use super::*;
use crate::agent::protocol::{ApprovalDecision, Notice, NoticeLevel};
use crate::ui::sample::Script;
use crossterm::event::{KeyCode, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn nodes_app() -> App {
    let mut s = Script::new();
    s.route(false).user(1, "hi");
    s.tools_changed(1, &["search", "read_file"], &["old_search"]);
    s.tools_changed(1, &["only"], &[]);
    s.tools_changed(1, &["a", "b"], &[]);
    let mut app = App::new(Locale::EnUs, false);
    for e in s.events {
        app.on_agent_event(e);
    }
    draw(&mut app);
    app
}

fn draw(app: &mut App) -> String {
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| app.render(f)).unwrap();
    let buf = t.backend().buffer().clone();
    (0..24u16)
        .map(|y| {
            (0..80u16)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
                + "\n"
        })
        .collect()
}

fn expanded(app: &App, i: usize) -> bool {
    app.transcript().cells()[i].expanded
}

#[test]
fn u2_up_down_select_only_expandable_nodes_and_enter_toggles() {
    let mut app = nodes_app();
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.focus(), Focus::Chat);
    app.on_key(key(KeyCode::Up));
    assert_eq!(app.selected(), Some(3));
    // a single-change node (index 2) expands too, to its source.
    app.on_key(key(KeyCode::Up));
    assert_eq!(app.selected(), Some(2));
    app.on_key(key(KeyCode::Enter));
    assert!(expanded(&app, 2));
    assert!(draw(&mut app).contains("    Source: "));
    app.on_key(key(KeyCode::Up));
    assert_eq!(app.selected(), Some(1));
    app.on_key(key(KeyCode::Enter));
    assert!(expanded(&app, 1));
    assert!(draw(&mut app).contains("        read_file"));
    app.on_key(key(KeyCode::Char(' ')));
    assert!(!expanded(&app, 1));
    assert!(!draw(&mut app).contains("        read_file"));
}

#[test]
fn ctrl_t_toggles_the_most_recent_tool_change_node_from_the_composer() {
    let mut app = nodes_app();
    app.on_key(KeyEvent::new(KeyCode::Char('t'), KeyModifiers::CONTROL));
    assert!(expanded(&app, 3));
    assert!(!expanded(&app, 1));
    assert_eq!(app.focus(), Focus::Composer);
    app.on_key(KeyEvent::new(KeyCode::Char('t'), KeyModifiers::CONTROL));
    assert!(!expanded(&app, 3));
}

#[test]
fn mouse_click_toggles_the_node_under_the_pointer() {
    let mut app = nodes_app();
    let screen = draw(&mut app);
    let row = screen
        .lines()
        .position(|l| l.contains("Tools updated · 2 added, 1 removed"))
        .unwrap();
    app.on_mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: 5,
        row: row as u16,
        modifiers: KeyModifiers::NONE,
    });
    assert!(expanded(&app, 1));
}

#[test]
fn approval_keys_answer_the_pending_call() {
    let mut app = App::new(Locale::EnUs, false);
    for id in ["c1", "c2"] {
        app.on_agent_event(AgentEvent::ApprovalRequest {
            call_id: id.into(),
            tool: "t".into(),
            arguments: "{}".into(),
        });
    }
    app.on_key(key(KeyCode::Char('a')));
    app.on_key(key(KeyCode::Esc));
    let cmds = app.take_commands();
    assert!(
        matches!(&cmds[0], AgentCommand::Approve { call_id, decision: ApprovalDecision::AlwaysAllow } if call_id == "c1")
    );
    assert!(
        matches!(&cmds[1], AgentCommand::Approve { call_id, decision: ApprovalDecision::Deny } if call_id == "c2")
    );
    app.on_key(key(KeyCode::Char('y')));
    assert_eq!(app.composer().text(), "y");
}

#[test]
fn esc_cancels_a_running_turn_and_ctrl_c_twice_quits_when_idle() {
    let mut app = App::new(Locale::EnUs, false);
    app.on_agent_event(AgentEvent::Phase(TurnPhase::Responding));
    app.on_key(key(KeyCode::Esc));
    assert!(matches!(
        app.take_commands().as_slice(),
        [AgentCommand::Cancel]
    ));
    app.on_agent_event(AgentEvent::Phase(TurnPhase::Idle));
    let c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    app.on_key(c);
    assert!(!app.should_quit());
    app.on_key(c);
    assert!(app.should_quit());
    assert!(matches!(
        app.take_commands().as_slice(),
        [AgentCommand::Shutdown]
    ));
}

#[test]
fn enter_submits_and_shift_enter_inserts_a_newline() {
    let mut app = App::new(Locale::EnUs, false);
    for c in "ab".chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::SHIFT));
    app.on_key(key(KeyCode::Char('c')));
    app.on_key(key(KeyCode::Enter));
    assert!(matches!(app.take_commands().as_slice(), [AgentCommand::Submit(s)] if s == "ab\nc"));
}

#[test]
fn streamed_text_is_replaced_by_the_committed_message() {
    let mut s = Script::new();
    s.stream(1, 1, "", "partial answer");
    s.assistant(1, 1, "", "final answer", &[]);
    let mut app = App::new(Locale::EnUs, false);
    for e in s.events {
        app.on_agent_event(e);
    }
    let screen = draw(&mut app);
    assert!(screen.contains("final answer"));
    assert!(!screen.contains("partial"));
    assert_eq!(app.transcript().len(), 1);
}

#[test]
fn scrolling_up_stops_following_and_shows_the_jump_hint_until_end() {
    let mut app = App::new(Locale::EnUs, false);
    for e in crate::ui::sample::long_session(40) {
        app.on_agent_event(e);
    }
    draw(&mut app);
    app.on_key(key(KeyCode::PageUp));
    let screen = draw(&mut app);
    assert!(screen.contains("End jumps to the latest"), "{screen}");
    // New output does not move the view while scrolled up.
    let before = screen.clone();
    app.on_agent_event(AgentEvent::Notice(Notice::new(
        NoticeLevel::Info,
        "tui-quit-hint",
        vec![],
    )));
    assert_eq!(draw(&mut app), before);
    app.on_key(key(KeyCode::End));
    let screen = draw(&mut app);
    assert!(!screen.contains("End jumps to the latest"));
    assert!(screen.contains("Press Ctrl+C again to quit."));
}

#[test]
fn trajectory_enter_on_a_request_row_asks_for_the_inspector() {
    let mut s = Script::new();
    s.route(false).user(1, "hi");
    s.assistant(1, 1, "", "one", &[]);
    s.user(2, "again");
    s.assistant(2, 1, "", "two", &[]);
    let mut app = App::new(Locale::EnUs, false);
    for e in s.events {
        app.on_agent_event(e);
    }
    draw(&mut app);
    app.on_key(key(KeyCode::Tab));
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.focus(), Focus::Trajectory);
    // ↑ selects the last request, ↑ again the one before; Enter asks for it.
    app.on_key(key(KeyCode::Up));
    app.on_key(key(KeyCode::Up));
    app.take_commands();
    app.on_key(key(KeyCode::Enter));
    let cmds = app.take_commands();
    assert!(
        matches!(
            cmds.as_slice(),
            [AgentCommand::Inspect { request: Some(1) }]
        ),
        "{cmds:?}"
    );
    // ↓ past the last request clears the selection; Enter then does nothing.
    app.on_key(key(KeyCode::Down));
    app.on_key(key(KeyCode::Down));
    assert_eq!(app.trajectory_selected(), None);
    app.on_key(key(KeyCode::Enter));
    assert!(app.take_commands().is_empty());
}

// ---------------------------------------------------------------------------------------
// the keymap table drives dispatch.

use crate::ui::keymap::{BINDINGS, Chord, Context};

fn screen_at(app: &mut App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| app.render(f)).unwrap();
    crate::ui::snapshot::symbols(t.backend().buffer())
}

/// Everything a key can change: the screen, commands, composer, focus, selections,
/// overlays and quitting.
fn fingerprint(app: &mut App) -> String {
    let screen = screen_at(app, 120, 30);
    let cmds = app.take_commands();
    format!(
        "{screen}\n{cmds:?}\n{:?} {} {:?} {:?} {:?} {} {} {:?} {:?} {}",
        app.composer().text(),
        app.composer().caret(),
        app.focus(),
        app.selected(),
        app.trajectory_selected(),
        app.help_open(),
        app.should_quit(),
        app.inspector(),
        app.transcript()
            .cells()
            .iter()
            .map(|c| c.expanded)
            .collect::<Vec<_>>(),
        // Ctrl+G asks the loop to run the editor.
        app.editor_requested,
    )
}

fn small_inspector() -> crate::agent::inspect::InspectorData {
    let req = |n: Option<usize>| {
        serde_json::json!({"n": n, "route": "p/m", "system": "s", "tools": [["t", false]],
            "messages": ["user: hi"], "body": "{}", "beta": null})
    };
    serde_json::from_value(serde_json::json!({
        "previous": req(Some(1)), "selected": req(None),
        "divergence": {"body_offset": null, "system": false, "tool": null, "message": null},
        "reasons": ["Identical"],
    }))
    .unwrap()
}

/// A fresh App in `cx`, set up so that every binding of `cx` has something to act on.
fn app_in(cx: Context) -> App {
    let mut app = nodes_app();
    for e in crate::ui::sample::long_session(40) {
        if !matches!(e, AgentEvent::SessionOpened { .. }) {
            app.on_agent_event(e);
        }
    }
    screen_at(&mut app, 120, 30);
    let k = |app: &mut App, c: KeyCode| app.on_key(key(c));
    match cx {
        Context::Composer => {
            for c in "first".chars() {
                k(&mut app, KeyCode::Char(c));
            }
            k(&mut app, KeyCode::Enter);
            for c in "ab".chars() {
                k(&mut app, KeyCode::Char(c));
            }
            app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::SHIFT));
            for c in "cd".chars() {
                k(&mut app, KeyCode::Char(c));
            }
            k(&mut app, KeyCode::Up);
            k(&mut app, KeyCode::Left);
        }
        Context::Global => {
            app.on_agent_event(AgentEvent::Phase(TurnPhase::Responding));
            k(&mut app, KeyCode::PageUp);
        }
        Context::Chat => {
            k(&mut app, KeyCode::Tab);
            k(&mut app, KeyCode::Up);
            k(&mut app, KeyCode::PageUp);
        }
        Context::Trajectory => {
            k(&mut app, KeyCode::Tab);
            k(&mut app, KeyCode::Tab);
            k(&mut app, KeyCode::Up);
            k(&mut app, KeyCode::PageUp);
        }
        Context::Approval => app.on_agent_event(AgentEvent::ApprovalRequest {
            call_id: "c9".into(),
            tool: "t".into(),
            arguments: "{}".into(),
        }),
        Context::HelpOverlay => k(&mut app, KeyCode::F(1)),
        Context::InspectorOverlay => {
            app.on_agent_event(AgentEvent::Inspector(Box::new(small_inspector())))
        }
        Context::ResumePicker => {
            // Three sessions, a filter every one matches and the middle one highlighted, so
            // each picker key has something to change.
            let sessions = (1..=3)
                .map(|i| crate::agent::protocol::SessionSummary {
                    id: format!("s{i}"),
                    modified: 1_700_000_000 + i,
                    first_prompt: Some(format!("prompt {i}")),
                    messages: 2,
                    bytes: 300,
                })
                .collect();
            app.on_agent_event(AgentEvent::Sessions {
                current: "now".into(),
                sessions,
            });
            k(&mut app, KeyCode::Char('s'));
            k(&mut app, KeyCode::Down);
        }
    }
    screen_at(&mut app, 120, 30);
    app.take_commands();
    app
}

#[test]
fn every_binding_of_the_keymap_table_is_reachable_and_acts() {
    for b in BINDINGS {
        for chord in b.keys {
            let Some(k) = chord.example() else {
                // The mouse row: `on_mouse` (tested by mouse_click_toggles_…).
                assert_eq!(*chord, Chord::Mouse);
                continue;
            };
            let mut app = if let Chord::Twice(..) = chord {
                // The quit window is open only after a first press while idle, on an empty
                // composer (the first Ctrl+C clears the draft).
                let mut app = app_in(Context::Composer);
                app.on_key(k);
                app.on_key(k);
                app
            } else if b.action == Action::CompleteCommand {
                // Tab completes only while the slash popup is open.
                let mut app = app_in(Context::Composer);
                app.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
                for c in "/to".chars() {
                    app.on_key(key(KeyCode::Char(c)));
                }
                app
            } else if b.action == Action::Yank {
                // Ctrl+Y inserts what a kill took.
                let mut app = app_in(Context::Composer);
                app.on_key(KeyEvent::new(KeyCode::Char('k'), KeyModifiers::CONTROL));
                app
            } else {
                let mut app = app_in(b.context);
                // The help scrolls up only from below its first row.
                if b.context == Context::HelpOverlay
                    && matches!(
                        b.action,
                        Action::LineUp | Action::PageUp | Action::ScrollTop
                    )
                {
                    app.on_key(key(KeyCode::End));
                    screen_at(&mut app, 120, 30);
                }
                app
            };
            assert_eq!(
                app.resolve(&k),
                Some((b.context, b.action)),
                "{chord:?} in {:?} does not reach {:?}",
                b.context,
                b.action
            );
            let before = fingerprint(&mut app);
            app.on_key(k);
            assert_ne!(
                fingerprint(&mut app),
                before,
                "{chord:?} ({:?} in {:?}) changed nothing",
                b.action,
                b.context
            );
        }
    }
}

#[test]
fn every_key_on_key_reacts_to_is_in_the_keymap_table() {
    let mut codes = vec![
        KeyCode::Enter,
        KeyCode::Esc,
        KeyCode::Tab,
        KeyCode::BackTab,
        KeyCode::Backspace,
        KeyCode::Delete,
        KeyCode::Insert,
        KeyCode::Up,
        KeyCode::Down,
        KeyCode::Left,
        KeyCode::Right,
        KeyCode::Home,
        KeyCode::End,
        KeyCode::PageUp,
        KeyCode::PageDown,
    ];
    codes.extend((1..=12).map(KeyCode::F));
    codes.extend(('a'..='z').map(KeyCode::Char));
    codes.extend([' ', '/', '?'].map(KeyCode::Char));
    let mods = [
        KeyModifiers::NONE,
        KeyModifiers::CONTROL,
        KeyModifiers::ALT,
        KeyModifiers::SHIFT,
    ];
    let contexts = [
        Context::Composer,
        Context::Global,
        Context::Chat,
        Context::Trajectory,
        Context::Approval,
        Context::HelpOverlay,
        Context::InspectorOverlay,
        Context::ResumePicker,
    ];
    for cx in contexts {
        for &code in &codes {
            for m in mods {
                let k = KeyEvent::new(code, m);
                // Plain typed characters are text for the composer, not bindings.
                if crate::ui::keymap::typed(&k).is_some() {
                    continue;
                }
                let mut app = app_in(cx);
                let resolved = app.resolve(&k);
                let before = fingerprint(&mut app);
                app.on_key(k);
                if fingerprint(&mut app) != before {
                    assert!(
                        resolved.is_some(),
                        "{k:?} changes the UI in {cx:?} but is not in the keymap table"
                    );
                }
            }
        }
    }
}

#[test]
fn ctrl_c_quit_hint_is_transient_on_the_status_line_and_never_piles_up_in_chat() {
    let mut app = App::new(Locale::EnUs, false);
    let t0 = Instant::now();
    let cells = app.transcript().len();
    for i in 0..3u64 {
        // Three single presses, each after the last one's window closed.
        app.set_now(t0 + Duration::from_secs(10 * i));
        app.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
        let screen = draw(&mut app);
        assert_eq!(
            screen.matches("Press Ctrl+C again to quit.").count(),
            1,
            "{screen}"
        );
        assert!(!app.should_quit());
        assert!(app.animating(), "the loop must tick to take the hint down");
    }
    assert_eq!(app.transcript().len(), cells, "the hint is not history");
    // Once the window closes the hint is gone.
    app.set_now(t0 + Duration::from_secs(25));
    let screen = draw(&mut app);
    assert!(!screen.contains("Press Ctrl+C again to quit."), "{screen}");
    assert!(!app.animating());
}

#[test]
fn second_ctrl_c_within_3s_quits_and_after_3s_only_rearms() {
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    let t0 = Instant::now();
    let mut app = App::new(Locale::EnUs, false);
    app.set_now(t0);
    app.on_key(ctrl_c);
    app.set_now(t0 + Duration::from_millis(2_900));
    app.on_key(ctrl_c);
    assert!(app.should_quit(), "a second Ctrl+C 2.9 s later quits");
    let mut app = App::new(Locale::EnUs, false);
    app.set_now(t0);
    app.on_key(ctrl_c);
    app.set_now(t0 + Duration::from_millis(3_100));
    app.on_key(ctrl_c);
    assert!(!app.should_quit(), "3.1 s later the window has closed");
}

fn typed_app(text: &str) -> App {
    let mut app = App::new(Locale::EnUs, false);
    for c in text.chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    app
}

/// A turn that calls `run_cmd` (call `c1`) and asks for approval, as the agent reports it.
fn approval_app(locale: Locale) -> App {
    let mut s = Script::new();
    s.route(false).user(1, "list files");
    s.push(AgentEvent::Phase(TurnPhase::RunningTools));
    s.tool(1, 1, "c1", "run_cmd", r#"{"command":"ls -la /tmp"}"#, None);
    s.push(AgentEvent::Phase(TurnPhase::AwaitingApproval));
    s.push(AgentEvent::ApprovalRequest {
        call_id: "c1".into(),
        tool: "run_cmd".into(),
        arguments: r#"{"command":"ls -la /tmp"}"#.into(),
    });
    let mut app = App::new(locale, false);
    for e in s.events {
        app.on_agent_event(e);
    }
    app
}

fn submitted(app: &mut App) -> Vec<String> {
    app.take_commands()
        .into_iter()
        .filter_map(|c| match c {
            AgentCommand::Submit(t) => Some(t),
            _ => None,
        })
        .collect()
}

#[test]
fn enter_on_exact_tool_completes_with_usage_instead_of_running_tools() {
    let mut app = typed_app("/tool");
    assert_eq!(app.composer().popup_matches()[0].name, "/tool");
    app.on_key(key(KeyCode::Enter));
    assert!(submitted(&mut app).is_empty(), "/tool needs an argument");
    assert_eq!(app.composer().text(), "/tool ");
    let screen = screen_at(&mut app, 80, 20);
    assert!(
        screen.contains("/tool enable|disable NAME  Enable or disable a tool"),
        "{screen}"
    );
    for c in "enable x".chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    app.on_key(key(KeyCode::Enter));
    assert_eq!(submitted(&mut app), vec!["/tool enable x"]);
}

#[test]
fn enter_runs_highlighted_commands_without_required_arguments_on_one_press() {
    for (typed, sent) in [
        ("/tools", "/tools"),
        ("/help", "/help"),
        ("/mcp", "/mcp"),
        ("/model", "/model"),
        ("/system", "/system"),
        ("/resume", "/resume"),
        ("/comp", "/compact"),
        ("/new", "/new"),
    ] {
        let mut app = typed_app(typed);
        app.on_key(key(KeyCode::Enter));
        assert_eq!(submitted(&mut app), vec![sent.to_string()], "{typed}");
        assert!(app.composer().is_empty(), "{typed}");
    }
    // `/lang` requires its argument: completed, not run.
    let mut app = typed_app("/lang");
    app.on_key(key(KeyCode::Enter));
    assert!(submitted(&mut app).is_empty());
    assert_eq!(app.composer().text(), "/lang ");
    // Enter runs the highlighted row, not the first one.
    let mut app = typed_app("/to");
    app.on_key(key(KeyCode::Down));
    app.on_key(key(KeyCode::Enter));
    assert_eq!(app.composer().text(), "/tool ");
}

#[test]
fn tab_completes_the_highlighted_name_and_keeps_focus() {
    let mut app = typed_app("/mo");
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.composer().text(), "/model ");
    assert_eq!(app.focus(), Focus::Composer);
    assert!(submitted(&mut app).is_empty());
    let mut app = typed_app("/tools");
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.composer().text(), "/tools");
    // Without the popup Tab still moves focus.
    let mut app = typed_app("hi");
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.focus(), Focus::Chat);
}

#[test]
fn popup_shows_each_synopsis_from_the_command_table_in_both_locales() {
    for loc in Locale::ALL {
        let l = Localizer::new(loc);
        let mut app = App::new(loc, false);
        app.on_key(key(KeyCode::Char('/')));
        let screen = screen_at(&mut app, 120, 30);
        for c in crate::agent::command_spec::COMMANDS {
            let line = super::super::components::bottom_pane::usage_line(l, c);
            assert!(screen.contains(&line), "{line} in {screen}");
        }
        assert!(!screen.contains("on|off"));
    }
}

#[test]
fn help_scrolls_with_the_keymap_keys_and_shows_its_position() {
    let mut app = App::new(Locale::EnUs, false);
    app.on_key(key(KeyCode::F(1)));
    let first = screen_at(&mut app, 60, 10);
    assert!(first.contains("1–7 of"), "{first}");
    assert!(first.contains("Send the message"), "{first}");
    app.on_key(key(KeyCode::Down));
    let s = screen_at(&mut app, 60, 10);
    assert!(s.contains("2–8 of"), "{s}");
    app.on_key(key(KeyCode::End));
    let s = screen_at(&mut app, 60, 10);
    // The Trajectory legend is last; the commands above it are reachable on the way.
    assert!(s.contains("tool_removal"), "the last row is reachable: {s}");
    let mut s = s;
    for _ in 0..8 {
        if s.contains("/quit") {
            break;
        }
        app.on_key(key(KeyCode::PageUp));
        s = screen_at(&mut app, 60, 10);
    }
    assert!(s.contains("/quit"), "the last command is reachable: {s}");
    assert!(app.help_open());
    app.on_key(key(KeyCode::PageUp));
    app.on_key(key(KeyCode::Home));
    let s = screen_at(&mut app, 60, 10);
    assert!(s.contains("1–7 of"), "{s}");
    app.on_key(key(KeyCode::PageDown));
    let s = screen_at(&mut app, 60, 10);
    assert!(s.contains("8–14 of"), "{s}");
    // Any other key closes.
    app.on_key(key(KeyCode::Char('x')));
    assert!(!app.help_open());
}

#[test]
fn help_uses_the_width_of_a_wide_terminal_without_cutting() {
    for loc in Locale::ALL {
        let mut app = App::new(loc, false);
        app.on_key(key(KeyCode::F(1)));
        let s = screen_at(&mut app, 200, 60);
        let top = s.lines().find(|r| r.contains('┌')).unwrap_or_default();
        let w = str_width(top.trim());
        assert!(w > 100, "{loc:?}: {w} columns wide:\n{s}");
        assert!(
            !s.contains('…'),
            "{loc:?}: nothing cut at 200 columns:\n{s}"
        );
    }
}

#[test]
fn long_paste_collapses_in_chat_and_expands_with_enter() {
    for loc in Locale::ALL {
        let l = Localizer::new(loc);
        let paste: String = (1..=60).map(|i| format!("pasted line {i}\n")).collect();
        let mut s = Script::new();
        s.route(false).user(1, &paste);
        let mut app = App::new(loc, false);
        for e in s.events {
            app.on_agent_event(e);
        }
        let screen = screen_at(&mut app, 80, 30);
        assert!(screen.contains("pasted line 3"), "{screen}");
        assert!(
            !screen.contains("pasted line 4"),
            "{loc:?} collapsed: {screen}"
        );
        let more = l.tra(
            "tui-user-collapsed",
            &[("hidden", crate::i18n::Arg::from(57usize))],
        );
        assert!(screen.contains(&more), "{more} in {screen}");
        // Select it in Chat and expand: the end of the paste is there.
        app.on_key(key(KeyCode::Tab));
        app.on_key(key(KeyCode::Up));
        app.on_key(key(KeyCode::Enter));
        let screen = screen_at(&mut app, 80, 30);
        assert!(screen.contains("▾"), "{screen}");
        let h = app.transcript().total_height();
        assert!(h > 60, "{loc:?}: expanded to {h} rows");
        // A short message is not collapsible.
        let mut s = Script::new();
        s.route(false).user(1, "short\nmessage");
        let mut app = App::new(loc, false);
        for e in s.events {
            app.on_agent_event(e);
        }
        let screen = screen_at(&mut app, 80, 30);
        assert!(
            screen.contains("message") && !screen.contains('▸'),
            "{screen}"
        );
    }
}

#[test]
fn queued_messages_show_dimmed_under_the_composer() {
    let mut app = App::new(Locale::EnUs, false);
    app.on_agent_event(AgentEvent::Phase(TurnPhase::Responding));
    for t in ["first queued message", "second one", "third", "fourth"] {
        for c in t.chars() {
            app.on_key(key(KeyCode::Char(c)));
        }
        app.on_key(key(KeyCode::Enter));
    }
    app.on_agent_event(AgentEvent::Queued(3));
    let s = screen_at(&mut app, 40, 20);
    assert!(!s.contains("first queued"), "no longer queued: {s}");
    assert!(s.contains("↳ queued: second one"), "{s}");
    assert!(s.contains("↳ queued: fourth"), "{s}");
    let rows: Vec<&str> = s.lines().collect();
    let composer = rows.iter().position(|r| r.starts_with('›')).unwrap_or(0);
    let queued = rows.iter().position(|r| r.contains("↳")).unwrap_or(0);
    assert!(queued > composer, "under the composer: {s}");
    app.on_agent_event(AgentEvent::Queued(0));
    let s = screen_at(&mut app, 40, 20);
    assert!(!s.contains('↳'), "{s}");
    // A long queued message is one truncated row.
    let mut app = App::new(Locale::ZhCn, false);
    app.on_agent_event(AgentEvent::Phase(TurnPhase::Responding));
    for c in "很长的排队消息 ".repeat(10).chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    app.on_key(key(KeyCode::Enter));
    app.on_agent_event(AgentEvent::Queued(1));
    let s = screen_at(&mut app, 40, 20);
    assert_eq!(s.matches("↳ 排队中").count(), 1, "{s:?}");
    assert!(s.contains('…'), "{s}");
}

#[test]
fn composer_wraps_at_word_boundaries_at_40_columns() {
    let mut app = App::new(Locale::EnUs, false);
    let text = "please refactor the configuration loader so that environment overrides win";
    for c in text.chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    let s = screen_at(&mut app, 40, 20);
    let rows: Vec<&str> = s
        .lines()
        .filter(|r| r.starts_with("› ") || r.starts_with("  "))
        .filter(|r| !r.trim().is_empty())
        .collect();
    let words: Vec<&str> = text.split(' ').collect();
    for r in &rows {
        for w in r.trim().split(' ').filter(|w| !w.is_empty()) {
            let w = w.trim_start_matches("›");
            assert!(
                w.is_empty() || words.contains(&w),
                "{w:?} is a broken word in {s}"
            );
        }
    }
    assert!(rows.len() >= 2, "{s}");
}

#[test]
fn scroll_keys_close_the_help_when_it_fits() {
    let mut app = App::new(Locale::EnUs, false);
    app.on_key(key(KeyCode::F(1)));
    let s = screen_at(&mut app, 200, 120);
    let bottom = s.lines().find(|l| l.contains('┘')).unwrap_or_default();
    assert!(!bottom.contains(" of "), "everything fits: {s}");
    app.on_key(key(KeyCode::Down));
    assert!(!app.help_open(), "↓ closes a help that does not scroll");
}

/// The agent's side after the user answered: back to running tools, then the result.
fn finish_call(app: &mut App, out: &str, failed: bool) {
    let mut s = Script::new();
    app.on_agent_event(AgentEvent::Phase(TurnPhase::RunningTools));
    let mut m = crate::session::event::Message::text(
        crate::session::event::Role::Tool,
        out,
        crate::session::event::Source::kind("tool"),
    );
    m.tool_call_id = Some("c1".into());
    m.is_error = failed.then_some(true);
    s.commit(EventKind::ToolResult(
        crate::session::event::ToolResultData {
            turn: 1,
            step: 1,
            message: m,
            error: failed.then(|| out.to_string()),
        },
    ));
    for e in s.events {
        app.on_agent_event(e);
    }
}

/// Rows of the screen that mention `needle`, top to bottom.
fn row_of(screen: &str, needle: &str) -> Option<usize> {
    screen.lines().position(|l| l.contains(needle))
}

#[test]
fn card_reads_waiting_then_allowed_then_result_in_order() {
    let mut app = approval_app(Locale::EnUs);
    // One card for the call: no separate approval cell below it.
    assert_eq!(app.transcript().len(), 2);
    let screen = draw(&mut app);
    assert!(screen.contains("run_cmd  waiting for you"), "{screen}");
    assert!(!screen.contains("running"), "{screen}");
    assert!(screen.contains("Waiting for you"), "status line: {screen}");
    app.on_key(key(KeyCode::Char('y')));
    finish_call(&mut app, "total 0\nfile-a", false);
    let screen = draw(&mut app);
    let tool = row_of(&screen, "Tool / run_cmd").unwrap();
    let args = row_of(&screen, "ls -la /tmp").unwrap();
    let allowed = row_of(&screen, "Allowed").unwrap();
    let result = row_of(&screen, "file-a").unwrap();
    assert!(
        tool < args && args < allowed && allowed < result,
        "tool {tool}, args {args}, allowed {allowed}, result {result}:\n{screen}"
    );
    assert!(screen.contains("run_cmd  done"), "{screen}");
}

#[test]
fn denied_card_says_denied_by_you_not_the_model_text() {
    for (loc, denied) in [(Locale::EnUs, "Deniedbyyou"), (Locale::ZhCn, "已被你拒绝")] {
        let mut app = approval_app(loc);
        app.on_key(key(KeyCode::Esc));
        assert!(matches!(
            app.take_commands().as_slice(),
            [AgentCommand::Approve {
                decision: ApprovalDecision::Deny,
                ..
            }]
        ));
        finish_call(
            &mut app,
            &crate::agent::tool_runner::denial_text("run_cmd"),
            true,
        );
        // Wide characters leave a blank cell behind them in the buffer.
        let screen = draw(&mut app).replace(' ', "");
        assert!(screen.contains(denied), "{screen}");
        assert!(!screen.contains("theuserdenied"), "{screen}");
    }
}

#[test]
fn resumed_denial_reads_denied_by_you() {
    let mut s = Script::new();
    s.route(false).user(1, "list files");
    s.tool(
        1,
        1,
        "c1",
        "run_cmd",
        "{}",
        Some((&crate::agent::tool_runner::denial_text("run_cmd"), true)),
    );
    let history: Vec<_> = s
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
        path: "p".into(),
        history,
    });
    let screen = draw(&mut app);
    assert!(screen.contains("run_cmd  not run"), "{screen}");
    assert!(screen.contains("Denied by you"), "{screen}");
    assert!(!screen.contains("the user denied"), "{screen}");
}

#[test]
fn clock_is_paused_while_waiting_for_you() {
    let mut app = App::new(Locale::EnUs, false);
    let t0 = Instant::now();
    app.set_now(t0);
    app.on_agent_event(AgentEvent::Phase(TurnPhase::RunningTools));
    app.set_now(t0 + Duration::from_secs(3));
    app.on_agent_event(AgentEvent::Phase(TurnPhase::AwaitingApproval));
    app.set_now(t0 + Duration::from_secs(60));
    assert_eq!(app.state.elapsed(), Duration::from_secs(3));
    let screen = draw(&mut app);
    assert!(screen.contains("Waiting for you 3s paused"), "{screen}");
    assert!(screen.contains("n / Esc deny, turn goes on"), "{screen}");
    assert!(!screen.contains("Esc cancels"), "{screen}");
    // Answered: the tools' clock goes on from where it stopped.
    app.on_agent_event(AgentEvent::Phase(TurnPhase::RunningTools));
    app.set_now(t0 + Duration::from_secs(62));
    assert_eq!(app.state.elapsed(), Duration::from_secs(5));
}

#[test]
fn approval_brings_chat_into_view_with_tool_and_arguments() {
    let mut app = App::new(Locale::EnUs, false);
    app.on_agent_event(AgentEvent::Phase(TurnPhase::RunningTools));
    draw(&mut app);
    // Tab, Tab: the Trajectory is the one pane shown at 80 columns.
    app.on_key(key(KeyCode::Tab));
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.focus(), Focus::Trajectory);
    assert!(!draw(&mut app).contains("Chat"));
    let mut s = Script::new();
    s.user(1, "list files");
    for k in 0..12 {
        s.tool(1, 1, &format!("a{k}"), "read", "{}", Some(("ok", false)));
    }
    s.tool(1, 2, "c1", "run_cmd", r#"{"command":"ls -la /tmp"}"#, None);
    s.tool(1, 2, "c2", "run_cmd", r#"{"command":"echo later"}"#, None);
    for k in 0..6 {
        s.tool(1, 2, &format!("z{k}"), "read", "{}", None);
    }
    s.push(AgentEvent::ApprovalRequest {
        call_id: "c1".into(),
        tool: "run_cmd".into(),
        arguments: r#"{"command":"ls -la /tmp"}"#.into(),
    });
    for e in s.events {
        app.on_agent_event(e);
    }
    assert_eq!(app.focus(), Focus::Chat);
    let screen = draw(&mut app);
    // The card (not just the tail of Chat) is on screen, and the prompt names the tool.
    let card = row_of(&screen, "run_cmd  waiting for you").expect(&screen);
    assert!(row_of(&screen, "ls -la /tmp").unwrap() > card, "{screen}");
    let prompt = screen.lines().rev().find(|l| l.contains("Allow run_cmd?"));
    assert!(
        prompt.is_some_and(|l| l.contains("ls -la /tmp")),
        "bottom pane: {screen}"
    );
    assert!(screen.contains("n deny, say why · Esc deny"), "{screen}");
}

#[test]
fn output_and_notices_bring_chat_into_view() {
    let mut app = App::new(Locale::EnUs, false);
    draw(&mut app);
    app.on_key(key(KeyCode::Tab));
    app.on_key(key(KeyCode::Tab));
    draw(&mut app);
    app.on_agent_event(AgentEvent::Output(vec![crate::i18n::Text::new(
        crate::agent::protocol::OUTPUT_VERBATIM,
        vec![("text", "tool list row".into())],
    )]));
    assert_eq!(app.focus(), Focus::Chat);
    assert!(draw(&mut app).contains("tool list row"));
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.focus(), Focus::Trajectory);
    draw(&mut app);
    app.on_agent_event(AgentEvent::Notice(Notice::new(
        NoticeLevel::Error,
        "tui-task-panicked",
        vec![("task", "x".into()), ("message", "boom".into())],
    )));
    assert!(draw(&mut app).contains("boom"));
}

#[test]
fn mcp_failure_shows_in_chat_once_and_brings_it_into_view() {
    let mut app = App::new(Locale::EnUs, false);
    draw(&mut app);
    app.on_key(key(KeyCode::Tab));
    app.on_key(key(KeyCode::Tab));
    draw(&mut app);
    assert_eq!(app.focus(), Focus::Trajectory);
    let mut s = Script::new();
    s.commit(EventKind::McpStatus(crate::session::event::McpStatus {
        server: "github".into(),
        state: McpState::Failed,
        tools: None,
        error: Some("exited with status 1".into()),
    }));
    // `/mcp connect github` says the same; Chat shows it once.
    s.push(AgentEvent::Notice(Notice::new(
        NoticeLevel::Warn,
        "mcp-connect-failed",
        vec![
            ("name", "github".into()),
            ("error", "exited with status 1".into()),
        ],
    )));
    for e in s.events {
        app.on_agent_event(e);
    }
    assert_eq!(app.focus(), Focus::Chat);
    let screen = draw(&mut app);
    assert_eq!(
        screen
            .matches("MCP server github could not be connected")
            .count(),
        1,
        "{screen}"
    );
}

#[test]
fn a_message_sent_from_the_trajectory_shows_chat_for_its_reply() {
    let mut app = App::new(Locale::EnUs, false);
    draw(&mut app);
    app.on_key(key(KeyCode::Tab));
    app.on_key(key(KeyCode::Tab));
    for c in "hi".chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    // Typing moved focus to the composer; the Trajectory is still the pane shown.
    assert!(!draw(&mut app).contains(" Chat"));
    app.on_key(key(KeyCode::Enter));
    assert!(draw(&mut app).contains(" Chat"));
}

#[test]
fn no_card_says_running_while_the_step_waits_for_you() {
    let mut s = Script::new();
    s.route(false).user(1, "two calls");
    s.push(AgentEvent::Phase(TurnPhase::RunningTools));
    s.tool(1, 1, "c1", "run_cmd", r#"{"command":"one"}"#, None);
    s.tool(1, 1, "c2", "read", r#"{"path":"two"}"#, None);
    s.push(AgentEvent::Phase(TurnPhase::AwaitingApproval));
    s.push(AgentEvent::ApprovalRequest {
        call_id: "c1".into(),
        tool: "run_cmd".into(),
        arguments: r#"{"command":"one"}"#.into(),
    });
    let mut app = App::new(Locale::EnUs, false);
    for e in s.events {
        app.on_agent_event(e);
    }
    let screen = draw(&mut app);
    assert!(screen.contains("run_cmd  waiting for you"), "{screen}");
    assert!(screen.contains("read  queued"), "{screen}");
    assert!(!screen.contains("running"), "{screen}");
    app.on_key(key(KeyCode::Char('y')));
    app.on_agent_event(AgentEvent::Phase(TurnPhase::RunningTools));
    let screen = draw(&mut app);
    assert!(screen.contains("read  running"), "{screen}");
}

fn ctl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn type_text(app: &mut App, s: &str) {
    for c in s.chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
}

#[test]
fn ctrl_r_keys_search_show_the_line_and_enter_or_esc_leave() {
    for loc in Locale::ALL {
        let mut app = App::new(loc, false);
        app.bottom
            .composer
            .add_older_history(vec!["Refactor the parser".into(), "write docs".into()]);
        type_text(&mut app, "draft");
        app.on_key(ctl('r'));
        type_text(&mut app, "PARS");
        let s = screen_at(&mut app, 80, 24);
        let label = if loc == Locale::EnUs {
            "(reverse-i-search) `PARS`: Refactor the parser"
        } else {
            "（反向搜索）“PARS”： Refactor the parser"
        };
        assert!(s.contains(label), "{s}");
        assert_eq!(app.composer().text(), "draft");
        // Esc: the draft as it was, no search line.
        app.on_key(key(KeyCode::Esc));
        let s = screen_at(&mut app, 80, 24);
        assert!(s.contains("› draft"), "{s}");
        assert!(!s.contains("PARS"), "{s}");
        // Enter: the match in the composer, nothing sent.
        app.on_key(ctl('r'));
        type_text(&mut app, "docs");
        app.on_key(key(KeyCode::Enter));
        assert_eq!(app.composer().text(), "write docs");
        assert!(app.take_commands().is_empty());
    }
}

// /copy, F3 mouse capture, turn-end notification.

fn two_replies_app(locale: Locale) -> App {
    let mut s = Script::new();
    s.route(false).user(1, "q1");
    s.assistant(1, 1, "", "First *reply*", &[]);
    s.user(2, "q2");
    s.assistant(2, 1, "", "looking", &[("c1", "read_file", "{}")]);
    s.assistant(2, 2, "", "Second reply: `code`", &[]);
    let mut app = App::new(locale, false);
    for e in s.events {
        app.on_agent_event(e);
    }
    app
}

fn type_and_send(app: &mut App, text: &str) {
    for c in text.chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    app.on_key(key(KeyCode::Enter));
}

#[test]
fn copy_puts_the_nth_last_reply_on_the_clipboard_with_a_transient_hint() {
    let mut app = two_replies_app(Locale::EnUs);
    let cells = app.transcript().cells().len();
    type_and_send(&mut app, "/copy");
    // Nothing goes to the agent, nothing into the transcript.
    assert!(app.take_commands().is_empty());
    assert_eq!(app.transcript().cells().len(), cells);
    assert_eq!(
        app.take_term_requests(),
        vec![TermRequest::Escape(osc::osc52("Second reply: `code`"))]
    );
    assert_eq!(app.hint(), Some("Copied reply #1 (20 characters)"));
    assert!(draw(&mut app).contains("Copied reply #1 (20 characters)"));
    assert!(app.animating(), "the hint goes away with time");
    type_and_send(&mut app, "/copy 2");
    assert_eq!(
        app.take_term_requests(),
        vec![TermRequest::Escape(osc::osc52("First *reply*"))]
    );
    assert_eq!(app.hint(), Some("Copied reply #2 (13 characters)"));
    // The hint is transient.
    let later = app.state.now + HINT_WINDOW;
    app.set_now(later);
    assert_eq!(app.hint(), None);
    assert!(!app.animating());
    assert!(!draw(&mut app).contains("Copied reply"));
}

#[test]
fn copy_with_nothing_to_copy_says_so_in_both_locales() {
    for (locale, none, third, usage) in [
        (
            Locale::EnUs,
            "Nothing to copy yet",
            "There is no reply #3",
            "Usage: /copy [N]",
        ),
        (
            Locale::ZhCn,
            "还没有可复制的内容",
            "没有倒数第 3 条回复",
            "用法：/copy [N]",
        ),
    ] {
        let mut app = App::new(locale, false);
        type_and_send(&mut app, "/copy");
        assert!(app.take_term_requests().is_empty());
        assert!(app.hint().unwrap().contains(none), "{:?}", app.hint());
        let mut app = two_replies_app(locale);
        type_and_send(&mut app, "/copy 3");
        assert!(app.take_term_requests().is_empty());
        assert!(app.hint().unwrap().contains(third), "{:?}", app.hint());
        type_and_send(&mut app, "/copy x");
        assert!(app.take_term_requests().is_empty());
        assert!(app.hint().unwrap().contains(usage), "{:?}", app.hint());
        assert!(app.take_commands().is_empty());
    }
}

#[test]
fn ctrl_g_asks_for_the_editor_and_a_failure_keeps_the_draft() {
    let mut app = App::new(Locale::ZhCn, false);
    type_text(&mut app, "draft");
    assert_eq!(app.take_editor_request(), None);
    app.on_key(ctl('g'));
    assert_eq!(app.take_editor_request().as_deref(), Some("draft"));
    assert_eq!(app.take_editor_request(), None, "asked once");
    app.editor_finished(Err(crate::ui::editor::EditorError::Failed(
        "nano".into(),
        "exit status: 1".into(),
    )));
    assert_eq!(app.composer().text(), "draft");
    let s = screen_at(&mut app, 120, 30);
    assert!(s.contains("编辑器“nano”执行失败"), "{s}");
    app.editor_finished(Ok("edited".into()));
    assert_eq!(app.composer().text(), "edited");
}

/// The footer row without spaces (a wide character's second cell is a space).
fn footer_row(app: &mut App) -> String {
    draw(app).lines().last().unwrap().replace(' ', "")
}

#[test]
fn the_mouse_is_free_by_default_and_f3_captures_it_and_releases_it() {
    for (locale, scroll, select) in [
        (Locale::EnUs, "mouse: scroll", "mouse: select"),
        (Locale::ZhCn, "鼠标：滚动", "鼠标：选择"),
    ] {
        let mut app = two_replies_app(locale);
        assert!(
            !app.mouse_capture(),
            "the terminal keeps the mouse by default"
        );
        assert!(footer_row(&mut app).contains(&select.replace(' ', "")));
        app.on_key(key(KeyCode::F(3)));
        assert!(app.mouse_capture());
        assert_eq!(
            app.take_term_requests(),
            vec![TermRequest::MouseCapture(true)]
        );
        assert!(footer_row(&mut app).contains(&scroll.replace(' ', "")));
        app.on_key(key(KeyCode::F(3)));
        assert_eq!(
            app.take_term_requests(),
            vec![TermRequest::MouseCapture(false)]
        );
        assert!(footer_row(&mut app).contains(&select.replace(' ', "")));
    }
}

#[test]
fn notify_only_when_enabled_and_unfocused() {
    let finished = |app: &mut App| {
        app.on_agent_event(AgentEvent::Phase(TurnPhase::Idle));
        app.on_agent_event(AgentEvent::TurnFinished);
        app.take_term_requests()
    };
    // Off by default, even unfocused.
    let mut app = two_replies_app(Locale::EnUs);
    app.on_focus(false);
    assert!(finished(&mut app).is_empty());
    // On, but focused: no notification.
    app.set_notify(true);
    app.on_focus(true);
    assert!(finished(&mut app).is_empty());
    // On and unfocused: one OSC 9 with the first words of the reply.
    app.on_focus(false);
    assert_eq!(
        finished(&mut app),
        vec![TermRequest::Escape(
            "\x1b]9;deepterm: turn finished — Second reply: code\x07".into()
        )]
    );
    // A finished command (not a turn) does not notify.
    app.on_agent_event(AgentEvent::CommandFinished);
    assert!(app.take_term_requests().is_empty());
    let mut zh = App::new(Locale::ZhCn, false);
    zh.set_notify(true);
    zh.on_focus(false);
    assert_eq!(
        finished(&mut zh),
        vec![TermRequest::Escape(
            "\x1b]9;deepterm：本轮已完成\x07".into()
        )]
    );
}

#[test]
fn copy_works_while_a_turn_runs_and_is_never_queued() {
    let mut app = two_replies_app(Locale::EnUs);
    app.on_agent_event(AgentEvent::Phase(TurnPhase::Waiting));
    type_and_send(&mut app, "next question");
    app.on_agent_event(AgentEvent::Queued(1));
    type_and_send(&mut app, "/copy");
    let cmds = app.take_commands();
    assert_eq!(cmds.len(), 1, "{cmds:?}");
    assert!(matches!(&cmds[0], AgentCommand::Submit(t) if t == "next question"));
    assert_eq!(app.take_term_requests().len(), 1);
    let screen = draw(&mut app);
    assert!(screen.contains("queued: next question"), "{screen}");
    assert!(!screen.contains("queued: /copy"), "{screen}");
}
