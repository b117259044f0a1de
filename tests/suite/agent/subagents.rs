//! Subagents through the real loop against the simulator (SPEC §15.3): a `task` call's
//! first request repeats the parent's request bytes and reads them from the cache; its
//! answer is the call's result; a read-only subagent cannot write; its events are in the
//! parent's log and rebuild its requests.

use crate::common;

use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use common::PromptEnv;
use deepterm::agent::protocol::{AgentCommand, AgentEvent};
use deepterm::agent::run::{Agent, ApprovalMode};
use deepterm::agent::subagent;
use deepterm::config::{ApiKey, Config};
use deepterm::i18n::{Locale, Localizer};
use deepterm::sandbox::SandboxMode;
use deepterm::session::Session;
use deepterm::session::event::{EventKind, TurnOutcome};
use deepterm::sim::{self, Fault, RecordedRequest, ScriptedReply, SimConfig, SimHandle};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// The simulator's cache unit in tokens.
const UNIT: u64 = 64;

fn registry(cfg: &Config, root: &Path) -> deepterm::tools::ToolRegistry {
    let scope = deepterm::tools::edit::workspace_scope(root, SandboxMode::WorkspaceWrite);
    deepterm::tools::ToolRegistry::from_config_with_scope(
        cfg,
        root,
        Arc::new(RwLock::new(scope)),
        vec![subagent::tool()],
    )
}

async fn agent_on(sim: &SimHandle, root: &Path, session: Session) -> Agent {
    agent_with_events(sim, root, session).0
}

pub(super) fn agent_with_events(
    sim: &SimHandle,
    root: &Path,
    session: Session,
) -> (Agent, mpsc::UnboundedReceiver<AgentEvent>) {
    agent_with(sim, root, session, "", ApprovalMode::AllowAll)
}

/// An agent on the simulator with `extra` config (command tools) and `approval`.
pub(super) fn agent_with(
    sim: &SimHandle,
    root: &Path,
    session: Session,
    extra: &str,
    approval: ApprovalMode,
) -> (Agent, mpsc::UnboundedReceiver<AgentEvent>) {
    let text = format!(
        r#"model = "sim/deepseek-flash"

[providers.sim]
kind = "deepseek-messages"
base_url = "{}/anthropic"
api_key_env = "DEEPTERM_SUBAGENT_KEY_UNUSED"

[[providers.sim.models]]
id = "deepseek-flash"
system_prompt_update = "in-history"
tool_update = "addition-only"
{}
"#,
        sim.base_url(),
        extra
    );
    let cfg = Config::parse(&text, None).expect("config parses");
    let route = cfg.resolve_route(None).expect("route resolves");
    let (tx, rx) = mpsc::unbounded_channel();
    let agent = Agent::builder(
        session,
        route,
        Box::new(PromptEnv {
            prompt: Arc::new(Mutex::new("You are a test assistant.".to_string())),
        }),
        Localizer::new(Locale::default()),
        tx,
    )
    .key(Some(ApiKey::new("sk-subagent")))
    .tools(registry(&cfg, root))
    .approval(approval)
    .build()
    .expect("agent builds");
    (agent, rx)
}

pub(super) fn task(description: &str, prompt: &str) -> Value {
    json!({"description": description, "prompt": prompt})
}

/// A first message long enough to fill several cache units.
fn long_question() -> String {
    let facts: String = (0..40)
        .map(|i| format!("line {i:02}: a unique fact number {} to cache.\n", i * 7919))
        .collect();
    format!("Remember these facts, then delegate:\n{facts}")
}

/// The raw body up to the end of its messages (the `tools` key follows them).
fn messages_part(raw: &str) -> &str {
    let end = raw
        .rfind("],\"tools\":[")
        .expect("the body declares tools after its messages");
    raw[..end].trim_end_matches(['}', ']'])
}

pub(super) fn ok(reqs: &[RecordedRequest]) {
    for r in reqs {
        assert_eq!(r.status, 200, "request {} failed: {:?}", r.index, r.error);
    }
}

