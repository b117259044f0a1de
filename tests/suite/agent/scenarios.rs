//! Acceptance and fault scenarios (SPEC §8, §11; semantics.md §10 T-1, T-2) run through the
//! real agent loop against the in-process simulator. What each scenario proves is described
//! in `docs/scenarios.md`.
use common::ConfigBuilder;
use common::agent_tools::{
    FnTool, GUIDANCE, cache_tool_control, developer_blocks, prompt_agent_builder, register, schema,
    tool,
};
use deepterm::agent::protocol::{AgentCommand, AgentEvent};
use deepterm::agent::run::{Agent, AgentBuilder, Background, LineOutcome};
use deepterm::config::{ApiKey, Config};
use deepterm::llm::retry::RetryPolicy;
use deepterm::session::event::{Event, EventKind, TurnOutcome};
use deepterm::sim::{self, Fault, RecordedRequest, ScriptedReply, SimConfig, SimHandle};
use deepterm::tools::{ToolExecutor, ToolOutcome};
use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::common;

/// The key the agent sends; it must never show up in events, notices or errors.
const KEY: &str = "sk-scenario-SECRET-7f3a9c51d2";

const BASE_PROMPT: &str = "You are a scenario test assistant. Follow the user's instructions.";

const BETA: &str = "mid-conversation-tool-changes-2026-07-01";

/// The simulator's cache unit in tokens.
const UNIT: u64 = 64;

// ---------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Wire {
    Messages,
    OpenAi,
}

/// A config whose provider `sim` points at the simulator.
fn config(sim: &SimHandle, wire: Wire, model_override: &str) -> Config {
    let (kind, base) = match wire {
        Wire::Messages => ("deepseek-messages", format!("{}/anthropic", sim.base_url())),
        Wire::OpenAi => ("openai-chat", sim.base_url()),
    };
    let text = ConfigBuilder::with_provider("sim", kind, &base)
        .key_env("DEEPTERM_SCENARIO_KEY_UNUSED")
        .table(model_override)
        .text();
    Config::parse(&text, None).expect("scenario config parses")
}

struct Harness {
    sim: SimHandle,
    agent: Agent,
    rx: mpsc::UnboundedReceiver<AgentEvent>,
    prompt: Arc<Mutex<String>>,
    bg: mpsc::UnboundedSender<Background>,
}

async fn harness(sim_cfg: SimConfig, wire: Wire, model_override: &str) -> Harness {
    harness_with(sim_cfg, wire, model_override, |b| b).await
}

/// [`harness`] with parts of the agent's own (a short idle timeout).
async fn harness_with(
    sim_cfg: SimConfig,
    wire: Wire,
    model_override: &str,
    parts: impl FnOnce(AgentBuilder) -> AgentBuilder,
) -> Harness {
    let sim = sim::start(sim_cfg).await.expect("simulator starts");
    let cfg = config(&sim, wire, model_override);
    let route = cfg.resolve_route(None).expect("route resolves");
    let prompt = Arc::new(Mutex::new(BASE_PROMPT.to_string()));
    let (tx, rx) = mpsc::unbounded_channel();
    let builder = prompt_agent_builder("scenario", route, ApiKey::new(KEY), &prompt, tx)
        .retry_policy(RetryPolicy {
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(40),
            ..RetryPolicy::default()
        });
    let agent = parts(builder).build().expect("agent builds");
    let bg = agent.background_sender();
    Harness {
        sim,
        agent,
        rx,
        prompt,
        bg,
    }
}

/// Everything the agent emitted so far (drains the channel).
fn drain(rx: &mut mpsc::UnboundedReceiver<AgentEvent>) -> Vec<AgentEvent> {
    let mut out = vec![];
    while let Ok(ev) = rx.try_recv() {
        out.push(ev);
    }
    out
}

/// A tool that runs until it is cancelled (or an hour passes).
struct SlowTool {
    started: Arc<tokio::sync::Notify>,
}

