//! resume restores the session's tool state. Tools enabled or disabled
//! with `/tool` come back, so an unchanged resume logs no tool change and its first request
//! declares the same tools as the last one before (the cache stays warm); a tool the
//! config no longer has is a real change and is logged.

use deepterm::sim::SimConfig;
use serde_json::Value;

use crate::common;

use common::*;

/// `routes_config` with the built-in tools on (read_file, list_dir, grep).
fn config_with_builtins(env: &TestEnv, extra: &str) -> std::path::PathBuf {
    let text = routes_config(&env.sim.base_url(), extra).replacen(
        "[tools.builtin]\nenabled = false",
        "[tools.builtin]\nenabled = true",
        1,
    );
    assert!(text.contains("[tools.builtin]\nenabled = true"));
    env.write_config("config.toml", &text)
}

fn developer_events(log: &[Value]) -> Vec<Value> {
    developer_contents(log)
}

/// The tool names each recorded request declared, in order.
fn declared(env: &TestEnv) -> Vec<Vec<String>> {
    env.requests().iter().map(tool_names).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_restores_tool_choices_and_logs_no_change() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config_with_builtins(&env, "");
    env.exec_ok(
        &cfg,
        "Hello\n/tool disable grep\n/tool enable word_count\nSecond\n",
        &[],
    )
    .await;
    let before = declared(&env);
    let last_before = before.last().unwrap().clone();
    // grep stays declared (a removal keeps the prefix, SPEC §15.1); the log says it went.
    let removal = developer_events(&env.log())
        .iter()
        .any(|d| d.to_string().contains("tool-removal") && d.to_string().contains("grep"));
    assert!(removal, "{:?}", developer_events(&env.log()));
    assert!(last_before.contains(&"word_count".to_string()));
    let dev_before = developer_events(&env.log()).len();
    assert_eq!(dev_before, 1, "one change logged in the first run");

    env.exec_ok(&cfg, "Third\n", &["--resume", "last"]).await;
    let after = declared(&env);
    assert_eq!(after.len(), before.len() + 1);
    assert_eq!(
        after.last().unwrap(),
        &last_before,
        "the first request after resume declares the same tools as the last one before"
    );
    assert_eq!(
        developer_events(&env.log()).len(),
        dev_before,
        "an unchanged resume logs no tool change"
    );
    // The simulator's prefix cache saw the resumed request continue the earlier one.
    let reqs = env.requests();
    let prev = &reqs[reqs.len() - 2];
    let next = &reqs[reqs.len() - 1];
    assert!(starts_with_previous(prev, next), "messages continue");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_gone_from_the_config_is_a_logged_change_on_resume() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config_with_builtins(&env, "");
    env.exec_ok(&cfg, "Hello\n/tool enable word_count\nSecond\n", &[])
        .await;
    assert_eq!(developer_events(&env.log()).len(), 1);
    // The config loses word_count: the resumed session cannot offer it any more.
    let text = std::fs::read_to_string(&cfg).unwrap();
    let cut = text.find("[tools.command.word_count]").unwrap();
    std::fs::write(&cfg, &text[..cut]).unwrap();
    env.exec_ok(&cfg, "Third\n", &["--resume", "last"]).await;
    let dev = developer_events(&env.log());
    assert_eq!(dev.len(), 2, "{dev:?}");
    assert_eq!(dev[1][0]["type"], "tool-removal");
    assert_eq!(dev[1][0]["toolName"], "word_count");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_reconnects_a_server_connected_with_mcp_connect() {
    let env = TestEnv::new(SimConfig::default()).await;
    let fixture = env!("CARGO_BIN_EXE_deepterm-mcp-fixture");
    let cfg = config_with_builtins(
        &env,
        &format!("\n[mcp.servers.fx]\ncommand = \"{fixture}\"\nenabled = false\n"),
    );
    env.exec_ok(
        &cfg,
        "Hello\n/mcp connect fx\n/tool disable fx__fail\nSecond\n",
        &[],
    )
    .await;
    let before = declared(&env);
    let last_before = before.last().unwrap().clone();
    assert!(
        last_before.contains(&"fx__echo".to_string()),
        "{last_before:?}"
    );
    assert!(!last_before.contains(&"fx__fail".to_string()));
    let dev_before = developer_events(&env.log()).len();

    env.exec_ok(&cfg, "Third\n", &["--resume", "last"]).await;
    assert_eq!(declared(&env).last().unwrap(), &last_before);
    assert_eq!(developer_events(&env.log()).len(), dev_before);
}
