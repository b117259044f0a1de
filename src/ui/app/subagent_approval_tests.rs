//! A subagent in `inherit` mode asks through the parent's approvals (SPEC §15.3): its
//! call has no card of the parent's, so the question's own card in Chat and the prompt
//! in the bottom pane name the subagent and its task, the `task` card says its subagent
//! waits for you, at 80 and 120 columns in both languages, and `y` answers that call.

use super::*;
use crate::agent::protocol::ApprovalDecision;
use crate::session::event::{Event, EventKind, StepRef, SubagentEvent, ToolCallData};
use crate::session::subagent_event::{SubagentMode, SubagentStart};
use crate::ui::sample::Script;
use crossterm::event::{KeyCode, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const ARGS: &str = r#"{"command":"wc -w notes.txt"}"#;

fn screen(app: &mut App, w: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, 30)).unwrap();
    t.draw(|f| app.render(f)).unwrap();
    crate::ui::snapshot::symbols(t.backend().buffer())
}

/// The parent's `task` call runs; its subagent a1 asks to run `run_cmd`.
fn asking(locale: Locale, named: bool) -> App {
    let mut s = Script::new();
    s.route(false).user(1, "count the words");
    s.push(AgentEvent::Phase(TurnPhase::RunningTools));
    s.tool(
        1,
        1,
        "c1",
        "task",
        r#"{"description":"count words","prompt":"Count.","mode":"inherit"}"#,
        None,
    );
    s.commit(EventKind::SubagentStart(SubagentStart {
        agent: "a1".into(),
        turn: 1,
        step: 1,
        call_id: "c1".into(),
        description: "count words".into(),
        mode: SubagentMode::Inherit,
        parent_seq: 1,
    }));
    s.commit(sub(EventKind::StepStart(StepRef { turn: 1, step: 1 })));
    s.commit(sub(EventKind::ToolCall(ToolCallData {
        turn: 1,
        step: 1,
        call_id: "call_a1_1_0".into(),
        name: "run_cmd".into(),
        arguments: ARGS.into(),
        bridged: None,
    })));
    if named {
        s.push(AgentEvent::ApprovalAsker {
            call_id: "call_a1_1_0".into(),
            agent: "a1".into(),
            description: "count words".into(),
        });
    }
    s.push(AgentEvent::Phase(TurnPhase::AwaitingApproval));
    s.push(AgentEvent::ApprovalRequest {
        call_id: "call_a1_1_0".into(),
        tool: "run_cmd".into(),
        arguments: ARGS.into(),
    });
    let mut app = App::new(locale, false);
    for e in s.events {
        app.on_agent_event(e);
    }
    app
}

/// `kind` as subagent a1's event, logged in the parent's log.
fn sub(kind: EventKind) -> EventKind {
    EventKind::SubagentEvent(SubagentEvent {
        agent: "a1".into(),
        event: Box::new(Event {
            kind,
            seq: 1,
            time: String::new(),
            surface_op: None,
            source_event_seqs: None,
        }),
    })
}

#[test]
fn a_subagent_s_question_names_it_on_its_card_and_in_the_prompt() {
    for locale in Locale::ALL {
        let (named, waits, runs) = match locale {
            Locale::EnUs => (
                "Allow run_cmd for subagent a1 (count words)?",
                "waiting for you · a1 · step 1 · run_cmd",
                "running · a1 · step 1 · run_cmd",
            ),
            Locale::ZhCn => (
                "允许子代理 a1（count words）调用 run_cmd 吗？",
                "等待你确认 · a1 · 第 1 步 · run_cmd",
                "运行中 · a1 · 第 1 步 · run_cmd",
            ),
        };
        for w in [80u16, 120] {
            let mut app = asking(locale, true);
            // Wide characters leave a blank cell behind them in the buffer.
            let s = screen(&mut app, w).replace(' ', "");
            let want = named.replace(' ', "");
            // Once on its card in Chat, once on the prompt above the composer.
            assert_eq!(s.matches(&want).count(), 2, "{locale:?} {w}:\n{s}");
            assert!(s.contains("wc-wnotes.txt"), "{s}");
            // The task card says its subagent waits for you, not that it runs.
            let waits = waits.replace(' ', "");
            assert!(s.contains(&format!("task{waits}")), "{locale:?} {w}:\n{s}");
            assert!(!s.contains(&runs.replace(' ', "")), "{locale:?} {w}:\n{s}");
            app.on_key(KeyEvent::new(KeyCode::Char('y'), KeyModifiers::NONE));
            assert_eq!(
                app.take_commands(),
                [AgentCommand::Approve {
                    call_id: "call_a1_1_0".into(),
                    decision: ApprovalDecision::Allow,
                }]
            );
            // Answered: the subagent runs its call again.
            let s = screen(&mut app, w).replace(' ', "");
            assert!(s.contains(&runs.replace(' ', "")), "{locale:?} {w}:\n{s}");
            assert!(!s.contains(&waits), "{locale:?} {w}:\n{s}");
        }
    }
    // A question of the parent's own is not named.
    let s = screen(&mut asking(Locale::EnUs, false), 120);
    assert!(s.contains("Allow run_cmd?"), "{s}");
    assert!(!s.contains("subagent a1"), "{s}");
    assert!(!s.contains("waiting for you · a1"), "{s}");
}
