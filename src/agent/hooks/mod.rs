//! Hooks (SPEC §14.4, decision 0088): the configured `[[hooks.EVENT]]` commands, run by the
//! loop at fixed points with one JSON object on stdin in Claude Code's format.
//!
//! - `pre_tool_use`: before a call is approved or run; exit 2 (or a JSON decision to
//!   block) turns the call into a tool error carrying the hook's stderr.
//! - `post_tool_use`: after a call returned; it sees the result (`tool_response`); exit 2
//!   adds its stderr to the result, as feedback for the model.
//! - `user_prompt_submit`: before a prompt is sent; exit 2 refuses the prompt with a
//!   notice, and nothing is sent or logged as a message.
//! - `stop`, `session_start`: after a turn, when a session starts or is resumed; exit 2
//!   is shown as a warning (deepterm never continues a turn for a hook).
//!
//! Any other exit, a signal, a timeout or a program that does not start is a warning and
//! the session goes on. Every run is logged (`hook/run`) and shown: a tool hook's in its
//! call's tool card (`exec`: a line), any other as a notice. Hooks run
//! in the workspace with the scrubbed child environment: no configured key
//! variable and nothing that looks like a secret reaches them.

mod in_loop;
pub mod input;
pub mod notice;
pub mod process;

use std::path::{Path, PathBuf};

use crate::agent::tool_runner::ToolCall;
use crate::config::hooks::{HookEvent, HooksConfig};
use crate::session::hook_event::HookRunOutcome;
use crate::tools::child_env::ChildEnvPolicy;
use input::json_block;
use process::{Exit, Finished};

/// The session's hooks and what they run with.
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    config: HooksConfig,
    env: ChildEnvPolicy,
    cwd: PathBuf,
    session_dir: Option<PathBuf>,
    /// `Some(source)` while the `session_start` hooks of the open session are owed.
    start_owed: Option<&'static str>,
}

impl Hooks {
    /// The hooks of `config`, run in `cwd` without the config's key variables; the session
    /// logs live in `session_dir` (for `transcript_path`).
    pub fn new(config: HooksConfig, key_vars: &[String], cwd: &Path, session_dir: &Path) -> Self {
        Hooks {
            config,
            env: ChildEnvPolicy::new(key_vars, &[]),
            cwd: cwd.to_path_buf(),
            session_dir: Some(session_dir.to_path_buf()),
            start_owed: Some("startup"),
        }
    }

    /// Owes the `session_start` hooks again (another session was opened): `resume` when
    /// it already holds messages.
    pub fn owe_session_start(&mut self, resumed: bool) {
        self.start_owed = Some(if resumed { "resume" } else { "startup" });
    }

    fn any(&self, event: HookEvent) -> bool {
        self.config.of(event).next().is_some()
    }
}

/// What a hook run decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Go on.
    Continue,
    /// Exit 2 (or a JSON decision to block), with the reason (its stderr).
    Block(String),
}

/// How a finished run ends, for `event`: its outcome and, for a block, the reason.
pub fn classify(event: HookEvent, f: &Finished) -> (HookRunOutcome, Verdict) {
    match &f.exit {
        Exit::Code(0) => {
            let blocks = matches!(event, HookEvent::PreToolUse | HookEvent::UserPromptSubmit);
            match json_block(event, &f.stdout).filter(|_| blocks) {
                Some(reason) => (HookRunOutcome::Blocked, Verdict::Block(reason)),
                None => (HookRunOutcome::Continued, Verdict::Continue),
            }
        }
        Exit::Code(2) => (
            HookRunOutcome::Blocked,
            Verdict::Block(f.stderr.trim().to_string()),
        ),
        Exit::Code(_) | Exit::Signal => (HookRunOutcome::Failed, Verdict::Continue),
        Exit::TimedOut => (HookRunOutcome::TimedOut, Verdict::Continue),
        Exit::Cancelled => (HookRunOutcome::Cancelled, Verdict::Continue),
        Exit::NotStarted(_) => (HookRunOutcome::NotStarted, Verdict::Continue),
    }
}

