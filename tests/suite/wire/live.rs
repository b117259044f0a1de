//! T-2 against the real DeepSeek API (SPEC §11, semantics.md §10 T-2): confirms the
//! simulator's assumptions about mid-conversation tool additions and prefix caching.
//!
//! `#[ignore]`d; runs only with `DEEPSEEK_API_KEY` set (it skips with a message otherwise):
//!
//! ```text
//! DEEPSEEK_API_KEY=sk-... cargo test --test live -- --ignored live
//! ```
//!
//! Requests go through a loopback recording proxy so the request bodies can be checked as
//! in the simulator scenarios; the proxy forwards to `https://api.deepseek.com` (override
//! with `DEEPTERM_LIVE_UPSTREAM`). Retries are disabled; cache tolerance is 256 tokens.

use crate::common;

use common::ConfigBuilder;
use common::agent_tools::{
    FnTool, GUIDANCE, cache_tool_control, developer_blocks, prompt_agent_builder, register, schema,
    tool,
};
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use deepterm::agent::run::Background;
use deepterm::config::Config;
use deepterm::llm::retry::RetryPolicy;
use deepterm::session::event::{Event, EventKind, TurnOutcome, Usage};
use deepterm::tools::ToolOutcome;
use serde_json::{Value, json};
use tokio::sync::mpsc;

const TOLERANCE: u64 = 256;
const BASE_PROMPT: &str = "You are a test assistant. Follow the user's instructions exactly \
and use tools when asked to.";
const BETA: &str = "mid-conversation-tool-changes-2026-07-01";

// ---------------------------------------------------------------------------------------
// Recording proxy
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
struct Recorded {
    headers: HeaderMap,
    body: Value,
}

#[derive(Clone)]
struct Proxy {
    upstream: String,
    client: reqwest::Client,
    log: Arc<Mutex<Vec<Recorded>>>,
}

async fn forward(
    State(p): State<Proxy>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let mut recorded = headers.clone();
    recorded.remove("x-api-key");
    recorded.remove("authorization");
    p.log.lock().unwrap().push(Recorded {
        headers: recorded,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    });
    let url = format!("{}{}", p.upstream, uri.path());
    let mut req = p.client.request(method, url).body(body);
    for (k, v) in &headers {
        if k != "host" && k != "content-length" {
            req = req.header(k, v);
        }
    }
    match req.send().await {
        Ok(resp) => {
            let mut out = Response::builder().status(resp.status());
            for (k, v) in resp.headers() {
                if k != "content-length" && k != "transfer-encoding" && k != "connection" {
                    out = out.header(k, v);
                }
            }
            out.body(Body::from_stream(resp.bytes_stream()))
                .unwrap_or_else(|_| Response::new(Body::empty()))
        }
        Err(e) => Response::builder()
            .status(StatusCode::BAD_GATEWAY)
            .body(Body::from(format!("proxy: {}", e.without_url())))
            .unwrap_or_else(|_| Response::new(Body::empty())),
    }
}

async fn start_proxy(upstream: String) -> (String, Arc<Mutex<Vec<Recorded>>>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let state = Proxy {
        upstream,
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap(),
        log: log.clone(),
    };
    let app = axum::Router::new().fallback(forward).with_state(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), log)
}

// ---------------------------------------------------------------------------------------
// Fixture
// ---------------------------------------------------------------------------------------

fn install(
    bg: &mpsc::UnboundedSender<Background>,
    prompt: &Arc<Mutex<String>>,
    update_prompt: bool,
) {
    let sample = tool(
        schema(
            "cache_sample",
            "Return a fresh random sample label.",
            json!({"type": "object", "properties": {}}),
        ),
        Arc::new(FnTool(|_| {
            ToolOutcome::ok(format!("sample-{:08x}", fastrand::u32(..)))
        })),
    );
    let control = cache_tool_control(bg, prompt, sample, update_prompt);
    register(bg, "control", vec![control]);
}

fn records() -> String {
    let mut s = String::from("Here are 96 records. Remember them.\n");
    for i in 0..96 {
        s.push_str(&format!(
            "record {i:03}: id={:016x} weight={}g batch=B{:05} note=unique-{:08x}\n",
            fastrand::u64(..),
            fastrand::u32(1..10_000),
            fastrand::u32(..100_000),
            fastrand::u32(..)
        ));
    }
    s
}

fn usages(events: &[Arc<Event>]) -> Vec<(u64, u64, Usage)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::AssistantMessage(m) => Some((m.turn, m.step, m.usage.unwrap_or_default())),
            _ => None,
        })
        .collect()
}

