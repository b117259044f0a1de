//! What a hostile MCP server cannot do (decision 0004): too many tools, oversized messages and a flood of
//! stderr. `deepterm exec` against the loopback simulator with the real fixture server
//! process (`deepterm-mcp-fixture`) as server `fx`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use deepterm::sim::SimConfig;
use serde_json::Value;

use crate::common;

use common::*;

/// A config on the simulator: built-in tools on, one command tool, the fixture as `fx`
/// (started by `/mcp connect fx`) with `fx_env` (a TOML inline-table body) and `fx_extra`
/// lines; `model_extra` goes into a `[[providers.ds.models]]` entry for `deepseek-flash`.
fn config(env: &TestEnv, fx_env: &str, fx_extra: &str, model_extra: &str) -> PathBuf {
    let mut b = env.config_builder();
    if !model_extra.is_empty() {
        b = b.model_entry(&format!(
            "id = \"deepseek-flash\"\ntool_update = \"addition-only\"\n\
             system_prompt_update = \"in-history\"\n{model_extra}"
        ));
    }
    b.builtin_tools(true)
        .command_tool("stamp", STAMP_TOOL)
        .fixture_server("fx", fx_env)
        .table(fx_extra)
        .write(env.dir.path())
}

/// A server with 300 tools, with deferral off (`defer_tools_over = 0`). Every request
/// declares at most 128 tools, the bridge's two included: built-ins and the command tool
/// first, then MCP tools by name; the rest is left to `tool_search` with a warning that
/// names the server and the undeclared tools; the turn (a call of a declared MCP tool)
/// succeeds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_hundred_mcp_tools_are_capped_at_128_builtins_first_with_a_warning() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(
        &env,
        "FIXTURE_GENERATED_TOOLS = \"300\"",
        "[tools]\ndefer_tools_over = 0",
        "",
    );
    let script = "Hello\n/mcp connect fx\nplease call fx__echo \"capped but working\"\nThanks\n";
    let out = env.exec(&cfg, script, &[]).await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("MCP server fx connected (306 tools)"), "{err}");
    // 9 built-ins + 1 command tool + 116 of the 306 MCP tools + the bridge's 2 are declared.
    assert!(
        err.contains(
            "190 tools were not declared to the model: a request may declare at most 128 tools"
        ),
        "{err}"
    );
    assert!(
        err.contains("not declared from MCP server fx: fx__gen_111, fx__gen_112, fx__gen_113, fx__gen_114, fx__gen_115, …"),
        "{err}"
    );
    assert_eq!(
        err.matches("tools were not declared").count(),
        1,
        "warned once, not per request: {err}"
    );
    let reqs = env.requests();
    assert_eq!(reqs.len(), 4, "hello, call, after the call, thanks");
    assert_eq!(
        tool_names(&reqs[0]),
        vec![
            "apply_patch",
            "edit_file",
            "grep",
            "list_dir",
            "read_file",
            "shell",
            "stamp",
            "task",
            "update_plan",
            "write_file"
        ]
    );
    for r in &reqs[1..] {
        let names = tool_names(r);
        assert_eq!(names.len(), 128, "{}", names.len());
        for b in [
            "apply_patch",
            "grep",
            "list_dir",
            "read_file",
            "stamp",
            "shell",
            "fx__echo",
            "fx__gen_110",
            "tool_search",
            "call_tool",
        ] {
            assert!(names.contains(&b.to_string()), "{b} declared");
        }
        assert!(!names.contains(&"fx__gen_111".to_string()));
        assert_eq!(names, tool_names(&reqs[1]), "the same set every request");
        assert!(
            starts_with_previous(&reqs[0], r),
            "earlier messages unchanged"
        );
    }
    assert_eq!(reqs[1]["toolCalls"][0]["name"], "fx__echo");
    let log = env.log();
    let results = tool_results(&log);
    assert_eq!(results.len(), 1);
    assert_eq!(result_text(results[0]), "capped but working");
    // The log records exactly what was declared: the header holds the 128 tools, and the
    // developer message adds 117 MCP tools and the bridge's 2, none of the undeclared.
    let headers: Vec<&Value> = log
        .iter()
        .filter(|e| e["type"] == "request/header")
        .collect();
    assert_eq!(headers.len(), 2, "initial, then the change");
    let mut logged: Vec<String> = headers[1]["data"]["header"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    let mut declared = tool_names(&reqs[1]);
    logged.sort();
    declared.sort();
    assert_eq!(logged, declared);
    let dev = developer_contents(&log);
    let added: Vec<&str> = dev
        .iter()
        .flat_map(|d| d.as_array().unwrap().iter())
        .filter(|b| b["type"] == "tool-addition")
        .map(|b| b["toolName"].as_str().unwrap())
        .collect();
    assert_eq!(added.len(), 118, "{added:?}");
    assert!(!added.contains(&"fx__gen_111"));
}

