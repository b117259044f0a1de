//! Reasoning effort and the thinking passback (SPEC §14.4; the DeepSeek wire reference
//! §1.3, §1.6) through the real loop against the simulator, on both routes: `/effort`
//! sets the route's fields, is logged in `request/context`, keeps the cached prefix, and
//! the thinking of a tool-call turn is replayed so the simulator accepts the continuation.

use crate::common;

use std::sync::{Arc, Mutex};

use common::PromptEnv;
use common::agent_tools::{FnTool, schema, tool};
use deepterm::agent::protocol::AgentEvent;
use deepterm::agent::run::{Agent, ApprovalMode};
use deepterm::config::{ApiKey, Config};
use deepterm::i18n::{Locale, Localizer};
use deepterm::session::Session;
use deepterm::session::effort::Effort;
use deepterm::session::event::EventKind;
use deepterm::sim::{self, RecordedRequest, ScriptedReply, SimConfig, SimHandle};
use deepterm::tools::ToolOutcome;
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// The simulator's cache unit in tokens.
const UNIT: u64 = 64;

/// The two DeepSeek routes: provider kind and the simulator path of its base URL.
const ROUTES: [(&str, &str); 2] = [("deepseek-messages", "/anthropic"), ("openai-chat", "")];

fn registry() -> deepterm::tools::ToolRegistry {
    let mut r = deepterm::tools::ToolRegistry::new();
    r.set_source_tools(
        deepterm::tools::ToolSource::Builtin,
        vec![tool(
            schema(
                "read_file",
                "Read a file.",
                json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            ),
            Arc::new(FnTool(|_| ToolOutcome::ok("fn main() {}"))),
        )],
    );
    r
}

async fn agent_on(
    kind: &str,
    path: &str,
) -> (SimHandle, Agent, mpsc::UnboundedReceiver<AgentEvent>) {
    let sim = sim::start(SimConfig::default()).await.expect("simulator");
    let text = format!(
        "model = \"sim/deepseek-flash\"\n[providers.sim]\nkind = \"{kind}\"\n\
         base_url = \"{}{path}\"\napi_key_env = \"DEEPTERM_EFFORT_KEY_UNUSED\"\n",
        sim.base_url()
    );
    let cfg = Config::parse(&text, None).expect("config parses");
    let (tx, rx) = mpsc::unbounded_channel();
    let agent = Agent::builder(
        Session::new("effort", "/tmp"),
        cfg.resolve_route(None).expect("route resolves"),
        Box::new(PromptEnv {
            prompt: Arc::new(Mutex::new("You are a test assistant.".to_string())),
        }),
        Localizer::new(Locale::default()),
        tx,
    )
    .key(Some(ApiKey::new("sk-effort")))
    .tools(registry())
    .approval(ApprovalMode::AllowAll)
    .build()
    .expect("agent builds");
    (sim, agent, rx)
}

fn all_ok(reqs: &[RecordedRequest]) {
    for r in reqs {
        assert_eq!(r.status, 200, "request {} failed: {:?}", r.index, r.error);
    }
}

/// The wire fields a request carried for thinking and effort, whatever the route.
fn sent_fields(r: &RecordedRequest) -> (Value, Value) {
    let effort = match r.route.as_str() {
        "anthropic" => r.body["output_config"]["effort"].clone(),
        _ => r.body["reasoning_effort"].clone(),
    };
    (r.body["thinking"].clone(), effort)
}

#[tokio::test]
async fn each_effort_level_sends_the_routes_thinking_and_effort_fields_and_is_logged() {
    for (kind, path) in ROUTES {
        let (sim, mut agent, _rx) = agent_on(kind, path).await;
        sim.push_reply(ScriptedReply::text("default"));
        assert_eq!(agent.handle_line("first").await.error, None);
        for e in Effort::ALL {
            assert_eq!(
                agent
                    .handle_line(&format!("/effort {}", e.as_str()))
                    .await
                    .error,
                None
            );
            sim.push_reply(ScriptedReply::text("ok"));
            assert_eq!(agent.handle_line("again").await.error, None);
        }
        let reqs = sim.requests();
        all_ok(&reqs);
        assert_eq!(reqs.len(), 5, "{kind}: /effort itself sends nothing");
        // No effort configured: the body is what it was before effort existed.
        assert_eq!(sent_fields(&reqs[0]), (Value::Null, Value::Null), "{kind}");
        assert_eq!(
            reqs[0].effort.as_deref(),
            Some("high"),
            "DeepSeek's default"
        );
        for (r, e) in reqs[1..].iter().zip(Effort::ALL) {
            let (thinking, effort) = sent_fields(r);
            match e {
                Effort::Off => {
                    assert_eq!(thinking, json!({"type": "disabled"}), "{kind}");
                    assert_eq!(effort, Value::Null, "{kind}: off sends no effort");
                    assert_eq!((r.thinking, r.effort.as_deref()), (Some(false), None));
                    assert!(r.body.get("output_config").is_none(), "{kind}");
                }
                _ => {
                    assert_eq!(thinking, json!({"type": "enabled"}), "{kind} {e:?}");
                    assert_eq!(effort, json!(e.as_str()), "{kind} {e:?}");
                    assert_eq!(
                        (r.thinking, r.effort.as_deref()),
                        (Some(true), Some(e.as_str()))
                    );
                }
            }
        }
        // The log records each effort in `request/context`, once per change.
        let logged: Vec<Option<Effort>> = agent
            .session()
            .events()
            .iter()
            .filter_map(|ev| match &ev.kind {
                EventKind::RequestContext(c) => Some(c.effort),
                _ => None,
            })
            .collect();
        assert_eq!(
            logged,
            vec![
                None,
                Some(Effort::Off),
                Some(Effort::Low),
                Some(Effort::High),
                Some(Effort::Max)
            ],
            "{kind}"
        );
    }
}

