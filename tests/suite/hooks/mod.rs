//! Hooks and custom commands (SPEC §14.4) end to end: real hook scripts and command files,
//! `deepterm exec` against the simulator, and what the simulator recorded.

mod commands;
mod key;
mod prompt_and_session;
mod tools;

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::*;

/// One test's files: the workspace deepterm runs in and a user config directory.
pub struct Place {
    /// The workspace (the start directory).
    pub ws: PathBuf,
    /// `XDG_CONFIG_HOME` (its `deepterm/` is the user config directory).
    pub xdg: PathBuf,
}

impl Place {
    /// Fresh directories under the test's directory (not `/tmp` itself: sandboxed
    /// commands get a private `/tmp`).
    pub fn new(env: &TestEnv) -> Place {
        let ws = env.dir.path().join("ws");
        let xdg = env.dir.path().join("xdg");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(xdg.join("deepterm")).unwrap();
        Place { ws, xdg }
    }
}

/// Writes an executable script at `path`.
pub fn script(path: &Path, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.to_path_buf()
}

/// The simulator's Messages route with `hooks` (TOML) added.
pub fn config(env: &TestEnv, hooks: &str) -> PathBuf {
    let base = env.sim.base_url();
    ConfigBuilder::new(&base).table(hooks).write(env.dir.path())
}

/// `exec --approve all` on `script` in `place`, with the test key set.
pub async fn run(env: &TestEnv, cfg: &Path, place: &Place, script: &str) -> Output {
    let cmd = env
        .exec_command(cfg, script)
        .args(["--approve", "all"])
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", env.dir.path())
        .env("XDG_CONFIG_HOME", &place.xdg)
        .current_dir(&place.ws)
        .output();
    tokio::time::timeout(std::time::Duration::from_secs(90), cmd)
        .await
        .expect("exec finishes")
        .unwrap()
}

/// The `hook/run` events of the one session log.
pub fn hook_runs(env: &TestEnv) -> Vec<serde_json::Value> {
    env.log()
        .into_iter()
        .filter(|e| e["type"] == "hook/run")
        .map(|e| e["data"].clone())
        .collect()
}

/// Every tool result text the simulator was sent.
pub fn tool_results_sent(env: &TestEnv) -> String {
    env.requests()
        .iter()
        .flat_map(|r| messages(r).clone())
        .map(|m| m["content"].to_string())
        .collect::<Vec<_>>()
        .join("\n")
}
