//! Unit tests of the App state machine: node selection, approvals, quit, scrolling.
use crate::agent::protocol::{ApprovalDecision, Notice, NoticeLevel};
use crate::ui::sample::Script;
use crossterm::event::{KeyCode, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::*;

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
fn up_down_select_only_expandable_nodes_and_enter_toggles() {
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
fn alt_t_toggles_the_most_recent_tool_change_node_from_the_composer() {
    let mut app = nodes_app();
    app.on_key(KeyEvent::new(KeyCode::Char('t'), KeyModifiers::ALT));
    assert!(expanded(&app, 3));
    assert!(!expanded(&app, 1));
    assert_eq!(app.focus(), Focus::Composer);
    app.on_key(KeyEvent::new(KeyCode::Char('t'), KeyModifiers::ALT));
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
    // What the loop is asked for: commands, terminal requests, the editor (Ctrl+G).
    let events = app.take_events();
    format!(
        "{screen}\n{events:?}\n{:?} {} {:?} {:?} {:?} {} {} {:?} {:?}",
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
                    workspace: None,
                    forked_from: None,
                    messages_partial: false,
                })
                .collect();
            app.on_agent_event(AgentEvent::Sessions {
                listing: 1,
                current: "now".into(),
                sessions,
                done: true,
            });
            k(&mut app, KeyCode::Char('s'));
            k(&mut app, KeyCode::Down);
        }
        Context::DiffOverlay => {
            // A diff longer than the screen, scrolled into its middle.
            let diff: String = (0..80).map(|i| format!("+line {i}\n")).collect();
            app.on_agent_event(AgentEvent::Diff(crate::agent::protocol::DiffView {
                title: crate::i18n::Text::new("diff-session-title", vec![("count", 1usize.into())]),
                files: vec![crate::agent::protocol::DiffFile::Text {
                    path: "a.txt".into(),
                    diff,
                }],
            }));
            screen_at(&mut app, 120, 30);
            k(&mut app, KeyCode::PageDown);
        }
        Context::TranscriptOverlay => {
            app.on_key(KeyEvent::new(KeyCode::Char('t'), KeyModifiers::CONTROL));
            screen_at(&mut app, 120, 30);
            k(&mut app, KeyCode::PageUp);
        }
        Context::ElicitOverlay => {
            app.on_agent_event(AgentEvent::Elicitation(
                crate::tools::mcp::elicit::ElicitationRequest {
                    id: 1,
                    server: "ev".into(),
                    message: "Your name?".into(),
                    kind: crate::tools::mcp::elicit::ElicitKind::Form {
                        fields: vec![crate::tools::mcp::elicit::Field {
                            name: "name".into(),
                            label: "Name".into(),
                            description: None,
                            required: true,
                            input: crate::tools::mcp::elicit::Input::Text {
                                min_len: None,
                                max_len: None,
                                format: None,
                                default: None,
                            },
                        }],
                    },
                },
            ));
            k(&mut app, KeyCode::Char('a'));
        }
        Context::RewindPicker => {
            let prompts = (1..=3)
                .map(|n| crate::agent::protocol::PromptChoice {
                    n,
                    prompt: format!("prompt {n}"),
                    changed_files: n == 2,
                })
                .collect();
            app.on_agent_event(AgentEvent::RewindChoices(prompts));
            k(&mut app, KeyCode::Down);
        }
    }
    screen_at(&mut app, 120, 30);
    app.take_commands();
    app
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

/// What the composer sent: text as typed, a typed command as the name it runs.
fn submitted(app: &mut App) -> Vec<String> {
    app.take_commands()
        .into_iter()
        .filter_map(|c| match c {
            AgentCommand::Submit(t) => Some(t),
            AgentCommand::Run(cmd) => Some(cmd.id().spec().name.to_string()),
            _ => None,
        })
        .collect()
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
            sandbox_retry: None,
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

fn ctl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn type_text(app: &mut App, s: &str) {
    for c in s.chars() {
        app.on_key(key(KeyCode::Char(c)));
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

/// The footer row without spaces (a wide character's second cell is a space).
fn footer_row(app: &mut App) -> String {
    draw(app).lines().last().unwrap().replace(' ', "")
}

#[path = "approval_card_tests.rs"]
mod approval_cards;
#[path = "copy_mouse_tests.rs"]
mod copy_mouse;
#[path = "keymap_tests.rs"]
mod keymap;
#[path = "popup_help_tests.rs"]
mod popup_help;
#[path = "retry_card_tests.rs"]
mod retry_cards;
#[path = "rewind_tests.rs"]
mod rewind;

#[path = "day_two_tests.rs"]
mod day_two_tests;
