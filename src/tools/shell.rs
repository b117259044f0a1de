//! The `shell` tool (SPEC §14.1): one command, run inside the sandbox (§14.2).
//!
//! `command` is a string run by `bash -c` (else `sh -c`) or an argv array; `workdir` is
//! relative to the workspace and confined to it; `timeout_ms` defaults to 120 000 and is at
//! most 600 000. stdin is `/dev/null`; the command starts a new session (so it has no
//! controlling terminal and leads its own process group), and the whole group is killed on
//! timeout, on cancel and once the command has exited. Its environment is scrubbed as for
//! command tools ([`super::child_env`]). stdout and stderr share one pipe, so they arrive in
//! order; the result keeps the first and last 32 KiB and says how much was cut.
//!
//! The executor ([`Shell`] as a [`ToolExecutor`]) always runs in the sandbox, whatever the
//! arguments say (`escalate` only asks the approval layer); only `full-access` mode runs
//! unsandboxed. [`Shell::run`] with [`RunAs::Unsandboxed`] is for the approval layer, after
//! the user allowed an escalation or a re-run after a sandbox denial.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

use super::child_env::ChildEnvPolicy;
use super::command::{OUTPUT_GRACE, kill_group};
use super::{Approval, Interrupted, RegisteredTool, ToolExecutor, ToolOutcome, run_guarded};
use crate::sandbox::policy::PrivateTmp;
use crate::sandbox::probe::{SandboxStatus, find_on_path};
use crate::sandbox::{SandboxMode, SharedScope, launch};
use crate::session::event::ToolSchema;

/// The tool's name.
pub const NAME: &str = "shell";
/// Default timeout.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// Largest timeout a call may ask for.
pub const MAX_TIMEOUT_MS: u64 = 600_000;
/// Output kept: this much from the start and this much from the end.
pub const OUTPUT_HALF: usize = 32 * 1024;

/// The model-facing declaration.
pub fn schema() -> ToolSchema {
    ToolSchema {
        name: NAME.to_string(),
        description:
            "Run one command in the sandbox (the workspace is writable in workspace-write mode; \
                      .git, .deepterm and the session files never are; no network unless enabled). \
                      stdin is empty; stdout and stderr are returned together. Set escalate with a \
                      justification only when the command needs to run outside the sandbox."
                .to_string(),
        parameters: json!({
            "type": "object",
            "properties": {
                "command": {
                    "description": "A command line run by bash -c (or sh -c), or an argv array.",
                    "anyOf": [
                        {"type": "string"},
                        {"type": "array", "items": {"type": "string"}, "minItems": 1}
                    ]
                },
                "workdir": {"type": "string", "description": "Directory relative to the workspace (default: the workspace)."},
                "timeout_ms": {"type": "integer", "minimum": 1, "maximum": MAX_TIMEOUT_MS, "description": "Timeout in milliseconds (default 120000)."},
                "escalate": {"type": "boolean", "description": "Ask the user to run this command outside the sandbox."},
                "justification": {"type": "string", "description": "Why the command must run outside the sandbox (with escalate)."}
            },
            "required": ["command"],
            "additionalProperties": false
        }),
        defer_loading: None,
    }
}

/// A validated `shell` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellRequest {
    /// What runs: `[bash, -c, COMMAND]` for a string, else the given argv.
    pub argv: Vec<String>,
    /// The command as the user sees it (the string, or the argv joined with spaces).
    pub display: String,
    /// Where it runs (canonical, inside the workspace).
    pub workdir: PathBuf,
    /// Its timeout.
    pub timeout: Duration,
    /// The model asked to run it outside the sandbox.
    pub escalate: bool,
    /// The model's reason for `escalate`.
    pub justification: Option<String>,
}