impl ToolExecutor for SlowTool {
    fn call<'a>(
        &'a self,
        _arguments: Value,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(async move {
            self.started.notify_one();
            tokio::select! {
                _ = cancel.cancelled() => ToolOutcome::error("tool call cancelled"),
                _ = tokio::time::sleep(Duration::from_secs(3600)) => ToolOutcome::ok("done"),
            }
        })
    }
}

/// The T-2 fixture: `cache_tool_control(action: add|remove)`; `add` registers
/// `cache_sample` (returns a random label) and, with `guidance`, extends the prompt.
fn install_cache_fixture(h: &Harness, update_prompt: bool) -> Arc<Mutex<Vec<String>>> {
    let labels = Arc::new(Mutex::new(Vec::<String>::new()));
    let labels2 = labels.clone();
    let sample = tool(
        schema(
            "cache_sample",
            "Return a fresh random sample label.",
            json!({"type": "object", "properties": {}}),
        ),
        Arc::new(FnTool(move |_args: Value| {
            let label = format!("sample-{:08x}", fastrand::u32(..));
            labels2.lock().unwrap().push(label.clone());
            ToolOutcome::ok(label)
        })),
    );
    let control = cache_tool_control(&h.bg, &h.prompt, sample, update_prompt);
    register(&h.bg, "control", vec![control]);
    labels
}

// ---------------------------------------------------------------------------------------
// Request / log helpers
// ---------------------------------------------------------------------------------------

fn tool_names(req: &RecordedRequest) -> Vec<String> {
    req.body
        .get("tools")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|t| {
                    t.get("name")
                        .or_else(|| t.pointer("/function/name"))
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default()
}

fn messages(req: &RecordedRequest) -> &Vec<Value> {
    req.body["messages"].as_array().expect("messages array")
}

fn system_messages(req: &RecordedRequest) -> Vec<&Value> {
    messages(req)
        .iter()
        .filter(|m| m["role"] == "system")
        .collect()
}

/// `prev`'s messages, each serialized, are a byte-identical prefix of `next`'s.
fn assert_messages_prefix(prev: &RecordedRequest, next: &RecordedRequest) {
    let (p, n) = (messages(prev), messages(next));
    assert!(
        n.len() > p.len(),
        "request {} has {} messages, request {} has {}",
        next.index,
        n.len(),
        prev.index,
        p.len()
    );
    for (i, m) in p.iter().enumerate() {
        assert_eq!(
            serde_json::to_string(m).unwrap(),
            serde_json::to_string(&n[i]).unwrap(),
            "message {i} of request {} differs from request {}",
            next.index,
            prev.index
        );
    }
    // Also as raw bytes of the serialized array (minus its closing bracket).
    let ps = serde_json::to_string(&prev.body["messages"]).unwrap();
    let ns = serde_json::to_string(&next.body["messages"]).unwrap();
    assert!(ns.starts_with(&ps[..ps.len() - 1]));
}

fn cache(req: &RecordedRequest) -> &sim::CacheRecord {
    req.cache.as_ref().expect("cache accounting recorded")
}

fn has_addition(req: &RecordedRequest, name: &str) -> bool {
    let want = json!({"type": "tool_addition", "tool": {"type": "tool_reference", "name": name}});
    messages(req).iter().any(|m| {
        m["content"]
            .as_array()
            .is_some_and(|blocks| blocks.contains(&want))
    })
}

fn events(agent: &Agent) -> Vec<Arc<Event>> {
    agent.session().events().to_vec()
}

/// `(code, status, retried)` of every `assistant/attempt`.
fn attempts(events: &[Arc<Event>]) -> Vec<(String, Option<u16>, bool)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::AssistantAttempt(a) => {
                Some((a.error.code.clone(), a.error.status, a.error.retried))
            }
            _ => None,
        })
        .collect()
}

/// The tool results among `events`, in order.
fn tool_result_events(events: &[Arc<Event>]) -> Vec<deepterm::session::event::ToolResultData> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolResult(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

fn assistant_count(events: &[Arc<Event>]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::AssistantMessage(_)))
        .count()
}

