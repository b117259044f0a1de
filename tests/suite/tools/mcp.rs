//! MCP servers that come and go (SPEC §3 `[mcp.servers.NAME]`, §5 MCP): `deepterm exec`
//! against the loopback simulator with the real fixture server process
//! (`deepterm-mcp-fixture`) configured as server `fx`.

use std::path::{Path, PathBuf};
use std::process::Output;

use deepterm::sim::SimConfig;
use serde_json::{Value, json};

use crate::common::MCP_FIXTURE as FIXTURE;
const FX_TOOLS: [&str; 6] = [
    "fx__add",
    "fx__echo",
    "fx__fail",
    "fx__fixture_add_tool",
    "fx__fixture_crash",
    "fx__fixture_remove_tool",
];

use crate::common;

use common::*;

/// The fixture as server `fx` and its crash marker.
trait McpEnv {
    fn marker(&self) -> PathBuf;
    fn config(&self, fx_extra: &str) -> PathBuf;
    /// `deepterm exec`, optionally with reconnect backoff `INITIAL,MAX,TRIES` (ms).
    async fn run(&self, config: &Path, script: &str, backoff: Option<&str>) -> Output;
}

impl McpEnv for TestEnv {
    fn marker(&self) -> PathBuf {
        self.dir.path().join("crashed.marker")
    }

    /// A config on the simulator with the fixture as server `fx` (not started at launch).
    fn config(&self, fx_extra: &str) -> PathBuf {
        let marker = self.marker().display().to_string();
        let fx = format!(
            "command = \"{FIXTURE}\"\nenabled = false\nenv = {{ FIXTURE_FAIL_MARKER = \"{marker}\" }}\n{fx_extra}"
        );
        self.config_builder()
            .builtin_tools(false)
            .mcp_server("fx", &fx)
            .write(self.dir.path())
    }

    async fn run(&self, config: &Path, script: &str, backoff: Option<&str>) -> Output {
        match backoff {
            Some(b) => {
                self.exec_with(config, script, &[], &[("DEEPTERM_MCP_BACKOFF_MS", b)])
                    .await
            }
            None => self.exec(config, script, &[]).await,
        }
    }
}

async fn new_env() -> TestEnv {
    TestEnv::new(SimConfig::default()).await
}

fn mcp_states(log: &[Value]) -> Vec<String> {
    log.iter()
        .filter(|e| e["type"] == "mcp/status")
        .map(|e| e["data"]["state"].as_str().unwrap().to_string())
        .collect()
}