fn tool_results(r: &RecordedRequest) -> Vec<String> {
    let mut out = Vec::new();
    for m in r.body["messages"].as_array().unwrap() {
        if let Some(blocks) = m["content"].as_array() {
            for b in blocks {
                if b["type"] == "tool_result" {
                    let text = match &b["content"] {
                        Value::Array(parts) => parts
                            .iter()
                            .filter_map(|p| p["text"].as_str())
                            .collect::<String>(),
                        other => other.as_str().unwrap_or_default().to_string(),
                    };
                    out.push(text);
                }
            }
        }
    }
    out
}

#[tokio::test]
async fn a_task_s_first_request_repeats_the_parent_s_prefix_byte_for_byte_and_reads_it_from_the_cache()
 {
    let sim = sim::start(SimConfig::default()).await.expect("simulator");
    let dir = tempfile::tempdir().unwrap();
    let mut agent = agent_on(&sim, dir.path(), Session::new("subagent-prefix", "/tmp")).await;
    sim.push_reply(ScriptedReply::tool_call(
        "task",
        task("find callers", "List the callers of parse_config."),
    ));
    sim.push_reply(
        ScriptedReply::text("a1 found two callers: main and reload.").when("subagent a1"),
    );
    sim.push_reply(ScriptedReply::text("The subagent found main and reload."));
    let out = agent.handle_line(&long_question()).await;
    assert_eq!(out.error, None);
    assert_eq!(
        out.text.as_deref(),
        Some("The subagent found main and reload.")
    );
    let reqs = sim.requests();
    ok(&reqs);
    assert_eq!(reqs.len(), 3, "parent, subagent, parent");
    let (parent, sub, after) = (&reqs[0], &reqs[1], &reqs[2]);
    // Byte for byte: everything the parent sent, then its reply and the task.
    assert!(
        sub.raw_body.starts_with(messages_part(&parent.raw_body)),
        "the subagent's first request must repeat the parent's bytes"
    );
    assert_eq!(sub.body["tools"], parent.body["tools"]);
    assert_eq!(sub.body["system"], parent.body["system"]);
    assert!(sub.raw_body.contains("You are subagent a1"));
    assert!(sub.raw_body.contains("List the callers of parse_config."));
    // The parent's prefix is read from the cache.
    let (p, s) = (parent.cache.as_ref().unwrap(), sub.cache.as_ref().unwrap());
    assert!(
        s.hit_tokens + UNIT >= p.total_tokens,
        "the subagent missed the parent's prefix: {s:?} after {p:?}"
    );
    // Its answer is the call's result.
    assert_eq!(
        tool_results(after),
        ["a1 found two callers: main and reload."]
    );
    // The parent's log holds the subagent, and rebuilds its request as sent.
    let starts = subagent::log::subagents(agent.session());
    assert_eq!(starts.len(), 1);
    assert_eq!(starts[0].agent, "a1");
    let log = subagent::log::subagent_log(agent.session(), "a1")
        .expect("a1 is logged")
        .expect("a1's log loads");
    let first_reply = log
        .events()
        .iter()
        .find(|e| e.seq > starts[0].parent_seq && matches!(e.kind, EventKind::AssistantMessage(_)))
        .expect("a1 answered")
        .seq;
    let upto: Vec<_> = log
        .events()
        .iter()
        .take_while(|e| e.seq < first_reply)
        .map(|e| (**e).clone())
        .collect();
    let mut replay = Session::from_events(upto).unwrap();
    let kinds = |_: &str| Some(deepterm::llm::types::ProviderKind::DeepseekMessages);
    let opts = deepterm::agent::request::logged_request(
        &mut replay,
        &kinds,
        deepterm::agent::request::RequestTarget::Step,
    )
    .unwrap();
    let rebuilt = deepterm::llm::client::build_request(&opts).unwrap();
    assert_eq!(
        rebuilt.body, sub.body,
        "the rebuilt subagent request equals the sent one"
    );
}

