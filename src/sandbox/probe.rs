//! Choosing the backend once per start (SPEC §14.2): `auto` probes bubblewrap by running a
//! trivial command with the namespaces a run uses, then Landlock (the kernel's ABI, then the
//! re-executed helper restricting itself and running `true`). The result, with what the
//! backend cannot cover, is the [`SandboxStatus`] `/sandbox` shows.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::error::ProbeError;
use super::landlock as ll;
use super::policy::{PrivateTmp, SandboxPolicy};
use super::{BackendChoice, SandboxMode, WriteScope};

/// Set once the session's backend is Landlock without a private mount namespace, where
/// entries directly in the workspace root cannot be created or removed.
static ROOT_ENTRIES_LIMITED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Whether this session's sandbox cannot create or remove entries directly in the
/// workspace root (the model's capability sentence names it).
pub fn root_entries_limited() -> bool {
    ROOT_ENTRIES_LIMITED.load(std::sync::atomic::Ordering::Relaxed)
}

/// A backend that passed its probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// bubblewrap, at this path.
    Bwrap {
        /// The `bwrap` executable found on `PATH`.
        program: PathBuf,
    },
    /// Landlock and seccomp in the re-executed helper.
    Landlock {
        /// The kernel's Landlock ABI version.
        abi: i32,
        /// The deepterm executable that runs `__sandbox`.
        helper: PathBuf,
        /// The helper can make a private mount namespace (an unprivileged user namespace),
        /// so the writable roots are granted whole and protected paths bound read-only;
        /// otherwise the workspace root's entries are granted one by one.
        mount_ns: bool,
    },
}

impl Backend {
    /// `bwrap` or `landlock`.
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Bwrap { .. } => "bwrap",
            Backend::Landlock { .. } => "landlock",
        }
    }

    /// What this backend cannot cover (English; `/sandbox` says the same).
    /// [`Backend::limits`] as Fluent ids (with the Landlock ABI as `$abi`), in the same
    /// order, for `/sandbox` in the interface language.
    pub fn limit_keys(&self) -> Vec<&'static str> {
        let mut v = vec!["sandbox-limit-hard-link"];
        match self {
            Backend::Bwrap { .. } => {
                v.push("sandbox-limit-symlink");
            }
            Backend::Landlock { abi, mount_ns, .. } => {
                if !*mount_ns {
                    v.push("sandbox-limit-landlock-root");
                }
                v.push("sandbox-limit-landlock-tmp");
                v.push("sandbox-limit-landlock-setsid");
                if *abi < 6 {
                    v.push("sandbox-limit-landlock-abstract");
                }
            }
        }
        v
    }

    pub fn limits(&self) -> Vec<String> {
        let mut v = vec![
            "a file hard-linked into a writable root from a protected path before the command started stays writable through that link".to_string(),
        ];
        match self {
            Backend::Bwrap { .. } => {
                v.push(
                    "a protected path that is a symlink (a .git symlink) can be removed and replaced; what it points to stays protected".to_string(),
                );
            }
            Backend::Landlock { abi, mount_ns, .. } => {
                if !*mount_ns {
                    v.push(
                        "entries directly in a directory that holds a protected path (the workspace root) cannot be created, removed or renamed; existing files there stay writable".to_string(),
                    );
                }
                v.push(
                    "/tmp is not private: TMPDIR points to a private directory, and writes to /tmp itself are refused".to_string(),
                );
                v.push(
                    "setsid and setpgid are refused, so programs that start a new session fail"
                        .to_string(),
                );
                if *abi < 6 {
                    v.push(format!(
                        "abstract Unix sockets and signals are not scoped (Landlock ABI {abi} < 6)"
                    ));
                }
            }
        }
        v
    }
}

/// The sandbox as this session runs it: the mode and network setting at start, the backend
/// chosen and why, the roots and protected paths, and what the backend cannot cover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxStatus {
    /// The mode at start (`/mode` changes the shared scope, not this snapshot).
    pub mode: SandboxMode,
    /// `[sandbox] network`.
    pub network: bool,
    /// `[sandbox] backend`.
    pub choice: BackendChoice,
    /// The backend in use; `None` when none can enforce the sandbox (sandboxed commands
    /// then fail closed, naming [`SandboxStatus::reason`]).
    pub backend: Option<Backend>,
    /// Why this backend (or why none), English: "bubblewrap runs here",
    /// "bubblewrap is not installed (no bwrap on PATH)", …
    pub reason: String,
    /// Writable roots (canonical; the workspace first).
    pub writable_roots: Vec<PathBuf>,
    /// Protected paths (canonical where they exist).
    pub protected: Vec<PathBuf>,
    /// What the backend in use cannot cover ([`Backend::limits`]).
    pub limits: Vec<String>,
    /// `[sandbox] max_processes`.
    pub max_processes: u32,
}

