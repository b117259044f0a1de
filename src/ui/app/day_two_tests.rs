//! What a new user hit on day two, in the App: `/clear` says what it did, the key help
//! fits 80 columns and mentions the wheel only with the mouse captured, Chat keeps the
//! order things happened in (live and on resume), and the reasoning label survives a
//! rewind (SPEC §14.3–§14.5).

use super::*;
use crate::session::checkpoint_event::{CheckpointTaken, RewindScope, SessionRewind};
use crate::session::event::{
    AssistantMessageData, Block, Event, Message, Role, Source, StepRef, Timing, ToolResultData,
};
use std::sync::Arc;

fn committed(s: &Script) -> Vec<Arc<Event>> {
    s.events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Committed(e) => Some(e.clone()),
            _ => None,
        })
        .collect()
}

fn app_with(events: &[AgentEvent], locale: Locale) -> App {
    let mut app = App::new(locale, false);
    for e in events {
        app.on_agent_event(e.clone());
    }
    app
}

#[test]
fn clear_says_the_session_goes_on_instead_of_no_messages_yet() {
    for locale in Locale::ALL {
        let mut app = two_replies_app(locale);
        app.on_agent_event(AgentEvent::ClearScreen);
        let s = screen_at(&mut app, 80, 24).replace(' ', "");
        let l = Localizer::new(locale);
        let cleared: String = l.tr("tui-chat-cleared").chars().take(12).collect();
        let empty: String = l.tr("tui-chat-empty").chars().take(12).collect();
        assert!(s.contains(&cleared.replace(' ', "")), "{locale:?}: {s}");
        assert!(!s.contains(&empty.replace(' ', "")), "{locale:?}: {s}");
    }
    // A new session is empty again.
    let mut app = two_replies_app(Locale::EnUs);
    app.on_agent_event(AgentEvent::ClearScreen);
    app.on_agent_event(AgentEvent::SessionOpened {
        id: "new".into(),
        path: String::new(),
        history: vec![],
    });
    assert!(screen_at(&mut app, 80, 24).contains("No messages yet"));
}

fn help_screen(app: &mut App, w: u16, h: u16) -> String {
    app.on_key(key(KeyCode::Char('?')));
    let s = screen_at(app, w, h);
    app.on_key(key(KeyCode::Esc));
    s
}

#[test]
fn key_help_mentions_the_mouse_wheel_only_while_the_mouse_is_captured() {
    let mut app = App::new(Locale::EnUs, false);
    assert!(!app.mouse_capture(), "released by default");
    let wheel = Localizer::new(Locale::EnUs).tr("tui-help-mouse");
    let s = help_screen(&mut app, 160, 200);
    assert!(s.contains("F3"), "{s}");
    assert!(!s.contains(&wheel), "{s}");
    app.on_key(key(KeyCode::F(3)));
    assert!(app.mouse_capture());
    let s = help_screen(&mut app, 160, 200);
    assert!(s.contains(&wheel), "{s}");
}

#[test]
fn key_help_at_80_columns_shows_every_key_name_whole_in_both_languages() {
    for locale in Locale::ALL {
        let l = Localizer::new(locale);
        let mut app = App::new(locale, false);
        let s = help_screen(&mut app, 80, 300).replace(' ', "");
        for (name, _) in crate::ui::help::rows(l, false, &[]) {
            if name.is_empty() {
                continue;
            }
            assert!(
                s.contains(&name.replace(' ', "")),
                "{locale:?}: {name:?} is cut at 80 columns:\n{s}"
            );
        }
    }
}