/// A command as a user would type it (for notices).
pub(crate) fn shown(command: &[String]) -> String {
    shlex::try_join(command.iter().map(String::as_str)).unwrap_or_else(|_| command.join(" "))
}

pub(crate) fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

pub(crate) fn feedback_text(reason: &str) -> &str {
    match reason.trim() {
        "" => "no reason given",
        r => r,
    }
}

/// The model-facing result of a call a `pre_tool_use` hook refused (English and stable,
/// like every tool result).
pub fn blocked_call_text(reason: &str) -> String {
    format!("{BLOCKED_CALL_PREFIX}{}", feedback_text(reason))
}

/// How [`blocked_call_text`] starts (the tool card shows the rest in the interface
/// language).
pub const BLOCKED_CALL_PREFIX: &str = "a pre_tool_use hook refused this call: ";

/// The calls no hook refused, in call order (they go on to approval).
pub fn unblocked(calls: &[ToolCall], blocked: &[Option<String>]) -> Vec<ToolCall> {
    calls
        .iter()
        .zip(blocked)
        .filter(|(_, b)| b.is_none())
        .map(|(c, _)| c.clone())
        .collect()
}

/// Every call's decision in call order: a hook's refusal, else the approval decision of
/// the unblocked calls (`decided`, in their order).
pub fn merge_decisions(
    blocked: Vec<Option<String>>,
    decided: Vec<Option<String>>,
) -> Vec<Option<String>> {
    let mut decided = decided.into_iter();
    blocked
        .into_iter()
        .map(|b| match b {
            Some(reason) => Some(reason),
            None => decided.next().flatten(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn finished(exit: Exit, stdout: &str, stderr: &str) -> Finished {
        Finished {
            exit,
            stdout: stdout.into(),
            stderr: stderr.into(),
            duration: Duration::ZERO,
        }
    }

    #[test]
    fn exit_two_blocks_with_stderr_and_other_exits_only_warn() {
        let e = HookEvent::PreToolUse;
        assert_eq!(
            classify(e, &finished(Exit::Code(2), "", "no rm\n")),
            (HookRunOutcome::Blocked, Verdict::Block("no rm".into()))
        );
        assert_eq!(
            classify(e, &finished(Exit::Code(0), "fine", "")).1,
            Verdict::Continue
        );
        for exit in [
            Exit::Code(1),
            Exit::Signal,
            Exit::TimedOut,
            Exit::NotStarted("x".into()),
        ] {
            assert_eq!(classify(e, &finished(exit, "", "")).1, Verdict::Continue);
        }
        // A JSON decision on stdout blocks a call or a prompt, not a stop hook.
        let json = "{\"decision\": \"block\", \"reason\": \"r\"}";
        assert_eq!(
            classify(
                HookEvent::UserPromptSubmit,
                &finished(Exit::Code(0), json, "")
            )
            .1,
            Verdict::Block("r".into())
        );
        assert_eq!(
            classify(HookEvent::Stop, &finished(Exit::Code(0), json, "")).1,
            Verdict::Continue
        );
    }

    #[test]
    fn a_refused_call_keeps_its_place_among_the_decided_ones() {
        let merged = merge_decisions(
            vec![None, Some("hook".into()), None],
            vec![Some("denied".into()), None],
        );
        assert_eq!(
            merged,
            vec![Some("denied".into()), Some("hook".into()), None]
        );
        let calls: Vec<ToolCall> = ["a", "b"]
            .iter()
            .map(|n| ToolCall {
                id: n.to_string(),
                name: n.to_string(),
                arguments: "{}".into(),
            })
            .collect();
        let open = unblocked(&calls, &[Some("x".into()), None]);
        assert_eq!(open.len(), 1);
        assert_eq!(open[0].id, "b");
    }
}
