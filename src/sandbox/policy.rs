//! What one sandboxed command may do, as both backends receive it (SPEC §14.2).
//!
//! Built from the session's [`WriteScope`] at call time (so `/mode` takes effect on the next
//! call) and the `network` setting. The Landlock helper receives it serialized on its
//! command line.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{SandboxMode, WriteScope};

/// The policy of one sandboxed command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxPolicy {
    /// Writable roots (canonical). Empty in `read-only`.
    pub writable_roots: Vec<PathBuf>,
    /// Protected paths (canonical where they exist): never writable.
    pub protected: Vec<PathBuf>,
    /// Whether sockets other than Unix ones may be used.
    pub network: bool,
    /// The session's private temporary directory (host path; writable in every mode; it
    /// lasts for the session, SPEC §15.5).
    pub tmp_dir: PathBuf,
    /// Where the command starts (inside the workspace).
    pub workdir: PathBuf,
    /// `[sandbox] max_processes`, when the helper enforces it with `RLIMIT_NPROC`
    /// ([`super::limits`]); `None` when a pids cgroup does, or nothing can.
    #[serde(default)]
    pub nproc: Option<u32>,
    /// Landlock only: the helper makes a private mount namespace and binds these paths
    /// read-only in it (the protected paths inside the writable roots, and placeholders for
    /// missing ones), so the writable roots can be granted whole. Empty
    /// (and `mount_ns` false) where the kernel refuses the namespace.
    #[serde(default)]
    pub ro_binds: Vec<PathBuf>,
    /// Landlock only: the private mount namespace is required (the probe found it works).
    #[serde(default)]
    pub mount_ns: bool,
}

impl SandboxPolicy {
    /// The policy for a command run in `workdir` under `scope` (which must not be
    /// `full-access`: that mode runs unsandboxed and never builds a policy).
    pub fn new(scope: &WriteScope, network: bool, tmp_dir: &Path, workdir: &Path) -> Self {
        let writable_roots = match scope.mode {
            SandboxMode::ReadOnly => Vec::new(),
            SandboxMode::WorkspaceWrite | SandboxMode::FullAccess => scope.writable_roots.clone(),
        };
        SandboxPolicy {
            writable_roots,
            protected: scope.protected.clone(),
            network,
            tmp_dir: tmp_dir.to_path_buf(),
            workdir: workdir.to_path_buf(),
            nproc: None,
            ro_binds: Vec::new(),
            mount_ns: false,
        }
    }

    /// Whether `path` is, or lies inside, a protected path.
    pub fn is_protected(&self, path: &Path) -> bool {
        self.protected.iter().any(|p| path.starts_with(p))
    }

    /// Whether a protected path lies strictly inside `dir`.
    pub fn protects_inside(&self, dir: &Path) -> bool {
        self.protected
            .iter()
            .any(|p| p != dir && p.starts_with(dir))
    }
}

/// A private temporary directory (one per session for sandboxed commands, one per probe),
/// removed with its contents on drop. Its name carries deepterm's pid, so a later start
/// removes what a crashed one left ([`PrivateTmp::sweep_stale`]).
#[derive(Debug)]
pub struct PrivateTmp {
    path: PathBuf,
}

impl PrivateTmp {
    /// Creates a fresh directory (mode 0700) under the system temporary directory.
    pub fn create() -> std::io::Result<PrivateTmp> {
        use std::os::unix::fs::DirBuilderExt;
        let base = std::env::temp_dir();
        for _ in 0..16 {
            let path = base.join(format!(
                "deepterm-sandbox-{}-{:016x}",
                std::process::id(),
                fastrand::u64(..)
            ));
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => {
                    let path = std::fs::canonicalize(&path).unwrap_or(path);
                    return Ok(PrivateTmp { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::other(
            "could not create a private temporary directory",
        ))
    }

    /// Removes the directories that deepterm processes no longer alive left under the
    /// system temporary directory (a crash skips the drop). Only names of the exact form
    /// `deepterm-sandbox-PID-HEX`, owned by this user, whose PID is gone.
    pub fn sweep_stale() {
        use std::os::unix::fs::MetadataExt;
        let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
            return;
        };
        // SAFETY: geteuid has no failure mode.
        let me = unsafe { libc::geteuid() };
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(rest) = name
                .to_str()
                .and_then(|n| n.strip_prefix("deepterm-sandbox-"))
            else {
                continue;
            };
            let Some((pid, hex)) = rest.split_once('-') else {
                continue;
            };
            let Ok(pid) = pid.parse::<i32>() else {
                continue;
            };
            if hex.len() != 16 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) || pid <= 0 {
                continue;
            }
            let Ok(meta) = e.path().symlink_metadata() else {
                continue;
            };
            if !meta.is_dir() || meta.uid() != me {
                continue;
            }
            // SAFETY: signal 0 only checks that the process exists.
            let gone = unsafe { libc::kill(pid, 0) } == -1
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
            if gone {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for PrivateTmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
