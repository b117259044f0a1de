//! A signal from outside (`kill -INT`, `kill -QUIT`, a supervisor's SIGTERM, `timeout -s
//! INT`) ends the TUI cleanly in a real terminal (tmux): the terminal is back in cooked mode
//! and off the alternate screen, and a command tool's process group, which runs in its own
//! group and so never sees a signal sent to deepterm, is killed with it. Skipped without
//! `tmux` unless `DEEPTERM_REQUIRE_EXTERNAL=1`.

use std::path::Path;
use std::time::{Duration, Instant};

use deepterm::sim::{Script, SimConfig};
use serde_json::json;

use crate::common;

use common::tmux::Tmux;
use common::{
    KEY_VAR, TEST_KEY, TestEnv, live_processes, processes_where, routes_config, shell_quote,
};

/// Polls `f` every 50 ms for up to `secs` seconds until it returns `Some`.
fn wait<T>(secs: u64, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn kill(signal: &str, pid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-s", signal, &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -s {signal} {pid}");
}

/// Runs the TUI in tmux against a simulator whose model calls the command tool `nap`
/// (`sh -c "sleep <unique>"`), sends `signal` to deepterm while the sleep runs, and checks
/// what is left afterwards.
fn signal_while_a_tool_runs(signal: &str, tag: u32) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let script = Script::parse(
        &json!([
            {"tool_calls": [{"name": "nap", "input": {}, "id": "call_nap"}]},
            {"text": "rested"}
        ])
        .to_string(),
    )
    .unwrap();
    let env = rt.block_on(TestEnv::new(SimConfig {
        script: Some(script),
        ..SimConfig::default()
    }));
    let secs = format!("{}.{}{tag}", 900 + tag, std::process::id());
    let config = env.write_config(
        "config.toml",
        &routes_config(
            &env.sim.base_url(),
            &format!(
                r#"
[tools.command.nap]
description = "Rest a while."
command = ["sh", "-c", "sleep {secs}"]
enabled = true
"#
            ),
        ),
    );
    let home = env.dir.path();
    let sessions = env.sessions();
    let bin = Path::new(env!("CARGO_BIN_EXE_deepterm"));
    let cmd = format!(
        "env {KEY_VAR}={TEST_KEY} HOME={home} XDG_CONFIG_HOME={home}/c XDG_DATA_HOME={home}/d \
         {bin} --session-dir {sessions} --config {config} --locale en-US; \
         echo EXITED:$?; echo MODE:$(stty -a | grep -o -- '-\\?icanon' | head -1); sleep 60",
        home = shell_quote(home),
        bin = shell_quote(bin),
        sessions = shell_quote(&sessions),
        config = shell_quote(&config),
    );
    let tmux = Tmux::start(&format!("deepterm-signal-{tag}"), 100, 30, &cmd);
    tmux.wait_for("the first frame", |s| s.contains('›'));
    tmux.type_line("take a nap");
    let sleeping = wait(20, || {
        let p = live_processes(&["sleep", &secs]);
        (!p.is_empty()).then_some(p)
    })
    .unwrap_or_else(|| panic!("the tool never started; screen:\n{}", tmux.capture()));
    let sessions_arg = sessions.display().to_string().into_bytes();
    let deepterm = processes_where(|cmdline| {
        cmdline.starts_with(bin.as_os_str().as_encoded_bytes())
            && cmdline
                .split(|b| *b == 0)
                .any(|arg| arg == sessions_arg.as_slice())
    });
    assert_eq!(deepterm.len(), 1, "one deepterm process: {deepterm:?}");

    kill(signal, deepterm[0]);
    let screen = tmux.wait_for("deepterm to exit", |s| s.contains("MODE:"));
    let left = wait(5, || {
        live_processes(&["sleep", &secs]).is_empty().then_some(())
    });
    // A failing run must not leave the sleep behind.
    for pid in live_processes(&["sleep", &secs]) {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
    let lines: Vec<&str> = screen.lines().map(str::trim).collect();
    assert!(
        lines.contains(&"MODE:icanon"),
        "{signal}: the terminal is back in cooked mode:\n{screen}"
    );
    let alternate = tmux.run(&["display-message", "-p", "-t", "t", "#{alternate_on}"]);
    assert_eq!(
        String::from_utf8_lossy(&alternate.stdout).trim(),
        "0",
        "{signal}: the alternate screen is left:\n{screen}"
    );
    assert!(
        !screen.contains("Trajectory") && !screen.contains('›'),
        "{signal}: the TUI is gone from the screen:\n{screen}"
    );
    assert!(
        lines.contains(&"EXITED:0"),
        "{signal}: a clean exit, not death by the signal:\n{screen}"
    );
    assert!(
        left.is_some(),
        "{signal}: the tool's process group {sleeping:?} was killed with deepterm"
    );
}

#[test]
fn external_sigint_restores_the_terminal_and_kills_the_tools_process_group() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    signal_while_a_tool_runs("INT", 1);
}

#[test]
fn external_sigquit_restores_the_terminal_and_kills_the_tools_process_group() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    signal_while_a_tool_runs("QUIT", 2);
}

#[test]
fn external_sigterm_restores_the_terminal_and_kills_the_tools_process_group() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    signal_while_a_tool_runs("TERM", 3);
}