#[tokio::test]
async fn switching_the_effort_keeps_the_previous_requests_prefix_and_its_cache_hit() {
    for (kind, path) in ROUTES {
        let (sim, mut agent, _rx) = agent_on(kind, path).await;
        let long: String = (0..40)
            .map(|i| format!("line {i:02}: a unique fact number {} to cache.\n", i * 7919))
            .collect();
        sim.push_reply(ScriptedReply::text("OK one").with_thinking("noted"));
        assert_eq!(
            agent.handle_line(&format!("Remember:\n{long}")).await.error,
            None
        );
        assert_eq!(agent.handle_line("/effort low").await.error, None);
        sim.push_reply(ScriptedReply::text("OK two"));
        assert_eq!(agent.handle_line("Quick question.").await.error, None);
        assert_eq!(agent.handle_line("/effort off").await.error, None);
        sim.push_reply(ScriptedReply::text("OK three"));
        assert_eq!(agent.handle_line("Another.").await.error, None);
        let reqs = sim.requests();
        all_ok(&reqs);
        assert_eq!(reqs.len(), 3);
        for pair in reqs.windows(2) {
            let (before, after) = (&pair[0], &pair[1]);
            let msgs = |r: &RecordedRequest| r.body["messages"].as_array().unwrap().clone();
            let (b, a) = (msgs(before), msgs(after));
            assert_eq!(
                &a[..b.len()],
                &b[..],
                "{kind}: the messages before the switch are kept"
            );
            assert_eq!(after.body["tools"], before.body["tools"], "{kind}");
            assert_eq!(after.body["system"], before.body["system"], "{kind}");
            let (bc, ac) = (
                before.cache.as_ref().unwrap(),
                after.cache.as_ref().unwrap(),
            );
            assert!(
                ac.hit_tokens + UNIT >= bc.total_tokens,
                "{kind}: the switch cost the cache: {ac:?} after {bc:?}"
            );
        }
        assert_eq!(reqs[1].effort.as_deref(), Some("low"));
        assert_eq!(reqs[2].thinking, Some(false));
    }
}

#[tokio::test]
async fn a_tool_call_turns_thinking_is_passed_back_so_the_continuation_is_accepted() {
    for (kind, path) in ROUTES {
        let (sim, mut agent, _rx) = agent_on(kind, path).await;
        sim.push_reply(
            ScriptedReply::tool_call("read_file", json!({"path": "src/main.rs"}))
                .with_thinking("I need to read main.rs first."),
        );
        sim.push_reply(ScriptedReply::text("It is an empty program."));
        let out = agent.handle_line("What does main.rs do?").await;
        assert_eq!(out.error, None, "{kind}");
        let reqs = sim.requests();
        all_ok(&reqs);
        assert_eq!(reqs.len(), 2, "{kind}: the tool turn and its continuation");
        // The simulator answers 400 when a thinking tool-call turn comes back without its
        // reasoning (src/sim/validate.rs), so the 200 above is the passback; check the
        // bytes as well.
        let msgs = reqs[1].body["messages"].as_array().unwrap();
        let assistant = msgs
            .iter()
            .find(|m| m["role"] == "assistant")
            .expect("the tool-call turn is replayed");
        match kind {
            "deepseek-messages" => {
                let blocks = assistant["content"].as_array().unwrap();
                assert_eq!(blocks[0]["type"], "thinking", "{assistant}");
                assert_eq!(blocks[0]["thinking"], "I need to read main.rs first.");
                assert!(blocks.iter().any(|b| b["type"] == "tool_use"));
            }
            _ => {
                assert_eq!(
                    assistant["reasoning_content"],
                    "I need to read main.rs first."
                );
                assert!(assistant["tool_calls"].is_array());
            }
        }
    }
}

