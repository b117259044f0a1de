//! A remote server's stream and its failures (SPEC §15.2): an SSE answer cut mid-call is
//! resumed with `Last-Event-ID` and the call still gets its result; a server that answers
//! with a web page, or an `https` URL whose TLS handshake fails, is named in plain words.

use std::time::Duration;

use deepterm::sim::{ScriptedReply, ScriptedToolCall, SimConfig};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::mcp_remote_oauth::HttpFixture;
use crate::common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_whose_stream_is_cut_resumes_with_last_event_id_and_gets_its_result() {
    let env = TestEnv::new(SimConfig::default()).await;
    let fixture = HttpFixture::start(
        &env.dir.path().join("fixture.jsonl"),
        &[("FIXTURE_DROP_STREAM", "1")],
    )
    .await;
    let cfg = env
        .config_builder()
        .builtin_tools(false)
        .mcp_server(
            "fx",
            &format!("url = {:?}\nenabled = false\ntimeout_secs = 5", fixture.url),
        )
        .write(env.dir.path());
    env.sim.push_reply(ScriptedReply {
        tool_calls: vec![ScriptedToolCall {
            name: "fx__slow_echo".into(),
            input: json!({ "text": "still here" }),
            id: None,
        }],
        ..ScriptedReply::default()
    });
    let out = env
        .exec_ok(&cfg, "/mcp connect fx\necho it slowly\n", &[])
        .await;
    let results: Vec<String> = tool_results(&env.log())
        .into_iter()
        .map(result_text)
        .collect();
    assert_eq!(
        results,
        ["Echo: still here"],
        "{}\n{:?}",
        stderr(&out),
        fixture.events()
    );
    // The stream really was cut, and the client came back for the rest of it.
    let events = fixture.events();
    assert_eq!(fixture.count("stream-cut", None), 1, "{events:?}");
    let resumed: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["event"] == "mcp" && e["lastEventId"].is_string())
        .collect();
    assert!(
        !resumed.is_empty(),
        "no request carried Last-Event-ID: {events:?}"
    );
    assert!(resumed.iter().all(|e| e["session"] == true), "{resumed:?}");
}

/// A loopback server answering every connection with `response` (raw HTTP), once per
/// connection; its URL's port.
async fn answering(response: &'static str) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 64 * 1024];
                let _ = tokio::time::timeout(Duration::from_secs(2), sock.read(&mut buf)).await;
                let _ = sock.write_all(response.as_bytes()).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    port
}

async fn connect_error(env: &TestEnv, url: &str) -> String {
    let cfg = env
        .config_builder()
        .builtin_tools(false)
        .mcp_server("site", &format!("url = {url:?}\nenabled = false"))
        .write(env.dir.path());
    let out = env.exec(&cfg, "/mcp connect site\n", &[]).await;
    stderr(&out)
}

const PAGE: &str = "<!doctype html><html><body>Sign in to continue</body></html>";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_answering_with_a_web_page_is_named_as_one() {
    let env = TestEnv::new(SimConfig::default()).await;
    // 200 with an HTML page (a login portal in front of the endpoint).
    let ok_page: &'static str = Box::leak(
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{PAGE}",
            PAGE.len()
        )
        .into_boxed_str(),
    );
    let port = answering(ok_page).await;
    let err = connect_error(&env, &format!("http://127.0.0.1:{port}/mcp")).await;
    assert!(
        err.contains("the server answered with a web page (text/html; charset=utf-8), not MCP"),
        "{err}"
    );
    assert!(
        !err.contains("Sign in"),
        "the page itself is not dumped: {err}"
    );
    // 404 with an HTML page (a wrong path).
    let not_found: &'static str = Box::leak(
        format!(
            "HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{PAGE}",
            PAGE.len()
        )
        .into_boxed_str(),
    );
    let port = answering(not_found).await;
    let url = format!("http://127.0.0.1:{port}/wrong");
    let err = connect_error(&env, &url).await;
    assert!(
        err.contains("the server answered with a web page (HTTP 404")
            && err.contains(&format!("is {url} its MCP endpoint?")),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_https_url_whose_tls_handshake_fails_says_tls() {
    let env = TestEnv::new(SimConfig::default()).await;
    // A plain HTTP server where the URL promises TLS (a wrong scheme or port).
    let port =
        answering("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .await;
    let url = format!("https://127.0.0.1:{port}/mcp");
    let err = connect_error(&env, &url).await;
    assert!(
        err.contains(&format!("the secure connection to {url} failed (TLS")),
        "{err}"
    );
}
