//! App-level tests of the composer's submit and cancel paths (§14.5): Ctrl+C then ↑
//! recovers a draft, Ctrl+D quits on an empty composer, an unknown command keeps the
//! draft, a pasted `/…` is sent as a message, a prompt cancelled before any reply comes
//! back, the readline keys wait while an approval shows, and the key help lists them.
use super::*;
use crate::agent::command_spec::{Command, SystemAction};
use crate::agent::protocol::ApprovalDecision;
use crate::llm::types::StreamEvent;
use crate::session::event::{TurnEnd, TurnOutcome};
use crate::ui::sample::Script;
use crossterm::event::{KeyCode, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ctl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn type_text(app: &mut App, s: &str) {
    for c in s.chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| app.render(f)).unwrap();
    crate::ui::snapshot::symbols(t.backend().buffer())
}

fn feed(app: &mut App, s: Script) {
    for e in s.events {
        app.on_agent_event(e);
    }
}

#[test]
fn ctrl_c_clears_the_draft_and_arrow_up_brings_it_back_before_the_history() {
    let mut app = App::new(Locale::EnUs, false);
    type_text(&mut app, "an older message");
    app.on_key(key(KeyCode::Enter));
    app.take_commands();
    type_text(&mut app, "a long draft I did not mean to lose");
    app.on_key(ctl('c'));
    assert!(app.composer().is_empty());
    assert!(!app.should_quit());
    app.on_key(key(KeyCode::Up));
    assert_eq!(app.composer().text(), "a long draft I did not mean to lose");
    app.on_key(key(KeyCode::Up));
    assert_eq!(app.composer().text(), "an older message");
    app.on_key(key(KeyCode::Down));
    assert_eq!(app.composer().text(), "a long draft I did not mean to lose");
    // The Ctrl+C that cleared the draft did not arm quitting: two more are needed.
    app.on_key(ctl('c'));
    app.on_key(ctl('c'));
    assert!(!app.should_quit());
    app.on_key(ctl('c'));
    assert!(app.should_quit());
}

fn alt(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT)
}

/// The composer's text with `|` at the caret.
fn caret_text(app: &App) -> String {
    let c = app.composer();
    format!("{}|{}", &c.text()[..c.caret()], &c.text()[c.caret()..])
}

#[test]
fn the_readline_keys_edit_a_wrapped_draft_through_the_keymap() {
    let mut app = App::new(Locale::EnUs, false);
    type_text(&mut app, "fix the parser so that it keeps 你好，世界 whole");
    let s = screen(&mut app, 24, 20);
    assert!(
        s.contains("› fix the parser so"),
        "wrapped at 24 columns: {s}"
    );
    app.on_key(ctl('a'));
    assert_eq!(
        caret_text(&app),
        "|fix the parser so that it keeps 你好，世界 whole"
    );
    app.on_key(alt('f'));
    app.on_key(KeyEvent::new(KeyCode::Right, KeyModifiers::CONTROL));
    assert_eq!(
        caret_text(&app),
        "fix the| parser so that it keeps 你好，世界 whole"
    );
    app.on_key(ctl('k'));
    assert_eq!(caret_text(&app), "fix the|");
    app.on_key(ctl('y'));
    app.on_key(alt('b'));
    app.on_key(KeyEvent::new(KeyCode::Left, KeyModifiers::CONTROL));
    assert_eq!(
        caret_text(&app),
        "fix the parser so that it keeps 你好，|世界 whole"
    );
    app.on_key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::ALT));
    assert_eq!(
        caret_text(&app),
        "fix the parser so that it keeps |世界 whole"
    );
    app.on_key(ctl('w'));
    assert_eq!(caret_text(&app), "fix the parser so that it |世界 whole");
    app.on_key(ctl('e'));
    app.on_key(ctl('u'));
    assert_eq!(caret_text(&app), "|");
    app.on_key(ctl('y'));
    assert_eq!(caret_text(&app), "fix the parser so that it 世界 whole|");
}

