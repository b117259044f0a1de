//! Tool limits and hostile tool input, end to end through `deepterm exec` against the loopback
//! simulator (and the tool executors directly): child environments without keys (decision 0006),
//! non-regular files and built-in timeouts, command tools in their own process group, and
//! windowed reads with bounded buffers (decision 0007).

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use deepterm::sim::{ScriptedReply, SimConfig};
use deepterm::tools::ToolExecutor;
use deepterm::tools::builtin;
use deepterm::tools::command::CommandTool;
use deepterm::tools::registry::{ToolRegistry, ToolSource};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::common;

use common::*;

/// A key value that must never show up anywhere.
const CANARY: &str = "sk-deepterm-canary-d1-7c41e0b2a9f5";

fn config(env: &TestEnv, extra: &str) -> PathBuf {
    env.write_config("config.toml", &routes_config(&env.sim.base_url(), extra))
}

/// The text of every `tool/result` in the log, in order.
/// Runs `script` with the extra environment `vars`; returns the run and the text of the
/// one tool result it logs.
async fn one_tool_result(
    env: &TestEnv,
    cfg: &Path,
    script: &str,
    vars: &[(&str, &str)],
) -> (Output, String) {
    let out = env.exec_with(cfg, script, &[], vars).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let mut results = tool_result_texts(&env.log());
    assert_eq!(results.len(), 1, "{results:?}");
    (out, results.remove(0))
}

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
async fn command_tool_env_has_no_keys_and_passthrough_passes() {
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
    let (out, dumped) = one_tool_result(
        &env,
        &cfg,
        "dump the environment\n",
        &[
            ("DEEPSEEK_API_KEY", CANARY),
            ("FOO_TOKEN", "foo-visible-value-1"),
            ("BAR_SECRET", "bar-hidden-value-2"),
            ("github_token", "gh-hidden-value-3"),
            ("PLAIN_SETTING", "plain-visible-value-4"),
        ],
    )
    .await;
    let dumped = &dumped;
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
async fn key_passed_on_explicitly_is_redacted_in_the_tool_result() {
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
    let (out, dumped) = one_tool_result(
        &env,
        &cfg,
        "dump the environment\n",
        &[("DEEPSEEK_API_KEY", CANARY)],
    )
    .await;
    let dumped = &dumped;
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
async fn mcp_server_env_has_no_keys_but_keeps_its_env_table_and_passthrough() {
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
    let (out, dumped) = one_tool_result(
        &env,
        &cfg,
        "/mcp connect fx\nshow the server environment\n",
        &[
            ("DEEPSEEK_API_KEY", CANARY),
            ("FOO_TOKEN", "foo-visible-value-1"),
            ("BAR_SECRET", "bar-hidden-value-2"),
        ],
    )
    .await;
    let dumped = &dumped;
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

// ------------------------------------------------------------- non-regular files

/// A config on the simulator with the built-in tools on (their workspace is the cwd).
fn builtin_config(env: &TestEnv) -> PathBuf {
    env.config_builder()
        .write_as(&env.dir.path().join("builtin.toml"))
}

/// `deepterm exec` run in `cwd`; `None` when it is still running after `limit` (it is
/// killed then, so a hang fails the test instead of hanging it).
async fn exec_in(
    env: &TestEnv,
    cwd: &Path,
    config: &Path,
    script: &str,
    limit: Duration,
) -> Option<Output> {
    let mut cmd = env.exec_command(config, script);
    cmd.current_dir(cwd)
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", env.dir.path())
        .kill_on_drop(true);
    tokio::time::timeout(limit, cmd.output())
        .await
        .ok()
        .map(|r| r.unwrap())
}

fn mkfifo(path: &Path) {
    let st = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(st.success(), "mkfifo");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_file_and_grep_on_a_fifo_fail_instead_of_hanging() {
    let env = TestEnv::new(SimConfig::default()).await;
    let ws = env.dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    mkfifo(&ws.join("pipe"));
    // A symlink to the FIFO resolves to it and is refused the same way.
    std::os::unix::fs::symlink("pipe", ws.join("link")).unwrap();
    env.sim.push_reply(
        ScriptedReply::tool_call("read_file", json!({"path": "pipe"}))
            .with_tool_call("grep", json!({"pattern": "x", "path": "pipe"}))
            .with_tool_call(
                "read_file",
                json!({"path": "link", "offset": 1, "limit": 5}),
            ),
    );
    env.sim.push_reply(ScriptedReply::text("done"));
    let cfg = builtin_config(&env);
    let out = exec_in(&env, &ws, &cfg, "read the pipe\n", Duration::from_secs(20))
        .await
        .expect("exec finishes instead of hanging on the FIFO");
    assert!(out.status.success(), "{}", stderr(&out));
    let log = env.log();
    let results: Vec<&Value> = log.iter().filter(|e| e["type"] == "tool/result").collect();
    assert_eq!(results.len(), 3);
    for r in &results {
        assert_eq!(r["data"]["message"]["isError"], true, "{r}");
        let text = r["data"]["error"].as_str().unwrap();
        assert!(
            text.contains("is not a regular file") && text.contains("FIFO"),
            "{text}"
        );
    }
    assert_eq!(stdout(&out).trim_end().lines().last(), Some("done"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn builtin_tools_have_a_timeout() {
    let dir = tempfile::tempdir().unwrap();
    // 400,000 lines: reaching the last one takes far longer than a millisecond.
    let text = "0123456789012345678901234567890123456789\n".repeat(400_000);
    std::fs::write(dir.path().join("many.txt"), &text).unwrap();
    let mut slow = ToolRegistry::new();
    slow.set_source_tools(
        ToolSource::Builtin,
        builtin::tools_with_timeout(dir.path(), Duration::from_millis(1)),
    );
    let args = json!({"path": "many.txt", "offset": 400_000, "limit": 1}).to_string();
    let out = slow
        .call("read_file", &args, &CancellationToken::new())
        .await;
    assert!(out.is_error, "{}", out.content);
    assert_eq!(out.content, "tool \"read_file\" timed out after 0.001 s");
    // With the default timeout the same call succeeds.
    let mut normal = ToolRegistry::new();
    normal.set_source_tools(ToolSource::Builtin, builtin::tools(dir.path()));
    let out = normal
        .call("read_file", &args, &CancellationToken::new())
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.ends_with("[lines 400000-400000 of 400000]"));
}

// ------------------------------------------------------------- process groups

/// Kills every process with this command line now: the sleeper a test left running on
/// purpose, which nothing asserts about (waiting for it would only cost time).
fn kill_leftovers(args: &[&str]) {
    for pid in live_processes(args) {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
}

/// Waits up to 3 s for every process with this command line to end; returns the rest
/// (and kills them, so a failing test leaves nothing behind).
async fn survivors(args: &[&str]) -> Vec<u32> {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let left = live_processes(args);
        if left.is_empty() || Instant::now() > deadline {
            for pid in &left {
                let _ = std::process::Command::new("kill")
                    .args(["-9", &pid.to_string()])
                    .status();
            }
            return left;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn sh_tool(script: &str, timeout: Duration) -> CommandTool {
    CommandTool::new(
        "sh_tool",
        vec!["sh".into(), "-c".into(), script.into()],
        timeout,
    )
}

/// A sleep duration unique to this test process and `tag` (to find its processes).
fn unique_sleep(tag: u32) -> String {
    format!("{}.{}{tag}", 900 + tag, std::process::id())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backgrounded_child_does_not_hold_up_the_result() {
    let secs = unique_sleep(1);
    let tool = sh_tool(
        &format!("sleep {secs} & echo started"),
        Duration::from_secs(20),
    );
    let t0 = Instant::now();
    let out = tool.call(json!({}), &CancellationToken::new()).await;
    let elapsed = t0.elapsed();
    kill_leftovers(&["sleep", &secs]);
    assert!(!out.is_error, "reported by its own exit status: {out:?}");
    assert_eq!(out.content, "started\n");
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");

    let secs = unique_sleep(2);
    let tool = sh_tool(
        &format!("sleep {secs} & echo started; exit 3"),
        Duration::from_secs(20),
    );
    let t0 = Instant::now();
    let out = tool.call(json!({}), &CancellationToken::new()).await;
    let elapsed = t0.elapsed();
    kill_leftovers(&["sleep", &secs]);
    assert!(out.is_error);
    assert!(
        out.content.contains("exited with status 3") && out.content.contains("started"),
        "{}",
        out.content
    );
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeout_kills_the_whole_process_group() {
    let (bg, fg) = (unique_sleep(3), unique_sleep(4));
    let tool = sh_tool(
        &format!("sleep {bg} & sleep {fg}; echo never"),
        Duration::from_secs(1),
    );
    let out = tool.call(json!({}), &CancellationToken::new()).await;
    assert!(out.is_error);
    assert!(
        out.content.contains("timed out after 1 s"),
        "{}",
        out.content
    );
    let left: Vec<u32> = [
        survivors(&["sleep", &bg]).await,
        survivors(&["sleep", &fg]).await,
    ]
    .concat();
    assert!(left.is_empty(), "still running after the timeout: {left:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_kills_the_whole_process_group() {
    let (bg, fg) = (unique_sleep(5), unique_sleep(6));
    let tool = sh_tool(
        &format!("sleep {bg} & sleep {fg}; echo never"),
        Duration::from_secs(60),
    );
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        trigger.cancel();
    });
    let out = tool.call(json!({}), &cancel).await;
    assert!(out.is_error);
    assert!(out.content.contains("was cancelled"), "{}", out.content);
    let left: Vec<u32> = [
        survivors(&["sleep", &bg]).await,
        survivors(&["sleep", &fg]).await,
    ]
    .concat();
    assert!(left.is_empty(), "still running after the cancel: {left:?}");
}

// ------------------------------------------------------------- bounded windows

fn builtin_registry(root: &Path) -> ToolRegistry {
    let mut reg = ToolRegistry::new();
    reg.set_source_tools(ToolSource::Builtin, builtin::tools(root));
    reg
}

async fn read(reg: &ToolRegistry, args: Value) -> deepterm::tools::ToolOutcome {
    reg.call("read_file", &args.to_string(), &CancellationToken::new())
        .await
}

#[tokio::test]
async fn one_long_line_is_returned_capped_not_past_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let mut line = "x".repeat(1024 * 1024);
    line.push('\n');
    line.push_str("second\n");
    std::fs::write(dir.path().join("long.txt"), &line).unwrap();
    let reg = builtin_registry(dir.path());
    let out = read(&reg, json!({"path": "long.txt", "offset": 1, "limit": 1})).await;
    assert!(!out.is_error, "{}", out.content);
    let cap = builtin::MAX_LINE_BYTES;
    assert!(
        out.content.starts_with(&"x".repeat(cap)),
        "first line returned"
    );
    assert!(!out.content.starts_with(&"x".repeat(cap + 1)), "capped");
    assert!(
        out.content
            .contains(&format!("[line 1 cut: first {cap} of 1048576 bytes shown]")),
        "{}",
        &out.content[cap..]
    );
    assert!(
        out.content.ends_with("[lines 1-1 of 2]"),
        "{}",
        &out.content[cap..]
    );
    // The next line is still reachable, whole.
    let out = read(&reg, json!({"path": "long.txt", "offset": 2})).await;
    assert_eq!(out.content, "second\n[lines 2-2 of 2]");
}

#[tokio::test]
async fn huge_file_without_newline_is_read_with_bounded_output() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.txt");
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let block = "abcdefghij".repeat(100_000);
        for _ in 0..50 {
            f.write_all(block.as_bytes()).unwrap();
        }
        f.flush().unwrap();
    }
    let size = 50 * 1_000_000;
    assert_eq!(std::fs::metadata(&path).unwrap().len(), size as u64);
    let reg = builtin_registry(dir.path());
    let out = read(&reg, json!({"path": "huge.txt", "offset": 1, "limit": 1})).await;
    assert!(
        !out.is_error,
        "{}",
        &out.content[..out.content.len().min(300)]
    );
    let cap = builtin::MAX_LINE_BYTES;
    assert!(
        out.content.len() < cap + 200,
        "result length {}",
        out.content.len()
    );
    assert!(out.content.starts_with("abcdefghij"));
    assert!(
        out.content.ends_with(&format!(
            "[line 1 cut: first {cap} of {size} bytes shown]\n[lines 1-1 of 1]"
        )),
        "{}",
        &out.content[cap..]
    );
    // Past the end is still reported as such.
    let out = read(&reg, json!({"path": "huge.txt", "offset": 2})).await;
    assert!(
        out.is_error
            && out
                .content
                .contains("has 1 lines; offset 2 is past the end")
    );
}

#[tokio::test]
async fn a_cut_line_ends_on_a_character_boundary() {
    let dir = tempfile::tempdir().unwrap();
    // "é" is two bytes: with an odd prefix the cap falls inside a character.
    let text = format!("a{}\n", "é".repeat(builtin::MAX_LINE_BYTES));
    std::fs::write(dir.path().join("u.txt"), &text).unwrap();
    let reg = builtin_registry(dir.path());
    let out = read(&reg, json!({"path": "u.txt", "offset": 1, "limit": 1})).await;
    assert!(!out.is_error, "{}", &out.content[..200]);
    let body = out.content.split(" [line 1 cut").next().unwrap();
    assert_eq!(body.len(), builtin::MAX_LINE_BYTES - 1);
    assert!(body.starts_with("aé"));
}