/// Validates the arguments of a call against `workspace` (canonical). Errors are English
/// tool errors.
pub fn parse_request(args: &Value, workspace: &Path) -> Result<ShellRequest, String> {
    let Some(obj) = args.as_object() else {
        return Err("shell: the arguments must be an object".into());
    };
    if let Some(k) = obj.keys().find(|k| {
        ![
            "command",
            "workdir",
            "timeout_ms",
            "escalate",
            "justification",
        ]
        .contains(&k.as_str())
    }) {
        return Err(format!("shell: unknown argument \"{k}\""));
    }
    let (argv, display) = match obj.get("command") {
        Some(Value::String(s)) if !s.trim().is_empty() => {
            let sh = shell_program();
            (vec![sh, "-c".to_string(), s.clone()], s.clone())
        }
        Some(Value::Array(items)) if !items.is_empty() => {
            let argv = items
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or("shell: every element of \"command\" must be a string")?;
            if argv[0].is_empty() {
                return Err("shell: the program in \"command\" is empty".into());
            }
            let display = argv.join(" ");
            (argv, display)
        }
        Some(Value::String(_)) | Some(Value::Array(_)) => {
            return Err("shell: \"command\" is empty".into());
        }
        Some(_) => {
            return Err("shell: \"command\" must be a string or an array of strings".into());
        }
        None => return Err("shell: \"command\" is required".into()),
    };
    let workdir = match obj.get("workdir") {
        None | Some(Value::Null) => workspace.to_path_buf(),
        Some(Value::String(w)) => {
            let joined = workspace.join(w);
            let canon = std::fs::canonicalize(&joined)
                .map_err(|e| format!("shell: workdir \"{w}\" cannot be used: {e}"))?;
            if !canon.starts_with(workspace) {
                return Err(format!(
                    "shell: workdir \"{w}\" is outside the workspace {}",
                    workspace.display()
                ));
            }
            if !canon.is_dir() {
                return Err(format!("shell: workdir \"{w}\" is not a directory"));
            }
            canon
        }
        Some(_) => return Err("shell: \"workdir\" must be a string".into()),
    };
    let timeout_ms = match obj.get("timeout_ms") {
        None | Some(Value::Null) => DEFAULT_TIMEOUT_MS,
        Some(v) => match v.as_u64() {
            Some(n) if (1..=MAX_TIMEOUT_MS).contains(&n) => n,
            _ => {
                return Err(format!(
                    "shell: \"timeout_ms\" must be an integer from 1 to {MAX_TIMEOUT_MS}"
                ));
            }
        },
    };
    let escalate = match obj.get("escalate") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err("shell: \"escalate\" must be a boolean".into()),
    };
    let justification = match obj.get("justification") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err("shell: \"justification\" must be a string".into()),
    };
    Ok(ShellRequest {
        argv,
        display,
        workdir,
        timeout: Duration::from_millis(timeout_ms),
        escalate,
        justification,
    })
}

/// `bash` when it is on `PATH`, else `sh`.
fn shell_program() -> String {
    match find_on_path("bash", std::env::var_os("PATH").as_deref()) {
        Some(p) => p.to_string_lossy().into_owned(),
        None => "sh".to_string(),
    }
}

/// How a request runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunAs {
    /// In the sandbox the current mode says (none in `full-access`).
    Sandboxed,
    /// Outside the sandbox: only after the user allowed it.
    Unsandboxed,
}

/// What a run did, beyond the text the model sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellResult {
    /// The tool result (English, stable).
    pub outcome: ToolOutcome,
    /// Whether a process was started at all (false when the sandbox failed closed).
    pub ran: bool,
    /// Whether it ran inside a sandbox.
    pub sandboxed: bool,
    /// The exit code, when it exited by itself.
    pub exit_code: Option<i32>,
    /// The command failed in a way that looks like a sandbox denial (a read-only file
    /// system, a permission refused, no network): the approval layer may offer to run it
    /// again unsandboxed.
    pub looks_like_sandbox_denial: bool,
}

/// The `shell` executor.
pub struct Shell {
    scope: SharedScope,
    status: Arc<SandboxStatus>,
    env: ChildEnvPolicy,
    /// The session's private temporary directory, made at the first sandboxed command
    /// and removed when the shell (the session) goes (SPEC §15.5).
    tmp: std::sync::OnceLock<Result<PrivateTmp, String>>,
}

impl Shell {
    /// A shell reading the mode from `scope` at each call, sandboxed by `status`'s backend
    /// with its network setting, its children's environment scrubbed by `env`.
    pub fn new(scope: SharedScope, status: Arc<SandboxStatus>, env: ChildEnvPolicy) -> Self {
        Shell {
            scope,
            status,
            env,
            tmp: std::sync::OnceLock::new(),
        }
    }

    /// The session's private temporary directory for sandboxed commands (created on first
    /// use), or why there is none.
    pub fn session_tmp(&self) -> Result<&Path, String> {
        match self.tmp.get_or_init(|| {
            PrivateTmp::create()
                .map_err(|e| format!("the sandbox's private temporary directory: {e}"))
        }) {
            Ok(t) => Ok(t.path()),
            Err(e) => Err(e.clone()),
        }
    }

    /// Validates a call's arguments against the current workspace ([`parse_request`]).
    pub fn parse(&self, arguments: &Value) -> Result<ShellRequest, String> {
        let workspace = self
            .scope
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .workspace
            .clone();
        parse_request(arguments, &workspace)
    }

