//! Elicitation (SPEC §15.2) against the real npm `@modelcontextprotocol/server-everything`:
//! its `trigger-elicitation-request` tool asks for a form (text, yes/no, email, date,
//! numbers, one and several options) and `trigger-url-elicitation` for a page to open; each
//! tool's result says what the user answered. The TUI's answer is played through the agent's
//! commands, as the form overlay sends it; `exec` declines.

use std::time::Duration;

use deepterm::agent::protocol::{AgentCommand, AgentEvent, ApprovalDecision};
use deepterm::session::event::EventKind;
use deepterm::sim::{ScriptedReply, ScriptedToolCall, SimConfig};
use deepterm::tools::mcp::elicit::{ElicitAnswer, ElicitKind, ElicitationRequest};
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

/// The installed server's entry script, or `None` (skipped, or failed when required).
fn everything() -> Option<String> {
    if !require_external("node", node_available()) {
        return None;
    }
    let what = format!(
        "the npm package {PACKAGE} (npm install --prefix {})",
        npm_dir().unwrap_or_default().display()
    );
    let entry = entry_script();
    if !require_external(&what, entry.is_some()) {
        return None;
    }
    entry.map(|e| e.display().to_string())
}

fn config(env: &TestEnv, entry: &str, enabled: bool, timeout_secs: u64) -> std::path::PathBuf {
    env.config_builder()
        .builtin_tools(false)
        .mcp_server(
            "ev",
            &format!(
                "command = \"node\"\nargs = [{entry:?}, \"stdio\"]\nenabled = {enabled}\ntimeout_secs = {timeout_secs}"
            ),
        )
        .write(env.dir.path())
}

/// The text of every tool result in the log, in order.
fn results(env: &TestEnv) -> Vec<String> {
    tool_results(&env.log())
        .into_iter()
        .map(result_text)
        .collect()
}

/// Runs one turn of the interactive agent, allowing its calls and answering each
/// elicitation with `answer`; returns the requests it was shown and the notices' keys.
async fn turn(
    env: &TestEnv,
    entry: &str,
    line: &str,
    answer: impl Fn(&ElicitationRequest) -> ElicitAnswer,
) -> (Vec<ElicitationRequest>, Vec<String>) {
    turn_with(env, entry, line, (30, Duration::ZERO), answer).await
}

