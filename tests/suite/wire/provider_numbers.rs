//! Numbers a provider sends are untrusted: a `Retry-After` of any size or shape never
//! crashes `exec`, and a usage that cannot be true is neither counted nor acted on (no
//! automatic compaction). The providers are tiny loopback servers.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use deepterm::sim::SimConfig;
use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

use crate::common;

use common::*;

/// Serves `response` to every request; returns the base URL and the request count.
async fn serve(response: String) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            c.fetch_add(1, Ordering::SeqCst);
            let response = response.clone();
            tokio::spawn(async move {
                read_request(&mut sock).await;
                let _ = sock.write_all(response.as_bytes()).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    (base, count)
}

/// A config with one Messages provider `h` at `base`, context window `window`.
fn config(env: &TestEnv, base: &str, window: u64) -> std::path::PathBuf {
    ConfigBuilder::with_provider("h", "deepseek-messages", base)
        .model_entry(&format!(
            "id = \"deepseek-flash\"\ncontext_window = {window}"
        ))
        .builtin_tools(false)
        .write_as(&env.dir.path().join("hostile.toml"))
}

fn error_response(status: u16, retry_after: &str) -> String {
    let body = r#"{"type":"error","error":{"type":"api_error","message":"try much later"}}"#;
    format!(
        "HTTP/1.1 {status} Whatever\r\ncontent-type: application/json\r\nretry-after: {retry_after}\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_retry_after_ends_exec_with_the_error_and_no_panic() {
    let far = "Fri, 31 Dec 9999 23:59:59 GMT";
    for (status, value) in [
        (429, "1e20"),
        (503, "18446744073709551616"),
        (400, "1e20"),
        (429, "inf"),
        (503, far),
        (429, "1e308"),
    ] {
        let env = TestEnv::new(SimConfig::default()).await;
        let (base, count) = serve(error_response(status, value)).await;
        let cfg = config(&env, &base, 1_048_576);
        let out = env.exec(&cfg, "hi\n", &[]).await;
        let err = stderr(&out);
        let what = format!("{status} with Retry-After: {value}");
        assert_ne!(out.status.code(), Some(101), "{what}: {err}");
        assert!(!err.contains("panicked"), "{what}: {err}");
        assert!(!out.status.success(), "{what}: the error surfaces: {err}");
        assert!(err.contains("try much later"), "{what}: {err}");
        // A delay past the longest one waited for is not waited for: no retry, at once.
        assert_eq!(count.load(Ordering::SeqCst), 1, "{what}: {err}");
        let attempts: Vec<Value> = env
            .log()
            .into_iter()
            .filter(|e| e["type"] == "assistant/attempt")
            .collect();
        assert_eq!(attempts.len(), 1, "{what}");
        assert_eq!(attempts[0]["data"]["error"]["retried"], false, "{what}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_after_that_is_not_a_delay_falls_back_to_backoff() {
    // Each value's run waits out its own backoff, all at once.
    let runs = ["NaN", "-1", "soon", "0x10"].map(|value| async move {
        let env = TestEnv::new(SimConfig::default()).await;
        let (base, count) = serve(error_response(503, value)).await;
        let cfg = config(&env, &base, 1_048_576);
        let out = env.exec(&cfg, "hi\n", &[]).await;
        (value, out, count.load(Ordering::SeqCst))
    });
    for (value, out, count) in futures_util::future::join_all(runs).await {
        let err = stderr(&out);
        assert_ne!(out.status.code(), Some(101), "{value}: {err}");
        assert!(!err.contains("panicked"), "{value}: {err}");
        assert!(!out.status.success(), "{value}: {err}");
        // The first attempt and the default policy's three retries.
        assert_eq!(count, 4, "{value}: {err}");
    }
}

/// A complete Messages stream answering `text` with this usage in `message_start` and
/// `message_delta`.
fn reply_with_usage(text: &str, start: &str, delta: &str) -> String {
    let text = serde_json::to_string(text).unwrap();
    let events = [
        (
            "message_start",
            format!(
                r#"{{"type":"message_start","message":{{"id":"m","type":"message","role":"assistant","content":[],"usage":{start}}}}}"#
            ),
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#
                .to_string(),
        ),
        (
            "content_block_delta",
            format!(
                r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":{text}}}}}"#
            ),
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#.to_string(),
        ),
        (
            "message_delta",
            format!(
                r#"{{"type":"message_delta","delta":{{"stop_reason":"end_turn"}},"usage":{delta}}}"#
            ),
        ),
        ("message_stop", r#"{"type":"message_stop"}"#.to_string()),
    ];
    let mut out = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
        .to_string();
    for (name, data) in events {
        out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn impossible_usage_is_unknown_and_never_starts_a_compaction() {
    let max = u64::MAX;
    for (start, delta) in [
        // The largest count a provider can send: u64::MAX input tokens.
        (
            format!(r#"{{"input_tokens":{max},"output_tokens":0}}"#),
            r#"{"output_tokens":5}"#.to_string(),
        ),
        // Beyond the route's window of 4096 tokens.
        (
            r#"{"input_tokens":5000,"output_tokens":0}"#.into(),
            r#"{"output_tokens":5}"#.into(),
        ),
        // Past u64, negative, fractional, a string.
        (
            r#"{"input_tokens":18446744073709551616}"#.into(),
            r#"{"output_tokens":5}"#.into(),
        ),
        (
            r#"{"input_tokens":10}"#.into(),
            r#"{"output_tokens":-5}"#.into(),
        ),
        (
            r#"{"input_tokens":10.5}"#.into(),
            r#"{"output_tokens":5}"#.into(),
        ),
        (
            r#"{"input_tokens":"10"}"#.into(),
            r#"{"output_tokens":5}"#.into(),
        ),
        (r#""lots""#.into(), r#"{"output_tokens":5}"#.into()),
    ] {
        let env = TestEnv::new(SimConfig::default()).await;
        let (base, count) = serve(reply_with_usage("Fine answer.", &start, &delta)).await;
        let cfg = config(&env, &base, 4096);
        let out = env.exec(&cfg, "hi\nand again\n", &[]).await;
        let err = stderr(&out);
        let what = format!("usage {start} then {delta}");
        assert!(
            out.status.success(),
            "{what}: the reply itself is fine: {err}"
        );
        assert!(stdout(&out).contains("Fine answer."), "{what}");
        let log = env.log();
        let messages: Vec<&Value> = log
            .iter()
            .filter(|e| e["type"] == "assistant/message")
            .collect();
        assert_eq!(messages.len(), 2, "{what}");
        for m in &messages {
            assert!(
                m["data"].get("usage").is_none(),
                "{what}: an impossible usage is not logged as if it were true: {m}"
            );
        }
        assert!(
            !log.iter().any(|e| e["type"] == "compaction/start"),
            "{what}: nothing acts on it: {log:?}"
        );
        assert_eq!(
            count.load(Ordering::SeqCst),
            2,
            "{what}: no summarizer request"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn possible_usage_is_logged_and_counted() {
    let env = TestEnv::new(SimConfig::default()).await;
    let reply = reply_with_usage(
        "Fine answer.",
        r#"{"input_tokens":100,"cache_read_input_tokens":900,"output_tokens":1}"#,
        r#"{"output_tokens":7}"#,
    );
    let (base, _) = serve(reply).await;
    let cfg = config(&env, &base, 4096);
    env.exec_ok(&cfg, "hi\n", &[]).await;
    let log = env.log();
    let m = log
        .iter()
        .find(|e| e["type"] == "assistant/message")
        .unwrap();
    assert_eq!(
        m["data"]["usage"],
        serde_json::json!({"inputTokens": 100, "cacheReadTokens": 900, "outputTokens": 7})
    );
}
