//! An MCP server that flips its tool list every millisecond and says so each time
//! (`notifications/tools/list_changed`), against the real TUI in tmux: deepterm's memory
//! stays flat over 25 s of churn under CI (5 s locally, decision 0107), and Chat shows one
//! tool-change node per request boundary, not one per change (decision 0033). Skipped when `tmux` is missing, failed
//! under `DEEPTERM_REQUIRE_EXTERNAL=1`.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common;

use common::tmux::Tmux;
use common::{require_external, shell_quote, tmux_available};

use crate::common::MCP_FIXTURE as FIXTURE;

/// Resident memory (`VmRSS`, kB) of a running process.
fn rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("process runs");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// Chat rows (left of the Trajectory's `│`) that are tool-change nodes.
fn tool_nodes(screen: &str) -> usize {
    screen
        .lines()
        .map(|l| l.split_once('│').map_or(l, |(chat, _)| chat))
        .filter(|r| {
            r.contains("Tool added:") || r.contains("Tool removed:") || r.contains("Tools updated")
        })
        .count()
}

fn sleep_until(t: Instant) {
    if let Some(d) = t.checked_duration_since(Instant::now()) {
        std::thread::sleep(d);
    }
}

#[test]
fn a_churning_tool_list_keeps_memory_flat_and_chat_at_one_node_per_request() {
    if !require_external("tmux", tmux_available()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[mcp.servers.fx]\ncommand = \"{FIXTURE}\"\nenabled = true\n\
             env = {{ FIXTURE_CHURN_MS = \"1\", FIXTURE_TOOLS = \"echo,add\" }}\n"
        ),
    )
    .unwrap();
    // `exec`: the pane's process is deepterm itself, so its pid is the pane's.
    let cmd = format!(
        "exec env -u DEEPSEEK_API_KEY HOME={home} {bin} --demo --session-dir {sessions} \
         --config {config} --locale en-US",
        home = shell_quote(dir.path()),
        bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        sessions = shell_quote(&dir.path().join("sessions")),
        config = shell_quote(&config),
    );
    let tmux = Tmux::start("deepterm-churn", 120, 40, &cmd);
    tmux.wait_for("the server connected", |s| s.contains("fx connected"));
    let pid: u32 = String::from_utf8_lossy(
        &tmux
            .run(&["display-message", "-p", "-t", "t", "#{pane_pid}"])
            .stdout,
    )
    .trim()
    .parse()
    .expect("pane pid");

    // The first request: from now on every change is a live node.
    tmux.type_line("hello");
    tmux.wait_for("the first reply", |s| s.contains("#1   T1.S1"));
    // The soak: CI watches 25 s of churn (about 25,000 changes); a local run 5 s, as
    // property tests run a tenth of their cases locally.
    let soak = Duration::from_secs(if deepterm::testing::in_ci() { 25 } else { 5 });
    let start = Instant::now();
    sleep_until(start + Duration::from_secs(5));
    let early = rss_kb(pid);
    sleep_until(start + Duration::from_secs(5) + soak);
    let late = rss_kb(pid);
    let screen = tmux.capture();
    assert!(
        tool_nodes(&screen) <= 1,
        "all changes since the request are one node:\n{screen}"
    );

    // The second request: the node before it is that request's, and the changes after it
    // start one new node.
    tmux.type_line("again");
    let screen = tmux.wait_for("the second reply", |s| s.contains("#2   T2.S1"));
    std::thread::sleep(Duration::from_secs(1));
    let screen = format!("{screen}\n{}", tmux.capture());
    assert!(
        tool_nodes(&tmux.capture()) <= 2,
        "one node per request boundary:\n{screen}"
    );
    assert!(
        late < early + 8 * 1024,
        "memory grew from {early} kB at 5 s to {late} kB after {} s more of churn",
        soak.as_secs()
    );
    tmux.type_line("/quit");
}
