//! Daily-use scenarios of the real terminal UI in tmux: each module covers one area
//! at 80 and 120 columns and in both locales. Skipped (with a message) when `tmux` is not
//! installed, or failed under `DEEPTERM_REQUIRE_EXTERNAL=1`.

mod acting;
mod approvals;
mod cache;
mod checkpoints;
mod commands_lang;
mod controls;
mod custom_commands;
mod elicitation;
mod elicitation_url;
mod guided_demo;
mod help_table;
mod mcp_prompts;
mod mcp_remote;
mod mcp_waits;
mod nodes_resume;
mod plan_mode;
mod popup_help;
mod queued_turn;
mod retries;
mod retry_question;
mod subagents;
mod trust;

use crate::common;
use crate::common::tmux::Tmux;

/// The demo in tmux at `width` columns in `locale`, started in a fresh directory (`ws/`
/// of the returned directory) with a config choosing the `on-request` approval policy (the
/// demo's own default is `untrusted`), its own session directory and temporary directory
/// (`tmp/`, where the demo's copy of its sample project is made: [`demo_copy`]) and no API
/// key; returns once the first frame is drawn.
pub(super) fn start_in_workspace(
    name: &str,
    width: u16,
    locale: &str,
) -> (Tmux, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(dir.path().join("tmp")).unwrap();
    std::fs::write(
        dir.path().join("config.toml"),
        "[approval]\npolicy = \"on-request\"\n",
    )
    .unwrap();
    let cmd = format!(
        "cd {ws} && env -u DEEPSEEK_API_KEY HOME={home} XDG_CONFIG_HOME={home}/c TMPDIR={home}/tmp \
         XDG_DATA_HOME={home}/d {bin} --demo --session-dir {home}/s --config {home}/config.toml \
         --locale {locale}; sleep 30",
        ws = common::shell_quote(&ws),
        home = common::shell_quote(dir.path()),
        bin = common::shell_quote(std::path::Path::new(env!("CARGO_BIN_EXE_deepterm"))),
    );
    let tmux = Tmux::start(&format!("dt-{name}-{width}-{locale}"), width, 40, &cmd);
    tmux.wait_for("the first frame", |s| s.contains('›'));
    (tmux, dir)
}

/// The guided demo's copy of its sample project, the workspace of a demo started by
/// [`start_in_workspace`] in `dir` (SPEC §15.4).
pub(super) fn demo_copy(dir: &std::path::Path) -> std::path::PathBuf {
    let mut copies: Vec<_> = std::fs::read_dir(dir.join("tmp"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().is_some_and(|n| {
                n.to_string_lossy()
                    .starts_with(deepterm::startup::demo_workspace::PREFIX)
            })
        })
        .collect();
    assert_eq!(copies.len(), 1, "one copy of the sample: {copies:?}");
    copies.pop().unwrap()
}

/// The real binary at `width` columns in `locale` against `deepterm sim --script` with
/// `script` (JSON), its config the simulator's Messages route with the built-in tools and
/// `extra` TOML, started in a fresh empty workspace (`ws/` of the returned directory), its
/// own session directory and `HOME`; returns once the first frame is drawn.
pub(super) fn start_on_script(
    name: &str,
    width: u16,
    locale: &str,
    script: &str,
    extra: &str,
) -> (Tmux, common::tmux::SimProcess, tempfile::TempDir) {
    start_on_script_in(
        tempfile::tempdir().unwrap(),
        name,
        width,
        locale,
        script,
        extra,
        "",
    )
}

/// [`start_on_script`] in `dir`, with `env` (`NAME=VALUE …`, shell-quoted by the caller)
/// added to the binary's environment.
pub(super) fn start_on_script_in(
    dir: tempfile::TempDir,
    name: &str,
    width: u16,
    locale: &str,
    script: &str,
    extra: &str,
    env: &str,
) -> (Tmux, common::tmux::SimProcess, tempfile::TempDir) {
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let replies = dir.path().join("replies.json");
    std::fs::write(&replies, script).unwrap();
    let sim = common::tmux::SimProcess::start(&replies);
    let config = common::ConfigBuilder::new(&sim.base)
        .table(extra)
        .write(dir.path());
    let cmd = format!(
        "cd {ws} && env {var}={key} HOME={home} XDG_CONFIG_HOME={home}/c XDG_DATA_HOME={home}/d \
         {env} {bin} --session-dir {home}/s --config {config} --locale {locale}; sleep 30",
        ws = common::shell_quote(&ws),
        var = common::KEY_VAR,
        key = common::TEST_KEY,
        home = common::shell_quote(dir.path()),
        bin = common::shell_quote(std::path::Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        config = common::shell_quote(&config),
    );
    let tmux = Tmux::start(&format!("dt-{name}-{width}-{locale}"), width, 40, &cmd);
    tmux.wait_for("the first frame", |s| s.contains('›'));
    (tmux, sim, dir)
}

/// Whether the footer (the screen's last non-empty row) names `mode` as a word of its
/// own (`plan` is a mode, not part of another word).
pub(super) fn footer_says(screen: &str, mode: &str) -> bool {
    screen
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.split_whitespace().any(|w| w == mode))
}

/// Asks `/mcp` until Chat says `connected` (the server starts in the background), at most
/// 30 s; `case` names the width and locale in the failure.
pub(super) fn wait_connected(tmux: &Tmux, connected: &str, case: &str) {
    let start = std::time::Instant::now();
    loop {
        tmux.type_line("/mcp");
        std::thread::sleep(std::time::Duration::from_millis(700));
        let s = tmux.capture();
        if common::tmux::chat_flat(&s).contains(connected) {
            return;
        }
        assert!(
            start.elapsed().as_secs() < 30,
            "{case}: never connected\n{s}"
        );
    }
}
