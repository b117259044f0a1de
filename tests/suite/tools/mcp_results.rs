//! What a call's result and its life look like (SPEC §15.2): structured content shown when
//! there is no text, progress on the running card, and a cancelled or timed-out call
//! telling its server to stop.

use std::time::Duration;

use deepterm::sim::{ScriptedReply, ScriptedToolCall, SimConfig};
use serde_json::{Value, json};

use super::mcp_npm::{PACKAGE, entry_script, node_available, npm_dir};
use crate::common::*;

fn call(name: &str, input: Value) -> ScriptedReply {
    ScriptedReply {
        tool_calls: vec![ScriptedToolCall {
            name: name.into(),
            input,
            id: None,
        }],
        ..ScriptedReply::default()
    }
}

fn result_texts(env: &TestEnv) -> Vec<(String, bool)> {
    env.log()
        .into_iter()
        .filter(|e| e["type"] == "tool/result")
        .map(|e| {
            let m = &e["data"]["message"];
            let text: String = m["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| b["text"].as_str())
                .collect();
            (text, m["isError"] == true)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_times_out_tells_its_server_to_stop() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cancel_log = env.dir.path().join("cancelled.log");
    let cfg = env
        .config_builder()
        .builtin_tools(false)
        .mcp_server(
            "fx",
            &format!(
                "command = \"{MCP_FIXTURE}\"\nenabled = false\ntimeout_secs = 1\n\
                 env = {{ FIXTURE_TOOLS = \"fixture_sleep,echo\", FIXTURE_CANCEL_LOG = {:?} }}",
                cancel_log.display().to_string()
            ),
        )
        .write(env.dir.path());
    env.sim
        .push_reply(call("fx__fixture_sleep", json!({ "seconds": 30 })));
    let started = std::time::Instant::now();
    env.exec_ok(&cfg, "/mcp connect fx\nsleep on the server\n", &[])
        .await;
    assert!(started.elapsed() < Duration::from_secs(20));
    let r = result_texts(&env);
    assert!(r[0].1 && r[0].0.contains("timed out after 1 s"), "{r:?}");
    // The server heard `notifications/cancelled` for that request and stopped its work.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !cancel_log.exists() && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let log = std::fs::read_to_string(&cancel_log).unwrap_or_default();
    assert_eq!(
        log.trim(),
        "cancelled",
        "the server was not told the call was cancelled"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn structured_content_without_text_reaches_the_model_as_pretty_json() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env
        .config_builder()
        .builtin_tools(false)
        .fixture_server("fx", "FIXTURE_TOOLS = \"fixture_structured\"")
        .write(env.dir.path());
    env.sim
        .push_reply(call("fx__fixture_structured", json!({})));
    env.exec_ok(&cfg, "/mcp connect fx\nweather please\n", &[])
        .await;
    let r = result_texts(&env);
    assert_eq!(
        r[0],
        (
            "{\n  \"city\": \"Oslo\",\n  \"temperature\": -3\n}".to_string(),
            false
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn npm_server_progress_reaches_the_running_card_and_its_hints_show_in_tools() {
    if !require_external("node", node_available()) {
        return;
    }
    let what = format!(
        "the npm package {PACKAGE} (npm install --prefix {})",
        npm_dir().unwrap_or_default().display()
    );
    let Some(entry) = entry_script() else {
        assert!(!require_external(&what, false));
        return;
    };
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env
        .config_builder()
        .builtin_tools(false)
        .mcp_server(
            "ev",
            &format!(
                "command = \"node\"\nargs = [{:?}, \"stdio\"]\nenabled = false\ntimeout_secs = 30",
                entry.display().to_string()
            ),
        )
        .write(env.dir.path());
    env.sim.push_reply(call(
        "ev__trigger-long-running-operation",
        json!({ "duration": 0.6, "steps": 3 }),
    ));
    let out = env
        .exec_ok(
            &cfg,
            "/mcp connect ev\n/tools\nrun the long operation\n",
            &["--json"],
        )
        .await;
    let events: Vec<Value> = stdout(&out)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let progress: Vec<(f64, Option<f64>)> = events
        .iter()
        .filter(|e| e["type"] == "tool_progress")
        .map(|e| {
            (
                e["data"]["progress"].as_f64().unwrap(),
                e["data"]["total"].as_f64(),
            )
        })
        .collect();
    assert_eq!(
        progress,
        vec![(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))],
        "{}",
        stdout(&out)
    );
    let r = result_texts(&env);
    assert!(r[0].0.contains("Long running operation completed"), "{r:?}");
    // The server's annotations, as `/tools` shows them.
    assert!(
        stdout(&out)
            .contains("server says: read-only · not destructive · idempotent · closed world"),
        "{}",
        stdout(&out)
    );
}
