//! `[sandbox] max_processes` (SPEC §15.5, decision 0113): a sandboxed command and its
//! children may run at most that many processes; past it, `fork` fails with `EAGAIN`.
//!
//! `RLIMIT_NPROC` counts every process of the real user id, so on its own it would count
//! the user's browser and editor too. What bounds one command, by how deepterm runs:
//! - as root, `RLIMIT_NPROC` is never enforced (the kernel exempts uid 0), so the command
//!   is put in a fresh pids cgroup (v2, or the v1 `pids` hierarchy) with `pids.max` set;
//!   the child joins it before it executes the sandbox (so every process it starts, the
//!   backend's own included, counts), and the cgroup is removed after the command;
//! - otherwise `RLIMIT_NPROC`: under bubblewrap it is set inside the sandbox's own user
//!   namespace, where the kernel counts only the processes of that namespace (per-namespace
//!   user counts, Linux 5.14); under Landlock (no namespace) the helper sets it to the
//!   user's current process count plus the limit, so the command can start that many more.
//!
//! When neither is possible (root with no writable pids cgroup), the limit is not enforced
//! and `/sandbox` says so.

use std::path::{Path, PathBuf};

use super::error::CgroupError;

/// The default `max_processes`.
pub const DEFAULT_MAX_PROCESSES: u32 = 512;

/// The note added to a sandboxed command's result when a fork failed for lack of
/// processes (English, stable, §5); the turn also shows it localized.
pub const PROCESS_LIMIT_NOTE: &str = "[the sandbox lets a command and its children run at most";

/// The note for a result whose output shows a failed fork under a limit of `max`.
pub fn process_limit_note(max: u32) -> String {
    format!(
        "\n{PROCESS_LIMIT_NOTE} {max} processes ([sandbox] max_processes); a fork past that \
         fails with \"Resource temporarily unavailable\"]"
    )
}

/// Whether a command's output shows a fork refused for lack of processes.
pub fn looks_like_fork_refused(output: &str) -> bool {
    output.contains("Resource temporarily unavailable")
        && (output.contains("fork") || output.contains("spawn") || output.contains("thread"))
}

/// Whether deepterm runs as root (uid 0), where `RLIMIT_NPROC` is not enforced.
pub fn is_root() -> bool {
    // SAFETY: getuid has no failure mode.
    unsafe { libc::getuid() == 0 }
}

/// A pids cgroup holding one command.
#[derive(Debug)]
pub struct PidsCgroup {
    dir: PathBuf,
    procs: std::fs::File,
}

impl PidsCgroup {
    /// A fresh cgroup allowing `max` processes, beside deepterm's own pids cgroup, or why
    /// there is none.
    pub fn create(max: u32) -> Result<PidsCgroup, CgroupError> {
        let parent = pids_parent().ok_or(CgroupError::NoParent)?;
        let dir = parent.join(format!(
            "deepterm-{}-{:016x}",
            std::process::id(),
            fastrand::u64(..)
        ));
        if let Err(source) = std::fs::create_dir(&dir) {
            return Err(CgroupError::Dir { dir, source });
        }
        let setup = (|| {
            std::fs::write(dir.join("pids.max"), max.to_string())?;
            std::fs::OpenOptions::new()
                .write(true)
                .open(dir.join("cgroup.procs"))
        })();
        match setup {
            Ok(procs) => Ok(PidsCgroup { dir, procs }),
            Err(e) => {
                let _ = std::fs::remove_dir(&dir);
                Err(CgroupError::Dir { dir, source: e })
            }
        }
    }

    /// The open `cgroup.procs` file: the child writes `0` to it (itself) before it
    /// executes the command ([`join_self`]).
    pub fn procs_fd(&self) -> std::os::fd::RawFd {
        use std::os::fd::AsRawFd;
        self.procs.as_raw_fd()
    }