impl SandboxStatus {
    /// Whether, with the network off, no Unix socket can be created at all: the backend
    /// cannot tell a socket inside the writable roots from one outside (bubblewrap; Landlock
    /// before ABI 9).
    pub fn unix_sockets_refused(&self) -> bool {
        !self.network
            && match &self.backend {
                Some(Backend::Bwrap { .. }) => true,
                Some(Backend::Landlock { abi, .. }) => *abi < 9,
                None => false,
            }
    }

    /// How `max_processes` is enforced here: `"cgroup"`, `"rlimit"` or `"none"` (root
    /// without a writable pids cgroup).
    pub fn process_limit_kind(&self) -> &'static str {
        if !super::limits::is_root() {
            "rlimit"
        } else if super::limits::cgroup_available() {
            "cgroup"
        } else {
            "none"
        }
    }

    /// An English description for `exec` and the log.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "sandbox: mode {}, network {}, backend {} ({})",
            self.mode.as_str(),
            if self.network { "on" } else { "off" },
            self.backend.as_ref().map_or("none", Backend::name),
            self.reason
        );
        let list = |s: &mut String, title: &str, items: &mut dyn Iterator<Item = String>| {
            s.push_str(&format!("\n{title}:"));
            for i in items {
                s.push_str(&format!("\n  {i}"));
            }
        };
        list(
            &mut s,
            "writable roots",
            &mut self.writable_roots.iter().map(|p| p.display().to_string()),
        );
        list(
            &mut s,
            "protected paths",
            &mut self.protected.iter().map(|p| p.display().to_string()),
        );
        if !self.limits.is_empty() {
            list(&mut s, "not covered", &mut self.limits.iter().cloned());
        }
        s
    }
}

/// `program` found on the `PATH` value `path` (an executable regular file).
pub fn find_on_path(program: &str, path: Option<&OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path?).find_map(|dir| {
        let p = dir.join(program);
        let m = std::fs::metadata(&p).ok()?;
        (m.is_file() && m.permissions().mode() & 0o111 != 0).then_some(p)
    })
}

/// Probes bubblewrap (looked up on the `PATH` value `path`).
pub fn probe_bwrap(path: Option<&OsStr>) -> Result<Backend, ProbeError> {
    let Some(program) = find_on_path("bwrap", path) else {
        return Err(ProbeError::NoBwrap);
    };
    let out = Command::new(&program)
        .args(super::bwrap::probe_args())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(ProbeError::BwrapStart)?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        return Err(ProbeError::BwrapNamespaces(why.trim().to_string()));
    }
    Ok(Backend::Bwrap { program })
}

/// Probes Landlock: the kernel's ABI, then `helper` restricting itself and running `true`.
pub fn probe_landlock(helper: &Path) -> Result<Backend, ProbeError> {
    let abi = ll::kernel_abi()?;
    if abi < ll::MIN_ABI {
        return Err(ProbeError::AbiTooOld {
            found: abi,
            needed: ll::MIN_ABI,
        });
    }
    let tmp = PrivateTmp::create().map_err(ProbeError::NoTmp)?;
    let scope = WriteScope {
        mode: SandboxMode::ReadOnly,
        workspace: PathBuf::from("/"),
        writable_roots: vec![],
        protected: vec![],
    };
    let policy = SandboxPolicy::new(&scope, false, tmp.path(), Path::new("/"));
    let out = Command::new(helper)
        .args(ll::helper_args(&policy, &["true".to_string()]))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|source| ProbeError::HelperStart {
            helper: helper.to_path_buf(),
            source,
        })?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        let why = why.trim().trim_start_matches(ll::HELPER_ERROR_PREFIX);
        return Err(ProbeError::NotEnforced(why.to_string()));
    }
    // The private mount namespace: a read-only bind of the temporary directory.
    let mut ns = policy.clone();
    ns.mount_ns = true;
    ns.ro_binds = vec![tmp.path().to_path_buf()];
    let mount_ns = Command::new(helper)
        .args(ll::helper_args(&ns, &["true".to_string()]))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    Ok(Backend::Landlock {
        abi,
        helper: helper.to_path_buf(),
        mount_ns,
    })
}