fn outcomes(events: &[Arc<Event>]) -> Vec<Option<TurnOutcome>> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TurnEnd(t) => Some(t.outcome),
            _ => None,
        })
        .collect()
}

fn assert_completed(out: &LineOutcome) {
    assert_eq!(out.error, None, "turn failed");
}

// ---------------------------------------------------------------------------------------
// T-2 conversation (shared by the Messages and OpenAI variants)
// ---------------------------------------------------------------------------------------

fn records() -> String {
    let mut rng = fastrand::Rng::new();
    let colours = [
        "amber", "cobalt", "crimson", "jade", "ochre", "slate", "teal", "violet",
    ];
    let mut s = String::from("Here are 96 records. Remember them.\n");
    for i in 0..96 {
        s.push_str(&format!(
            "record {i:03}: id={:016x} colour={} weight={}g batch=B{:05} note=unique-{:08x}\n",
            rng.u64(..),
            colours[rng.usize(..colours.len())],
            rng.u32(1..10_000),
            rng.u32(..100_000),
            rng.u32(..)
        ));
    }
    s
}

struct T2Run {
    reqs: Vec<RecordedRequest>,
    events: Vec<Arc<Event>>,
    labels: Vec<String>,
}

async fn run_t2_conversation(h: &mut Harness, update_prompt: bool) -> T2Run {
    let labels = install_cache_fixture(h, update_prompt);
    h.sim.push_reply(ScriptedReply::text("READY"));
    assert_completed(&h.agent.handle_line("Reply READY").await);
    h.sim.push_reply(ScriptedReply::text("Stored 96 records."));
    assert_completed(&h.agent.handle_line(&records()).await);
    h.sim.push_reply(ScriptedReply::text("KEPT"));
    assert_completed(&h.agent.handle_line("Keep the records. Reply KEPT.").await);
    h.sim.push_reply(ScriptedReply::tool_call(
        "cache_tool_control",
        json!({"action": "add"}),
    ));
    h.sim
        .push_reply(ScriptedReply::tool_call("cache_sample", json!({})));
    h.sim
        .push_reply(ScriptedReply::text("The sample label is reported above."));
    assert_completed(
        &h.agent
            .handle_line(
                "Call cache_tool_control with action add, then call cache_sample once and report its label.",
            )
            .await,
    );
    h.sim.push_reply(ScriptedReply::tool_call(
        "cache_tool_control",
        json!({"action": "remove"}),
    ));
    h.sim.push_reply(ScriptedReply::text("REMOVED"));
    let out = h
        .agent
        .handle_line("Call cache_tool_control with action remove, then reply REMOVED.")
        .await;
    assert_completed(&out);
    assert_eq!(out.text.as_deref(), Some("REMOVED"));
    assert_eq!(h.sim.pending_replies(), 0, "every scripted reply was used");
    let reqs = h.sim.requests();
    for r in &reqs {
        assert_eq!(r.status, 200, "request {} failed: {:?}", r.index, r.error);
        assert_eq!(r.reply_source.as_deref(), Some("script"));
    }
    T2Run {
        reqs,
        events: events(&h.agent),
        labels: labels.lock().unwrap().clone(),
    }
}

/// Request indexes of the T-2 conversation.
const REQ_READY: usize = 0;

const REQ_RECORDS: usize = 1;

const REQ_KEEP: usize = 2;

const REQ_ADD: usize = 3;

const REQ_AFTER_ADD: usize = 4;

const REQ_REPORT: usize = 5;

const REQ_REMOVE: usize = 6;

const REQ_AFTER_REMOVE: usize = 7;