    /// Whether a run as `how` would be sandboxed in the current mode (for the approval card).
    pub fn runs_sandboxed(&self, how: RunAs) -> bool {
        how == RunAs::Sandboxed
            && self.scope.read().unwrap_or_else(|p| p.into_inner()).mode != SandboxMode::FullAccess
    }

    /// The sandbox this shell uses.
    pub fn status(&self) -> &SandboxStatus {
        &self.status
    }

    /// Runs `req`. `RunAs::Sandboxed` runs unsandboxed only in `full-access` mode; when the
    /// sandbox cannot be applied, nothing runs and the error names the missing piece.
    pub async fn run(
        &self,
        req: &ShellRequest,
        how: RunAs,
        cancel: &CancellationToken,
    ) -> ShellResult {
        let scope = self.scope.read().unwrap_or_else(|p| p.into_inner()).clone();
        let sandboxed = how == RunAs::Sandboxed && scope.mode != SandboxMode::FullAccess;
        let not_run = |msg: String| ShellResult {
            outcome: ToolOutcome::error(msg),
            ran: false,
            sandboxed,
            exit_code: None,
            looks_like_sandbox_denial: false,
        };
        if req.argv.is_empty() {
            return not_run("shell: \"command\" is empty".into());
        }
        let (program, args, launch) = if sandboxed {
            let Some(backend) = &self.status.backend else {
                return not_run(format!(
                    "shell: the sandbox is not available, so nothing was run: {}",
                    self.status.reason
                ));
            };
            let tmp_dir = match self.session_tmp() {
                Ok(t) => t,
                Err(e) => return not_run(format!("shell: nothing was run: {e}")),
            };
            let limits = launch::RunLimits {
                tmp_dir,
                network: self.status.network,
                max_processes: self.status.max_processes,
            };
            match launch::prepare(backend, &scope, limits, &req.workdir, &req.argv) {
                Ok(l) => (l.program.clone(), l.args.clone(), Some(l)),
                Err(e) => return not_run(format!("shell: nothing was run: {e}")),
            }
        } else {
            let Some((p, a)) = req.argv.split_first() else {
                return not_run("shell: \"command\" is empty".into());
            };
            (PathBuf::from(p), a.iter().map(Into::into).collect(), None)
        };
        let extras = Extras {
            cgroup_procs: launch
                .as_ref()
                .and_then(|l| l.cgroup.as_ref())
                .map(|c| c.procs_fd()),
            keep_fd: launch
                .as_ref()
                .and_then(|l| l.seccomp_fd.as_ref().map(std::os::fd::AsRawFd::as_raw_fd)),
            remove: if sandboxed {
                &super::child_env::AGENT_SOCKET_VARS[..]
            } else {
                &[]
            },
        };
        let mut result = spawn_and_wait(&program, &args, req, &self.env, &extras, cancel).await;
        let walk_truncated = launch.as_ref().is_some_and(|l| l.vcs_walk_truncated);
        let vcs_before = launch
            .as_ref()
            .map(|l| l.vcs_before.clone())
            .unwrap_or_default();
        drop(launch);
        if sandboxed && result.ran && scope.mode == SandboxMode::WorkspaceWrite {
            // A repository the command made itself could not be protected in advance: it
            // is named on the call's card (SPEC §15.5).
            let after =
                crate::sandbox::vcs::discover(&scope.writable_roots, crate::sandbox::vcs::WALK_CAP);
            let made = crate::sandbox::vcs::created(&vcs_before, &after.paths);
            if !made.is_empty() {
                result
                    .outcome
                    .content
                    .push_str(&crate::sandbox::vcs::created_note(&scope.workspace, &made));
            }
        }
        result.sandboxed = sandboxed;
        if sandboxed
            && result.exit_code == Some(i32::from(crate::sandbox::landlock::SETUP_FAILED_STATUS))
            && result
                .outcome
                .content
                .contains(crate::sandbox::landlock::HELPER_ERROR_PREFIX)
        {
            // The helper could not restrict itself and ran nothing (fail closed).
            result.ran = false;
            return result;
        }
        if sandboxed
            && result.ran
            && crate::sandbox::limits::looks_like_fork_refused(&result.outcome.content)
        {
            result
                .outcome
                .content
                .push_str(&crate::sandbox::limits::process_limit_note(
                    self.status.max_processes,
                ));
        }
        if sandboxed && walk_truncated {
            result.outcome.content.push_str(&format!(
                "\n[the sandbox looked for nested repositories in the first {} directories \
                 of the writable roots only; deeper ones are not protected from shell]",
                crate::sandbox::vcs::WALK_CAP
            ));
        }
        if sandboxed && result.ran && result.outcome.is_error {
            result.looks_like_sandbox_denial = looks_like_denial(&result.outcome.content);
            if result.looks_like_sandbox_denial {
                let writable = match scope.mode {
                    SandboxMode::ReadOnly => "nothing is writable in read-only mode",
                    _ => {
                        "writable: the workspace and the writable roots, never .git, .deepterm \
                         or the session files"
                    }
                };
                result.outcome.content.push_str(&format!(
                    "\n[the sandbox ({}, network {}) may have refused this; {writable}.{root} To \
                     run it outside the sandbox, call shell again with escalate = true and a \
                     justification]",
                    scope.mode.as_str(),
                    if self.status.network { "on" } else { "off" },
                    root = if matches!(
                        self.status.backend,
                        Some(crate::sandbox::probe::Backend::Landlock {
                            mount_ns: false,
                            ..
                        })
                    ) && scope.mode == SandboxMode::WorkspaceWrite
                    {
                        " Here the sandbox (Landlock without a private mount namespace) cannot \
                         create, remove or rename entries directly in the workspace root; \
                         create them in a subdirectory."
                    } else {
                        ""
                    }
                ));
            }
        }
        result
    }
}

