//! Command tools declared in config (`[tools.command.NAME]`).
//!
//! A call starts `command[0]` with the remaining elements as arguments, writes the call's
//! JSON arguments (one line) to its stdin and closes it. Exit status 0 makes stdout the
//! result; anything else is a tool error carrying stderr. It runs through the
//! runner shared with hooks ([`super::child_process`]): its own process group, killed
//! whole on timeout and on cancel; the result decided by the command's own exit (a process
//! it leaves running in the background does not hold the call up); an environment that is
//! deepterm's minus the keys (see [`super::child_env`]).

use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use super::child_env::{self, ChildEnvPolicy};
use super::child_process::{self, ChildSpec, Ended, StartError};
use super::{Interrupted, RegisteredTool, ToolExecutor, ToolOutcome};
// The shell tool stops its process group the same way.
pub(crate) use super::child_process::{OUTPUT_GRACE, kill_group};
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
        let mut payload = arguments.to_string();
        payload.push('\n');
        let spec = ChildSpec {
            command: &self.command,
            cwd: None,
            env: &self.env,
            extra_env: &[],
            stdin: payload,
            timeout: self.timeout,
            stdout_cap: MAX_OUTPUT_BYTES,
            stderr_cap: MAX_STDERR_BYTES,
        };
        let run = match child_process::run(spec, cancel).await {
            Ok(run) => run,
            Err(StartError::Empty) => {
                return ToolOutcome::error(format!("command tool \"{name}\" has no command"));
            }
            Err(StartError::Spawn(e)) => {
                let program = &self.command[0];
                return ToolOutcome::error(format!(
                    "command tool \"{name}\" could not start \"{program}\": {e}"
                ));
            }
        };
        let status = match run.ended {
            Ended::Exited(status) => status,
            Ended::WaitFailed(e) => {
                return ToolOutcome::error(format!("command tool \"{name}\" failed: {e}"));
            }
            Ended::Interrupted(Interrupted::Cancelled) => {
                return ToolOutcome::error(format!("command tool \"{name}\" was cancelled"));
            }
            Ended::Interrupted(Interrupted::TimedOut) => {
                return ToolOutcome::error(format!(
                    "command tool \"{name}\" timed out after {} s and was killed",
                    self.timeout.as_secs_f64()
                ));
            }
        };
        let mut stdout = run.stdout.text();
        if run.stdout.cut {
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
        let mut stderr = run.stderr.text().trim_end().to_string();
        if run.stderr.cut {
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
