//! The loop's services: approvals belong to the session, side-effecting tools
//! never overlap, and `exec` declares config-enabled MCP tools from its first request.
//! Driven like the TUI and `exec` drive the loop, against the loopback simulator.

use std::time::Duration;

use deepterm::agent::protocol::{AgentCommand, AgentEvent, ApprovalDecision};
use deepterm::sim::SimConfig;
use deepterm::sim::{ScriptedReply, ScriptedToolCall};
use serde_json::json;

use crate::common;

use common::*;

use crate::common::MCP_FIXTURE as FIXTURE;

/// Runs until the turn ends; returns the tools whose approval was asked, in order.
async fn answer_turn(ui: &mut Interactive, decision: ApprovalDecision) -> Vec<String> {
    let mut asked = Vec::new();
    loop {
        match ui.next_event().await {
            AgentEvent::ApprovalRequest { call_id, tool, .. } => {
                asked.push(tool);
                ui.commands
                    .send(AgentCommand::Approve { call_id, decision })
                    .unwrap();
            }
            AgentEvent::TurnFinished => return asked,
            _ => {}
        }
    }
}

/// Waits for the end of a command that runs no turn.
async fn command_done(ui: &mut Interactive) {
    while !matches!(ui.next_event().await, AgentEvent::CommandFinished) {}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_session_forgets_always_allow() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.write_config(
        "config.toml",
        &routes_config(
            &env.sim.base_url(),
            r#"
[tools.command.stamp]
description = "Print a stamp."
command = ["echo", "STAMPED"]
approval = "ask"
"#,
        ),
    );
    let mut ui = env.start_interactive(cfg);
    ui.submit("Please call stamp");
    assert_eq!(
        answer_turn(&mut ui, ApprovalDecision::AlwaysAllow).await,
        ["stamp"]
    );
    ui.submit("Please call stamp again");
    assert!(
        answer_turn(&mut ui, ApprovalDecision::Deny)
            .await
            .is_empty(),
        "always allow holds within the session"
    );
    ui.submit("/new");
    command_done(&mut ui).await;
    ui.submit("Please call stamp");
    assert_eq!(
        answer_turn(&mut ui, ApprovalDecision::Deny).await,
        ["stamp"],
        "a new session asks again"
    );
    ui.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn side_effecting_command_tools_run_one_at_a_time_in_call_order() {
    let env = TestEnv::new(SimConfig::default()).await;
    let trace = env.dir.path().join("trace.txt");
    let script = format!(
        "echo start $1 >> {t}; sleep 0.3; echo end $1 >> {t}",
        t = shell_quote(&trace)
    );
    let extra = format!(
        r#"
[tools.command.slow]
description = "Append to a trace, slowly."
command = ["sh", "-c", {script:?}, "slow"]
parameters = {{ type = "object", properties = {{ tag = {{ type = "string" }} }} }}
"#
    );
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), &extra));
    let call = |tag: &str| ScriptedToolCall {
        name: "slow".into(),
        input: json!({ "tag": tag }),
        id: None,
    };
    env.sim.push_reply(ScriptedReply {
        tool_calls: vec![call("a"), call("b"), call("c")],
        ..ScriptedReply::default()
    });
    env.exec_ok(&cfg, "run the slow tool three times", &["--approve", "all"])
        .await;
    let lines: Vec<String> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    // `sh -c SCRIPT slow` gets the JSON arguments on stdin, not as $1: the order of
    // starts and ends is what matters.
    let kinds: Vec<&str> = lines
        .iter()
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .collect();
    assert_eq!(
        kinds,
        ["start", "end", "start", "end", "start", "end"],
        "calls overlapped: {lines:?}"
    );
}

fn fx_config(env: &TestEnv, fx: &str) -> std::path::PathBuf {
    env.config_builder()
        .builtin_tools(false)
        .table(fx)
        .write(env.dir.path())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_waits_for_config_enabled_mcp_servers_before_the_first_request() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = fx_config(
        &env,
        &format!(
            r#"
[mcp.servers.fx]
command = "{FIXTURE}"
enabled = true
env = {{ FIXTURE_START_DELAY_MS = "700", FIXTURE_TOOLS = "echo" }}
"#
        ),
    );
    env.exec_ok(&cfg, "hello", &[]).await;
    let reqs = env.requests();
    assert_eq!(
        tool_names(&reqs[0]),
        ["fx__echo"],
        "the first request declares the server's tools"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_names_an_enabled_server_that_failed_and_goes_on() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = fx_config(
        &env,
        r#"
[mcp.servers.broken]
command = "/nonexistent/deepterm-no-such-server"
enabled = true
"#,
    );
    let started = std::time::Instant::now();
    let out = env.exec_ok(&cfg, "hello", &[]).await;
    let err = stderr(&out);
    assert!(
        err.contains("MCP server broken failed to start"),
        "stderr names the server: {err}"
    );
    assert_eq!(env.requests().len(), 1, "the line still ran");
    assert!(started.elapsed() < Duration::from_secs(25), "no long wait");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_wait_is_bounded_by_startup_wait_secs() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = fx_config(
        &env,
        &format!(
            r#"
[mcp]
startup_wait_secs = 1
[mcp.servers.fx]
command = "{FIXTURE}"
enabled = true
env = {{ FIXTURE_START_DELAY_MS = "20000", FIXTURE_TOOLS = "echo" }}
"#
        ),
    );
    let started = std::time::Instant::now();
    let out = env.exec_ok(&cfg, "hello", &[]).await;
    assert!(
        stderr(&out).contains("MCP server fx was not connected after 1 s"),
        "{}",
        stderr(&out)
    );
    assert!(tool_names(&env.requests()[0]).is_empty());
    assert!(started.elapsed() < Duration::from_secs(15));
}
