//! Why an MCP server failed, in plain words (SPEC §14.5, decision 0090): the exit status and
//! the stderr lines that carry the cause, never the transport's broken pipe, in the
//! interface language. Real processes (`node`, `sh`) against the loopback simulator.

use deepterm::sim::SimConfig;

use crate::common::*;

fn node_available() -> bool {
    std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A config with server `bad` running `command` with `args` (started by `/mcp connect`).
fn config(env: &TestEnv, command: &str, args: &str) -> std::path::PathBuf {
    env.config_builder()
        .builtin_tools(false)
        .mcp_server(
            "bad",
            &format!("command = \"{command}\"\nargs = {args}\nenabled = false"),
        )
        .write(env.dir.path())
}

async fn exec_in(env: &TestEnv, locale: &str, cfg: &std::path::Path, script: &str) -> String {
    let mut cmd = env.exec_command_in(locale, cfg, script);
    cmd.env(KEY_VAR, TEST_KEY).env("HOME", env.dir.path());
    let out = tokio::time::timeout(std::time::Duration::from_secs(60), cmd.output())
        .await
        .expect("exec finishes")
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    format!("{}{}", stdout(&out), stderr(&out))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_server_whose_script_is_missing_shows_its_exit_status_and_cannot_find_module() {
    if !require_external("node", node_available()) {
        return;
    }
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, "node", "[\"/nonexistent.js\"]");
    let all = exec_in(&env, "en-US", &cfg, "/mcp connect bad\n/mcp\nHello\n").await;
    assert!(
        all.contains(
            "MCP server bad could not be connected: the server exited with status 1 \
             (stderr: Error: Cannot find module '/nonexistent.js')"
        ),
        "{all}"
    );
    assert!(
        all.contains("last error: the server exited with status 1"),
        "/mcp shows the same cause: {all}"
    );
    // Node's last line, its stack and the transport's words are not the cause.
    for noise in [
        "Node.js v",
        "Broken pipe",
        "Transport",
        "Send message error",
        "at Module",
    ] {
        assert!(!all.contains(noise), "{noise}: {all}");
    }
    let log = env.log();
    let failed = log
        .iter()
        .rfind(|e| e["type"] == "mcp/status")
        .expect("a status");
    assert_eq!(failed["data"]["state"], "failed");
    assert!(
        failed["data"]["error"]
            .as_str()
            .unwrap()
            .starts_with("the server exited with status 1"),
        "{failed}"
    );
    assert_eq!(
        failed["data"]["detail"]["key"], "mcp-err-stderr",
        "{failed}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_exits_at_once_shows_its_status_and_stderr_not_a_broken_pipe() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(
        &env,
        "sh",
        "[\"-c\", \"echo 'starting up' >&2; echo 'fatal: no config file' >&2; exit 7\"]",
    );
    let all = exec_in(&env, "en-US", &cfg, "/mcp connect bad\n").await;
    assert!(
        all.contains(
            "MCP server bad could not be connected: the server exited with status 7 \
             (stderr: fatal: no config file)"
        ),
        "{all}"
    );
    assert!(!all.contains("Broken pipe"), "{all}");
    assert!(!all.contains("handshake"), "{all}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_command_is_named_in_plain_words() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, "deepterm-no-such-command", "[]");
    let all = exec_in(&env, "en-US", &cfg, "/mcp connect bad\n").await;
    assert!(
        all.contains(
            "MCP server bad could not be connected: the command \
             \"deepterm-no-such-command\" was not found"
        ),
        "{all}"
    );
    assert!(!all.contains("os error"), "{all}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_chinese_the_failure_reads_in_chinese_around_the_quoted_stderr() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, "sh", "[\"-c\", \"echo 'Error: boom' >&2; exit 2\"]");
    let all = exec_in(&env, "zh-CN", &cfg, "/mcp connect bad\n/mcp\n").await;
    assert!(
        all.contains("无法连接 MCP 服务器 bad：服务器已退出，退出状态为 2（stderr：Error: boom）"),
        "{all}"
    );
    assert!(
        all.contains("最近的错误：服务器已退出，退出状态为 2"),
        "{all}"
    );
    for english in ["exited with", "handshake", "MCP handshake failed"] {
        assert!(!all.contains(english), "{english}: {all}");
    }
}

/// A server that stays up but closes its output before answering: the handshake failure
/// is said in the interface language, the MCP library's own words only as the quoted
/// detail.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_handshake_reads_in_chinese_with_the_library_words_only_quoted() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, "sh", "[\"-c\", \"exec >&-; sleep 3\"]");
    let all = exec_in(&env, "zh-CN", &cfg, "/mcp connect bad\n").await;
    let line = all
        .lines()
        .find(|l| l.contains("无法连接 MCP 服务器 bad"))
        .unwrap_or_else(|| panic!("{all}"));
    assert!(
        line.contains("MCP 握手失败：服务器在应答前关闭了连接（详情：“"),
        "{line}"
    );
    // English only inside the quoted detail.
    let (ours, detail) = line.split_once("（详情：“").unwrap();
    assert!(
        !ours.contains("handshake") && !ours.contains("failed"),
        "{line}"
    );
    assert!(detail.ends_with("”）"), "{line}");
    let all = exec_in(&env, "en-US", &cfg, "/mcp connect bad\n").await;
    assert!(
        all.contains(
            "MCP handshake failed: the server closed the connection before answering (detail: \""
        ),
        "{all}"
    );
}

/// In the TUI, `/mcp connect` of a name that is not configured says only that: no
/// "connecting…" notice first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connecting_an_unknown_server_says_only_that_there_is_none() {
    use deepterm::agent::protocol::AgentEvent;
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, "sh", "[\"-c\", \"exit 0\"]");
    let mut ui = env.start_interactive(cfg);
    ui.submit("/mcp connect nosuch");
    let mut keys = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::time::Instant::now() < deadline {
        if let AgentEvent::Notice(n) = ui.next_event().await {
            keys.push(n.key.clone());
            if n.key == "mcp-unknown-server" {
                break;
            }
        }
    }
    ui.shutdown().await;
    assert_eq!(keys, vec!["mcp-unknown-server"]);
}