/// A turn that edits a file: the call, the checkpoint taken before it ran, its result.
fn edit_turn() -> Script {
    let mut s = Script::new();
    s.route(false).user(1, "edit the file");
    s.assistant(
        1,
        1,
        "",
        "",
        &[("c1", "write_file", r#"{"path":"a.txt","content":"x"}"#)],
    );
    s.tool(
        1,
        1,
        "c1",
        "write_file",
        r#"{"path":"a.txt","content":"x"}"#,
        None,
    );
    s.commit(EventKind::CheckpointTaken(CheckpointTaken {
        turn: 1,
        checkpoint: "c0".into(),
        files: 2,
        skipped: vec![],
    }));
    let mut m = Message::text(
        Role::Tool,
        "Changed 1 file:\nadded a.txt (+1 -0)\n",
        Source::kind("tool"),
    );
    m.tool_call_id = Some("c1".into());
    s.commit(EventKind::ToolResult(ToolResultData {
        turn: 1,
        step: 1,
        message: m,
        error: None,
        sandbox_retry: None,
    }));
    s.assistant(1, 2, "", "done", &[]);
    s
}

/// The kinds of Chat's cells, in order, as short names.
fn order(app: &App) -> Vec<&'static str> {
    app.transcript()
        .cells()
        .iter()
        .filter_map(|c| match &c.kind {
            CellKind::User(_) => Some("user"),
            CellKind::Checkpoint(_) => Some("checkpoint"),
            CellKind::Tool(_) => Some("tool"),
            CellKind::Notice(_) => Some("notice"),
            _ => None,
        })
        .collect()
}

#[test]
fn the_checkpoint_node_comes_before_the_edit_it_preceded_live_and_on_resume() {
    let s = edit_turn();
    let mut live = app_with(&s.events, Locale::EnUs);
    assert_eq!(order(&live), vec!["user", "checkpoint", "tool"]);
    let text = screen_at(&mut live, 120, 30);
    let node = text
        .find("◇ Checkpoint before prompt 1")
        .expect("node shown");
    let card = text.find("Added a.txt").expect("card shown");
    assert!(node < card, "{text}");
    let mut resumed = App::new(Locale::EnUs, false);
    resumed.on_agent_event(AgentEvent::SessionOpened {
        id: "s".into(),
        path: String::new(),
        history: committed(&s),
    });
    assert_eq!(order(&resumed), vec!["user", "checkpoint", "tool"]);
}

#[test]
fn the_reasoning_label_keeps_its_thinking_time_after_a_rewind_refolds_chat() {
    let mut s = Script::new();
    s.route(false).user(1, "first");
    s.stream(1, 1, "let me think\n", "");
    s.stream(1, 1, "", "Answer one");
    s.commit(EventKind::StepStart(StepRef { turn: 1, step: 1 }));
    s.commit(EventKind::AssistantMessage(AssistantMessageData {
        turn: 1,
        step: 1,
        message: Message::new(
            Role::Assistant,
            vec![
                Block::Reasoning {
                    text: "let me think\n".into(),
                    signature: None,
                },
                Block::text("Answer one"),
            ],
            Source::kind("model"),
        ),
        usage: None,
        timing: Some(Timing {
            ttft_ms: Some(100),
            duration_ms: 4000,
            thinking_ms: Some(3200),
        }),
        interrupted: None,
    }));
    s.user(2, "second");
    s.assistant(2, 1, "", "Answer two", &[]);
    let mut app = app_with(&s.events, Locale::EnUs);
    let before = screen_at(&mut app, 120, 30);
    assert!(before.contains("▸ Thought for 3 s"), "{before}");
    // A rewind to prompt 2 refolds Chat from the log.
    let mut events = committed(&s);
    let to = events
        .iter()
        .find(|e| matches!(&e.kind, EventKind::TurnStart(t) if t.turn == 2))
        .unwrap()
        .seq;
    let rewind = Arc::new(Event {
        kind: EventKind::SessionRewind(SessionRewind {
            to_seq: to,
            scope: RewindScope::Conversation,
            restored: vec![],
        }),
        seq: events.last().unwrap().seq + 1,
        time: "2026-01-01T00:00:00Z".into(),
        surface_op: None,
        source_event_seqs: None,
    });
    events.push(rewind.clone());
    app.on_agent_event(AgentEvent::Committed(rewind));
    app.on_agent_event(AgentEvent::Rewound {
        history: events,
        prompt: "second".into(),
    });
    let after = screen_at(&mut app, 120, 30);
    assert!(after.contains("▸ Thought for 3 s"), "{after}");
    assert!(!after.contains("Thinking ("), "{after}");
}

#[test]
fn up_in_chat_stops_only_where_enter_changes_something() {
    let mut s = Script::new();
    s.route(false).user(1, "list");
    // A one-line output: its card shows everything already, so Enter would do nothing.
    s.tool(
        1,
        1,
        "c1",
        "shell",
        r#"{"command":"ls"}"#,
        Some((
            "exit status 0\nduration: 0.010 s\noutput:\ndemo.txt\n",
            false,
        )),
    );
    s.commit(EventKind::CheckpointTaken(CheckpointTaken {
        turn: 1,
        checkpoint: "c0".into(),
        files: 1,
        skipped: vec![],
    }));
    s.assistant(1, 2, "", "done", &[]);
    let mut app = app_with(&s.events, Locale::EnUs);
    screen_at(&mut app, 120, 30);
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.model.focus, Focus::Chat);
    app.on_key(key(KeyCode::Up));
    assert_eq!(app.chat.selected(), None, "nothing here expands");
    // A long output expands: ↑ stops on its card, and Enter shows the rest.
    let out: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    let mut s2 = Script::new();
    s2.user(2, "more");
    s2.tool(
        2,
        1,
        "c2",
        "shell",
        r#"{"command":"seq 20"}"#,
        Some((
            &format!("exit status 0\nduration: 0.010 s\noutput:\n{out}"),
            false,
        )),
    );
    for e in s2.events {
        app.on_agent_event(e);
    }
    screen_at(&mut app, 120, 30);
    app.model.focus = Focus::Chat;
    app.on_key(key(KeyCode::Up));
    let sel = app.chat.selected().expect("the long card is selected");
    assert!(matches!(&app.transcript().cells()[sel].kind, CellKind::Tool(t) if t.call_id == "c2"));
    app.on_key(key(KeyCode::Enter));
    assert!(screen_at(&mut app, 120, 40).contains("line 20"));
}
