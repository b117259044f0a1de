//! Issue 9 hardening of tools, end to end through `deepterm exec` against the loopback
//! simulator: child environments without keys (D1).

use std::path::PathBuf;

use deepterm::sim::{ScriptedReply, SimConfig};
use serde_json::{Value, json};

mod common;

use common::*;

/// A key value that must never show up anywhere.
const CANARY: &str = "sk-deepterm-canary-d1-7c41e0b2a9f5";

fn config(env: &TestEnv, extra: &str) -> PathBuf {
    env.write_config("config.toml", &routes_config(&env.sim.base_url(), extra))
}

/// The text of every `tool/result` in the log, in order.
fn tool_result_texts(log: &[Value]) -> Vec<String> {
    log.iter()
        .filter(|e| e["type"] == "tool/result")
        .map(|e| {
            e["data"]["message"]["content"]
                .as_array()
                .map(|a| a.iter().filter_map(|b| b["text"].as_str()).collect())
                .unwrap_or_default()
        })
        .collect()
}

/// The variable names of an `env`-style dump (values left out of failure messages).
fn summary(dump: &str) -> String {
    dump.lines()
        .map(|l| match l.split_once('=') {
            Some((k, v)) if v.contains("[REDACTED]") => format!("{k}=[REDACTED]"),
            Some((k, _)) => k.to_string(),
            None => String::new(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Everything the run left behind that could carry a secret: the log, the requests the
/// simulator received, and what was printed.
fn everything(env: &TestEnv, out: &std::process::Output) -> String {
    let mut all = std::fs::read_to_string(env.log_path()).unwrap();
    for r in env.requests() {
        all.push_str(&r.to_string());
    }
    all.push_str(&stdout(out));
    all.push_str(&stderr(out));
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hardening_d1_command_tool_env_has_no_keys_and_passthrough_passes() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(
        &env,
        r#"
[tools.command.dump]
description = "Print the environment."
command = ["env"]
env_passthrough = ["FOO_TOKEN"]
"#,
    );
    env.sim
        .push_reply(ScriptedReply::tool_call("dump", json!({})));
    env.sim.push_reply(ScriptedReply::text("done"));
    let out = env
        .exec_with(
            &cfg,
            "dump the environment\n",
            &[],
            &[
                ("DEEPSEEK_API_KEY", CANARY),
                ("FOO_TOKEN", "foo-visible-value-1"),
                ("BAR_SECRET", "bar-hidden-value-2"),
                ("github_token", "gh-hidden-value-3"),
                ("PLAIN_SETTING", "plain-visible-value-4"),
            ],
        )
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let results = tool_result_texts(&env.log());
    assert_eq!(results.len(), 1, "{results:?}");
    let dumped = &results[0];
    assert!(
        dumped.contains("FOO_TOKEN=foo-visible-value-1"),
        "{}",
        summary(dumped)
    );
    assert!(
        dumped.contains("PLAIN_SETTING=plain-visible-value-4"),
        "{}",
        summary(dumped)
    );
    assert!(!dumped.contains("DEEPSEEK_API_KEY"), "{}", summary(dumped));
    assert!(
        !dumped.contains(KEY_VAR),
        "configured key variable: {dumped}"
    );
    assert!(!dumped.contains("BAR_SECRET"), "{}", summary(dumped));
    assert!(!dumped.contains("github_token"), "{}", summary(dumped));
    let all = everything(&env, &out);
    for secret in [CANARY, TEST_KEY, "bar-hidden-value-2", "gh-hidden-value-3"] {
        assert!(!all.contains(secret), "{secret} leaked");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hardening_d1_key_passed_on_explicitly_is_redacted_in_the_tool_result() {
    let env = TestEnv::new(SimConfig::default()).await;
    // The user passes the keys on explicitly; the result is still scanned (second line of
    // defence) before it is logged and sent.
    let cfg = config(
        &env,
        &format!(
            r#"
[tools.command.dump]
description = "Print the environment."
command = ["env"]
env_passthrough = ["DEEPSEEK_API_KEY", "{KEY_VAR}"]
"#
        ),
    );
    env.sim
        .push_reply(ScriptedReply::tool_call("dump", json!({})));
    env.sim.push_reply(ScriptedReply::text("done"));
    let out = env
        .exec_with(
            &cfg,
            "dump the environment\n",
            &[],
            &[("DEEPSEEK_API_KEY", CANARY)],
        )
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let results = tool_result_texts(&env.log());
    let dumped = &results[0];
    assert!(
        dumped.contains("DEEPSEEK_API_KEY=[REDACTED]"),
        "{}",
        summary(dumped)
    );
    assert!(
        dumped.contains(&format!("{KEY_VAR}=[REDACTED]")),
        "{}",
        summary(dumped)
    );
    let all = everything(&env, &out);
    assert!(!all.contains(CANARY) && !all.contains(TEST_KEY));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hardening_d1_mcp_server_env_has_no_keys_but_keeps_its_env_table_and_passthrough() {
    let env = TestEnv::new(SimConfig::default()).await;
    let fixture = env!("CARGO_BIN_EXE_deepterm-mcp-fixture");
    let cfg = config(
        &env,
        &format!(
            r#"
[mcp.servers.fx]
command = "{fixture}"
enabled = false
env = {{ FIXTURE_TOOLS = "env", EXPLICIT_TOKEN = "explicit-visible-5" }}
env_passthrough = ["FOO_TOKEN"]
"#
        ),
    );
    env.sim
        .push_reply(ScriptedReply::tool_call("fx__env", json!({})));
    env.sim.push_reply(ScriptedReply::text("done"));
    let out = env
        .exec_with(
            &cfg,
            "/mcp connect fx\nshow the server environment\n",
            &[],
            &[
                ("DEEPSEEK_API_KEY", CANARY),
                ("FOO_TOKEN", "foo-visible-value-1"),
                ("BAR_SECRET", "bar-hidden-value-2"),
            ],
        )
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let results = tool_result_texts(&env.log());
    assert_eq!(results.len(), 1, "{results:?}");
    let dumped = &results[0];
    assert!(dumped.contains("FIXTURE_TOOLS=env"), "{}", summary(dumped));
    assert!(
        dumped.contains("EXPLICIT_TOKEN=explicit-visible-5"),
        "{}",
        summary(dumped)
    );
    assert!(
        dumped.contains("FOO_TOKEN=foo-visible-value-1"),
        "{}",
        summary(dumped)
    );
    assert!(dumped.contains("PATH="), "{}", summary(dumped));
    assert!(!dumped.contains("DEEPSEEK_API_KEY"), "{}", summary(dumped));
    assert!(!dumped.contains(KEY_VAR), "{}", summary(dumped));
    assert!(!dumped.contains("BAR_SECRET"), "{}", summary(dumped));
    let all = everything(&env, &out);
    for secret in [CANARY, TEST_KEY, "bar-hidden-value-2"] {
        assert!(!all.contains(secret), "{secret} leaked");
    }
}
