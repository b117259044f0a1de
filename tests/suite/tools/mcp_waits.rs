//! Waiting for a server's prompt or resource (SPEC §15.2): against the fixture's `stall`
//! prompt and `fixture://stall` resource, which answer nothing until they are cancelled,
//! Esc (Cancel) stops the wait at once, says so and tells the server
//! (`notifications/cancelled`); without Esc the server's call timeout ends the wait the
//! same way. Nothing hangs.

use std::path::Path;
use std::time::Duration;

use deepterm::agent::protocol::{AgentCommand, AgentEvent, TurnPhase};
use deepterm::sim::{ScriptedReply, SimConfig};

use crate::common::*;

fn config(env: &TestEnv, cancel_log: &Path, timeout_secs: u64) -> std::path::PathBuf {
    env.config_builder()
        .builtin_tools(false)
        .mcp_server(
            "fx",
            &format!(
                "command = \"{MCP_FIXTURE}\"\ntimeout_secs = {timeout_secs}\nenv = {{ \
                 FIXTURE_TOOLS = \"echo\", FIXTURE_PROMPTS = \"stall\", \
                 FIXTURE_RESOURCES = \"1\", FIXTURE_CANCEL_LOG = {:?} }}",
                cancel_log.display().to_string()
            ),
        )
        .write(env.dir.path())
}

/// Waits until the fixture's log holds `line`.
async fn logged(path: &Path, line: &str) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.lines().any(|l| l == line) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the server never logged {line:?}: {text:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The next event that `pick` keeps.
async fn next<T>(agent: &mut Interactive, pick: impl Fn(&AgentEvent) -> Option<T>) -> T {
    loop {
        if let Some(t) = pick(&agent.next_event().await) {
            return t;
        }
    }
}

fn notice_key(e: &AgentEvent) -> Option<String> {
    match e {
        AgentEvent::Notice(n) => Some(n.key.clone()),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_stops_waiting_for_a_prompt_or_a_resource_and_the_server_is_told() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cancel_log = env.dir.path().join("cancel.log");
    let cfg = config(&env, &cancel_log, 120);
    let mut agent = env.start_interactive(cfg);
    next(&mut agent, |e| match e {
        AgentEvent::McpOffers { prompts, .. } if !prompts.is_empty() => Some(()),
        _ => None,
    })
    .await;
    // The prompt: the UI is busy (so Esc cancels) while the server is asked.
    agent.submit("/fx:stall");
    next(&mut agent, |e| {
        matches!(e, AgentEvent::Phase(TurnPhase::AskingServer)).then_some(())
    })
    .await;
    logged(&cancel_log, "waiting prompts/get").await;
    let asked = std::time::Instant::now();
    agent.commands.send(AgentCommand::Cancel).unwrap();
    // The UI is idle again and told why.
    let mut idle = false;
    let key = loop {
        match agent.next_event().await {
            AgentEvent::Phase(TurnPhase::Idle) => idle = true,
            e => {
                if let Some(k) = notice_key(&e) {
                    break k;
                }
            }
        }
    };
    assert_eq!(key, "mcp-prompt-cancelled");
    assert!(idle, "the status line went back to idle");
    assert!(asked.elapsed() < Duration::from_secs(5), "not the timeout");
    logged(&cancel_log, "cancelled prompts/get").await;
    // The resource: the message's turn is cancelled before any request is sent.
    agent.submit("read @fx:fixture://stall please");
    logged(&cancel_log, "waiting resources/read").await;
    agent.commands.send(AgentCommand::Cancel).unwrap();
    let key = next(&mut agent, notice_key).await;
    assert_eq!(key, "mcp-resource-read-cancelled");
    next(&mut agent, |e| {
        matches!(e, AgentEvent::TurnFinished).then_some(())
    })
    .await;
    logged(&cancel_log, "cancelled resources/read").await;
    assert!(env.requests().is_empty(), "nothing went to the model");
    agent.shutdown().await;
    // The message is kept in the log, its attachment noted, its turn cancelled.
    let log = env.log();
    let user = log
        .iter()
        .find(|e| e["type"] == "user/message")
        .expect("the message is kept");
    let atts = &user["data"]["message"]["source"]["attachments"];
    assert_eq!(atts[0]["refused"], "unavailable", "{user}");
    let end = log.iter().rev().find(|e| e["type"] == "turn/end").unwrap();
    assert_eq!(end["data"]["outcome"], "cancelled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_or_resource_that_never_comes_ends_at_the_call_timeout() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cancel_log = env.dir.path().join("cancel.log");
    let cfg = config(&env, &cancel_log, 1);
    env.sim.push_reply(ScriptedReply::text("read nothing"));
    let started = std::time::Instant::now();
    let out = env
        .exec(&cfg, "/fx:stall\nread @fx:fixture://stall\n", &[])
        .await;
    let e = stderr(&out);
    assert!(
        e.contains("/fx:stall: the server did not give the prompt within 1 s"),
        "{e}"
    );
    assert!(
        e.contains("fx: the resource fixture://stall was not read within 1 s"),
        "{e}"
    );
    assert!(started.elapsed() < Duration::from_secs(30));
    // The message still went, saying why the resource is missing.
    let reqs = env.requests();
    assert_eq!(reqs.len(), 1, "{e}");
    assert!(
        reqs[0]
            .to_string()
            .contains("@fx:fixture://stall was not attached"),
        "{}",
        reqs[0]
    );
    // Both waits were cancelled at the server too.
    logged(&cancel_log, "cancelled prompts/get").await;
    logged(&cancel_log, "cancelled resources/read").await;
}