/// [`turn`] with the server's call timeout, and the user taking `think` to answer.
async fn turn_with(
    env: &TestEnv,
    entry: &str,
    line: &str,
    (timeout_secs, think): (u64, Duration),
    answer: impl Fn(&ElicitationRequest) -> ElicitAnswer,
) -> (Vec<ElicitationRequest>, Vec<String>) {
    let (mut agent, mut events) = env.interactive_agent(config(env, entry, true, timeout_secs));
    agent.wait_for_mcp(Duration::from_secs(30)).await;
    let (commands, cmd_rx) = tokio::sync::mpsc::unbounded_channel();
    let task = tokio::spawn(agent.run_interactive(cmd_rx));
    commands.send(AgentCommand::Submit(line.into())).unwrap();
    let mut shown = Vec::new();
    let mut notices = Vec::new();
    let mut answered = false;
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(30), events.recv())
            .await
            .expect("an event within 30 s")
            .expect("the loop runs");
        match ev {
            AgentEvent::ApprovalRequest { call_id, .. } => commands
                .send(AgentCommand::Approve {
                    call_id,
                    decision: ApprovalDecision::Allow,
                })
                .unwrap(),
            AgentEvent::Elicitation(r) => {
                tokio::time::sleep(think).await;
                let a = answer(&r);
                commands
                    .send(AgentCommand::Elicit {
                        id: r.id,
                        answer: a,
                    })
                    .unwrap();
                shown.push(r);
            }
            AgentEvent::Notice(n) => notices.push(n.key),
            AgentEvent::Committed(e) if matches!(e.kind, EventKind::ToolResult(_)) => {
                answered = true
            }
            AgentEvent::Phase(deepterm::agent::protocol::TurnPhase::Idle) if answered => break,
            _ => {}
        }
    }
    commands.send(AgentCommand::Shutdown).unwrap();
    task.await.unwrap();
    (shown, notices)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_the_user_fills_in_reaches_the_server_and_the_tool_result() {
    let Some(entry) = everything() else { return };
    let env = TestEnv::new(SimConfig::default()).await;
    env.sim
        .push_reply(call("ev__trigger-elicitation-request", json!({})));
    let (shown, _) = turn(&env, &entry, "ask me for my details", |r| {
        let ElicitKind::Form { fields } = &r.kind else {
            panic!("{r:?}")
        };
        // The form the user sees: every field of the server's schema, in its order.
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(&names[..3], ["name", "check", "firstLine"], "{names:?}");
        assert!(fields[0].required);
        let mut content = serde_json::Map::new();
        content.insert("name".into(), json!("Ada Lovelace"));
        content.insert("check".into(), json!(true));
        content.insert("integer".into(), json!(7));
        ElicitAnswer::Accept(content)
    })
    .await;
    assert_eq!(shown.len(), 1);
    assert_eq!(shown[0].server, "ev");
    assert_eq!(
        shown[0].message,
        "Please provide inputs for the following fields:"
    );
    let text = results(&env).join("\n");
    assert!(
        text.contains("User provided the requested information"),
        "{text}"
    );
    assert!(text.contains("- Name: Ada Lovelace"), "{text}");
    assert!(text.contains("- Agreed to terms: true"), "{text}");
    assert!(text.contains("- Favorite Integer: 7"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_call_timeout_waits_while_the_user_fills_in_the_form() {
    let Some(entry) = everything() else { return };
    let env = TestEnv::new(SimConfig::default()).await;
    env.sim
        .push_reply(call("ev__trigger-elicitation-request", json!({})));
    // A 1 s call timeout, and a user who takes 2 s over the form.
    let (shown, _) = turn_with(&env, &entry, "ask me", (1, Duration::from_secs(2)), |_| {
        let mut content = serde_json::Map::new();
        content.insert("name".into(), json!("Slow Typist"));
        ElicitAnswer::Accept(content)
    })
    .await;
    assert_eq!(shown.len(), 1);
    let text = results(&env).join("\n");
    assert!(text.contains("- Name: Slow Typist"), "{text}");
    assert!(!text.contains("timed out"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declining_or_cancelling_the_form_tells_the_server_so() {
    let Some(entry) = everything() else { return };
    for (answer, said) in [
        (
            ElicitAnswer::Decline,
            "User declined to provide the requested information",
        ),
        (
            ElicitAnswer::Cancel,
            "User cancelled the elicitation dialog",
        ),
    ] {
        let env = TestEnv::new(SimConfig::default()).await;
        env.sim
            .push_reply(call("ev__trigger-elicitation-request", json!({})));
        let (shown, _) = turn(&env, &entry, "ask me", |_| answer.clone()).await;
        assert_eq!(shown.len(), 1);
        let text = results(&env).join("\n");
        assert!(text.contains(said), "{text}");
        assert!(!text.contains("User inputs"), "{text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_request_shows_the_url_and_only_yes_opens_it() {
    let Some(entry) = everything() else { return };
    let url = "https://auth.example/verify?code=ABCD";
    for (answer, said, opens) in [
        (
            ElicitAnswer::Decline,
            "User declined to open the URL",
            false,
        ),
        (
            ElicitAnswer::Accept(Default::default()),
            "User completed the URL elicitation flow",
            true,
        ),
    ] {
        let env = TestEnv::new(SimConfig::default()).await;
        env.sim
            .push_reply(call("ev__trigger-url-elicitation", json!({ "url": url })));
        let (shown, notices) = turn(&env, &entry, "open the page", |_| answer.clone()).await;
        assert!(
            matches!(&shown[0].kind, ElicitKind::Url { url: u } if u == url),
            "{shown:?}"
        );
        let text = results(&env).join("\n");
        assert!(text.contains(said), "{text}");
        // Yes opens it ($BROWSER; without one the notice says to open it by hand, with the
        // link); no leaves it alone.
        let opening = notices
            .iter()
            .any(|k| k == "elicit-url-opened" || k == "elicit-url-not-opened");
        assert_eq!(opening, opens, "{notices:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_declines_every_elicitation_and_says_so_on_stderr() {
    let Some(entry) = everything() else { return };
    let env = TestEnv::new(SimConfig::default()).await;
    env.sim
        .push_reply(call("ev__trigger-elicitation-request", json!({})));
    let cfg = config(&env, &entry, false, 30);
    let out = env
        .exec_ok(&cfg, "/mcp connect ev\nask me for my details\n", &[])
        .await;
    let err = stderr(&out);
    assert!(
        err.contains(
            "MCP server ev asked for input; exec cannot ask, so it was declined: \
             Please provide inputs for the following fields:"
        ),
        "{err}"
    );
    let text = results(&env).join("\n");
    assert!(
        text.contains("User declined to provide the requested information"),
        "{text}"
    );
}
