//! MCP servers that send what a client must survive: tool lists with a tool nested past
//! serde_json's recursion limit, a malformed tool among good ones, an answer that is no
//! tool list, a 20 MiB description and a huge schema; tool names two sources share; and a
//! server that crashes right after every successful connect. `deepterm exec` against the
//! loopback simulator, or the MCP manager itself, with the real fixture server process.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use deepterm::config::McpServerConfig;
use deepterm::session::event::McpState;
use deepterm::session::vocab::Approval;
use deepterm::sim::SimConfig;
use deepterm::tools::mcp::{McpManager, McpOptions};
use deepterm::tools::source::Background;
use serde_json::Value;

use crate::common;

use common::*;

use crate::common::MCP_FIXTURE as FIXTURE;

/// A config on the simulator: no built-in tools, `extra` tables appended (servers,
/// command tools).
fn config(env: &TestEnv, extra: &str) -> PathBuf {
    env.config_builder()
        .builtin_tools(false)
        .table(extra)
        .write(env.dir.path())
}

/// `[mcp.servers.NAME]` for the fixture, started by `/mcp connect NAME`.
fn server(name: &str, env_table: &str, extra: &str) -> String {
    format!(
        "\n[mcp.servers.{name}]\ncommand = \"{FIXTURE}\"\nenabled = false\nenv = {{ {env_table} }}\n{extra}\n"
    )
}

