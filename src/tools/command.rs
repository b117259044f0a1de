//! Command tools declared in config (`[tools.command.NAME]`).
//!
//! A call starts `command[0]` with the remaining elements as arguments, writes the call's
//! JSON arguments (one line) to its stdin and closes it. Exit status 0 makes stdout the
//! result; anything else is a tool error carrying stderr. The command runs in its own
//! process group, and on timeout and on cancel the whole group is killed. The result is
//! decided by the command's own exit: a process it leaves running in the background does
//! not hold the call up. Its environment is deepterm's minus the keys (see
//! [`super::child_env`]).

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

use super::child_env::{self, ChildEnvPolicy};
use super::{Interrupted, RegisteredTool, ToolExecutor, ToolOutcome, run_guarded};
use crate::config::{CommandToolConfig, Config};
use crate::session::event::ToolSchema;

/// Stdout kept for the result.
pub const MAX_OUTPUT_BYTES: usize = 64 * 1024;
/// Stderr kept for an error.
pub const MAX_STDERR_BYTES: usize = 4 * 1024;

/// A runnable command tool.
pub struct CommandTool {
    name: String,
    command: Vec<String>,
    timeout: Duration,
    env: ChildEnvPolicy,
}

impl CommandTool {
    /// A tool named `name` running `command` (program + args) with a timeout; its child
    /// environment loses secret-looking variables (see [`CommandTool::with_env_policy`]).
    pub fn new(name: &str, command: Vec<String>, timeout: Duration) -> Self {
        CommandTool {
            name: name.to_string(),
            command,
            timeout,
            env: ChildEnvPolicy::default(),
        }
    }

    /// Replaces the child-environment policy.
    pub fn with_env_policy(mut self, env: ChildEnvPolicy) -> Self {
        self.env = env;
        self
    }

    async fn run(&self, arguments: serde_json::Value, cancel: &CancellationToken) -> ToolOutcome {
        let name = &self.name;
        let Some((program, args)) = self.command.split_first() else {
            return ToolOutcome::error(format!("command tool \"{name}\" has no command"));
        };
        let mut cmd = tokio::process::Command::new(program);
        self.env.apply(&mut cmd);
        // Its own process group, so a timeout or cancel reaches everything it started.
        #[cfg(unix)]
        cmd.process_group(0);
        let mut child = match cmd
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
        {
            Ok(c) => c,
            Err(e) => {
                return ToolOutcome::error(format!(
                    "command tool \"{name}\" could not start \"{program}\": {e}"
                ));
            }
        };
        let mut payload = arguments.to_string();
        payload.push('\n');
        let feeder = feed_stdin(&mut child, payload);
        let out_buf = Arc::new(Mutex::new(Captured::default()));
        let err_buf = Arc::new(Mutex::new(Captured::default()));
        let mut readers = [
            tokio::spawn(read_capped(
                child.stdout.take(),
                MAX_OUTPUT_BYTES,
                out_buf.clone(),
            )),
            tokio::spawn(read_capped(
                child.stderr.take(),
                MAX_STDERR_BYTES,
                err_buf.clone(),
            )),
        ];
        // The command's own exit decides; its output is read meanwhile.
        let waited = run_guarded(child.wait(), self.timeout, cancel).await;
        feeder.abort();
        let status = match waited {
            Ok(status) => status,
            Err(why) => {
                kill_group(&mut child).await;
                for r in &readers {
                    r.abort();
                }
                return match why {
                    Interrupted::Cancelled => {
                        ToolOutcome::error(format!("command tool \"{name}\" was cancelled"))
                    }
                    Interrupted::TimedOut => ToolOutcome::error(format!(
                        "command tool \"{name}\" timed out after {} s and was killed",
                        self.timeout.as_secs_f64()
                    )),
                };
            }
        };
        // The pipes close when the command exits, unless a process it left running in the
        // background still holds them: take what arrives within a short grace period and
        // do not wait for that process (it is not killed either; it outlived its parent
        // on purpose).
        let _ = tokio::time::timeout(
            OUTPUT_GRACE,
            futures_util::future::join_all(readers.iter_mut()),
        )
        .await;
        for r in &readers {
            r.abort();
        }
        let Captured {
            bytes: out,
            cut: out_cut,
        } = take(&out_buf);
        let Captured {
            bytes: err,
            cut: err_cut,
        } = take(&err_buf);
        let status = match status {
            Ok(s) => s,
            Err(e) => return ToolOutcome::error(format!("command tool \"{name}\" failed: {e}")),
        };
        let mut stdout = String::from_utf8_lossy(&out).into_owned();
        if out_cut {
            stdout.push_str(&format!("\n[output truncated at {MAX_OUTPUT_BYTES} bytes]"));
        }
        if status.success() {
            return ToolOutcome::ok(if stdout.is_empty() {
                "(no output)".to_string()
            } else {
                stdout
            });
        }
        let how = match status.code() {
            Some(code) => format!("exited with status {code}"),
            None => "was terminated by a signal".to_string(),
        };
        let mut msg = format!("command tool \"{name}\" {how}");
        let mut stderr = String::from_utf8_lossy(&err).trim_end().to_string();
        if err_cut {
            stderr.push_str(" […]");
        }
        if !stderr.is_empty() {
            msg.push_str(&format!("\nstderr:\n{stderr}"));
        } else if !stdout.trim().is_empty() {
            msg.push_str(&format!("\nstdout:\n{}", stdout.trim_end()));
        }
        ToolOutcome::error(msg)
    }
}

