//! A workspace with a git directory, a config file and a session directory inside a
//! writable root, and a `Shell` on a chosen backend.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use deepterm::sandbox::probe::{self, Backend, SandboxStatus};
use deepterm::sandbox::protected::protected_paths;
use deepterm::sandbox::{BackendChoice, SandboxMode, WriteScope};
use deepterm::tools::ToolOutcome;
use deepterm::tools::child_env::ChildEnvPolicy;
use deepterm::tools::shell::{RunAs, Shell, ShellResult, parse_request};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::common::require_external;

/// The deepterm binary (it runs the Landlock helper).
pub fn helper() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_deepterm"))
}

/// The backends to attack: each one that probes fine here; a missing one is skipped, or a
/// failure with `DEEPTERM_REQUIRE_EXTERNAL=1`.
pub fn backends() -> Vec<Backend> {
    let mut v = Vec::new();
    match probe::probe_bwrap(std::env::var_os("PATH").as_deref()) {
        Ok(b) => v.push(b),
        Err(e) => {
            require_external(&format!("bubblewrap ({e})"), false);
        }
    }
    match probe::probe_landlock(&helper()) {
        Ok(b) => v.push(b),
        Err(e) => {
            require_external(&format!("Landlock ({e})"), false);
        }
    }
    v
}

/// The content of every git `config` the site writes.
pub const GIT_CONFIG: &str = "[core]\n\tbare = false\n";

/// A session's files laid out for attacks: besides the workspace's own `.git`, a nested
/// clone (`sub/.git`), a linked worktree whose `.git` file names a git directory in the
/// other writable root (`vendor/wt/.git` → `state/nested.git`), a Mercurial repository
/// (`hgrepo/.hg`), a Jujutsu one (`jjrepo/.jj`) and `.claude/commands`.
pub struct Site {
    _dir: tempfile::TempDir,
    /// The workspace (canonical), with `.git/config` and `src/main.rs`.
    pub ws: PathBuf,
    /// A writable root outside the workspace holding the config file and sessions.
    pub state: PathBuf,
    /// The config file (inside `state`).
    pub config: PathBuf,
    /// The session directory (inside `state`), with one session file.
    pub sessions: PathBuf,
    /// A directory outside every writable root.
    pub outside: PathBuf,
}

impl Site {
    pub fn new() -> Site {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let ws = root.join("ws");
        let state = root.join("state");
        let outside = root.join("outside");
        let config = state.join("config/deepterm/config.toml");
        let sessions = state.join("data/sessions");
        for d in [
            ws.join(".git/hooks"),
            ws.join("src"),
            state.join("cache"),
            sessions.clone(),
            outside.clone(),
            ws.join("sub/.git/hooks"),
            ws.join("vendor/wt"),
            state.join("nested.git/hooks"),
            ws.join("hgrepo/.hg"),
            ws.join("jjrepo/.jj/repo"),
            ws.join(".claude/commands"),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        std::fs::write(ws.join(".git/config"), GIT_CONFIG).unwrap();
        std::fs::write(ws.join("sub/.git/config"), GIT_CONFIG).unwrap();
        std::fs::write(state.join("nested.git/config"), GIT_CONFIG).unwrap();
        std::fs::write(
            ws.join("vendor/wt/.git"),
            "gitdir: ../../../state/nested.git\n",
        )
        .unwrap();
        std::fs::write(ws.join("hgrepo/.hg/hgrc"), "[ui]\n").unwrap();
        std::fs::write(ws.join("jjrepo/.jj/repo/config.toml"), "").unwrap();
        std::fs::write(ws.join("src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(&config, "model = \"deepseek/deepseek-v4-flash\"\n").unwrap();
        std::fs::write(sessions.join("s1.jsonl"), "{}\n").unwrap();
        Site {
            _dir: dir,
            ws,
            state,
            config,
            sessions,
            outside,
        }
    }

    /// The session's write scope in `mode`.
    pub fn scope(&self, mode: SandboxMode) -> WriteScope {
        WriteScope::new(
            mode,
            &self.ws,
            std::slice::from_ref(&self.state),
            protected_paths(&self.ws, Some(&self.config), &self.sessions),
        )
    }

    /// A shell in `mode` on `backend` (`None`: as a failed probe left it, with `reason`).
    pub fn shell(
        &self,
        mode: SandboxMode,
        backend: Option<Backend>,
        network: bool,
        reason: &str,
    ) -> Shell {
        self.shell_with_max(mode, backend, network, reason, 512)
    }

    /// [`Site::shell`] with `[sandbox] max_processes = max`.
    pub fn shell_with_max(
        &self,
        mode: SandboxMode,
        backend: Option<Backend>,
        network: bool,
        reason: &str,
        max: u32,
    ) -> Shell {
        let scope = self.scope(mode);
        let status = SandboxStatus {
            mode,
            network,
            choice: BackendChoice::Auto,
            limits: backend.as_ref().map(Backend::limits).unwrap_or_default(),
            backend,
            reason: reason.to_string(),
            writable_roots: scope.writable_roots.clone(),
            protected: scope.protected.clone(),
            max_processes: max,
        };
        Shell::new(
            Arc::new(RwLock::new(scope)),
            Arc::new(status),
            ChildEnvPolicy::new(&["DEEPSEEK_API_KEY".to_string()], &[]),
        )
    }
}

/// Runs `command` (a bash string) in the workspace through `shell` as the model would.
pub async fn run(shell: &Shell, ws: &Path, command: &str) -> ShellResult {
    let req = parse_request(&json!({"command": command, "timeout_ms": 20_000}), ws).unwrap();
    shell
        .run(&req, RunAs::Sandboxed, &CancellationToken::new())
        .await
}

/// The text of a result, for messages.
pub fn text(o: &ToolOutcome) -> &str {
    &o.content
}