/// Whether a failed command's output looks like the sandbox refused it.
pub fn looks_like_denial(output: &str) -> bool {
    const MARKERS: &[&str] = &[
        "Read-only file system",
        "Permission denied",
        "Operation not permitted",
        "Network is unreachable",
        "Temporary failure in name resolution",
        "Could not resolve host",
        "EROFS",
        "EACCES",
        "EPERM",
        "ENETUNREACH",
    ];
    MARKERS.iter().any(|m| output.contains(m))
}

/// Output kept from the pipe: the head, a rolling tail, and how much came in all.
#[derive(Debug, Default)]
pub struct CappedOutput {
    head: Vec<u8>,
    tail: Vec<u8>,
    total: u64,
}

impl CappedOutput {
    /// Adds bytes as they arrive.
    pub fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = OUTPUT_HALF.saturating_sub(self.head.len());
        let n = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..n]);
        bytes = &bytes[n..];
        self.tail.extend_from_slice(bytes);
        if self.tail.len() > 2 * OUTPUT_HALF {
            let cut = self.tail.len() - OUTPUT_HALF;
            self.tail.drain(..cut);
        }
    }

    /// The text: everything, or the head, a note of the bytes cut, and the tail.
    pub fn render(&self) -> String {
        let tail_start = self.tail.len().saturating_sub(OUTPUT_HALF);
        let tail = &self.tail[tail_start..];
        let kept = (self.head.len() + tail.len()) as u64;
        let mut s = String::from_utf8_lossy(&self.head).into_owned();
        if kept < self.total {
            s.push_str(&format!(
                "\n[… {} bytes cut from the middle of {} bytes of output …]\n",
                self.total - kept,
                self.total
            ));
        }
        s.push_str(&String::from_utf8_lossy(tail));
        s
    }
}

/// What the child does besides its command: joins a pids cgroup, keeps a descriptor open
/// across `exec` (bubblewrap's seccomp program), loses some variables.
struct Extras<'a> {
    cgroup_procs: Option<std::os::fd::RawFd>,
    keep_fd: Option<std::os::fd::RawFd>,
    remove: &'a [&'a str],
}