/// How long output is still read after the command exited, when a background process it
/// started keeps its pipes open.
pub const OUTPUT_GRACE: Duration = Duration::from_secs(1);

/// Output kept from one pipe.
#[derive(Debug, Default)]
struct Captured {
    /// The first bytes, up to the cap.
    bytes: Vec<u8>,
    /// More came than the cap.
    cut: bool,
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

/// Kills the command and everything in its process group (it leads its own, see
/// `process_group(0)`), then reaps it.
/// Writes `payload` to the child's stdin and closes it, in its own task (the caller aborts
/// it once the child has exited). A child that ignores its input may close stdin early:
/// not an error. Shared by command tools and hooks.
pub(crate) fn feed_stdin(
    child: &mut tokio::process::Child,
    payload: String,
) -> tokio::task::JoinHandle<()> {
    let stdin = child.stdin.take();
    tokio::spawn(async move {
        if let Some(mut s) = stdin {
            let _ = s.write_all(payload.as_bytes()).await;
            let _ = s.shutdown().await;
        }
    })
}

pub(crate) async fn kill_group(child: &mut tokio::process::Child) {
    #[cfg(unix)]
    if let Some(pgid) = child.id().and_then(|p| libc::pid_t::try_from(p).ok())
        && pgid > 0
    {
        // SAFETY: killpg only sends a signal; it has no memory-safety preconditions. The
        // child is not reaped yet, so its pid (= its group id) cannot have been reused.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
    let _ = child.kill().await;
}

impl ToolExecutor for CommandTool {
    fn call<'a>(
        &'a self,
        arguments: serde_json::Value,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, ToolOutcome> {
        self.run(arguments, cancel).boxed()
    }
}

/// A registered command tool from its config. Its children lose secret-looking
/// variables; [`tools`] also removes the config's `api_key_env` variables.
pub fn tool(name: &str, c: &CommandToolConfig) -> RegisteredTool {
    tool_with_key_vars(name, c, &[])
}

/// [`tool`], also removing `key_vars` (the configured `api_key_env` names) from the
/// children's environment unless the tool passes them on.
pub fn tool_with_key_vars(
    name: &str,
    c: &CommandToolConfig,
    key_vars: &[String],
) -> RegisteredTool {
    RegisteredTool {
        schema: ToolSchema {
            name: name.to_string(),
            description: c.description.clone(),
            parameters: c.parameters.clone(),
            defer_loading: None,
        },
        approval: c.approval,
        enabled: c.enabled,
        executor: Arc::new(
            CommandTool::new(name, c.command.clone(), Duration::from_secs(c.timeout_secs))
                .with_env_policy(ChildEnvPolicy::new(key_vars, &c.env_passthrough)),
        ),
        parallel_safe: c.parallel,
    }
}

/// Every command tool in the config, in name order.
pub fn tools(config: &Config) -> Vec<RegisteredTool> {
    let key_vars = child_env::key_env_vars(config);
    config
        .command_tools
        .iter()
        .map(|(name, c)| tool_with_key_vars(name, c, &key_vars))
        .collect()
}