/// Without the passback the same continuation is refused: a client that dropped the
/// reasoning of a tool-call turn fails on both routes.
#[tokio::test]
async fn a_tool_call_continuation_without_its_thinking_is_refused_on_both_routes() {
    for (kind, path) in ROUTES {
        let (sim, mut agent, _rx) = agent_on(kind, path).await;
        sim.push_reply(
            ScriptedReply::tool_call("read_file", json!({"path": "src/main.rs"}))
                .with_thinking("I need to read main.rs first."),
        );
        sim.push_reply(ScriptedReply::text("It is an empty program."));
        assert_eq!(agent.handle_line("What does main.rs do?").await.error, None);
        let sent = sim.requests()[1].body.clone();
        let mut stripped = sent.clone();
        for m in stripped["messages"].as_array_mut().unwrap() {
            if m["role"] != "assistant" {
                continue;
            }
            match m.get_mut("content") {
                Some(Value::Array(blocks)) => blocks.retain(|b| b["type"] != "thinking"),
                _ => {
                    m.as_object_mut().unwrap().remove("reasoning_content");
                }
            }
        }
        let url = format!(
            "{}{}",
            sim.base_url(),
            match kind {
                "deepseek-messages" => "/anthropic/v1/messages",
                _ => "/chat/completions",
            }
        );
        let post = |body: Value| {
            let url = url.clone();
            async move {
                reqwest::Client::new()
                    .post(url)
                    .header("authorization", "Bearer sk-x")
                    .json(&body)
                    .send()
                    .await
                    .unwrap()
            }
        };
        let r = post(stripped).await;
        assert_eq!(r.status(), 400, "{kind}");
        let e: Value = r.json().await.unwrap();
        assert!(
            e["error"]["message"]
                .as_str()
                .unwrap()
                .contains("must be passed back"),
            "{kind}: {e}"
        );
        assert_eq!(
            post(sent).await.status(),
            200,
            "{kind}: the real body is accepted"
        );
    }
}

#[tokio::test]
async fn effort_accepts_only_its_four_levels_and_says_so() {
    let (_sim, mut agent, mut rx) = agent_on("deepseek-messages", "/anthropic").await;
    let out = agent.handle_line("/effort extreme").await;
    let err = out.error.expect("an unknown level is refused");
    assert!(
        err.contains("extreme") && err.contains("off|low|high|max"),
        "{err}"
    );
    assert_eq!(agent.effort(), None);
    assert_eq!(agent.handle_line("/effort max").await.error, None);
    assert_eq!(agent.effort(), Some(Effort::Max));
    // The footer learns it from the route info.
    let mut shown = None;
    while let Ok(ev) = rx.try_recv() {
        if let AgentEvent::Route(info) = ev {
            shown = info.effort;
        }
    }
    assert_eq!(shown, Some(Effort::Max));
}

/// A resumed session keeps the effort its log last sent with.
#[tokio::test]
async fn a_resumed_session_keeps_the_effort_it_last_sent() {
    let (sim, mut agent, _rx) = agent_on("deepseek-messages", "/anthropic").await;
    assert_eq!(agent.handle_line("/effort low").await.error, None);
    sim.push_reply(ScriptedReply::text("ok"));
    assert_eq!(agent.handle_line("hi").await.error, None);
    let events: Vec<_> = agent
        .session()
        .events()
        .iter()
        .map(|e| (**e).clone())
        .collect();
    let resumed = deepterm::agent::state::SessionState::open(Session::from_events(events).unwrap());
    assert_eq!(resumed.effort, Some(Effort::Low));
}

/// The inspector rebuilds a request from the log alone: the effort comes back from
/// `request/context`, and a context written before the effort existed rebuilds as before.
#[tokio::test]
async fn a_rebuilt_request_carries_the_effort_its_context_logged() {
    use deepterm::agent::request::{RequestTarget, logged_request};
    use deepterm::llm::types::Thinking;
    let (sim, mut agent, _rx) = agent_on("deepseek-messages", "/anthropic").await;
    assert_eq!(agent.handle_line("/effort low").await.error, None);
    sim.push_reply(ScriptedReply::text("ok"));
    assert_eq!(agent.handle_line("hi").await.error, None);
    let events: Vec<_> = agent
        .session()
        .events()
        .iter()
        .map(|e| (**e).clone())
        .collect();
    let mut copy = Session::from_events(events.clone()).unwrap();
    let opts = logged_request(&mut copy, &|_| None, RequestTarget::Step).unwrap();
    assert_eq!(
        (opts.thinking, opts.effort.as_deref()),
        (Thinking::Enabled, Some("low"))
    );
    // The same log as an older version wrote it: no `effort` in the context.
    let old: Vec<_> = events
        .into_iter()
        .map(|mut e| {
            if let EventKind::RequestContext(c) = &mut e.kind {
                c.effort = None;
            }
            let line = serde_json::to_string(&e).unwrap();
            assert!(!line.contains("\"effort\":"), "{line}");
            serde_json::from_str(&line).unwrap()
        })
        .collect();
    let mut old = Session::from_events(old).unwrap();
    let opts = logged_request(&mut old, &|_| None, RequestTarget::Step).unwrap();
    assert_eq!((opts.thinking, opts.effort), (Thinking::Default, None));
}
