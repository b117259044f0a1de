//! The sandbox and the write scope shared by the acting tools (SPEC §14.1, §14.2).
//!
//! [`WriteScope`] is the one answer to "may this resolved path be written?": the edit tools
//! ask it before writing (after resolving symlinks, and again at the moment of writing), and
//! the sandbox backends build their writable binds from the same roots and protected paths,
//! so the two can never disagree about what is protected.

pub mod agent_mode;
pub mod bwrap;
pub mod error;
pub mod handle;
pub mod landlock;
pub mod launch;
pub mod limits;
pub mod policy;
pub mod probe;
pub mod protected;
pub mod vcs;

pub use agent_mode::AgentMode;

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use serde::{Deserialize, Serialize};

/// `[sandbox] mode` (§14.2). Switchable at run time with `/mode` and Shift+Tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Nothing is writable; the edit tools refuse naming the mode.
    ReadOnly,
    /// The workspace, `writable_roots` and a private temporary directory are writable.
    #[default]
    WorkspaceWrite,
    /// No sandbox; every shell call and edit asks unless the policy is `never`.
    FullAccess,
}

impl SandboxMode {
    /// The config and `/mode` spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::FullAccess => "full-access",
        }
    }

    /// Parses the config and `/mode` spelling.
    pub fn parse(s: &str) -> Option<SandboxMode> {
        match s {
            "read-only" => Some(SandboxMode::ReadOnly),
            "workspace-write" => Some(SandboxMode::WorkspaceWrite),
            "full-access" => Some(SandboxMode::FullAccess),
            _ => None,
        }
    }

    /// Shift+Tab order: read-only → workspace-write → full-access → read-only.
    pub fn next(self) -> SandboxMode {
        match self {
            SandboxMode::ReadOnly => SandboxMode::WorkspaceWrite,
            SandboxMode::WorkspaceWrite => SandboxMode::FullAccess,
            SandboxMode::FullAccess => SandboxMode::ReadOnly,
        }
    }
}

/// `[sandbox] backend` (§14.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackendChoice {
    /// Probe bubblewrap, then Landlock, once per start.
    #[default]
    Auto,
    /// bubblewrap only.
    Bwrap,
    /// Landlock (and seccomp) in the re-executed `deepterm __sandbox` helper only.
    Landlock,
}

/// The `[sandbox]` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSettings {
    /// Starting mode.
    pub mode: SandboxMode,
    /// Network access for shell commands (default off).
    pub network: bool,
    /// Extra writable directories besides the workspace.
    pub writable_roots: Vec<PathBuf>,
    /// Which backend.
    pub backend: BackendChoice,
    /// The most processes a sandboxed command and its children may run (§15.5).
    pub max_processes: u32,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        SandboxSettings {
            mode: SandboxMode::default(),
            network: false,
            writable_roots: Vec::new(),
            backend: BackendChoice::default(),
            max_processes: limits::DEFAULT_MAX_PROCESSES,
        }
    }
}

/// Why a write was refused. The text goes to the model (English, stable, §5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteRefusal {
    /// The mode is `read-only`.
    ReadOnlyMode,
    /// The resolved path is outside every writable root.
    OutsideWritableRoots(PathBuf),
    /// The resolved path is, or is inside, a protected path.
    Protected { path: PathBuf, protected: PathBuf },
}

impl std::fmt::Display for WriteRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteRefusal::ReadOnlyMode => write!(
                f,
                "the sandbox mode is read-only: no file may be written (the user can switch with /mode)"
            ),
            WriteRefusal::OutsideWritableRoots(p) => write!(
                f,
                "{} is outside the workspace and the writable roots",
                p.display()
            ),
            WriteRefusal::Protected { path, protected } => write!(
                f,
                "{} is protected ({} is never writable)",
                path.display(),
                protected.display()
            ),
        }
    }
}

/// Where writes may go. All paths are canonical (symlinks resolved) when built by
/// [`WriteScope::new`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteScope {
    /// The current mode.
    pub mode: SandboxMode,
    /// The workspace (canonical).
    pub workspace: PathBuf,
    /// Writable roots: the workspace first, then `writable_roots` (canonical).
    pub writable_roots: Vec<PathBuf>,
    /// Protected paths (canonical where they exist): never writable short of `full-access`.
    pub protected: Vec<PathBuf>,
}

impl WriteScope {
    /// Whether `resolved` (already canonical: symlinks resolved) may be written now.
    pub fn check(&self, resolved: &Path) -> Result<(), WriteRefusal> {
        match self.mode {
            SandboxMode::FullAccess => Ok(()),
            SandboxMode::ReadOnly => Err(WriteRefusal::ReadOnlyMode),
            SandboxMode::WorkspaceWrite => {
                if let Some(p) = self.protected.iter().find(|p| resolved.starts_with(p)) {
                    return Err(WriteRefusal::Protected {
                        path: resolved.to_path_buf(),
                        protected: p.clone(),
                    });
                }
                let Some(root) = self.writable_roots.iter().find(|r| resolved.starts_with(r))
                else {
                    return Err(WriteRefusal::OutsideWritableRoots(resolved.to_path_buf()));
                };
                // A version-control directory at any depth (a nested clone's hooks run as
                // the user later), including one that did not exist at start (§15.5).
                let mut at = root.clone();
                for c in resolved
                    .strip_prefix(root)
                    .unwrap_or(Path::new(""))
                    .components()
                {
                    at.push(c);
                    if vcs::is_vcs_name(c.as_os_str()) {
                        return Err(WriteRefusal::Protected {
                            path: resolved.to_path_buf(),
                            protected: at,
                        });
                    }
                }
                Ok(())
            }
        }
    }
}

/// Makes this process non-dumpable, so no other process without `CAP_SYS_PTRACE` can read
/// its memory or its `/proc/PID/environ`, which holds the API key. Sandboxed commands have
/// no capabilities (both backends drop them), so they cannot read the key from deepterm even
/// where the kernel lets a Landlock-confined process read another's environment file.
/// deepterm calls it first thing in `main`.
pub fn hide_process_memory() {
    // SAFETY: PR_SET_DUMPABLE only changes a flag of the calling process.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
}

/// The write scope as the running session holds it: `/mode` changes `mode` in place, and
/// every tool reads the current value at call time.
pub type SharedScope = Arc<RwLock<WriteScope>>;