async fn tool_change_conversation_on_deepseek_flash(update_prompt: bool) {
    let mut h = harness(SimConfig::default(), Wire::Messages, REWRITE_FLASH).await;
    let run = run_t2_conversation(&mut h, update_prompt).await;
    let r = &run.reqs;
    assert_eq!(r.len(), 8, "one request per step");
    // No failed attempts; one recorded request per assistant message.
    assert_eq!(attempts(&run.events), vec![]);
    assert_eq!(assistant_count(&run.events), r.len());

    // The records turn adds more than 1024 input tokens, and the next turn reads it from
    // the cache.
    assert!(
        cache(&r[REQ_RECORDS]).total_tokens > cache(&r[REQ_READY]).total_tokens + 1024,
        "records turn too small: {:?}",
        cache(&r[REQ_RECORDS])
    );
    assert!(cache(&r[REQ_KEEP]).hit_tokens + UNIT >= cache(&r[REQ_RECORDS]).total_tokens);

    // First request: only the control tool; no change blocks, no beta header.
    assert_eq!(tool_names(&r[REQ_READY]), vec!["cache_tool_control"]);
    assert!(!r[REQ_ADD].headers.contains_key("anthropic-beta"));

    // The request after the addition.
    let (prev, next) = (&r[REQ_ADD], &r[REQ_AFTER_ADD]);
    assert_messages_prefix(prev, next);
    assert_eq!(next.body["system"], r[REQ_READY].body["system"]);
    let prev_tools = prev.body["tools"].as_array().unwrap();
    let next_tools = next.body["tools"].as_array().unwrap();
    assert!(
        next_tools.starts_with(prev_tools),
        "tools after the addition must start with the previous tools: {next_tools:?}"
    );
    let added: Vec<&Value> = next_tools
        .iter()
        .filter(|t| t["name"] == "cache_sample")
        .collect();
    assert_eq!(added.len(), 1);
    assert_eq!(added[0]["defer_loading"], json!(true));
    assert!(has_addition(next, "cache_sample"));
    assert!(
        next.headers
            .get("anthropic-beta")
            .is_some_and(|v| v.split(',').any(|b| b.trim() == BETA)),
        "beta header missing: {:?}",
        next.headers
    );
    assert!(
        cache(next).hit_tokens + UNIT >= cache(prev).total_tokens,
        "cache read {} < previous total {} - {UNIT}",
        cache(next).hit_tokens,
        cache(prev).total_tokens
    );
    let guidance_msgs = system_messages(next)
        .into_iter()
        .filter(|m| m.to_string().contains(GUIDANCE))
        .count();
    assert_eq!(guidance_msgs, usize::from(update_prompt));
    let want_system = if update_prompt {
        format!("{BASE_PROMPT}\n\n{GUIDANCE}")
    } else {
        BASE_PROMPT.to_string()
    };
    assert_eq!(next.effective_system.as_deref(), Some(want_system.as_str()));
    for req in r {
        assert_eq!(
            req.body["system"], r[REQ_READY].body["system"],
            "top-level system of request {} changed",
            req.index
        );
    }
    assert_eq!(
        next.effective_tools,
        vec!["cache_tool_control", "cache_sample"]
    );
    // The model called the new tool and saw its label.
    assert_eq!(run.labels.len(), 1);
    assert!(r[REQ_REPORT].raw_body.contains(&run.labels[0]));

    // After the removal: no declaration, no tool_addition.
    assert!(tool_names(&r[REQ_REMOVE]).contains(&"cache_sample".to_string()));
    let after = &r[REQ_AFTER_REMOVE];
    assert_eq!(tool_names(after), vec!["cache_tool_control"]);
    assert!(!after.raw_body.contains("tool_addition"));
    assert!(!after.raw_body.contains("defer_loading"));
    assert!(
        !after.headers.contains_key("anthropic-beta"),
        "W-9: no change blocks, no beta header"
    );
    assert_eq!(after.body["system"], r[REQ_READY].body["system"]);

    // The log: exactly one addition and one removal developer message, at the right steps.
    assert_eq!(
        developer_blocks(&run.events),
        vec![
            vec!["tool-addition cache_sample".to_string()],
            vec!["tool-removal cache_sample".to_string()]
        ]
    );
    let dev_steps: Vec<(u64, u64)> = run
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::DeveloperMessage(d) => Some((d.turn, d.step)),
            _ => None,
        })
        .collect();
    assert_eq!(
        dev_steps,
        vec![(4, 2), (5, 2)],
        "the addition is the next step of the same turn"
    );
    assert_eq!(outcomes(&run.events), vec![Some(TurnOutcome::Completed); 5]);
}

