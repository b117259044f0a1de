//! One child process run to its end, its timeout or a cancel: the runner shared by command
//! tools and hooks (decision 0136).
//!
//! The child leads its own process group, so the timeout and a cancel kill everything it
//! started. Its environment is deepterm's less the secrets ([`ChildEnvPolicy`]). Its stdin
//! gets one payload and is closed; stdout and stderr are read while it runs, each kept up
//! to a cap. The child's own exit decides: a process it left running in the background that
//! still holds the pipes does not hold the caller up (its output is taken for
//! [`OUTPUT_GRACE`], then reading stops; it is not killed, it outlived its parent on
//! purpose).

use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

use super::child_env::ChildEnvPolicy;
use super::{Interrupted, run_guarded};

/// How long output is still read after the child ended, when a background process it
/// started keeps its pipes open.
pub const OUTPUT_GRACE: Duration = Duration::from_secs(1);

/// What to start and how.
pub struct ChildSpec<'a> {
    /// Program and arguments.
    pub command: &'a [String],
    /// Its working directory; `None` keeps deepterm's.
    pub cwd: Option<&'a Path>,
    /// What it loses of deepterm's environment.
    pub env: &'a ChildEnvPolicy,
    /// Variables set for it after the scrubbing.
    pub extra_env: &'a [(String, String)],
    /// Written to its stdin, which is then closed.
    pub stdin: String,
    /// Its deadline.
    pub timeout: Duration,
    /// Stdout bytes kept.
    pub stdout_cap: usize,
    /// Stderr bytes kept.
    pub stderr_cap: usize,
}

/// Why a child could not be started.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The command has no program.
    #[error("empty command")]
    Empty,
    /// The OS refused to start it (not found, not executable, …).
    #[error(transparent)]
    Spawn(std::io::Error),
}

/// How a started child ended.
#[derive(Debug)]
pub enum Ended {
    /// It exited (with a status or by a signal).
    Exited(ExitStatus),
    /// Waiting for it failed.
    WaitFailed(std::io::Error),
    /// Its timeout passed or the call was cancelled; its process group was killed.
    Interrupted(Interrupted),
}

/// Output kept from one pipe.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Captured {
    /// The first bytes, up to the cap.
    pub bytes: Vec<u8>,
    /// More came than the cap.
    pub cut: bool,
}

impl Captured {
    /// The kept bytes as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// What one run produced.
#[derive(Debug)]
pub struct ChildRun {
    /// How it ended.
    pub ended: Ended,
    /// Its stdout, capped.
    pub stdout: Captured,
    /// Its stderr, capped.
    pub stderr: Captured,
}

/// Runs one child to its end, its timeout or `cancel`.
pub async fn run(spec: ChildSpec<'_>, cancel: &CancellationToken) -> Result<ChildRun, StartError> {
    let (program, args) = spec.command.split_first().ok_or(StartError::Empty)?;
    let mut cmd = tokio::process::Command::new(program);
    spec.env.apply(&mut cmd);
    for (k, v) in spec.extra_env {
        cmd.env(k, v);
    }
    if let Some(cwd) = spec.cwd {
        cmd.current_dir(cwd);
    }
    // Its own process group, so a timeout or cancel reaches everything it started.
    #[cfg(unix)]
    cmd.process_group(0);
    let mut child = cmd
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(StartError::Spawn)?;
    let feeder = feed_stdin(&mut child, spec.stdin);
    let out = Arc::new(Mutex::new(Captured::default()));
    let err = Arc::new(Mutex::new(Captured::default()));
    let mut readers = [
        tokio::spawn(read_capped(
            child.stdout.take(),
            spec.stdout_cap,
            out.clone(),
        )),
        tokio::spawn(read_capped(
            child.stderr.take(),
            spec.stderr_cap,
            err.clone(),
        )),
    ];
    // The child's own exit decides; its output is read meanwhile.
    let waited = run_guarded(child.wait(), spec.timeout, cancel).await;
    feeder.abort();
    let ended = match waited {
        Ok(Ok(status)) => Ended::Exited(status),
        Ok(Err(e)) => Ended::WaitFailed(e),
        Err(why) => {
            kill_group(&mut child).await;
            Ended::Interrupted(why)
        }
    };
    // The pipes close when the child (or its killed group) is gone, unless a process that
    // left the group still holds them: take what arrives within the grace, then stop.
    let _ = tokio::time::timeout(
        OUTPUT_GRACE,
        futures_util::future::join_all(readers.iter_mut()),
    )
    .await;
    for r in &readers {
        r.abort();
    }
    Ok(ChildRun {
        ended,
        stdout: take(&out),
        stderr: take(&err),
    })
}

fn take(buf: &Mutex<Captured>) -> Captured {
    std::mem::take(&mut *buf.lock().unwrap_or_else(|p| p.into_inner()))
}

/// Reads until end of file, keeping the first `cap` bytes in `into` as they arrive (so
/// what came is there even if the reading is stopped before the end).
async fn read_capped<R: AsyncRead + Unpin>(
    reader: Option<R>,
    cap: usize,
    into: Arc<Mutex<Captured>>,
) {
    let Some(mut r) = reader else {
        return;
    };
    let mut buf = [0u8; 8192];
    loop {
        match r.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let mut kept = into.lock().unwrap_or_else(|p| p.into_inner());
                let room = cap.saturating_sub(kept.bytes.len());
                if n > room {
                    kept.cut = true;
                }
                kept.bytes.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
}

/// Writes `payload` to the child's stdin and closes it, in its own task (the caller aborts
/// it once the child has exited). A child that ignores its input may close stdin early:
/// not an error.
fn feed_stdin(child: &mut tokio::process::Child, payload: String) -> tokio::task::JoinHandle<()> {
    let stdin = child.stdin.take();
    tokio::spawn(async move {
        if let Some(mut s) = stdin {
            let _ = s.write_all(payload.as_bytes()).await;
            let _ = s.shutdown().await;
        }
    })
}

/// Kills the child and everything in its process group (it leads its own, see
/// `process_group(0)`), then reaps it.
///
/// The child's direct children are killed by pid first: a process that left the group
/// (bubblewrap's sandboxed side calls `setsid`) would otherwise survive when the kill lands
/// after bubblewrap cloned it but before it armed `--die-with-parent`, and it is the
/// sandbox's PID-namespace init, so killing it ends everything inside.
pub(crate) async fn kill_group(child: &mut tokio::process::Child) {
    #[cfg(unix)]
    if let Some(pgid) = child.id().and_then(|p| libc::pid_t::try_from(p).ok())
        && pgid > 0
    {
        for pid in direct_children(pgid) {
            // SAFETY: kill only sends a signal. The child is alive and not reaped, so its
            // children cannot have been reaped and their pids reused.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        // SAFETY: killpg only sends a signal; it has no memory-safety preconditions. The
        // child is not reaped yet, so its pid (= its group id) cannot have been reused.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
    let _ = child.kill().await;
}

/// The pids of `pid`'s direct children, from `/proc` (empty where it is not available).
#[cfg(unix)]
fn direct_children(pid: libc::pid_t) -> Vec<libc::pid_t> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .filter(|p| *p > 0)
        .collect()
}

#[cfg(test)]
#[path = "child_process_tests.rs"]
mod tests;