/// Chooses the backend for `choice` (once per start): `path` is the `PATH` to find `bwrap`
/// on, `helper` the deepterm executable (`std::env::current_exe()`).
pub fn choose(
    choice: BackendChoice,
    path: Option<&OsStr>,
    helper: &Path,
) -> (Option<Backend>, String) {
    match choice {
        BackendChoice::Bwrap => match probe_bwrap(path) {
            Ok(b) => (Some(b), "bubblewrap runs here (backend = \"bwrap\")".into()),
            Err(e) => (None, e.to_string()),
        },
        BackendChoice::Landlock => match probe_landlock(helper) {
            Ok(b) => (
                Some(b),
                "Landlock is enforced here (backend = \"landlock\")".into(),
            ),
            Err(e) => (None, e.to_string()),
        },
        BackendChoice::Auto => {
            let bw = match probe_bwrap(path) {
                Ok(b) => return (Some(b), "bubblewrap runs here (backend = \"auto\")".into()),
                Err(e) => e,
            };
            match probe_landlock(helper) {
                Ok(b) => (
                    Some(b),
                    format!("Landlock is enforced here; bubblewrap is not usable: {bw}"),
                ),
                Err(ll) => (None, format!("no sandbox backend works: {bw}; {ll}")),
            }
        }
    }
}

/// Probes the backend for `choice` and describes the sandbox for `scope` (the session's
/// starting scope) and `network`.
pub fn probe(
    choice: BackendChoice,
    network: bool,
    scope: &WriteScope,
    path: Option<&OsStr>,
    helper: &Path,
) -> SandboxStatus {
    let (backend, reason) = choose(choice, path, helper);
    let limits = backend.as_ref().map(Backend::limits).unwrap_or_default();
    SandboxStatus {
        mode: scope.mode,
        network,
        choice,
        backend,
        reason,
        writable_roots: scope.writable_roots.clone(),
        protected: scope.protected.clone(),
        limits,
        max_processes: super::limits::DEFAULT_MAX_PROCESSES,
    }
}

/// Everything a session needs for its sandbox, once per start: the protected paths of
/// `workspace` (with the config file and the session directory), the shared scope in the
/// configured starting mode, and the probed status. `helper` is deepterm's own executable
/// (`std::env::current_exe()`); `bwrap` is looked up on this process's `PATH`.
pub fn start(
    settings: &super::SandboxSettings,
    workspace: &Path,
    config_file: Option<&Path>,
    session_dir: &Path,
    helper: &Path,
) -> (super::SharedScope, std::sync::Arc<SandboxStatus>) {
    let protected = super::protected::protected_paths(workspace, config_file, session_dir);
    let mut scope = WriteScope::new(
        settings.mode,
        workspace,
        &settings.writable_roots,
        protected,
    );
    // The repositories nested in the writable roots at start, so `/sandbox` lists them and
    // the edit tools refuse a `gitdir:` they name; each sandboxed command walks again.
    for p in super::vcs::discover(&scope.writable_roots, super::vcs::WALK_CAP).paths {
        if !scope.protected.contains(&p) {
            scope.protected.push(p);
        }
    }
    let mut status = probe(
        settings.backend,
        settings.network,
        &scope,
        std::env::var_os("PATH").as_deref(),
        helper,
    );
    status.max_processes = settings.max_processes;
    if let Some(Backend::Landlock {
        mount_ns: false, ..
    }) = status.backend
    {
        ROOT_ENTRIES_LIMITED.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    if status.unix_sockets_refused() {
        status.limits.push(
            "with the network off, no Unix socket can be created, not even one in the workspace (socketpair still works): the kernel cannot tell a socket inside the writable roots from one outside".to_string(),
        );
    }
    if status.backend.is_some() && status.process_limit_kind() == "none" {
        status.limits.push(
            "max_processes is not enforced: deepterm runs as root, where the kernel ignores RLIMIT_NPROC, and no pids cgroup is writable".to_string(),
        );
    }
    super::policy::PrivateTmp::sweep_stale();
    (
        std::sync::Arc::new(std::sync::RwLock::new(scope)),
        std::sync::Arc::new(status),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_bubblewrap_is_reported_in_the_words_sandbox_shows() {
        let e = probe_bwrap(Some(OsStr::new(""))).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bubblewrap is not installed (no bwrap on PATH)"
        );
    }

    #[test]
    fn auto_with_no_usable_backend_gives_each_backends_reason() {
        let (backend, reason) = choose(
            BackendChoice::Auto,
            Some(OsStr::new("")),
            Path::new("/nonexistent/deepterm"),
        );
        assert!(backend.is_none());
        let rest = reason
            .strip_prefix(
                "no sandbox backend works: bubblewrap is not installed (no bwrap on PATH); ",
            )
            .unwrap_or_else(|| panic!("{reason}"));
        // Which Landlock reason depends on the kernel; each is a whole sentence.
        assert!(
            rest.starts_with("the sandbox helper /nonexistent/deepterm could not be started: ")
                || rest == "the kernel has no Landlock"
                || rest == "Landlock is built into the kernel but not enabled"
                || rest.starts_with("the kernel's Landlock ABI "),
            "{rest}"
        );
    }
}
