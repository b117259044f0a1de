//! A hostile provider cannot break the wire path: bounded SSE events and replies, missing or duplicate tool-call ids, a
//! no-progress timeout and a 200 with a JSON body (decision 0009).
//! Hostile providers are tiny loopback servers; everything else is the simulator.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use deepterm::sim::{Script, SimConfig};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

use crate::common;

use common::*;

/// What a hostile server sends after the response head.
#[derive(Clone, Copy)]
enum Hostile {
    /// One event whose `data:` lines never end (no blank line), `limit` bytes, then close.
    EndlessEvent { limit: usize },
    /// `message_start`, then `event: ping` every 100 ms for `secs` seconds.
    PingsOnly { secs: u64 },
    /// A 200 with a JSON error body.
    JsonBody,
    /// A 200 that claims to be a stream but carries a JSON error body.
    JsonAsStream,
}

const SSE_HEAD: &str =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
const MESSAGE_START: &str = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":0}}}\n\n";

async fn answer(mut sock: TcpStream, what: Hostile) {
    read_request(&mut sock).await;
    match what {
        Hostile::EndlessEvent { limit } => {
            if sock.write_all(SSE_HEAD.as_bytes()).await.is_err() {
                return;
            }
            let line = format!("data: {}\n", "x".repeat(16 * 1024));
            let mut sent = 0;
            while sent < limit {
                if sock.write_all(line.as_bytes()).await.is_err() {
                    return;
                }
                sent += line.len();
            }
        }
        Hostile::PingsOnly { secs } => {
            let start = format!("{SSE_HEAD}{MESSAGE_START}");
            if sock.write_all(start.as_bytes()).await.is_err() {
                return;
            }
            for _ in 0..secs * 10 {
                tokio::time::sleep(Duration::from_millis(100)).await;
                let ping = "event: ping\ndata: {\"type\":\"ping\"}\n\n: keep-alive\n\n";
                if sock.write_all(ping.as_bytes()).await.is_err() {
                    return;
                }
            }
        }
        Hostile::JsonBody => {
            let body = r#"{"error":{"message":"Model Not Exist","type":"invalid_request_error"}}"#;
            let resp = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = sock.write_all(resp.as_bytes()).await;
        }
        Hostile::JsonAsStream => {
            let body = "{\"error\": {\"message\": \"upstream quota gateway said no\"}}\n";
            let _ = sock.write_all(format!("{SSE_HEAD}{body}").as_bytes()).await;
        }
    }
    let _ = sock.shutdown().await;
}

/// Starts a hostile server; returns its base URL and the number of requests it got.
async fn hostile(what: Hostile) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            c.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(answer(sock, what));
        }
    });
    (base, count)
}

/// A config with one Messages provider `h` at `base` and `extra` appended.
fn hostile_config(env: &TestEnv, base: &str, extra: &str) -> PathBuf {
    ConfigBuilder::with_provider("h", "deepseek-messages", base)
        .builtin_tools(false)
        .table(extra)
        .write_as(&env.dir.path().join("hostile.toml"))
}

