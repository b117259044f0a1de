//! Why a sandbox could not be probed, prepared or applied (decision 0156).
//!
//! Each `Display` is the sentence the user reads in `/sandbox` and the start-up notice, or
//! the model reads after `shell: nothing was run:`, byte for byte what the hand-formatted
//! strings said before: tool results are part of the request, so their text is fixed.

use std::path::PathBuf;

/// Why the Landlock helper could not restrict itself (printed after
/// [`super::landlock::HELPER_ERROR_PREFIX`] and read back by the probe).
#[derive(Debug, thiserror::Error)]
pub enum HelperError {
    #[error("usage: deepterm __sandbox POLICY -- COMMAND...")]
    Usage,
    #[error("bad sandbox policy: {0}")]
    BadPolicy(serde_json::Error),
    #[error("Landlock is built into the kernel but not enabled")]
    LandlockDisabled,
    #[error("the kernel has no Landlock")]
    NoLandlock,
    #[error(
        "the kernel's Landlock ABI {found} is too old (version {needed} is needed to refuse truncation)"
    )]
    AbiTooOld { found: i32, needed: i32 },
    #[error("Landlock: {0}")]
    Ruleset(#[from] landlock::RulesetError),
    #[error("Landlock: {}: {source}", path.display())]
    Rule { path: PathBuf, source: RuleError },
    #[error("the kernel reports the Landlock ruleset as {0:?}")]
    NotEnforced(landlock::RulesetStatus),
    #[error("no_new_privs could not be set")]
    NoNewPrivs,
    #[error("the process limit could not be set: {0}")]
    ProcessLimit(std::io::Error),
    #[error(transparent)]
    Seccomp(#[from] SeccompError),
    #[error("capabilities could not be dropped: {0}")]
    Capabilities(std::io::Error),
    #[error("the capability bounding set could not be cleared")]
    BoundingSet,
    #[error("no private mount namespace (user namespaces are refused here): {0}")]
    NoNamespace(std::io::Error),
    #[error("{map}: {source}")]
    IdMap {
        map: &'static str,
        source: std::io::Error,
    },
    #[error("making the mounts private: {0}")]
    PrivateMounts(std::io::Error),
    #[error("{}: a NUL in the path", .0.display())]
    NulInPath(PathBuf),
    #[error("binding {}: {source}", path.display())]
    Bind {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("making {} read-only: {source}", path.display())]
    ReadOnly {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Why one path could not be added to the Landlock ruleset.
#[derive(Debug, thiserror::Error)]
pub enum RuleError {
    #[error(transparent)]
    Open(#[from] landlock::PathFdError),
    #[error(transparent)]
    Add(#[from] landlock::RulesetError),
    #[error(transparent)]
    List(#[from] std::io::Error),
}

/// Why a seccomp filter could not be built, loaded or handed to bubblewrap.
#[derive(Debug, thiserror::Error)]
pub enum SeccompError {
    #[error("seccomp: {0}")]
    Build(#[from] seccompiler::BackendError),
    #[error("seccomp: {0}")]
    Load(#[from] seccompiler::Error),
    /// The memory file bubblewrap reads the program from.
    #[error(transparent)]
    Memfd(#[from] std::io::Error),
}

/// Why a backend is unusable here (the probe's reason, shown by `/sandbox`).
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("bubblewrap is not installed (no bwrap on PATH)")]
    NoBwrap,
    #[error("bubblewrap could not be started: {0}")]
    BwrapStart(std::io::Error),
    #[error("bubblewrap cannot create its namespaces here: {0}")]
    BwrapNamespaces(String),
    /// The kernel's Landlock version query failed.
    #[error(transparent)]
    Kernel(#[from] HelperError),
    #[error("the kernel's Landlock ABI {found} is too old (version {needed} is needed)")]
    AbiTooOld { found: i32, needed: i32 },
    #[error("no temporary directory: {0}")]
    NoTmp(std::io::Error),
    #[error("the sandbox helper {} could not be started: {source}", helper.display())]
    HelperStart {
        helper: PathBuf,
        source: std::io::Error,
    },
    /// The helper's own sentence, without its prefix.
    #[error("Landlock cannot be enforced here: {0}")]
    NotEnforced(String),
}

/// Why a command could not be prepared to run sandboxed (nothing was run).
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("bubblewrap's seccomp filter: {0}")]
    Seccomp(#[from] SeccompError),
    #[error("bubblewrap could not be prepared: {0}")]
    Bwrap(std::io::Error),
    #[error("the Landlock sandbox could not be prepared: {0}")]
    Landlock(std::io::Error),
}

/// Why no pids cgroup could be made for a command (the rlimit is used instead).
#[derive(Debug, thiserror::Error)]
pub enum CgroupError {
    #[error("no writable pids cgroup")]
    NoParent,
    #[error("{}: {source}", dir.display())]
    Dir {
        dir: PathBuf,
        source: std::io::Error,
    },
}
