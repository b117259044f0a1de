//! Remote MCP servers over Streamable HTTP (SPEC §15.2) against a real one: the npm
//! `@modelcontextprotocol/server-everything` in its `streamableHttp` mode, on loopback.

use std::process::Stdio;
use std::time::Duration;

use deepterm::sim::SimConfig;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};

use super::mcp_npm::{PACKAGE, entry_script, node_available, npm_dir};
use crate::common::*;

/// A running `server-everything streamableHttp`; killed when dropped.
pub(crate) struct HttpEverything {
    _child: tokio::process::Child,
    /// Its MCP endpoint.
    pub url: String,
}

/// A free loopback port (the server takes its port from `PORT` and cannot report one it
/// chose itself, so the test picks it; a clash makes the server exit and is retried).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts the server, or says why it cannot (skipped unless external tools are required).
pub(crate) async fn start_http_everything() -> Option<HttpEverything> {
    if !require_external("node", node_available()) {
        return None;
    }
    let entry = entry_script();
    let what = format!(
        "the npm package {PACKAGE} (npm install --prefix {})",
        npm_dir().unwrap_or_default().display()
    );
    if !require_external(&what, entry.is_some()) {
        return None;
    }
    let entry = entry.unwrap_or_default();
    for _ in 0..5 {
        let port = free_port();
        let mut child = tokio::process::Command::new("node")
            .arg(&entry)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("node starts");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let ready = tokio::time::timeout(Duration::from_secs(30), async {
            while let Ok(Some(l)) = lines.next_line().await {
                if l.contains("listening on port") {
                    return true;
                }
            }
            false
        })
        .await
        .unwrap_or(false);
        if ready {
            // Keep draining its stderr so it never blocks on a full pipe.
            tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
            return Some(HttpEverything {
                _child: child,
                url: format!("http://127.0.0.1:{port}/mcp"),
            });
        }
    }
    panic!("server-everything did not start in streamableHttp mode");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_server_over_streamable_http_lists_its_tools_and_answers_a_call() {
    let Some(server) = start_http_everything().await else {
        return;
    };
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env
        .config_builder()
        .builtin_tools(false)
        .mcp_server(
            "ev",
            &format!(
                "url = {:?}\nheaders = {{ \"X-Team\" = \"core\" }}\nenabled = false\ntimeout_secs = 30",
                server.url
            ),
        )
        .write(env.dir.path());
    let script = "/mcp connect ev\n/mcp\nplease call ev__echo \"hello over http\"\n";
    let out = env.exec(&cfg, script, &[]).await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("MCP server ev connected"), "{err}");
    assert!(stdout(&out).contains("ev: connected"), "{}", stdout(&out));
    let log = env.log();
    let connected = log
        .iter()
        .find(|e| e["type"] == "mcp/status" && e["data"]["state"] == "connected")
        .expect("a connected status");
    let listed: Vec<&str> = connected["data"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(listed.contains(&"ev__echo"), "{listed:?}");
    let reqs = env.requests();
    assert!(tool_names(&reqs[0]).contains(&"ev__echo".to_string()));
    let results = tool_results(&log);
    assert_eq!(results.len(), 1);
    assert_eq!(result_text(results[0]), "Echo: hello over http");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_server_that_cannot_be_reached_fails_with_its_url_in_plain_words() {
    let env = TestEnv::new(SimConfig::default()).await;
    // A port nobody listens on.
    let port = free_port();
    let cfg = env
        .config_builder()
        .builtin_tools(false)
        .mcp_server(
            "gone",
            &format!("url = \"http://127.0.0.1:{port}/mcp\"\nenabled = false"),
        )
        .write(env.dir.path());
    let out = env.exec(&cfg, "/mcp connect gone\n", &[]).await;
    let err = stderr(&out);
    assert!(
        err.contains(&format!("cannot reach http://127.0.0.1:{port}/mcp")),
        "{err}"
    );
}
