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
mod help_table;
mod nodes_resume;
mod popup_help;
mod queued_turn;
mod retries;
mod retry_question;

use crate::common;
use crate::common::tmux::Tmux;

/// The demo in tmux at `width` columns in `locale`, started in a fresh workspace
/// (`ws/` of the returned directory) with an empty config, its own session directory and
/// no API key; returns once the first frame is drawn.
pub(super) fn start_in_workspace(
    name: &str,
    width: u16,
    locale: &str,
) -> (Tmux, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(dir.path().join("config.toml"), "").unwrap();
    let cmd = format!(
        "cd {ws} && env -u DEEPSEEK_API_KEY HOME={home} XDG_CONFIG_HOME={home}/c \
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
