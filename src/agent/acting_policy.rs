//! The approval policy for the acting tools (SPEC §14.2): `shell` and the edit tools are
//! decided by [`crate::approval`] (policy, mode, rules, this session's grants), not by the
//! per-tool approval flag the read-only and MCP tools use. The card shows what the call
//! would do ([`ApprovalPreview`]); an allowed escalation runs outside the sandbox.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::agent::protocol::{ApprovalPreview, FileChange};
use crate::approval::{Approvals, Ask, Call, Decision, ShellCommand};
use crate::sandbox::handle::SandboxHandle;
use crate::tools::edit::EDIT_TOOL_NAMES;
use crate::tools::shell::{RunAs, Shell};

/// The acting tools' policy and what it needs: the rules and grants, the write scope, and
/// the shell executor (for escalations, which run unsandboxed once allowed).
pub struct ActingPolicy {
    /// Rules, grants and the policy in force.
    pub approvals: Mutex<Approvals>,
    /// The session's sandbox (the mode at call time).
    pub sandbox: SandboxHandle,
    /// The shell, to run an allowed escalation outside the sandbox.
    pub shell: Option<Arc<Shell>>,
    /// Calls allowed to run outside the sandbox (escalations the user allowed).
    unsandboxed: Mutex<HashSet<String>>,
}

/// A `shell` call's `command` argument: an argv array, or a string for `bash -c`.
struct CommandWords<'a> {
    argv: Option<Vec<String>>,
    script: Option<&'a str>,
}

impl<'a> CommandWords<'a> {
    fn of(args: &'a Value) -> Self {
        let c = args.get("command");
        CommandWords {
            argv: c.and_then(Value::as_array).map(|a| {
                a.iter()
                    .map(|v| v.as_str().unwrap_or_default().to_string())
                    .collect()
            }),
            script: c.and_then(Value::as_str),
        }
    }

    /// The command to decide on; `None` when the argument is missing or malformed.
    fn command(&self) -> Option<ShellCommand<'_>> {
        match (&self.argv, self.script) {
            (Some(a), _) => Some(ShellCommand::Argv(a)),
            (None, Some(s)) => Some(ShellCommand::Script(s)),
            (None, None) => None,
        }
    }
}

/// What the policy says about one call.
pub enum Verdict {
    /// Not an acting tool: the generic per-tool approval applies.
    NotActing,
    /// Run it.
    Run,
    /// Run this `shell` call outside the sandbox without asking: `--approve all` answered
    /// its escalation, or a grant for runs outside covers it (§14.2).
    RunUnsandboxed,
    /// Ask, showing `preview`.
    Ask(Box<(Ask, Option<ApprovalPreview>)>),
    /// Refuse with this tool error (English, for the model).
    Refuse(String),
}

impl ActingPolicy {
    /// A policy over `approvals` for `sandbox`.
    pub fn new(approvals: Approvals, sandbox: SandboxHandle, shell: Option<Arc<Shell>>) -> Self {
        ActingPolicy {
            approvals: Mutex::new(approvals),
            sandbox,
            shell,
            unsandboxed: Mutex::new(HashSet::new()),
        }
    }

    fn approvals(&self) -> std::sync::MutexGuard<'_, Approvals> {
        self.approvals.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether `name` is one of the acting tools.
    pub fn is_acting(name: &str) -> bool {
        name == "shell" || EDIT_TOOL_NAMES.contains(&name)
    }