#[tokio::test]
async fn a_read_only_subagent_is_refused_an_edit_while_the_parent_s_own_edit_works() {
    let sim = sim::start(SimConfig::default()).await.expect("simulator");
    let dir = tempfile::tempdir().unwrap();
    let mut agent = agent_on(&sim, dir.path(), Session::new("subagent-ro", "/tmp")).await;
    let write = |content: &str| json!({"path": "notes.txt", "content": content});
    sim.push_reply(ScriptedReply::tool_call(
        "task",
        task("write notes", "Write notes.txt."),
    ));
    sim.push_reply(
        ScriptedReply::tool_call("write_file", write("from the subagent")).when("subagent a1"),
    );
    sim.push_reply(ScriptedReply::text("I may not write files.").when("subagent a1"));
    sim.push_reply(ScriptedReply::tool_call(
        "write_file",
        write("from the parent"),
    ));
    sim.push_reply(ScriptedReply::text("Written."));
    let out = agent.handle_line("Write the notes.").await;
    assert_eq!(out.error, None);
    ok(&sim.requests());
    let on_disk = std::fs::read_to_string(dir.path().join("notes.txt")).unwrap();
    assert_eq!(on_disk, "from the parent");
    let log = subagent::log::subagent_log(agent.session(), "a1")
        .unwrap()
        .unwrap();
    let refused = log
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolResult(r) if r.error.is_some() => r.error.clone(),
            _ => None,
        })
        .collect::<Vec<_>>();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].contains("read-only"), "{}", refused[0]);
}

#[tokio::test]
async fn several_tasks_of_one_reply_run_at_once_and_answer_in_call_order() {
    let sim = sim::start(SimConfig::default()).await.expect("simulator");
    let dir = tempfile::tempdir().unwrap();
    let mut agent = agent_on(&sim, dir.path(), Session::new("subagent-par", "/tmp")).await;
    sim.push_reply(
        ScriptedReply::tool_call("task", task("one", "First part."))
            .with_tool_call("task", task("two", "Second part."))
            .with_tool_call("task", task("three", "Third part.")),
    );
    // Each subagent's reply stalls for a second: one after the other would take three.
    for a in ["a1", "a2", "a3"] {
        sim.push_reply(
            ScriptedReply::text(format!("answer of {a}"))
                .with_fault(Fault::Stall {
                    ms: 1000,
                    close: false,
                })
                .when(format!("subagent {a}")),
        );
    }
    sim.push_reply(ScriptedReply::text("All three done."));
    let t = Instant::now();
    let out = agent.handle_line("Split this in three.").await;
    let took = t.elapsed();
    assert_eq!(out.error, None);
    let reqs = sim.requests();
    ok(&reqs);
    assert_eq!(reqs.len(), 5);
    assert!(
        took < Duration::from_millis(2500),
        "the subagents ran one after the other: {took:?}"
    );
    assert_eq!(
        tool_results(&reqs[4]),
        ["answer of a1", "answer of a2", "answer of a3"]
    );
}