fn tool_names(r: &Recorded) -> Vec<String> {
    r.body["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|t| t["name"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------
// The test
// ---------------------------------------------------------------------------------------

async fn live_t2(update_prompt: bool) {
    let Ok(key) = std::env::var("DEEPSEEK_API_KEY") else {
        eprintln!("skipping live T-2: DEEPSEEK_API_KEY is not set");
        return;
    };
    if key.trim().is_empty() {
        eprintln!("skipping live T-2: DEEPSEEK_API_KEY is empty");
        return;
    }
    let upstream = std::env::var("DEEPTERM_LIVE_UPSTREAM")
        .unwrap_or_else(|_| "https://api.deepseek.com".to_string());
    let (proxy, log) = start_proxy(upstream.trim_end_matches('/').to_string()).await;
    let cfg = Config::parse(
        &ConfigBuilder::with_provider(
            "deepseek",
            "deepseek-messages",
            &format!("{proxy}/anthropic"),
        )
        .key_env("DEEPSEEK_API_KEY")
        .text(),
        None,
    )
    .expect("config parses");
    let route = cfg.resolve_route(None).expect("route resolves");
    let key = cfg.api_key(&route).expect("key present");
    let prompt = Arc::new(Mutex::new(BASE_PROMPT.to_string()));
    let (tx, _rx) = mpsc::unbounded_channel();
    let mut agent = prompt_agent_builder("live-t2", route, key, &prompt, tx)
        .retry_policy(RetryPolicy::none())
        .build()
        .expect("agent builds");
    install(&agent.background_sender(), &prompt, update_prompt);

    let lines = [
        "Reply READY".to_string(),
        records(),
        "Keep the records. Reply KEPT.".to_string(),
        "Call the cache_tool_control tool with action \"add\". After it succeeds, call the \
         cache_sample tool exactly once and report the label it returns."
            .to_string(),
        "Call the cache_tool_control tool with action \"remove\", then reply REMOVED.".to_string(),
    ];
    for line in &lines {
        let out = agent.handle_line(line).await;
        assert_eq!(
            out.error,
            None,
            "turn failed on: {}",
            &line[..line.len().min(60)]
        );
    }
    let events = agent.session().events().to_vec();
    let reqs = log.lock().unwrap().clone();

    // No failed attempts; one request per assistant message.
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.kind, EventKind::AssistantAttempt(_))),
        "assistant/attempt events present"
    );
    let us = usages(&events);
    assert_eq!(us.len(), reqs.len(), "one request per assistant message");
    assert!(
        events.iter().all(|e| match &e.kind {
            EventKind::TurnEnd(t) => t.outcome == Some(TurnOutcome::Completed),
            _ => true,
        }),
        "every turn completed"
    );

    // Turns 1–3: one request each; the records turn adds > 1024 input tokens, which the
    // third request reads from the cache.
    let (u1, u2, u3) = (us[0].2, us[1].2, us[2].2);
    assert!(u2.total_input() > u1.total_input() + 1024, "{u1:?} {u2:?}");
    assert!(
        u3.cache_read_tokens + TOLERANCE >= u2.total_input(),
        "third request cache read {u3:?} vs history {u2:?}"
    );
    assert_eq!(tool_names(&reqs[0]), vec!["cache_tool_control"]);

    // The first request after `add` is the next step of the same turn.
    let add_idx = us
        .iter()
        .position(|(t, s, _)| *t == 4 && *s == 2)
        .expect("turn 4 has a second step (the model called cache_tool_control add)");
    let (prev, next) = (&reqs[add_idx - 1], &reqs[add_idx]);
    assert_eq!(next.body["system"], reqs[0].body["system"]);
    let (pm, nm) = (
        prev.body["messages"].as_array().unwrap(),
        next.body["messages"].as_array().unwrap(),
    );
    assert!(
        nm.len() > pm.len() && nm[..pm.len()] == pm[..],
        "prefix kept"
    );
    let guidance = nm
        .iter()
        .filter(|m| m["role"] == "system" && m.to_string().contains(GUIDANCE))
        .count();
    assert_eq!(guidance, usize::from(update_prompt));
    let (pt, nt) = (
        prev.body["tools"].as_array().unwrap(),
        next.body["tools"].as_array().unwrap(),
    );
    assert!(nt.starts_with(pt), "tools keep their prefix");
    assert!(
        nt.iter()
            .any(|t| t["name"] == "cache_sample" && t["defer_loading"] == json!(true))
    );
    let addition = json!({"type": "tool_addition", "tool": {"type": "tool_reference", "name": "cache_sample"}});
    assert!(nm.iter().any(|m| {
        m["content"]
            .as_array()
            .is_some_and(|b| b.contains(&addition))
    }));
    assert!(
        next.headers
            .get("anthropic-beta")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains(BETA))
    );
    let (up, un) = (us[add_idx - 1].2, us[add_idx].2);
    assert!(
        un.cache_read_tokens + TOLERANCE >= up.total_input(),
        "cache read after the addition {un:?} vs previous {up:?}"
    );

    // After the removal: only the control tool, no tool_addition.
    let last = reqs.last().unwrap();
    assert_eq!(tool_names(last), vec!["cache_tool_control"]);
    assert!(!last.body.to_string().contains("tool_addition"));

    let devs = developer_blocks(&events);
    assert_eq!(
        devs,
        vec![
            vec!["tool-addition cache_sample".to_string()],
            vec!["tool-removal cache_sample".to_string()]
        ]
    );
}

#[tokio::test]
#[ignore = "live: needs DEEPSEEK_API_KEY and network"]
async fn live_t2_deepseek_flash_dynamic_tool_cache() {
    live_t2(false).await;
}

#[tokio::test]
#[ignore = "live: needs DEEPSEEK_API_KEY and network"]
async fn live_t2_deepseek_flash_dynamic_tool_cache_with_prompt_update() {
    live_t2(true).await;
}