    /// The verdict on a call of `name` with `arguments` (raw JSON).
    pub fn verdict(&self, name: &str, arguments: &str) -> Verdict {
        if !Self::is_acting(name) {
            return Verdict::NotActing;
        }
        let Ok(args) = serde_json::from_str::<Value>(arguments) else {
            // The tool itself reports invalid arguments.
            return Verdict::Run;
        };
        let mode = self.sandbox.mode();
        if name == "shell" {
            let escalate = args.get("escalate").and_then(Value::as_bool) == Some(true);
            let justification = args.get("justification").and_then(Value::as_str);
            let words = CommandWords::of(&args);
            // Missing or malformed: the tool's own validation answers.
            let Some(command) = words.command() else {
                return Verdict::Run;
            };
            let call = Call::Shell {
                command,
                escalate,
                justification,
            };
            let decision = self.approvals().decide(mode, &call);
            match decision {
                Decision::Run { sandboxed: true } => Verdict::Run,
                Decision::Run { sandboxed: false } => Verdict::RunUnsandboxed,
                Decision::Refuse(r) => Verdict::Refuse(r.reason),
                Decision::Ask(ask) => {
                    let preview = self.shell.as_ref().and_then(|sh| {
                        let req = sh.parse(&args).ok()?;
                        Some(ApprovalPreview::Shell {
                            command: command.display(),
                            workdir: req.workdir.display().to_string(),
                            sandboxed: ask.sandboxed && sh.runs_sandboxed(RunAs::Sandboxed),
                            justification: justification.map(str::to_string),
                            always_prefix: ask.always.save_prefix.as_ref().map(|p| p.join(" ")),
                            attempt: None,
                        })
                    });
                    Verdict::Ask(Box::new((ask, preview)))
                }
            }
        } else {
            let scope = self
                .sandbox
                .scope
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .clone();
            let plan = crate::tools::edit::preview(name, &args, &scope);
            let call = Call::Edit {
                tool: name,
                inside_writable_roots: plan.is_ok(),
            };
            let decision = self.approvals().decide(mode, &call);
            match decision {
                Decision::Run { .. } => Verdict::Run,
                Decision::Refuse(r) => Verdict::Refuse(r.reason),
                Decision::Ask(ask) => {
                    let preview = plan.ok().map(|p| ApprovalPreview::Edit {
                        files: p
                            .files
                            .iter()
                            .map(|f| FileChange {
                                path: match &f.from {
                                    Some(from) => format!("{from} → {}", f.display),
                                    None => f.display.clone(),
                                },
                                added: f.added,
                                removed: f.removed,
                                diff: f.diff.clone(),
                            })
                            .collect(),
                    });
                    Verdict::Ask(Box::new((ask, preview)))
                }
            }
        }
    }

    /// After a sandboxed `shell` call failed in a way that looks like a sandbox denial:
    /// the card that offers to run it again outside the sandbox, when the policy lets the
    /// user be asked (never under `never`, in `full-access` or in `exec`).
    pub fn rerun_offer(
        &self,
        arguments: &str,
        attempt: crate::session::retry_event::SandboxAttempt,
    ) -> Option<(Ask, ApprovalPreview)> {
        let args: Value = serde_json::from_str(arguments).ok()?;
        let words = CommandWords::of(&args);
        let command = words.command()?;
        let call = Call::Shell {
            command,
            escalate: false,
            justification: None,
        };
        let ask = self.approvals().rerun_offer(self.sandbox.mode(), &call)?;
        let sh = self.shell.as_ref()?;
        let req = sh.parse(&args).ok()?;
        let preview = ApprovalPreview::Shell {
            command: command.display(),
            workdir: req.workdir.display().to_string(),
            sandboxed: false,
            justification: None,
            always_prefix: None,
            attempt: Some(attempt),
        };
        Some((ask, preview))
    }

    /// `a` on a card: saves the rule or adds the grant the card offered. Returns the save
    /// error, if saving the rule failed (the grant holds for the session anyway).
    pub fn always(&self, ask: &Ask) -> Option<crate::approval::RulesError> {
        self.approvals().always(&ask.always).save_error
    }

    /// Marks call `id` as allowed to run outside the sandbox.
    pub fn allow_unsandboxed(&self, id: &str) {
        self.unsandboxed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.to_string());
    }

    /// Whether call `id` runs outside the sandbox (taken once).
    pub fn take_unsandboxed(&self, id: &str) -> bool {
        self.unsandboxed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id)
    }
}
