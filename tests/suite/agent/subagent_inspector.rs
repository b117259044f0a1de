//! The inspector opens a subagent's request (SPEC §15.3): Enter on the Trajectory's
//! `T1.S1·a1.S1` row asks the loop for it, and the loop rebuilds it from the subagent's
//! log inside the parent's, byte for byte what the simulator received, next to the
//! parent's request whose bytes it repeats.

use crate::common;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use deepterm::agent::inspect::{DiffReason, InspectorData};
use deepterm::agent::protocol::{AgentCommand, AgentEvent};
use deepterm::i18n::Locale;
use deepterm::session::Session;
use deepterm::sim::{self, ScriptedReply, SimConfig};
use deepterm::ui::App;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::subagents::{agent_with_events, ok, task};

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let mut term =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).expect("backend");
    term.draw(|f| app.render(f)).expect("draw");
    deepterm::ui::snapshot::symbols(term.backend().buffer())
}

/// The body the inspector shows, as JSON.
fn body(d: &InspectorData) -> Value {
    serde_json::from_str(&d.selected.body).expect("the inspector shows JSON")
}

#[tokio::test]
async fn enter_on_a_subagent_row_opens_its_request_rebuilt_as_sent() {
    let sim = sim::start(SimConfig::default()).await.expect("simulator");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "three words here").unwrap();
    let (agent, mut rx) =
        agent_with_events(&sim, dir.path(), Session::new("subagent-inspect", "/tmp"));
    sim.push_reply(ScriptedReply::tool_call(
        "task",
        task("count", "Count the words of notes.txt."),
    ));
    sim.push_reply(
        ScriptedReply::tool_call("read_file", json!({"path": "notes.txt"})).when("subagent a1"),
    );
    sim.push_reply(ScriptedReply::text("a1: three words.").when("subagent a1"));
    sim.push_reply(ScriptedReply::text("Three words."));
    let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
    let run = tokio::spawn(agent.run_interactive(cmd_rx));
    cmd_tx
        .send(AgentCommand::Submit("How many words?".into()))
        .unwrap();
    let mut events = Vec::new();
    common::receive_until(
        &mut rx,
        |e| matches!(e, AgentEvent::TurnFinished),
        |e| events.push(e),
    )
    .await;
    let reqs = sim.requests();
    ok(&reqs);
    assert_eq!(reqs.len(), 4, "parent, a1 twice, parent");

    let mut opened: Option<InspectorData> = None;
    for locale in Locale::ALL {
        for w in [80u16, 120] {
            let mut app = App::new(locale, false);
            for e in &events {
                app.on_agent_event(e.clone());
            }
            screen(&mut app, w, 40);
            // To the Trajectory (at 80 columns it is the one pane shown), then ↑ from the
            // bottom: the parent's last request, a1's second step, a1's first step.
            app.on_key(key(KeyCode::Tab));
            app.on_key(key(KeyCode::Tab));
            for _ in 0..3 {
                app.on_key(key(KeyCode::Up));
            }
            app.take_commands();
            app.on_key(key(KeyCode::Enter));
            let cmds = app.take_commands();
            assert_eq!(
                cmds,
                [AgentCommand::InspectSubagent {
                    agent: "a1".into(),
                    step: 1
                }],
                "{locale:?} {w}"
            );
            let data = match &opened {
                Some(d) => d.clone(),
                None => {
                    cmd_tx.send(cmds[0].clone()).unwrap();
                    let mut got = None;
                    common::receive_until(
                        &mut rx,
                        |e| matches!(e, AgentEvent::Inspector(_)),
                        |e| {
                            if let AgentEvent::Inspector(d) = e {
                                got = Some(*d);
                            }
                        },
                    )
                    .await;
                    opened.insert(got.expect("the inspector's data")).clone()
                }
            };
            app.on_agent_event(AgentEvent::Inspector(Box::new(data)));
            let s = screen(&mut app, w, 40);
            let (sub, parent) = match locale {
                Locale::EnUs => ("Subagent request T1.S1·a1.S1", "Request #1"),
                Locale::ZhCn => ("子代理请求 T1.S1·a1.S1", "请求 #1"),
            };
            assert!(s.contains(sub), "{locale:?} {w}:\n{s}");
            assert!(s.contains(parent), "{locale:?} {w}:\n{s}");
        }
    }

    // What the inspector shows is what a1's first request sent, rebuilt from the log.
    let data = opened.unwrap();
    assert_eq!(body(&data), reqs[1].body);
    assert_eq!(data.selected.label.as_deref(), Some("T1.S1·a1.S1"));
    // It is compared with the parent's request that called `task`: one history appended.
    let prev = data.previous.as_ref().expect("the parent's request");
    assert_eq!((prev.n, prev.label.as_deref()), (Some(1), None));
    assert_eq!(data.reasons, [DiffReason::HistoryAppended]);
    assert!(data.divergence.tool.is_none() && !data.divergence.system);

    // a1's second step is compared with its first; an unknown step is an error.
    cmd_tx
        .send(AgentCommand::InspectSubagent {
            agent: "a1".into(),
            step: 2,
        })
        .unwrap();
    cmd_tx
        .send(AgentCommand::InspectSubagent {
            agent: "a1".into(),
            step: 9,
        })
        .unwrap();
    let mut seen = Vec::new();
    common::receive_until(
        &mut rx,
        |e| matches!(e, AgentEvent::Notice(n) if n.key == "tui-inspector-failed"),
        |e| seen.push(e),
    )
    .await;
    let second = seen
        .iter()
        .find_map(|e| match e {
            AgentEvent::Inspector(d) => Some(d),
            _ => None,
        })
        .expect("a1's second request");
    assert_eq!(body(second), reqs[2].body);
    assert_eq!(second.selected.label.as_deref(), Some("T1.S1·a1.S2"));
    let prev = second.previous.as_ref().unwrap();
    assert_eq!(prev.label.as_deref(), Some("T1.S1·a1.S1"));
    let Some(AgentEvent::Notice(n)) = seen.last() else {
        unreachable!()
    };
    let why = format!("{:?}", n.args);
    assert!(
        why.contains("inspect-no-subagent-request") && why.contains("T1.S1·a1.S9"),
        "{why}"
    );
    cmd_tx.send(AgentCommand::Shutdown).unwrap();
    common::receive_until(&mut rx, |e| matches!(e, AgentEvent::Exited), |_| {}).await;
    run.await.unwrap();
}
