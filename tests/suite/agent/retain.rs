//! `tool_removal = "retain"` through
//! the real agent loop against the in-process simulator: on an `addition-only` route a
//! removal keeps the request prefix, and a call to the removed tool says it was removed
//! from this session; with the default (`omit`) the removal costs the prefix (P-6).

use crate::common;

use std::sync::{Arc, Mutex};

use common::ConfigBuilder;
use common::agent_tools::{prompt_agent, register};
use deepterm::agent::inspect::{DiffReason, inspect_past, reconstruct};
use deepterm::config::{ApiKey, Config};
use deepterm::llm::types::ProviderKind;
use deepterm::session::event::{
    Block, Event, EventKind, RequestContext, ToolRemoval, ToolSchema, ToolUpdateMode,
};
use deepterm::sim::{self, RecordedRequest, ScriptedReply, SimConfig, SimHandle};
use deepterm::tools::{Approval, RegisteredTool, ToolExecutor, ToolOutcome};
use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The simulator's cache unit in tokens.
const UNIT: u64 = 64;

/// A tool that answers with a fixed text.
struct Fixed(&'static str);

impl ToolExecutor for Fixed {
    fn call<'a>(
        &'a self,
        _arguments: Value,
        _cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(async move { ToolOutcome::ok(self.0) })
    }
}

fn tool(name: &str, description: &str) -> RegisteredTool {
    RegisteredTool {
        schema: ToolSchema {
            name: name.into(),
            description: description.into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            defer_loading: None,
        },
        approval: Approval::Never,
        enabled: true,
        executor: Arc::new(Fixed("file contents")),
        parallel_safe: false,
    }
}

fn kind_of(_provider: &str) -> Option<ProviderKind> {
    Some(ProviderKind::DeepseekMessages)
}

struct Run {
    reqs: Vec<RecordedRequest>,
    events: Vec<Arc<Event>>,
    /// Text of the result of the call to the removed tool (retain only: the simulator
    /// refuses to script a call to a tool the request does not offer).
    removed_call_result: Option<String>,
}