async fn spawn_and_wait(
    program: &Path,
    args: &[std::ffi::OsString],
    req: &ShellRequest,
    env: &ChildEnvPolicy,
    extras: &Extras<'_>,
    cancel: &CancellationToken,
) -> ShellResult {
    let failed = |msg: String| ShellResult {
        outcome: ToolOutcome::error(msg),
        ran: false,
        sandboxed: false,
        exit_code: None,
        looks_like_sandbox_denial: false,
    };
    let (reader, writer) = match std::io::pipe() {
        Ok(p) => p,
        Err(e) => return failed(format!("shell: could not create a pipe: {e}")),
    };
    let writer2 = match writer.try_clone() {
        Ok(w) => w,
        Err(e) => return failed(format!("shell: could not create a pipe: {e}")),
    };
    let mut cmd = tokio::process::Command::new(program);
    env.apply(&mut cmd);
    for v in extras.remove {
        cmd.env_remove(v);
    }
    let (cgroup_procs, keep_fd) = (extras.cgroup_procs, extras.keep_fd);
    cmd.args(args)
        .current_dir(&req.workdir)
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer))
        .stderr(Stdio::from(writer2))
        .kill_on_drop(true);
    // SAFETY: setsid is async-signal-safe and touches no memory of the parent. A new
    // session has no controlling terminal (nothing reaches the user's terminal) and its
    // process group id is the child's pid, which kill_group signals.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setsid() == -1 {
                return Err(std::io::Error::last_os_error());
            }
            if let Some(fd) = cgroup_procs {
                crate::sandbox::limits::join_self(fd)?;
            }
            if let Some(fd) = keep_fd
                && libc::fcntl(fd, libc::F_SETFD, 0) == -1
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let started = Instant::now();
    let spawned = cmd.spawn();
    // The parent's copies of the pipe's write end go with the command builder, so the read
    // end sees end-of-file once every process of the command has closed it.
    drop(cmd);
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            return failed(format!("shell: could not start {}: {e}", program.display()));
        }
    };
    // The group id is the child's pid (setsid above); kept because the child's own id is
    // gone once it is reaped, and the group may outlive it.
    let pgid = child.id().and_then(|p| libc::pid_t::try_from(p).ok());
    let out = Arc::new(std::sync::Mutex::new(CappedOutput::default()));
    let reader_task = {
        let out = out.clone();
        tokio::spawn(async move {
            let Ok(mut rx) = tokio::net::unix::pipe::Receiver::from_owned_fd(reader.into()) else {
                return;
            };
            let mut buf = vec![0u8; 16 * 1024];
            loop {
                match rx.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => out
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(&buf[..n]),
                }
            }
        })
    };
    let waited = run_guarded(child.wait(), req.timeout, cancel).await;
    let mut reader_task = reader_task;
    let status = match waited {
        Ok(s) => Ok(s),
        Err(why) => {
            kill_group(&mut child).await;
            Err(why)
        }
    };
    // Output still in the pipe (or held by a process left in the background) is read for
    // a short grace period; then the group is killed so nothing outlives the call.
    let _ = tokio::time::timeout(OUTPUT_GRACE, &mut reader_task).await;
    if let Some(pgid) = pgid.filter(|p| *p > 0) {
        // SAFETY: killpg only sends a signal. The group's id cannot have been reused while
        // a process of the group lives; if none does, it fails with ESRCH.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
    reader_task.abort();
    let elapsed = started.elapsed();
    let output = out.lock().unwrap_or_else(|p| p.into_inner()).render();
    let (head, exit_code, ok) = match status {
        Ok(Ok(s)) => match s.code() {
            Some(c) => (format!("exit status {c}"), Some(c), c == 0),
            None => {
                use std::os::unix::process::ExitStatusExt;
                let sig = s.signal().unwrap_or(0);
                (format!("killed by signal {sig}"), None, false)
            }
        },
        Ok(Err(e)) => (format!("could not be waited for: {e}"), None, false),
        Err(Interrupted::TimedOut) => (
            format!(
                "timed out after {} ms; the command and every process it started were killed",
                req.timeout.as_millis()
            ),
            None,
            false,
        ),
        Err(Interrupted::Cancelled) => (
            "cancelled; the command and every process it started were killed".to_string(),
            None,
            false,
        ),
    };
    let text = format!(
        "{head}\nduration: {:.3} s\noutput:\n{}",
        elapsed.as_secs_f64(),
        if output.is_empty() {
            "(none)".to_string()
        } else {
            output
        }
    );
    ShellResult {
        outcome: if ok {
            ToolOutcome::ok(text)
        } else {
            ToolOutcome::error(text)
        },
        ran: true,
        sandboxed: false,
        exit_code,
        looks_like_sandbox_denial: false,
    }
}

impl ToolExecutor for Shell {
    fn call<'a>(
        &'a self,
        arguments: Value,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, ToolOutcome> {
        async move {
            match self.parse(&arguments) {
                // Always sandboxed: `escalate` is the approval layer's business, never a
                // way for the model to leave the sandbox by itself.
                Ok(req) => self.run(&req, RunAs::Sandboxed, cancel).await.outcome,
                Err(e) => ToolOutcome::error(e),
            }
        }
        .boxed()
    }
}

/// The registered `shell` tool: see [`Shell::new`].
pub fn shell_tool(
    scope: SharedScope,
    status: Arc<SandboxStatus>,
    env: ChildEnvPolicy,
) -> RegisteredTool {
    RegisteredTool {
        schema: schema(),
        approval: Approval::Never,
        enabled: true,
        executor: Arc::new(Shell::new(scope, status, env)),
        parallel_safe: false,
    }
}

#[cfg(test)]
#[path = "shell_tests.rs"]
mod tests;