/// The declaration of `name` in a recorded request.
fn declared<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["body"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} declared"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_nested_past_the_parser_limit_is_left_out_by_name_and_the_rest_connect() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(
        &env,
        &server("fx", "FIXTURE_TOOLS = \"echo,fixture_deep,add\"", ""),
    );
    let out = env
        .exec(
            &cfg,
            "/mcp connect fx\nplease call fx__echo \"fine\"\n",
            &[],
        )
        .await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("MCP server fx connected (2 tools)"), "{err}");
    assert!(
        err.contains(
            "MCP server fx: tool \"fixture_deep\" was left out: its definition is nested more \
             than 64 levels deep."
        ),
        "{err}"
    );
    assert!(!err.contains("no answer within"), "{err}");
    let reqs = env.requests();
    assert_eq!(tool_names(&reqs[0]), vec!["fx__add", "fx__echo"]);
    assert_eq!(result_text(tool_results(&env.log())[0]), "fine");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_tool_is_left_out_by_name_and_the_good_ones_connect() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(
        &env,
        &server("fx", "FIXTURE_TOOLS = \"echo,fixture_malformed,add\"", ""),
    );
    let out = env.exec(&cfg, "/mcp connect fx\n/mcp\nHello\n", &[]).await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("MCP server fx connected (2 tools)"), "{err}");
    assert!(
        err.contains(
            "MCP server fx: tool \"fixture_malformed\" was left out: it is not a valid MCP tool ("
        ),
        "{err}"
    );
    assert!(!err.contains("Unexpected response type"), "{err}");
    assert!(
        stdout(&out).contains("fx: connected, 2 tools"),
        "{}",
        stdout(&out)
    );
    assert_eq!(tool_names(&env.requests()[0]), vec!["fx__add", "fx__echo"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_that_is_no_tool_list_fails_the_connect_as_a_parse_error() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, &server("fx", "FIXTURE_TOOLS_NOT_A_LIST = \"1\"", ""));
    let out = env.exec(&cfg, "/mcp connect fx\n/mcp\n", &[]).await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(
            "MCP server fx could not be connected: tools/list failed: the answer is not a \
             valid tool list (detail: "
        ),
        "{err}"
    );
    assert!(
        err.contains("the tools/list answer could not be parsed"),
        "{err}"
    );
    assert!(!err.contains("no answer within"), "{err}");
    assert!(
        stdout(&out).contains("fx: failed, 0 tools"),
        "{}",
        stdout(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_tool_list_that_cannot_be_read_is_reported_and_the_old_tools_stay() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(
        &env,
        &server(
            "fx",
            "FIXTURE_TOOLS = \"echo,fixture_add_tool\", FIXTURE_TOOLS_NOT_A_LIST = \"later\"",
            "",
        ),
    );
    let script = "/mcp connect fx\nplease call fx__fixture_add_tool \"extra\"\nHello\n";
    let out = env.exec(&cfg, script, &[]).await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(
            "MCP server fx changed its tools, but its new tool list could not be read, so the \
             previous tools stay: tools/list failed:"
        ),
        "{err}"
    );
    assert!(
        err.contains("the tools/list answer could not be parsed"),
        "{err}"
    );
    let reqs = env.requests();
    assert_eq!(
        tool_names(reqs.last().unwrap()),
        vec!["fx__echo", "fx__fixture_add_tool"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_20_mib_description_is_cut_at_16_kib_with_one_warning_per_server() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(
        &env,
        &server(
            "fx",
            "FIXTURE_TOOLS = \"echo,fixture_long_description,fixture_big_schema\"",
            "",
        ),
    );
    let out = env
        .exec(
            &cfg,
            "/mcp connect fx\nHello\n/mcp disconnect fx\n/mcp connect fx\nAgain\n",
            &[],
        )
        .await;
    let err = stderr(&out);
    assert!(out.status.success(), "{}", &err[..err.len().min(2000)]);
    let cut_warning = "MCP server fx: the description of fx__fixture_long_description was \
                       longer than 16 KiB and cut to that length";
    assert_eq!(err.matches(cut_warning).count(), 1, "warned once: {err}");
    // The huge schema is not declared at all: every request would carry it.
    assert!(
        err.contains(
            "MCP server fx: tool \"fixture_big_schema\" was left out: its input schema is"
        ),
        "{err}"
    );
    let reqs = env.requests();
    assert_eq!(reqs.len(), 2);
    for r in &reqs {
        let d = declared(r, "fx__fixture_long_description")["description"]
            .as_str()
            .unwrap();
        assert!(d.len() < 17 * 1024, "{} bytes", d.len());
        assert!(d.ends_with("… (description cut at 16 KiB)"));
        assert!(r["rawBody"].as_str().unwrap().len() < 64 * 1024);
        assert!(!tool_names(r).contains(&"fx__fixture_big_schema".to_string()));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_whose_tools_map_to_one_name_are_reported_with_both() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(
        &env,
        &format!(
            "{}{}",
            server("x", "FIXTURE_TOOLS = \"_y\"", ""),
            server("x_", "FIXTURE_TOOLS = \"y\"", "")
        ),
    );
    let out = env
        .exec(&cfg, "/mcp connect x_\n/mcp connect x\n/tools\n", &[])
        .await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(
            "Two tools are named x___y: the one from MCP server x keeps the name and the one \
             from MCP server x_ is hidden."
        ),
        "{err}"
    );
    assert_eq!(err.matches("Two tools are named").count(), 1, "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_tool_shadowing_an_mcp_tool_cannot_escape_its_approval() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(
        &env,
        &format!(
            "{}\n[tools.command.x__z]\ndescription = \"Stamp.\"\ncommand = [\"echo\", \"STAMPED\"]\n\
             parameters = {{ type = \"object\", properties = {{}} }}\n",
            server("x", "FIXTURE_TOOLS = \"z\"", "approval = \"ask\"")
        ),
    );
    let script = "please call x__z before the server\n/mcp connect x\nplease call x__z now\n";
    let out = env.exec(&cfg, script, &[]).await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(
            "Two tools are named x__z: the one from command keeps the name and the one from \
             MCP server x is hidden."
        ),
        "{err}"
    );
    let log = env.log();
    let results = tool_results(&log);
    assert_eq!(results.len(), 2, "{results:#?}");
    // Alone, the command tool runs as configured (no approval) …
    assert_eq!(result_text(results[0]).trim(), "STAMPED");
    // … but once it shadows the server's `ask` tool, it needs approval, which exec's
    // default (`--approve none`) refuses.
    assert_eq!(results[1]["isError"], true);
    assert!(
        result_text(results[1]).starts_with("the user denied this call of \"x__z\""),
        "{}",
        result_text(results[1])
    );
}

/// The fixture as server `fx` with `env`, for the manager itself.
fn manager(
    env: &[(&str, String)],
    options: McpOptions,
) -> (McpManager, tokio::sync::mpsc::UnboundedReceiver<Background>) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let config = McpServerConfig {
        command: FIXTURE.to_string(),
        args: Vec::new(),
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        env_passthrough: Vec::new(),
        enabled: false,
        approval: Approval::Never,
        trust_read_only_hint: false,
        timeout_secs: None,
        max_message_bytes: None,
        parallel: false,
        remote: None,
    };
    let configs = BTreeMap::from([("fx".to_string(), config)]);
    (
        McpManager::new(configs, tx, std::env::temp_dir(), options),
        rx,
    )
}

fn spawns(log: &Path) -> usize {
    std::fs::read_to_string(log).map_or(0, |s| s.lines().count())
}