/// Five requests on `sim/deepseek-flash` (addition-only), `tool_removal` as given:
/// r0 `base` only; r1 after `fs` was added; r2; r3 after `fs` was removed (with retain
/// the model then calls `fs__read`, and r4 carries that call's result).
async fn run(tool_removal: Option<&str>) -> Run {
    let sim: SimHandle = sim::start(SimConfig::default()).await.expect("simulator");
    let removal = tool_removal
        .map(|r| format!("tool_removal = \"{r}\""))
        .unwrap_or_default();
    let text = ConfigBuilder::with_provider(
        "sim",
        "deepseek-messages",
        &format!("{}/anthropic", sim.base_url()),
    )
    .key_env("DEEPTERM_CORE_RETAIN_KEY_UNUSED")
    .model_entry(&format!(
        "id = \"deepseek-flash\"\nsystem_prompt_update = \"in-history\"\ntool_update = \"addition-only\"\n{removal}"
    ))
    .text();
    let cfg = Config::parse(&text, None).expect("config parses");
    let route = cfg.resolve_route(None).expect("route resolves");
    let (tx, _rx) = mpsc::unbounded_channel();
    let mut agent = prompt_agent(
        "core-retain",
        route,
        ApiKey::new("sk-core-retain"),
        &Arc::new(Mutex::new("You are a test assistant.".to_string())),
        tx,
    );
    let bg = agent.background_sender();
    register(&bg, "base", vec![tool("base__note", "Write a note.")]);
    let long: String = (0..40)
        .map(|i| {
            format!(
                "line {i:02}: a unique fact number {} about this session.\n",
                i * 7919
            )
        })
        .collect();
    sim.push_reply(ScriptedReply::text("OK one"));
    assert_eq!(
        agent.handle_line(&format!("Remember:\n{long}")).await.error,
        None
    );
    register(
        &bg,
        "fs",
        vec![tool("fs__read", "Read a file of the workspace.")],
    );
    sim.push_reply(ScriptedReply::text("OK two"));
    assert_eq!(
        agent.handle_line("The fs server is connected.").await.error,
        None
    );
    sim.push_reply(ScriptedReply::text("OK three"));
    // A long turn between the addition and the removal: what the default loses.
    let more: String = (0..40)
        .map(|i| {
            format!(
                "entry {i:02}: another unique observation {} for later.\n",
                i * 104729
            )
        })
        .collect();
    assert_eq!(
        agent
            .handle_line(&format!("Also remember:\n{more}"))
            .await
            .error,
        None
    );
    register(&bg, "fs", vec![]);
    let retain = tool_removal == Some("retain");
    if retain {
        sim.push_reply(ScriptedReply::tool_call(
            "fs__read",
            json!({"path": "a.txt"}),
        ));
    }
    sim.push_reply(ScriptedReply::text("OK four"));
    assert_eq!(agent.handle_line("Read a.txt.").await.error, None);
    let reqs = sim.requests();
    assert_eq!(reqs.len(), 4 + usize::from(retain), "one request per step");
    for r in &reqs {
        assert_eq!(r.status, 200, "request {} failed: {:?}", r.index, r.error);
    }
    let events = agent.session().events().to_vec();
    let removed_call_result = events.iter().rev().find_map(|e| match &e.kind {
        EventKind::ToolResult(t) => Some(
            t.message
                .content
                .iter()
                .filter_map(|b| match b {
                    Block::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect::<String>(),
        ),
        _ => None,
    });
    Run {
        reqs,
        events,
        removed_call_result,
    }
}

/// The raw body of `prev` up to the end of its messages (the `tools` key follows them).
fn messages_part(raw: &str) -> &str {
    let end = raw
        .rfind("],\"tools\":[")
        .expect("the body declares tools after its messages");
    &raw[..end]
}

fn tools_json(r: &RecordedRequest) -> String {
    r.body["tools"].to_string()
}

fn cache(r: &RecordedRequest) -> &sim::CacheRecord {
    r.cache.as_ref().expect("cache accounting")
}

#[tokio::test]
async fn a_retained_removal_keeps_the_prefix_and_a_call_says_removed_from_this_session() {
    let r = run(Some("retain")).await;
    let (before, after) = (&r.reqs[2], &r.reqs[3]);
    // The request bytes: the earlier body's messages are a byte prefix of the next body,
    // and the declarations are byte-identical (fs__read is still declared, deferred).
    assert!(
        after.raw_body.starts_with(messages_part(&before.raw_body)),
        "the body after the removal must start with the previous body's bytes"
    );
    assert_eq!(tools_json(after), tools_json(before));
    assert!(tools_json(after).contains("\"fs__read\""));
    assert!(after.raw_body.contains("\"tool_addition\""));
    assert!(!after.raw_body.contains("\"tool_removal\""));
    // The simulator's prefix cache reads everything the previous request sent.
    assert!(
        cache(after).hit_tokens + UNIT >= cache(before).total_tokens,
        "retain lost the cache: {:?} after {:?}",
        cache(after),
        cache(before)
    );
    // The call to the removed tool fails through the unknown-tool path, saying why.
    let text = r
        .removed_call_result
        .as_deref()
        .expect("the call has a result");
    assert_eq!(
        text,
        "tool fs__read is no longer available (removed at turn 4)"
    );
    // The log records the option (so the inspector rebuilds exactly what was sent) and
    // names the removal as one that kept the prefix.
    let ctx: Vec<&RequestContext> = r
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RequestContext(c) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(ctx.len(), 1);
    assert_eq!(ctx[0].caps.tool_removal, ToolRemoval::Retain);
    let rebuilt = reconstruct(&r.events, &[4, 5], &kind_of).expect("rebuilds");
    assert_eq!(
        rebuilt[0].wire.body, after.body,
        "request #4 rebuilt from the log"
    );
    assert_eq!(
        rebuilt[1].wire.body, r.reqs[4].body,
        "request #5 rebuilt from the log"
    );
    let why = inspect_past(&r.events, 4, &kind_of).expect("inspects");
    assert!(
        why.reasons.contains(&DiffReason::RemovalRetained),
        "{:?}",
        why.reasons
    );
}

#[tokio::test]
async fn a_rewrite_removal_costs_the_prefix_as_before() {
    let r = run(Some("rewrite")).await;
    let (before, after) = (&r.reqs[2], &r.reqs[3]);
    assert!(!after.raw_body.starts_with(messages_part(&before.raw_body)));
    assert!(!tools_json(after).contains("\"fs__read\""));
    assert!(!after.raw_body.contains("\"tool_addition\""));
    assert!(
        cache(after).hit_tokens + UNIT < cache(before).total_tokens,
        "the rewrite removal should rewrite history: {:?} after {:?}",
        cache(after),
        cache(before)
    );
    assert_eq!(r.removed_call_result, None, "no tool was called");
    // The default is left out of the log; the inspector names the lost cache.
    let raw: Vec<String> = r
        .events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::RequestContext(_)))
        .map(|e| serde_json::to_string(&**e).expect("serializes"))
        .collect();
    assert!(raw.iter().all(|l| !l.contains("toolRemoval")), "{raw:?}");
    let rebuilt = reconstruct(&r.events, &[4], &kind_of).expect("rebuilds");
    assert_eq!(rebuilt[0].wire.body, after.body);
    let why = inspect_past(&r.events, 4, &kind_of).expect("inspects");
    assert!(
        why.reasons.contains(&DiffReason::RemovalOnAdditionOnly),
        "{:?}",
        why.reasons
    );
}

#[test]
fn request_context_without_tool_removal_loads_as_omit_and_retain_round_trips() {
    // An old log line (written before `tool_removal` existed) has no `toolRemoval`.
    let old = json!({
        "provider": "deepseek", "model": "deepseek-flash", "contextWindow": 1048576,
        "systemPromptUpdate": "in-history", "toolUpdate": "addition-only"
    });
    let ctx: RequestContext = serde_json::from_value(old.clone()).expect("old context loads");
    assert_eq!(ctx.caps.tool_removal, ToolRemoval::Omit);
    assert_eq!(ctx.caps.tool_update, Some(ToolUpdateMode::AdditionOnly));
    assert_eq!(serde_json::to_value(&ctx).unwrap(), old, "default left out");
    let mut retained = ctx;
    retained.caps.tool_removal = ToolRemoval::Retain;
    let v = serde_json::to_value(&retained).unwrap();
    assert_eq!(v["toolRemoval"], "retain");
    let back: RequestContext = serde_json::from_value(v).unwrap();
    assert_eq!(back, retained);
}