/// The limit is per route: `[[providers.X.models]] max_tools = N` lowers it; the bridge's
/// two tools count, and the tools past the cut stay reachable through them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_tools_from_the_model_entry_caps_the_declarations() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, "", "", "max_tools = 13");
    let out = env
        .exec(&cfg, "/mcp connect fx\nplease call fx__add now\n", &[])
        .await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(
            "5 tools were not declared to the model: a request may declare at most 13 tools"
        ),
        "{err}"
    );
    assert!(
        err.contains("not declared from MCP server fx: fx__echo, fx__fail, fx__fixture_add_tool, fx__fixture_crash, fx__fixture_remove_tool"),
        "{err}"
    );
    let reqs = env.requests();
    assert_eq!(
        tool_names(&reqs[0]),
        vec![
            "apply_patch",
            "call_tool",
            "edit_file",
            "fx__add",
            "grep",
            "list_dir",
            "read_file",
            "shell",
            "stamp",
            "task",
            "tool_search",
            "update_plan",
            "write_file"
        ]
    );
}

/// A tool the `max_tools` cut leaves undeclared is not hidden (SPEC §15.1): the model
/// reaches it through `call_tool`, and the real MCP tool runs under its own name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_past_the_max_tools_cut_runs_through_call_tool() {
    let env = TestEnv::new(SimConfig::default()).await;
    env.sim.push_reply(deepterm::sim::ScriptedReply::tool_call(
        "call_tool",
        serde_json::json!({"name": "fx__echo", "arguments": {"text": "reached past the cut"}}),
    ));
    env.sim
        .push_reply(deepterm::sim::ScriptedReply::text("It answered."));
    let cfg = config(&env, "", "", "max_tools = 13");
    let out = env
        .exec(
            &cfg,
            "/mcp connect fx
please echo something
",
            &[],
        )
        .await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let reqs = env.requests();
    assert!(!tool_names(&reqs[0]).contains(&"fx__echo".to_string()));
    // The first request announces it by name, so the model knows it exists.
    assert!(
        reqs[0]["rawBody"].as_str().unwrap().contains("fx__echo"),
        "the cut tool is announced"
    );
    let log = env.log();
    let call = log
        .iter()
        .find(|e| e["type"] == "tool/call")
        .expect("a tool call is logged");
    assert_eq!(call["data"]["name"], "fx__echo");
    assert_eq!(call["data"]["bridged"], true);
    let result = log
        .iter()
        .find(|e| e["type"] == "tool/result")
        .expect("its result is logged");
    assert_ne!(result["data"]["message"]["isError"], true, "{result}");
    assert_eq!(
        result["data"]["message"]["content"][0]["text"],
        "reached past the cut"
    );
}