#[tokio::test]
async fn cancelling_the_parent_mid_subagent_stops_it_and_the_next_turn_works() {
    let sim = sim::start(SimConfig::default()).await.expect("simulator");
    let dir = tempfile::tempdir().unwrap();
    let (agent, mut rx) =
        agent_with_events(&sim, dir.path(), Session::new("subagent-cancel", "/tmp"));
    sim.push_reply(ScriptedReply::tool_call(
        "task",
        task("slow", "Take your time."),
    ));
    // The subagent's reply stalls far longer than the test waits.
    sim.push_reply(
        ScriptedReply::text("too late")
            .with_fault(Fault::Stall {
                ms: 30_000,
                close: false,
            })
            .when("subagent a1"),
    );
    let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
    let run = tokio::spawn(agent.run_interactive(cmd_rx));
    let mut seen = Vec::new();
    cmd_tx
        .send(AgentCommand::Submit("Delegate slowly.".into()))
        .unwrap();
    // Wait until the subagent's request is on its way (its step started).
    common::receive_until(
        &mut rx,
        |e| {
            matches!(e, AgentEvent::Committed(ev) if matches!(&ev.kind,
                EventKind::SubagentEvent(s) if matches!(s.event.kind, EventKind::StepStart(_))))
        },
        |e| seen.push(e),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let t = Instant::now();
    cmd_tx.send(AgentCommand::Cancel).unwrap();
    common::receive_until(
        &mut rx,
        |e| matches!(e, AgentEvent::TurnFinished),
        |e| seen.push(e),
    )
    .await;
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "the cancel waited for the subagent"
    );
    sim.push_reply(ScriptedReply::text("Second answer."));
    cmd_tx.send(AgentCommand::Submit("Go on.".into())).unwrap();
    common::receive_until(
        &mut rx,
        |e| matches!(e, AgentEvent::TurnFinished),
        |e| seen.push(e),
    )
    .await;
    cmd_tx.send(AgentCommand::Shutdown).unwrap();
    common::receive_until(
        &mut rx,
        |e| matches!(e, AgentEvent::Exited),
        |e| seen.push(e),
    )
    .await;
    run.await.unwrap();
    let events: Vec<_> = seen
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Committed(ev) => Some(ev.clone()),
            _ => None,
        })
        .collect();
    let outcomes: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TurnEnd(t) => t.outcome,
            _ => None,
        })
        .collect();
    assert_eq!(outcomes, [TurnOutcome::Cancelled, TurnOutcome::Completed]);
    let task_result = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::ToolResult(r) => r.error.clone(),
            _ => None,
        })
        .expect("the task call is answered");
    assert!(task_result.contains("cancelled"), "{task_result}");
    let reqs = sim.requests();
    assert_eq!(reqs.last().unwrap().reply_source.as_deref(), Some("script"));
    assert!(reqs.last().unwrap().raw_body.contains("Go on."));
}

#[tokio::test]
async fn a_resumed_session_with_a_finished_subagent_goes_on_from_the_step_that_called_it() {
    let sim = sim::start(SimConfig::default()).await.expect("simulator");
    let dir = tempfile::tempdir().unwrap();
    let mut agent = agent_on(&sim, dir.path(), Session::new("subagent-resume", "/tmp")).await;
    sim.push_reply(ScriptedReply::tool_call(
        "task",
        task("look", "Look around."),
    ));
    sim.push_reply(ScriptedReply::text("a1 looked.").when("subagent a1"));
    sim.push_reply(ScriptedReply::text("First turn done."));
    assert_eq!(agent.handle_line(&long_question()).await.error, None);
    // The log as a resumed session loads it: every rule checked again.
    let events: Vec<_> = agent
        .session()
        .events()
        .iter()
        .map(|e| (**e).clone())
        .collect();
    let line = serde_json::to_string(&events).unwrap();
    let events: Vec<deepterm::session::event::Event> = serde_json::from_str(&line).unwrap();
    drop(agent);
    let resumed = Session::from_events(events).expect("the log with a subagent loads");
    assert!(subagent::log::subagent_log(&resumed, "a1").unwrap().is_ok());
    let mut agent = agent_on(&sim, dir.path(), resumed).await;
    sim.push_reply(ScriptedReply::text("Second turn done."));
    assert_eq!(agent.handle_line("And now?").await.error, None);
    let reqs = sim.requests();
    ok(&reqs);
    assert_eq!(reqs.len(), 4);
    let (before, after) = (&reqs[2], &reqs[3]);
    // The parent's conversation goes on from its own last request: the subagent's turn
    // inside it changed none of its bytes.
    assert!(after.raw_body.starts_with(messages_part(&before.raw_body)));
    assert!(!after.raw_body.contains("You are subagent a1"));
    let (b, a) = (
        before.cache.as_ref().unwrap(),
        after.cache.as_ref().unwrap(),
    );
    assert!(a.hit_tokens + UNIT >= b.total_tokens, "{a:?} after {b:?}");
    // A second task in the resumed session is a2.
    sim.push_reply(ScriptedReply::tool_call(
        "task",
        task("again", "Once more."),
    ));
    sim.push_reply(ScriptedReply::text("a2 done.").when("subagent a2"));
    sim.push_reply(ScriptedReply::text("Third turn done."));
    assert_eq!(agent.handle_line("Delegate again.").await.error, None);
    let ids: Vec<String> = subagent::log::subagents(agent.session())
        .into_iter()
        .map(|s| s.agent)
        .collect();
    assert_eq!(ids, ["a1", "a2"]);
}