#[test]
fn ctrl_d_quits_on_an_empty_composer_and_deletes_after_the_caret_otherwise() {
    let mut app = App::new(Locale::EnUs, false);
    type_text(&mut app, "abc");
    app.on_key(key(KeyCode::Home));
    app.on_key(ctl('d'));
    assert_eq!(app.composer().text(), "bc");
    assert!(!app.should_quit());
    app.on_key(ctl('d'));
    app.on_key(ctl('d'));
    assert!(app.composer().is_empty() && !app.should_quit());
    app.on_key(ctl('d'));
    assert!(app.should_quit());
    assert_eq!(app.take_commands(), vec![AgentCommand::Shutdown]);
    // From a focused pane too, and while a turn runs (the turn is left as the log has it).
    let mut app = App::new(Locale::EnUs, false);
    app.on_agent_event(AgentEvent::Phase(TurnPhase::Responding));
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.focus(), Focus::Chat);
    app.on_key(ctl('d'));
    assert!(app.should_quit());
}

#[test]
fn an_unknown_command_keeps_the_draft_in_the_composer_with_the_warning() {
    for (loc, warning) in [
        (Locale::EnUs, "Unknown command /usr/lib/python3/foo.py:12:"),
        (Locale::ZhCn, "未知命令 /usr/lib/python3/foo.py:12:"),
    ] {
        let mut app = App::new(loc, false);
        type_text(&mut app, "/usr/lib/python3/foo.py:12: in bar");
        app.on_key(key(KeyCode::Enter));
        assert!(app.take_commands().is_empty(), "nothing is sent");
        assert_eq!(
            app.composer().text(),
            "/usr/lib/python3/foo.py:12: in bar",
            "the draft stays"
        );
        let s = screen(&mut app, 120, 24);
        assert!(s.contains(warning), "{s}");
        // Corrected, it runs.
        app.on_key(ctl('u'));
        type_text(&mut app, "/tools");
        app.on_key(key(KeyCode::Enter));
        assert_eq!(app.take_commands(), vec![AgentCommand::Run(Command::Tools)]);
    }
}

#[test]
fn a_pasted_trace_that_starts_with_a_slash_is_sent_as_a_message() {
    let trace = "/usr/lib/python3/foo.py:12: in bar\n    raise ValueError(x)";
    let mut app = App::new(Locale::EnUs, false);
    app.on_paste(trace);
    let s = screen(&mut app, 80, 24);
    assert!(!s.contains("/tools"), "no slash popup over a paste: {s}");
    app.on_key(key(KeyCode::Enter));
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Message(trace.into())]
    );
    assert!(app.composer().is_empty());
    // A long one (a placeholder in the composer) is sent whole, as a message too.
    let long: String = (0..40)
        .map(|i| format!("/usr/lib/python3/m{i}.py:{i}: in f\n"))
        .collect();
    app.on_paste(&long);
    assert!(app.composer().text().starts_with("[Pasted 40 lines]"));
    app.on_key(key(KeyCode::Enter));
    assert_eq!(app.take_commands(), vec![AgentCommand::Message(long)]);
    // A `/` typed before pasted arguments is still a command.
    type_text(&mut app, "/system ");
    app.on_paste("be brief");
    app.on_key(key(KeyCode::Enter));
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Run(Command::System {
            action: SystemAction::Set {
                text: "be brief".into()
            }
        })]
    );
}

/// A turn for `prompt` that the user cancelled; `reply` streams some text first.
fn cancelled_turn(prompt: &str, reply: Option<&str>) -> Script {
    let mut s = Script::new();
    s.route(false);
    s.push(AgentEvent::Phase(TurnPhase::Waiting));
    s.user(1, prompt);
    if let Some(r) = reply {
        s.push(AgentEvent::Stream {
            turn: 1,
            step: 1,
            event: StreamEvent::TextDelta(r.into()),
        });
    }
    s.commit(EventKind::TurnEnd(TurnEnd {
        turn: 1,
        outcome: Some(TurnOutcome::Cancelled),
    }));
    s.push(AgentEvent::Phase(TurnPhase::Idle));
    s
}

#[test]
fn a_prompt_cancelled_before_any_reply_comes_back_into_the_composer() {
    let mut app = App::new(Locale::EnUs, false);
    type_text(&mut app, "summarize the log");
    app.on_key(key(KeyCode::Enter));
    assert!(app.composer().is_empty());
    app.on_key(key(KeyCode::Esc));
    feed(&mut app, cancelled_turn("summarize the log", None));
    assert_eq!(app.composer().text(), "summarize the log");
    let s = screen(&mut app, 80, 24);
    assert!(s.contains("› summarize the log"), "{s}");
    // Once the model has answered something, the prompt stays where it is.
    let mut app = App::new(Locale::EnUs, false);
    feed(
        &mut app,
        cancelled_turn("summarize the log", Some("The log")),
    );
    assert!(app.composer().is_empty());
    // A draft typed meanwhile is never replaced.
    let mut app = App::new(Locale::EnUs, false);
    type_text(&mut app, "summarize the log");
    app.on_key(key(KeyCode::Enter));
    type_text(&mut app, "next idea");
    feed(&mut app, cancelled_turn("summarize the log", None));
    assert_eq!(app.composer().text(), "next idea");
    // A turn that completed gives nothing back.
    let mut app = App::new(Locale::EnUs, false);
    let mut s = Script::new();
    s.route(false).user(1, "hi");
    s.assistant(1, 1, "", "hello", &[]);
    s.commit(EventKind::TurnEnd(TurnEnd {
        turn: 1,
        outcome: Some(TurnOutcome::Completed),
    }));
    feed(&mut app, s);
    assert!(app.composer().is_empty());
}