fn attempts(env: &TestEnv) -> Vec<Value> {
    env.log()
        .into_iter()
        .filter(|e| e["type"] == "assistant/attempt")
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endless_event_fails_once_with_a_size_error() {
    let env = TestEnv::new(SimConfig::default()).await;
    // 40 MB, then close: without a cap this used to buffer all of it and be retried.
    let (base, count) = hostile(Hostile::EndlessEvent {
        limit: 40 * 1024 * 1024,
    })
    .await;
    let cfg = hostile_config(&env, &base, "");
    let out = env.exec(&cfg, "hi\n", &[]).await;
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(err.contains("too large"), "{err}");
    assert!(err.contains("16777216"), "{err}");
    assert_eq!(count.load(Ordering::SeqCst), 1, "no retry: {err}");
    let a = attempts(&env);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0]["data"]["error"]["code"], "too_large");
    assert_eq!(a[0]["data"]["error"]["retried"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reply_cap_from_config_stops_a_long_reply() {
    let script = Script::parse(&json!([{"text": "y".repeat(5000)}]).to_string()).unwrap();
    let env = TestEnv::new(SimConfig {
        script: Some(script),
        ..SimConfig::default()
    })
    .await;
    let cfg = env.write_config(
        "config.toml",
        &routes_config(&env.sim.base_url(), "\n[limits]\nmax_reply_bytes = 1000\n"),
    );
    let out = env.exec(&cfg, "hi\n", &[]).await;
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(err.contains("larger than 1000 bytes"), "{err}");
    assert_eq!(env.requests().len(), 1, "not retried: {err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pings_without_content_hit_the_no_progress_timeout() {
    let env = TestEnv::new(SimConfig::default()).await;
    let (base, count) = hostile(Hostile::PingsOnly { secs: 120 }).await;
    let cfg = hostile_config(&env, &base, "\n[limits]\nno_progress_timeout_secs = 1\n");
    let started = std::time::Instant::now();
    let out = env.exec(&cfg, "hi\n", &[]).await;
    let took = started.elapsed();
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(err.contains("no new content"), "{err}");
    // Pings arrive every 100 ms, so only the no-progress timer can end each attempt:
    // the first attempt and the three retries of the default policy.
    assert_eq!(count.load(Ordering::SeqCst), 4, "{err}");
    let a = attempts(&env);
    assert_eq!(a.len(), 4);
    assert!(
        a.iter()
            .all(|e| e["data"]["error"]["code"] == "no_progress")
    );
    assert!(took < Duration::from_secs(30), "{took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_body_on_200_is_a_clear_error_not_retried() {
    let env = TestEnv::new(SimConfig::default()).await;
    let (base, count) = hostile(Hostile::JsonBody).await;
    let cfg = hostile_config(&env, &base, "");
    let out = env.exec(&cfg, "hi\n", &[]).await;
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(
        err.contains("the provider answered with JSON instead of a stream: Model Not Exist"),
        "{err}"
    );
    assert_eq!(count.load(Ordering::SeqCst), 1, "{err}");

    // The same body behind a `text/event-stream` content type.
    let (base, count) = hostile(Hostile::JsonAsStream).await;
    let cfg = hostile_config(&env, &base, "");
    let out = env.exec(&cfg, "hi\n", &[]).await;
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(
        err.contains("JSON instead of a stream: upstream quota gateway said no"),
        "{err}"
    );
    assert_eq!(count.load(Ordering::SeqCst), 1, "{err}");
}

/// Tool calls of `word_count` with distinct inputs, so results show which call they answer.
fn three_calls(ids: [&str; 3]) -> Value {
    json!([
        {"tool_calls": [
            {"name": "word_count", "input": {"path": "a"}, "id": ids[0]},
            {"name": "word_count", "input": {"path": "bb"}, "id": ids[1]},
            {"name": "word_count", "input": {"path": "ccc"}, "id": ids[2]}
        ]},
        {"text": "counted"},
        {"text": "still here"}
    ])
}

/// Asserts a recorded Messages request has unique tool-use ids and that each result
/// answers the call with its input (`wc -c` of the arguments).
fn assert_paired_anthropic(req: &Value) {
    let mut ids = std::collections::HashSet::new();
    let mut expected = std::collections::HashMap::new();
    for m in messages(req) {
        for b in m["content"].as_array().into_iter().flatten() {
            if b["type"] == "tool_use" {
                let id = b["id"].as_str().unwrap().to_string();
                assert!(!id.is_empty());
                assert!(ids.insert(id.clone()), "duplicate id {id}");
                expected.insert(id, (b["input"].to_string().len() + 1).to_string());
            }
        }
    }
    assert_eq!(ids.len(), 3, "{req}");
    let mut answered = 0;
    for m in messages(req) {
        for b in m["content"].as_array().into_iter().flatten() {
            if b["type"] == "tool_result" {
                let id = b["tool_use_id"].as_str().unwrap();
                let text = b["content"][0]["text"].as_str().unwrap().trim().to_string();
                assert_eq!(Some(&text), expected.get(id), "result of {id}");
                answered += 1;
            }
        }
    }
    assert_eq!(answered, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplicate_and_empty_ids_on_arrival_are_renamed() {
    for route in ["ds", "oai"] {
        let script =
            Script::parse(&three_calls(["call_same", "call_same", ""]).to_string()).unwrap();
        let env = TestEnv::new(SimConfig {
            script: Some(script),
            ..SimConfig::default()
        })
        .await;
        let cfg = env.write_config(
            "config.toml",
            &routes_config(&env.sim.base_url(), "").replace(
                "model = \"ds/deepseek-flash\"",
                &format!("model = \"{route}/deepseek-flash\""),
            ),
        );
        let out = env
            .exec(
                &cfg,
                "/tool enable word_count\ncount please\nand again\n",
                &[],
            )
            .await;
        let err = stderr(&out);
        assert!(out.status.success(), "{route}: {err}");
        assert!(err.contains("renamed"), "{route}: notice expected: {err}");
        let reqs = env.requests();
        assert_eq!(reqs.len(), 3, "{route}");
        assert!(reqs.iter().all(|r| r["status"] == 200), "{route}: {reqs:?}");
        if route == "ds" {
            assert_paired_anthropic(&reqs[1]);
            assert_paired_anthropic(&reqs[2]);
        } else {
            let calls: Vec<String> = messages(&reqs[2])
                .iter()
                .flat_map(|m| m["tool_calls"].as_array().cloned().unwrap_or_default())
                .map(|c| c["id"].as_str().unwrap().to_string())
                .collect();
            let results: Vec<String> = messages(&reqs[2])
                .iter()
                .filter(|m| m["role"] == "tool")
                .map(|m| m["tool_call_id"].as_str().unwrap().to_string())
                .collect();
            assert_eq!(calls.len(), 3);
            assert_eq!(calls, results, "{route}");
            let unique: std::collections::HashSet<&String> = calls.iter().collect();
            assert_eq!(unique.len(), 3, "{calls:?}");
        }
        // The log holds the repaired ids: a resume sends the same request prefix.
        let log = env.log();
        let logged: Vec<&str> = log
            .iter()
            .filter(|e| e["type"] == "tool/call")
            .map(|e| e["data"]["callId"].as_str().unwrap())
            .collect();
        assert_eq!(logged.len(), 3);
        assert!(logged.iter().all(|id| !id.is_empty()), "{logged:?}");
        assert_eq!(
            logged
                .iter()
                .collect::<std::collections::HashSet<_>>()
                .len(),
            3,
            "{logged:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn old_log_with_duplicate_ids_resumes() {
    let script = Script::parse(&three_calls(["call_a", "call_b", "call_c"]).to_string()).unwrap();
    let env = TestEnv::new(SimConfig {
        script: Some(script),
        ..SimConfig::default()
    })
    .await;
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""));
    env.exec_ok(&cfg, "/tool enable word_count\ncount please\n", &[])
        .await;
    // Turn the log into one an older deepterm wrote for a faulty provider: two calls with
    // id `call_same` and one with "", plus their results.
    let path = env.log_path();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        text.matches("\"call_b\"").count(),
        3,
        "call, tool/call, result"
    );
    let old = text
        .replace("\"call_a\"", "\"call_same\"")
        .replace("\"call_b\"", "\"call_same\"")
        .replace("\"call_c\"", "\"\"");
    std::fs::write(&path, old).unwrap();

    env.exec_ok(
        &cfg,
        "/tool enable word_count\nwhat now?\n",
        &["--resume", "last"],
    )
    .await;
    let reqs = env.requests();
    let last = reqs.last().unwrap();
    assert_eq!(last["status"], 200, "{last}");
    assert_paired_anthropic(last);
    // The old lines themselves are untouched (repair happens when the request is built).
    let now = std::fs::read_to_string(&path).unwrap();
    assert_eq!(now.matches("\"call_same\"").count(), 6);
}