    /// Where the cgroup is.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Moves the calling process into the cgroup whose `cgroup.procs` is open as `fd`. Called
/// in the child between fork and exec: only a `write(2)`.
pub fn join_self(fd: std::os::fd::RawFd) -> std::io::Result<()> {
    // SAFETY: write(2) on an open descriptor from a buffer that outlives the call; it is
    // async-signal-safe.
    let n = unsafe { libc::write(fd, b"0".as_ptr().cast(), 1) };
    if n == 1 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

impl Drop for PidsCgroup {
    fn drop(&mut self) {
        // The command's group was killed; its last processes may take a moment to go.
        for _ in 0..50 {
            if std::fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

/// The pids cgroup directory new command cgroups go in: deepterm's own (from
/// `/proc/self/cgroup`) in the v2 hierarchy with `pids` enabled for its children, else in
/// the v1 `pids` hierarchy. `None` when neither is writable.
fn pids_parent() -> Option<PathBuf> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mut v1: Option<String> = None;
    let mut v2: Option<String> = None;
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, ctrls, path) = (parts.next()?, parts.next()?, parts.next()?);
        if ctrls.is_empty() {
            v2 = Some(path.to_string());
        } else if ctrls.split(',').any(|c| c == "pids") {
            v1 = Some(path.to_string());
        }
    }
    let writable = |d: &Path| {
        let c = std::ffi::CString::new(d.as_os_str().as_encoded_bytes()).ok();
        // SAFETY: access(2) reads a NUL-terminated path.
        c.is_some_and(|c| unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0)
    };
    if let Some(p) = v1 {
        let d = Path::new("/sys/fs/cgroup/pids").join(p.trim_start_matches('/'));
        if (d.join("pids.max").exists() || d.join("cgroup.procs").exists()) && writable(&d) {
            return Some(d);
        }
    }
    if let Some(p) = v2 {
        for base in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
            let d = Path::new(base).join(p.trim_start_matches('/'));
            let ctl = std::fs::read_to_string(d.join("cgroup.subtree_control")).unwrap_or_default();
            if ctl.split_whitespace().any(|c| c == "pids") && writable(&d) {
                return Some(d);
            }
        }
    }
    None
}

/// Whether a pids cgroup can be made here (for `/sandbox` and the status).
pub fn cgroup_available() -> bool {
    pids_parent().is_some()
}

/// The number of tasks (threads included, as `RLIMIT_NPROC` counts them) whose real user
/// id is `uid`, read from `/proc`.
pub fn tasks_of(uid: u32) -> u64 {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut n = 0u64;
    for e in dir.flatten() {
        let name = e.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(status) = std::fs::read_to_string(e.path().join("status")) else {
            continue;
        };
        let mut real = None;
        let mut threads = 1u64;
        for l in status.lines() {
            if let Some(v) = l.strip_prefix("Uid:") {
                real = v
                    .split_whitespace()
                    .next()
                    .and_then(|x| x.parse::<u32>().ok());
            } else if let Some(v) = l.strip_prefix("Threads:") {
                threads = v.trim().parse().unwrap_or(1);
            }
        }
        if real == Some(uid) {
            n += threads;
        }
    }
    n
}

/// Sets `RLIMIT_NPROC` (soft and hard) to `n`.
pub fn set_nproc(n: u64) -> std::io::Result<()> {
    let lim = libc::rlimit {
        rlim_cur: n as libc::rlim_t,
        rlim_max: n as libc::rlim_t,
    };
    // SAFETY: setrlimit reads the struct, which outlives the call.
    if unsafe { libc::setrlimit(libc::RLIMIT_NPROC, &lim) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// A tiny `sh` prologue that sets the process limit inside bubblewrap's user namespace
/// and then executes the command (`ulimit -u` in bash, `-p` in dash and busybox).
pub fn sh_wrapper(max: u32, argv: &[String]) -> Vec<String> {
    let mut v = vec![
        "/bin/sh".to_string(),
        "-c".to_string(),
        format!(
            "ulimit -u {max} 2>/dev/null || ulimit -p {max} 2>/dev/null || \
             {{ echo 'deepterm sandbox: the process limit could not be set' >&2; exit 125; }}; \
             exec \"$@\""
        ),
        "deepterm-sandbox".to_string(),
    ];
    v.extend(argv.iter().cloned());
    v
}
