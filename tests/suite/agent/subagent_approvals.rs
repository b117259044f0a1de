//! A subagent in `inherit` mode goes through the parent's approvals (SPEC §15.3): a call
//! that asks is preceded by an `ApprovalAsker` naming the subagent and its task, the
//! user's answer reaches the subagent (allowed: the tool runs and the subagent reads its
//! output; denied: it reads the denial), and a call that needs no answer asks nothing
//! and names nobody.

use crate::common;

use deepterm::agent::protocol::{AgentCommand, AgentEvent, ApprovalDecision};
use deepterm::agent::run::ApprovalMode;
use deepterm::session::Session;
use deepterm::sim::{self, ScriptedReply, SimConfig};
use serde_json::json;
use tokio::sync::mpsc;

use super::subagents::{agent_with, ok};

/// `run_cmd` asks before each call; `quiet_cmd` never does.
const TOOLS: &str = r#"
[tools.command.run_cmd]
description = "Run a command."
command = ["echo", "RAN-BY-THE-TOOL"]
parameters = { type = "object", properties = { command = { type = "string" } } }
approval = "ask"

[tools.command.quiet_cmd]
description = "Run a quiet command."
command = ["echo", "QUIET-RAN"]
parameters = { type = "object", properties = {} }
approval = "never"
"#;

/// One turn: the parent delegates in `inherit` mode, a1 calls `quiet_cmd` and `run_cmd`
/// in one step, then answers; `decision` answers the question. Returns the events seen
/// and a1's second request's body.
async fn delegate(decision: ApprovalDecision) -> (Vec<AgentEvent>, String) {
    let sim = sim::start(SimConfig::default()).await.expect("simulator");
    let dir = tempfile::tempdir().unwrap();
    let (agent, mut rx) = agent_with(
        &sim,
        dir.path(),
        Session::new("subagent-approve", "/tmp"),
        TOOLS,
        ApprovalMode::Interactive,
    );
    sim.push_reply(ScriptedReply::tool_call(
        "task",
        json!({"description": "count words", "prompt": "Count.", "mode": "inherit"}),
    ));
    sim.push_reply(
        ScriptedReply::tool_call("quiet_cmd", json!({}))
            .with_tool_call("run_cmd", json!({"command": "wc -w notes.txt"}))
            .when("subagent a1"),
    );
    sim.push_reply(ScriptedReply::text("a1: done.").when("subagent a1"));
    sim.push_reply(ScriptedReply::text("All done."));
    let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
    let run = tokio::spawn(agent.run_interactive(cmd_rx));
    cmd_tx.send(AgentCommand::Submit("Count.".into())).unwrap();
    let mut seen = Vec::new();
    common::receive_until(
        &mut rx,
        |e| matches!(e, AgentEvent::ApprovalRequest { .. }),
        |e| seen.push(e),
    )
    .await;
    let Some(AgentEvent::ApprovalRequest { call_id, tool, .. }) = seen.last().cloned() else {
        unreachable!()
    };
    assert_eq!(tool, "run_cmd");
    cmd_tx
        .send(AgentCommand::Approve { call_id, decision })
        .unwrap();
    common::receive_until(
        &mut rx,
        |e| matches!(e, AgentEvent::TurnFinished),
        |e| seen.push(e),
    )
    .await;
    cmd_tx.send(AgentCommand::Shutdown).unwrap();
    common::receive_until(&mut rx, |e| matches!(e, AgentEvent::Exited), |_| {}).await;
    run.await.unwrap();
    let reqs = sim.requests();
    ok(&reqs);
    assert_eq!(reqs.len(), 4, "parent, a1 twice, parent");
    (seen, reqs[2].raw_body.clone())
}

/// The `ApprovalAsker` events seen: (call, agent, description).
fn askers(seen: &[AgentEvent]) -> Vec<(String, String, String)> {
    seen.iter()
        .filter_map(|e| match e {
            AgentEvent::ApprovalAsker {
                call_id,
                agent,
                description,
            } => Some((call_id.clone(), agent.clone(), description.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn an_inherit_subagent_s_question_names_it_and_the_allow_reaches_it() {
    let (seen, next) = delegate(ApprovalDecision::Allow).await;
    // One question, named, right before it; `quiet_cmd` asked nothing.
    let named = askers(&seen);
    assert_eq!(named.len(), 1, "{named:?}");
    let (call, agent, description) = &named[0];
    assert_eq!(
        (agent.as_str(), description.as_str()),
        ("a1", "count words")
    );
    let at = seen
        .iter()
        .position(|e| matches!(e, AgentEvent::ApprovalAsker { .. }))
        .unwrap();
    assert!(
        matches!(&seen[at + 1], AgentEvent::ApprovalRequest { call_id, .. } if call_id == call)
    );
    // The subagent's next request carries both tools' output.
    assert!(next.contains("RAN-BY-THE-TOOL"), "{next}");
    assert!(next.contains("QUIET-RAN"), "{next}");
}

#[tokio::test]
async fn an_inherit_subagent_reads_the_user_s_denial() {
    let (seen, next) = delegate(ApprovalDecision::Deny).await;
    assert_eq!(askers(&seen).len(), 1);
    assert!(!next.contains("RAN-BY-THE-TOOL"), "{next}");
    assert!(next.contains("QUIET-RAN"), "{next}");
    let denial = deepterm::agent::tool_runner::denial_text("run_cmd");
    let escaped = serde_json::to_string(&denial).unwrap();
    assert!(next.contains(escaped.trim_matches('"')), "{next}");
}
