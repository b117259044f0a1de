//! Running one hook process through the runner command tools use
//! ([`crate::tools::child_process`]): its own process group (killed whole at the timeout or
//! on cancel), the scrubbed child environment, one JSON object on stdin, and stdout and
//! stderr read with a cap while it runs. Here: the hook's caps and how it ended, in the
//! terms the hook log speaks.

use std::path::Path;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::tools::Interrupted;
use crate::tools::child_env::ChildEnvPolicy;
use crate::tools::child_process::{self, ChildSpec, Ended};

/// Stdout kept from a hook (it may carry a JSON decision).
pub const MAX_HOOK_STDOUT: usize = 64 * 1024;
/// Stderr kept from a hook (the reason of a block, shown and logged).
pub const MAX_HOOK_STDERR: usize = 8 * 1024;

/// How a hook process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this status.
    Code(i32),
    /// A signal ended it.
    Signal,
    /// Its timeout passed; its process group was killed.
    TimedOut,
    /// The turn was cancelled; its process group was killed.
    Cancelled,
    /// It could not be started (the OS error).
    NotStarted(String),
}

/// What one hook run produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// How it ended.
    pub exit: Exit,
    /// Its stdout (capped, lossy UTF-8).
    pub stdout: String,
    /// Its stderr (capped, lossy UTF-8).
    pub stderr: String,
    /// How long it ran.
    pub duration: Duration,
}

/// What to start and how.
pub struct Spawn<'a> {
    /// Program and arguments.
    pub command: &'a [String],
    /// Its working directory (the workspace).
    pub cwd: &'a Path,
    /// What it loses of deepterm's environment.
    pub env: &'a ChildEnvPolicy,
    /// Variables set for it after the scrubbing (`CLAUDE_PROJECT_DIR`).
    pub extra_env: &'a [(String, String)],
    /// Written to its stdin, which is then closed.
    pub stdin: String,
    /// Its deadline.
    pub timeout: Duration,
}

/// Runs one hook to its end, its timeout or `cancel`.
pub async fn run(spawn: Spawn<'_>, cancel: &CancellationToken) -> Finished {
    let started = Instant::now();
    let spec = ChildSpec {
        command: spawn.command,
        cwd: Some(spawn.cwd),
        env: spawn.env,
        extra_env: spawn.extra_env,
        stdin: spawn.stdin,
        timeout: spawn.timeout,
        stdout_cap: MAX_HOOK_STDOUT,
        stderr_cap: MAX_HOOK_STDERR,
    };
    let (exit, stdout, stderr) = match child_process::run(spec, cancel).await {
        Err(e) => (
            Exit::NotStarted(e.to_string()),
            String::new(),
            String::new(),
        ),
        Ok(run) => {
            let exit = match run.ended {
                Ended::Exited(status) => match status.code() {
                    Some(c) => Exit::Code(c),
                    None => Exit::Signal,
                },
                Ended::WaitFailed(e) => Exit::NotStarted(e.to_string()),
                Ended::Interrupted(Interrupted::TimedOut) => Exit::TimedOut,
                Ended::Interrupted(Interrupted::Cancelled) => Exit::Cancelled,
            };
            (exit, run.stdout.text(), run.stderr.text())
        }
    };
    Finished {
        exit,
        stdout,
        stderr,
        duration: started.elapsed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into()]
    }

    async fn go(command: &[String], stdin: &str, timeout: Duration) -> Finished {
        let dir = std::env::temp_dir();
        run(
            Spawn {
                command,
                cwd: &dir,
                env: &ChildEnvPolicy::default(),
                extra_env: &[("HOOK_MARK".into(), "yes".into())],
                stdin: stdin.into(),
                timeout,
            },
            &CancellationToken::new(),
        )
        .await
    }

    #[tokio::test]
    async fn a_hook_reads_stdin_and_its_exit_and_streams_are_kept() {
        let f = go(
            &sh("cat; echo \" $HOOK_MARK\"; echo why >&2; exit 2"),
            "{\"a\":1}",
            Duration::from_secs(10),
        )
        .await;
        assert_eq!(f.exit, Exit::Code(2));
        assert_eq!(f.stdout, "{\"a\":1} yes\n");
        assert_eq!(f.stderr, "why\n");
    }

    #[tokio::test]
    async fn a_missing_program_is_not_started() {
        let f = go(
            &["/nonexistent/hook".to_string()],
            "",
            Duration::from_secs(5),
        )
        .await;
        assert!(matches!(f.exit, Exit::NotStarted(_)), "{f:?}");
    }

    #[tokio::test]
    async fn a_hanging_hook_is_killed_at_its_timeout_with_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let script = format!("sleep 30 & echo $! > {}; wait", pidfile.display());
        let f = go(&sh(&script), "", Duration::from_millis(500)).await;
        assert_eq!(f.exit, Exit::TimedOut);
        assert!(f.duration < Duration::from_secs(5), "{:?}", f.duration);
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // The background `sleep` was in the hook's process group: it is gone too (reaped by
        // init, or a zombie at worst; signal 0 fails once it is reaped).
        let mut gone = false;
        for _ in 0..50 {
            // SAFETY: signal 0 only checks that the process exists.
            let alive = unsafe { libc::kill(pid, 0) } == 0
                && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .unwrap_or_default()
                    .contains(") Z");
            if !alive {
                gone = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(gone, "the hook's child {pid} outlived its timeout");
    }
}