#[tokio::test]
async fn deepseek_flash_keeps_the_cached_prefix_through_a_tool_added_mid_turn() {
    tool_change_conversation_on_deepseek_flash(false).await;
}

#[tokio::test]
async fn deepseek_flash_keeps_the_cached_prefix_through_a_tool_change_and_a_prompt_update() {
    tool_change_conversation_on_deepseek_flash(true).await;
}

async fn tool_change_conversation_on_openai_chat(update_prompt: bool) {
    let mut h = harness(SimConfig::default(), Wire::OpenAi, REWRITE_FLASH).await;
    let run = run_t2_conversation(&mut h, update_prompt).await;
    let r = &run.reqs;
    assert_eq!(r.len(), 8);
    assert_eq!(attempts(&run.events), vec![]);
    // Full tool lists every request, never deferred, no change blocks or beta header.
    let both = vec!["cache_sample".to_string(), "cache_tool_control".to_string()];
    let control = vec!["cache_tool_control".to_string()];
    for (i, req) in r.iter().enumerate() {
        let want = if (REQ_AFTER_ADD..=REQ_REMOVE).contains(&i) {
            &both
        } else {
            &control
        };
        assert_eq!(&tool_names(req), want, "tools of request {i}");
        assert!(!req.raw_body.contains("defer_loading"));
        assert!(!req.raw_body.contains("tool_addition"));
        assert!(!req.raw_body.contains("tool_removal"));
        assert!(!req.headers.contains_key("anthropic-beta"));
        // Exactly one system message: the top-level prompt, first.
        let sys: Vec<usize> = messages(req)
            .iter()
            .enumerate()
            .filter(|(_, m)| m["role"] == "system")
            .map(|(i, _)| i)
            .collect();
        assert_eq!(sys, vec![0], "system messages of request {i}");
        let wants_guidance = update_prompt && i >= REQ_AFTER_ADD;
        assert_eq!(
            messages(req)[0].to_string().contains(GUIDANCE),
            wants_guidance,
            "prompt of request {i}"
        );
    }
    // The cache breaks at the change: the new tool is rendered before everything else.
    assert!(cache(&r[REQ_ADD]).hit_tokens + UNIT >= cache(&r[REQ_KEEP]).total_tokens);
    let (prev, next) = (cache(&r[REQ_ADD]), cache(&r[REQ_AFTER_ADD]));
    assert!(
        next.hit_tokens < prev.total_tokens,
        "expected a cache break: {next:?}"
    );
    assert!(
        next.hit_tokens < UNIT,
        "nothing before the tool list: {next:?}"
    );
    let first_diff = next.first_diff_byte.expect("first diff recorded");
    assert!(
        first_diff < 200,
        "the break is in the tool list, near the start: {first_diff}"
    );
    // And again at the removal.
    let after = cache(&r[REQ_AFTER_REMOVE]);
    assert!(after.hit_tokens < cache(&r[REQ_REMOVE]).total_tokens);
    assert_eq!(outcomes(&run.events), vec![Some(TurnOutcome::Completed); 5]);
}

#[tokio::test]
async fn openai_chat_sends_full_tool_lists_and_breaks_the_cache_at_a_change() {
    tool_change_conversation_on_openai_chat(false).await;
}

#[tokio::test]
async fn openai_chat_sends_full_tool_lists_and_breaks_the_cache_with_a_prompt_update() {
    tool_change_conversation_on_openai_chat(true).await;
}

// ---------------------------------------------------------------------------------------
// T-1: in-history prompt and tool updates in one step
// ---------------------------------------------------------------------------------------

/// The reference's scenario T2 is written for routes that rewrite on removal (P-1, P-6):
/// `tool_removal = "rewrite"`, the opt-out of SPEC §15.1.
const REWRITE_FLASH: &str = r#"
[[providers.sim.models]]
id = "deepseek-flash"
tool_removal = "rewrite"
"#;