#[test]
fn readline_keys_neither_answer_nor_edit_while_an_approval_shows() {
    let mut app = App::new(Locale::EnUs, false);
    type_text(&mut app, "hidden draft");
    app.on_agent_event(AgentEvent::ApprovalRequest {
        call_id: "c1".into(),
        tool: "run_cmd".into(),
        arguments: "{}".into(),
    });
    for k in [ctl('y'), ctl('k'), ctl('u'), ctl('w'), ctl('a'), ctl('e')] {
        app.on_key(k);
    }
    assert!(app.take_commands().is_empty(), "Ctrl+Y is not `y`");
    assert_eq!(app.composer().text(), "hidden draft");
    app.on_key(key(KeyCode::Char('y')));
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Approve {
            call_id: "c1".into(),
            decision: ApprovalDecision::Allow
        }]
    );
    // With the approval answered, the keys edit again.
    app.on_key(ctl('w'));
    assert_eq!(app.composer().text(), "hidden ");
}

#[test]
fn the_key_help_lists_the_readline_keys_in_both_locales() {
    for (loc, rows) in [
        (
            Locale::EnUs,
            [
                ("Ctrl+A / Ctrl+E", "Start / end of the line"),
                (
                    "Alt+B / Ctrl+← / Alt+F / Ctrl+→",
                    "Move one word left / right",
                ),
                ("Ctrl+W / Alt+Backspace", "Delete the word before the caret"),
                ("Ctrl+K / Ctrl+U", "Cut to the end / start of the line"),
                ("Ctrl+Y", "Paste back the text cut last"),
                ("Ctrl+D", "on an empty composer, quit"),
            ],
        ),
        (
            Locale::ZhCn,
            [
                ("Ctrl+A / Ctrl+E", "移到行首 / 行尾"),
                ("Alt+B / Ctrl+← / Alt+F / Ctrl+→", "向左 / 向右移动一个词"),
                ("Ctrl+W / Alt+Backspace", "删除光标前的一个词"),
                ("Ctrl+K / Ctrl+U", "剪切到行尾 / 行首"),
                ("Ctrl+Y", "粘贴最近剪切的文字"),
                ("Ctrl+D", "输入框为空时退出"),
            ],
        ),
    ] {
        let mut app = App::new(loc, false);
        app.on_key(key(KeyCode::F(1)));
        let s = screen(&mut app, 160, 80);
        for (keys, text) in rows {
            assert!(
                s.lines().any(|l| l.contains(keys) && l.contains(text)),
                "{keys} — {text} in:\n{s}"
            );
        }
    }
}

#[test]
fn a_paste_while_an_mcp_form_is_open_fills_the_form_not_the_draft() {
    use crate::tools::mcp::elicit::{ElicitAnswer, ElicitKind, ElicitationRequest, Field, Input};
    let mut app = App::new(Locale::EnUs, false);
    type_text(&mut app, "my draft");
    app.on_agent_event(AgentEvent::Elicitation(ElicitationRequest {
        id: 3,
        server: "ev".into(),
        message: "Code?".into(),
        kind: ElicitKind::Form {
            fields: vec![Field {
                name: "code".into(),
                label: "Code".into(),
                description: None,
                required: true,
                input: Input::Text {
                    min_len: None,
                    max_len: None,
                    format: None,
                    default: None,
                },
            }],
        },
    }));
    app.on_paste("XY-42");
    assert_eq!(app.composer().text(), "my draft");
    app.on_key(key(KeyCode::Enter));
    let mut content = serde_json::Map::new();
    content.insert("code".into(), serde_json::json!("XY-42"));
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Elicit {
            id: 3,
            answer: ElicitAnswer::Accept(content)
        }]
    );
}