/// A reply over rmcp's fixed 16 MiB line limit (which used to be dropped silently and
/// surface as a timeout) passes under the default 64 MiB limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_20_mb_reply_passes_the_default_message_limit() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(
        &env,
        "FIXTURE_TOOLS = \"echo,fixture_big\"",
        "timeout_secs = 20",
        "",
    );
    env.exec_ok(
        &cfg,
        "/mcp connect fx\nplease call fx__fixture_big \"20000000\"\n",
        &[],
    )
    .await;
    let log = env.log();
    let results = tool_results(&log);
    assert_eq!(results.len(), 1);
    let text = result_text(results[0]);
    assert_ne!(
        results[0]["isError"],
        true,
        "{}",
        &text[..text.len().min(300)]
    );
    assert!(text.starts_with("bbbb"), "{}", &text[..text.len().min(300)]);
    assert!(text.ends_with("[result truncated]"));
}

/// A reply over the server's `max_message_bytes` fails the call at once with an error
/// that names the server, the size and the limit, not a timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_reply_is_reported_as_such_not_as_a_timeout() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(
        &env,
        "FIXTURE_TOOLS = \"echo,fixture_big\"",
        "timeout_secs = 50\nmax_message_bytes = 100000",
        "",
    );
    let started = Instant::now();
    env
        .exec_ok(
            &cfg,
            "/mcp connect fx\nplease call fx__fixture_big \"200000\"\nplease call fx__echo \"still fine\"\n",
            &[],
        )
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "no timeout wait"
    );
    let log = env.log();
    let results = tool_results(&log);
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["isError"], true);
    let text = result_text(results[0]);
    assert!(
        text.starts_with("MCP server \"fx\" sent a message of 200"),
        "{text}"
    );
    assert!(text.contains("over the limit of 100000 bytes"), "{text}");
    assert!(!text.contains("timed out"), "{text}");
    // The connection survives: the next call works.
    assert_eq!(result_text(results[1]), "still fine");
}

/// An oversized `tools/list` fails the connect at once with the same clear error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_tool_list_fails_the_connect_with_the_size() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(
        &env,
        "FIXTURE_GENERATED_TOOLS = \"300\"",
        "max_message_bytes = 10000",
        "",
    );
    let started = Instant::now();
    let out = env.exec_ok(&cfg, "/mcp connect fx\n/mcp\n", &[]).await;
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "no timeout wait"
    );
    let err = stderr(&out);
    assert!(
        err.contains("MCP server fx could not be connected: MCP server \"fx\" sent a message of"),
        "{err}"
    );
    assert!(err.contains("over the limit of 10000 bytes"), "{err}");
}

/// Peak resident memory (`VmHWM`, kB) of a running process, if readable.
fn peak_rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// A server that writes 200 MB to stderr without a newline does not grow deepterm's
/// memory (only the last 64 KiB are kept), and the connect error quotes the tail.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stderr_flood_stays_bounded_and_the_error_shows_its_tail() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, "FIXTURE_STDERR_BYTES = \"200000000\"", "", "");
    let script = env.dir.path().join("script.txt");
    std::fs::write(&script, "/mcp connect fx\n").unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_deepterm"))
        .arg("exec")
        .arg("--script")
        .arg(&script)
        .arg("--config")
        .arg(&cfg)
        .arg("--session-dir")
        .arg(env.sessions())
        .arg("--locale")
        .arg("en-US")
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", env.dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let sampler = std::thread::spawn(move || {
        let mut peak = 0;
        while let Some(kb) = peak_rss_kb(pid) {
            peak = peak.max(kb);
            std::thread::sleep(Duration::from_millis(10));
        }
        peak
    });
    let out = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    let peak_kb = sampler.join().unwrap();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("MCP server fx could not be connected"),
        "{err}"
    );
    assert!(
        err.contains("xxxx fixture: final words after the flood)"),
        "the error quotes the end of stderr: {}",
        &err[..err.len().min(2000)]
    );
    assert!(err.len() < 4000, "the quote is short: {} bytes", err.len());
    assert!(peak_kb > 0, "sampled");
    assert!(
        peak_kb < 100 * 1024,
        "peak memory {peak_kb} kB while the server wrote 200 MB to stderr"
    );
}