/// Waits (at most `limit`) for a `mcp/status` of `state`.
async fn wait_for_state(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<Background>,
    state: McpState,
    limit: Duration,
) -> Option<deepterm::session::event::McpStatus> {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(Background::Mcp(s))) if s.state == state => return Some(s),
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => return None,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_crashes_after_every_connect_is_given_up_after_the_usual_tries() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("spawns.log");
    let options = McpOptions {
        backoff_initial: Duration::from_millis(50),
        backoff_max: Duration::from_millis(200),
        max_retries: 3,
        ..McpOptions::default()
    };
    let (m, mut rx) = manager(
        &[
            ("FIXTURE_EXIT_AFTER_LIST_MS", "30".into()),
            ("FIXTURE_SPAWN_LOG", log.display().to_string()),
        ],
        options,
    );
    // Every handshake and listing succeeds …
    assert_eq!(m.connect("fx").await, Ok(McpState::Connected));
    // … and every connection ends at once: after the first start and three quick tries
    // the server is given up, however often each connect succeeded.
    let failed = wait_for_state(&mut rx, McpState::Failed, Duration::from_secs(20)).await;
    let failed = failed.unwrap_or_else(|| panic!("still restarting after {} starts", spawns(&log)));
    let error = failed.error.unwrap_or_default();
    assert!(
        error.contains("stopped 4 times in a row within 30 s of connecting"),
        "{error}"
    );
    assert!(error.contains("/mcp connect fx tries again"), "{error}");
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(spawns(&log), 4, "no start after giving up");
    let status: Vec<String> = m.status_text().iter().map(|t| t.key.clone()).collect();
    let line = m
        .status_text()
        .into_iter()
        .find(|t| t.key == "mcp-status-line")
        .unwrap();
    assert!(
        format!("{:?}", line.args).contains("mcp-state-failed"),
        "{status:?} {line:?}"
    );
    // `/mcp connect` starts it again, with a fresh count.
    assert_eq!(m.connect("fx").await, Ok(McpState::Connected));
    assert_eq!(spawns(&log), 5);
    m.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_stays_up_past_the_healthy_time_is_restarted_each_time() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("spawns.log");
    let options = McpOptions {
        backoff_initial: Duration::from_millis(20),
        backoff_max: Duration::from_millis(20),
        max_retries: 2,
        healthy_after: Duration::from_millis(150),
        ..McpOptions::default()
    };
    let (m, mut rx) = manager(
        &[
            ("FIXTURE_CRASH_AFTER_MS", "400".into()),
            ("FIXTURE_SPAWN_LOG", log.display().to_string()),
        ],
        options,
    );
    assert_eq!(m.connect("fx").await, Ok(McpState::Connected));
    let deadline = Instant::now() + Duration::from_secs(20);
    while spawns(&log) < 5 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(spawns(&log) >= 5, "{} starts", spawns(&log));
    // More crashes than `max_retries`, but each after a healthy stretch: never given up.
    while let Ok(bg) = rx.try_recv() {
        if let Background::Mcp(s) = bg {
            assert_ne!(s.state, McpState::Failed, "{s:?}");
        }
    }
    m.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_list_changes_is_one_refresh_at_a_time_and_one_queued_list() {
    let dir = tempfile::tempdir().unwrap();
    let lists = dir.path().join("lists.log");
    let (m, mut rx) = manager(
        &[
            ("FIXTURE_CHURN_MS", "1".into()),
            ("FIXTURE_TOOLS", "echo,add".into()),
            ("FIXTURE_LIST_LOG", lists.display().to_string()),
        ],
        McpOptions::default(),
    );
    assert_eq!(m.connect("fx").await, Ok(McpState::Connected));
    // About 3,000 notifications while nobody takes the lists (a long turn).
    tokio::time::sleep(Duration::from_secs(3)).await;
    let listed = spawns(&lists);
    m.shutdown();
    let mut queued = 0;
    while let Ok(bg) = rx.try_recv() {
        if matches!(
            bg,
            Background::LatestTools { .. } | Background::Tools { .. }
        ) {
            queued += 1;
        }
    }
    // Refreshes are 250 ms apart at the most: the first listing and about 12 more.
    assert!(listed >= 2, "the changes were followed: {listed} listings");
    assert!(listed <= 16, "{listed} listings for a 3 s burst");
    // One message carries the latest list; the shutdown adds the removal.
    assert!(queued <= 2, "{queued} tool lists queued");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnect_while_the_loop_is_busy_ends_with_the_new_tools_registered() {
    let (m, mut rx) = manager(
        &[("FIXTURE_TOOLS", "echo,add".into())],
        McpOptions::default(),
    );
    // Connect, disconnect and connect again while nothing takes the lists (a long turn).
    assert_eq!(m.connect("fx").await, Ok(McpState::Connected));
    assert_eq!(m.disconnect("fx"), Ok(true));
    assert_eq!(m.connect("fx").await, Ok(McpState::Connected));
    // Then the loop applies the queue in order, as `Agent::apply_background` does.
    let mut registered: Option<usize> = None;
    while let Ok(bg) = rx.try_recv() {
        match bg {
            Background::Tools { tools, .. } => registered = Some(tools.len()),
            Background::LatestTools { slot, .. } => {
                if let Some(tools) = slot.take() {
                    registered = Some(tools.len());
                }
            }
            _ => {}
        }
    }
    assert_eq!(
        registered,
        Some(2),
        "the connected server's tools are registered"
    );
    m.shutdown();
}