fn last_user_text(r: &Value) -> String {
    let m = messages(r)
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap();
    match &m["content"] {
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().filter_map(|b| b["text"].as_str()).collect(),
        _ => String::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_server_connected_mid_conversation_adds_deferred_tools_and_keeps_the_prefix() {
    let env = new_env().await;
    let script = "Hello\n/mcp\n/mcp connect fx\n/mcp\nplease call fx__add now\n";
    let out = env.run(&env.config(""), script, None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    // /mcp lists state and tool count, before and after the connect.
    let text = stdout(&out);
    assert!(text.contains("fx: not connected, 0 tools"), "{text}");
    assert!(text.contains("fx: connected, 6 tools"), "{text}");
    assert!(
        stderr(&out).contains("MCP server fx connected (6 tools)"),
        "{}",
        stderr(&out)
    );
    let reqs = env.requests();
    assert_eq!(reqs.len(), 3, "hello, tool call, after the tool");
    let (r0, r1, r2) = (&reqs[0], &reqs[1], &reqs[2]);
    assert!(tool_names(r0).is_empty());
    // The tools arrive appended, deferred, with a tool_addition block; nothing earlier changes.
    assert!(starts_with_previous(r0, r1));
    assert_eq!(tool_names(r1), FX_TOOLS);
    assert!(
        r1["body"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["defer_loading"] == true)
    );
    assert!(has_block(r1, "tool_addition"));
    assert!(starts_with_previous(r1, r2));
    assert_eq!(r1["toolCalls"][0]["name"], "fx__add");
    // The call ran on the real server.
    let log = env.log();
    let results = tool_results(&log);
    assert_eq!(results.len(), 1);
    assert_eq!(result_text(results[0]), "2");
    assert_ne!(results[0]["isError"], true);
    // Status changes are logged.
    assert_eq!(mcp_states(&log), vec!["connecting", "connected"]);
    let connected = log
        .iter()
        .find(|e| e["type"] == "mcp/status" && e["data"]["state"] == "connected")
        .unwrap();
    assert_eq!(connected["data"]["tools"], json!(FX_TOOLS));
    let additions: Vec<Value> = FX_TOOLS
        .iter()
        .map(|n| json!({"type": "tool-addition", "toolName": n}))
        .collect();
    assert_eq!(developer_contents(&log), vec![Value::Array(additions)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changed_adds_and_removes_a_tool_before_the_next_request() {
    let env = new_env().await;
    let script = "Hello\n/mcp connect fx\n\
        please call fx__fixture_add_tool \"extra\"\n\
        please call fx__fixture_remove_tool \"extra\"\n\
        Thanks\n";
    let out = env.run(&env.config(""), script, None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let reqs = env.requests();
    assert_eq!(reqs.len(), 6, "{:#?}", reqs.len());
    // The request right after the adding call already declares the new tool.
    assert_eq!(reqs[1]["toolCalls"][0]["name"], "fx__fixture_add_tool");
    assert!(tool_names(&reqs[2]).contains(&"fx__extra".to_string()));
    assert!(starts_with_previous(&reqs[1], &reqs[2]));
    assert_eq!(reqs[3]["toolCalls"][0]["name"], "fx__fixture_remove_tool");
    // The removed tool stays declared (the prefix is kept, SPEC §15.1) but is no longer
    // offered.
    assert!(tool_names(&reqs[4]).contains(&"fx__extra".to_string()));
    assert!(starts_with_previous(&reqs[3], &reqs[4]));
    let body = reqs[4]["rawBody"].as_str().unwrap();
    assert!(body.contains("Tool removed: fx__extra."), "{body}");
    let log = env.log();
    let dev = developer_contents(&log);
    assert_eq!(dev.len(), 3, "{dev:#?}");
    assert_eq!(
        dev[1],
        json!([{"type": "tool-addition", "toolName": "fx__extra"}])
    );
    assert_eq!(
        dev[2],
        json!([{"type": "tool-removal", "toolName": "fx__extra"}])
    );
    // A list change is not a state change.
    assert_eq!(mcp_states(&log), vec!["connecting", "connected"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_keeps_tools_until_the_final_failure_then_removes_them_in_one_message() {
    let env = new_env().await;
    let script = "Hello\n/mcp connect fx\n\
        please call fx__fixture_crash now\n\
        please call fx__echo \"during the outage\"\n\
        /mcp connect fx\n\
        /mcp\n\
        Thanks\n";
    // Three reconnect tries, 300 ms apart: the outage outlasts the two turns above.
    let out = env.run(&env.config(""), script, Some("300,300,3")).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(env.marker().exists(), "the fixture crashed");
    let reqs = env.requests();
    // hello; crash call + after; echo call + after; thanks.
    assert_eq!(reqs.len(), 6);
    for r in &reqs[1..5] {
        assert_eq!(tool_names(r), FX_TOOLS, "no flapping during the outage");
    }
    let log = env.log();
    let results = tool_results(&log);
    assert_eq!(results.len(), 2);
    assert_eq!(results[1]["isError"], true);
    assert_eq!(
        result_text(results[1]),
        "MCP server \"fx\" is not connected (reconnecting)"
    );
    // The final failure removed every fx tool in ONE developer message.
    let dev = developer_contents(&log);
    assert_eq!(dev.len(), 2, "{dev:#?}");
    let removals: Vec<Value> = FX_TOOLS
        .iter()
        .map(|n| json!({"type": "tool-removal", "toolName": n}))
        .collect();
    assert_eq!(dev[1], Value::Array(removals));
    assert!(last_user_text(&reqs[5]).contains("Thanks"));
    // Still declared, no longer offered: the removal kept the prefix (SPEC §15.1).
    assert_eq!(tool_names(&reqs[5]), FX_TOOLS);
    assert!(starts_with_previous(&reqs[4], &reqs[5]));
    let body = reqs[5]["rawBody"].as_str().unwrap();
    assert!(body.contains("Tool removed: fx__echo."), "{body}");
    // Status: connected, then three failed reconnects, then failed.
    let states = mcp_states(&log);
    assert_eq!(
        states,
        vec![
            "connecting",
            "connected",
            "disconnected",
            "connecting",
            "disconnected",
            "connecting",
            "disconnected",
            "connecting",
            "failed",
        ]
    );
    let failed = log.iter().rfind(|e| e["type"] == "mcp/status").unwrap();
    assert!(
        failed["data"]["error"]
            .as_str()
            .unwrap()
            .contains("refusing to start"),
        "the last error carries the server's stderr: {failed}"
    );
    let text = stdout(&out);
    assert!(text.contains("fx: failed, 0 tools"), "{text}");
    assert!(text.contains("last error:"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn is_error_result_becomes_a_tool_error_and_disconnect_removes_tools() {
    let env = new_env().await;
    let script = "Hello\n/mcp connect fx\nplease call fx__fail \"boom\"\n\
        /mcp disconnect fx\n/mcp\nbye\n";
    let out = env
        .run(&env.config("approval = \"never\""), script, None)
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let log = env.log();
    let results = tool_results(&log);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["isError"], true);
    assert_eq!(result_text(results[0]), "fixture failure: boom");
    assert_eq!(
        mcp_states(&log),
        vec!["connecting", "connected", "disconnected"]
    );
    let dev = developer_contents(&log);
    assert_eq!(dev.len(), 2);
    assert_eq!(dev[1].as_array().unwrap().len(), FX_TOOLS.len());
    assert!(stdout(&out).contains("fx: disconnected, 0 tools"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_server_and_failed_start_are_clear_errors() {
    let env = new_env().await;
    let cfg = env.config("");
    // A marker makes the fixture refuse to start: the first connect fails at once.
    std::fs::write(env.marker(), b"x").unwrap();
    let out = env
        .run(&cfg, "/mcp connect nope\n/mcp connect fx\nHello\n", None)
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("There is no MCP server named \"nope\""),
        "{err}"
    );
    assert!(
        err.contains("MCP server fx could not be connected"),
        "{err}"
    );
    let reqs = env.requests();
    assert!(tool_names(&reqs[0]).is_empty());
    assert_eq!(mcp_states(&env.log()), vec!["connecting", "failed"]);
}

/// In the TUI, `/mcp connect` runs in the background: the loop keeps answering while a slow
/// server starts, and the connection's status changes are logged while idle.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interactive_connect_does_not_hold_up_the_loop() {
    use deepterm::agent::protocol::AgentEvent;
    let env = new_env().await;
    let cfg = env
        .config_builder()
        .builtin_tools(false)
        .fixture_server("fx", "FIXTURE_START_DELAY_MS = \"1500\"")
        .write_as(&env.dir.path().join("slow.toml"));
    let mut ui = env.start_interactive(cfg);
    let started = std::time::Instant::now();
    ui.submit("/mcp connect fx");
    ui.submit("/help");
    let mut help_at = None;
    let mut connected_at = None;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while connected_at.is_none() && std::time::Instant::now() < deadline {
        let ev = ui.next_event().await;
        match ev {
            AgentEvent::Output(lines)
                if lines
                    .iter()
                    .any(|x| format!("{:?}", x.args).contains("/compact")) =>
            {
                help_at.get_or_insert(started.elapsed());
            }
            AgentEvent::Notice(n) if n.key == "mcp-connected" => {
                connected_at = Some(started.elapsed());
            }
            _ => {}
        }
    }
    ui.shutdown().await;
    let (help_at, connected_at) = (help_at.unwrap(), connected_at.unwrap());
    assert!(
        help_at < connected_at,
        "/help answered while the server was starting"
    );
    assert!(connected_at >= std::time::Duration::from_millis(1400));
    let log = env.log();
    let states: Vec<&str> = log
        .iter()
        .filter(|e| e["type"] == "mcp/status")
        .map(|e| e["data"]["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, vec!["connecting", "connected"], "logged while idle");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renamed_mcp_tools_show_their_mapping_in_tools() {
    let env = new_env().await;
    let script = "/mcp connect fx\nplease call fx__fixture_add_tool \"weird.tool\"\n/tools\n";
    let out = env.run(&env.config(""), script, None).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("fx__weird_tool"), "{text}");
    assert!(
        text.contains("fx__weird_tool ← tool \"weird.tool\""),
        "{text}"
    );
}

/// A server that finishes connecting while a turn runs: its tools reach the next step's
/// request as deferred declarations plus a `tool_addition`, earlier messages unchanged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_connecting_mid_turn_adds_deferred_tools_at_the_next_step() {
    use deepterm::agent::protocol::AgentEvent;
    let env = TestEnv::new(SimConfig {
        latency: std::time::Duration::from_millis(60),
        ..SimConfig::default()
    })
    .await;
    let cfg = env
        .config_builder()
        .builtin_tools(false)
        .command_tool("stamp", STAMP_TOOL)
        .mcp_server(
            "fx",
            &format!(
                "command = \"{FIXTURE}\"\nenabled = true\n\
                 env = {{ FIXTURE_START_DELAY_MS = \"400\", FIXTURE_TOOLS = \"echo\" }}"
            ),
        )
        .write_as(&env.dir.path().join("midturn.toml"));
    let mut ui = env.start_interactive(cfg);
    // The first step (a call of `stamp`) streams for well over 400 ms.
    ui.submit("Please call stamp");
    loop {
        let ev = ui.next_event().await;
        if matches!(ev, AgentEvent::TurnFinished) {
            break;
        }
    }
    ui.shutdown().await;
    let reqs = env.requests();
    assert!(reqs.len() >= 2, "{}", reqs.len());
    let (r1, r2) = (&reqs[0], &reqs[1]);
    assert_eq!(tool_names(r1), vec!["stamp"], "the server was not up yet");
    assert_eq!(r1["toolCalls"][0]["name"], "stamp");
    assert!(starts_with_previous(r1, r2), "earlier messages unchanged");
    assert_eq!(tool_names(r2), vec!["stamp", "fx__echo"]);
    assert_eq!(r2["body"]["tools"][1]["defer_loading"], true);
    assert!(r2["rawBody"].as_str().unwrap().contains(
        r#"{"type":"tool_addition","tool":{"type":"tool_reference","name":"fx__echo"}}"#
    ));
    let log = env.log();
    let t: Vec<&str> = log.iter().map(|e| e["type"].as_str().unwrap()).collect();
    let connected = log
        .iter()
        .position(|e| e["type"] == "mcp/status" && e["data"]["state"] == "connected")
        .unwrap();
    let turn_start = t.iter().position(|x| *x == "turn/start").unwrap();
    let turn_end = t.iter().position(|x| *x == "turn/end").unwrap();
    assert!(turn_start < connected && connected < turn_end, "{t:?}");
}
