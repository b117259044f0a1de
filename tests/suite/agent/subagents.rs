//! Subagents through the real loop against the simulator (SPEC §15.3): a `task` call's
//! first request repeats the parent's request bytes and reads them from the cache; its
//! answer is the call's result; a read-only subagent cannot write; its events are in the
//! parent's log and rebuild its requests.

use crate::common;

use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use common::PromptEnv;
use deepterm::agent::run::{Agent, ApprovalMode};
use deepterm::agent::subagent;
use deepterm::config::{ApiKey, Config};
use deepterm::i18n::{Locale, Localizer};
use deepterm::sandbox::SandboxMode;
use deepterm::session::Session;
use deepterm::session::event::EventKind;
use deepterm::sim::{self, Fault, RecordedRequest, ScriptedReply, SimConfig, SimHandle};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// The simulator's cache unit in tokens.
const UNIT: u64 = 64;

fn registry(root: &Path) -> deepterm::tools::ToolRegistry {
    let cfg = Config::default();
    let scope = deepterm::tools::edit::workspace_scope(root, SandboxMode::WorkspaceWrite);
    deepterm::tools::ToolRegistry::from_config_with_scope(
        &cfg,
        root,
        Arc::new(RwLock::new(scope)),
        vec![subagent::tool()],
    )
}

async fn agent_on(sim: &SimHandle, root: &Path, session: Session) -> Agent {
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
"#,
        sim.base_url()
    );
    let cfg = Config::parse(&text, None).expect("config parses");
    let route = cfg.resolve_route(None).expect("route resolves");
    let (tx, _rx) = mpsc::unbounded_channel();
    Agent::builder(
        session,
        route,
        Box::new(PromptEnv {
            prompt: Arc::new(Mutex::new("You are a test assistant.".to_string())),
        }),
        Localizer::new(Locale::default()),
        tx,
    )
    .key(Some(ApiKey::new("sk-subagent")))
    .tools(registry(root))
    .approval(ApprovalMode::AllowAll)
    .build()
    .expect("agent builds")
}

fn task(description: &str, prompt: &str) -> Value {
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

fn ok(reqs: &[RecordedRequest]) {
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