const IN_HISTORY_FLASH: &str = r#"
[[providers.sim.models]]
id = "deepseek-flash"
system_prompt_update = "in-history"
tool_update = "in-history"
"#;

#[tokio::test]
async fn a_prompt_update_and_a_tool_addition_append_two_system_messages() {
    let cfg = SimConfig {
        tool_removal_ok: true,
        ..SimConfig::default()
    };
    let mut h = harness(cfg, Wire::Messages, IN_HISTORY_FLASH).await;
    install_cache_fixture(&h, true);
    h.sim.push_reply(ScriptedReply::text("READY"));
    assert_completed(&h.agent.handle_line("Reply READY").await);
    h.sim.push_reply(ScriptedReply::tool_call(
        "cache_tool_control",
        json!({"action": "add"}),
    ));
    h.sim
        .push_reply(ScriptedReply::tool_call("cache_sample", json!({})));
    h.sim.push_reply(ScriptedReply::tool_call(
        "cache_tool_control",
        json!({"action": "remove"}),
    ));
    h.sim.push_reply(ScriptedReply::text("DONE"));
    let out = h
        .agent
        .handle_line("Add the sample tool, call it once, remove it, then reply DONE.")
        .await;
    assert_completed(&out);
    assert_eq!(out.text.as_deref(), Some("DONE"));
    let r = h.sim.requests();
    assert_eq!(r.len(), 5);
    for req in &r {
        assert_eq!(req.status, 200, "request {}: {:?}", req.index, req.error);
    }
    let (prev, next) = (&r[1], &r[2]);
    assert_eq!(system_messages(prev).len(), 0);
    assert_messages_prefix(prev, next);
    let sys = system_messages(next);
    assert_eq!(sys.len(), 2, "exactly two system messages: {sys:?}");
    let texts: Vec<String> = sys.iter().map(|m| m.to_string()).collect();
    assert_eq!(
        texts.iter().filter(|t| t.contains(GUIDANCE)).count(),
        1,
        "one is the prompt update: {texts:?}"
    );
    assert!(
        has_addition(next, "cache_sample"),
        "the other is the tool_addition"
    );
    assert!(
        !texts
            .iter()
            .any(|t| t.contains(GUIDANCE) && t.contains("tool_addition"))
    );
    assert_eq!(
        next.body["system"], prev.body["system"],
        "top-level system unchanged"
    );
    assert_eq!(
        next.effective_system.as_deref(),
        Some(format!("{BASE_PROMPT}\n\n{GUIDANCE}").as_str())
    );
    assert!(cache(next).hit_tokens + UNIT >= cache(prev).total_tokens);

    // in-history removal: still declared deferred, with addition and removal blocks.
    let last = &r[4];
    assert_messages_prefix(&r[3], last);
    assert!(tool_names(last).contains(&"cache_sample".to_string()));
    assert!(has_addition(last, "cache_sample"));
    assert!(last.raw_body.contains(
        r#"{"type":"tool_removal","tool":{"type":"tool_reference","name":"cache_sample"}}"#
    ));
    assert_eq!(last.effective_tools, vec!["cache_tool_control"]);

    // The log: the prompt node and the addition at step 2, the removal at step 4.
    let ev = events(&h.agent);
    let prompt_steps: Vec<(u64, u64)> = ev
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SystemMessage(m) => Some((m.turn, m.step)),
            _ => None,
        })
        .collect();
    assert_eq!(prompt_steps.last(), Some(&(2, 2)));
    let devs: Vec<(u64, u64, bool)> = ev
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::DeveloperMessage(d) => Some((d.turn, d.step, d.header_seq.is_some())),
            _ => None,
        })
        .collect();
    assert_eq!(devs, vec![(2, 2, true), (2, 4, false)]);
    assert_eq!(attempts(&ev), vec![]);
}

mod cancel;
mod faults;
