//! Numbers a provider sends are untrusted: a `Retry-After` of any size or shape never
//! crashes `exec`. The providers are tiny loopback servers.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use deepterm::sim::SimConfig;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

mod common;

use common::*;

/// Reads one HTTP request (head and `content-length` body).
async fn read_request(sock: &mut TcpStream) {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 8192];
    loop {
        let Ok(n) = sock.read(&mut tmp).await else {
            return;
        };
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&tmp[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..i]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            if buf.len() >= i + 4 + len {
                return;
            }
        }
    }
}

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
    env.write_config(
        "hostile.toml",
        &format!(
            r#"
model = "h/deepseek-flash"

[providers.h]
kind = "deepseek-messages"
base_url = "{base}"
api_key_env = "{KEY_VAR}"

[[providers.h.models]]
id = "deepseek-flash"
context_window = {window}

[tools.builtin]
enabled = false
"#
        ),
    )
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
    for value in ["NaN", "-1", "soon", "0x10"] {
        let env = TestEnv::new(SimConfig::default()).await;
        let (base, count) = serve(error_response(503, value)).await;
        let cfg = config(&env, &base, 1_048_576);
        let out = env.exec(&cfg, "hi\n", &[]).await;
        let err = stderr(&out);
        assert_ne!(out.status.code(), Some(101), "{value}: {err}");
        assert!(!err.contains("panicked"), "{value}: {err}");
        assert!(!out.status.success(), "{value}: {err}");
        // The first attempt and the default policy's three retries.
        assert_eq!(count.load(Ordering::SeqCst), 4, "{value}: {err}");
    }
}
