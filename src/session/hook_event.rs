//! The `hook/run` event (SPEC §14.4): one line per hook run, so the log says what every
//! hook decided. Additive: a log without it loads as before, and it is no surface event
//! (nothing of it is sent to the model).

use serde::{Deserialize, Serialize};

/// How one hook run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HookRunOutcome {
    /// Exit 0 (and no decision to block on stdout): the session went on.
    Continued,
    /// Exit 2, or a JSON decision to block: the call or prompt was refused.
    Blocked,
    /// Any other exit, or killed by a signal: a warning, the session went on.
    Failed,
    /// Killed with its process group at its timeout.
    TimedOut,
    /// Killed because the user cancelled the turn.
    Cancelled,
    /// The program could not be started.
    NotStarted,
}

/// `hook/run` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookRunData {
    /// The config key of the event (`pre_tool_use`).
    pub event: String,
    /// The hook's command as configured.
    pub command: Vec<String>,
    /// The turn it ran in, if any (`session_start` runs outside turns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u64>,
    /// The tool call it was about (tool hooks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// The tool it was about (tool hooks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// How it ended.
    pub outcome: HookRunOutcome,
    /// Its exit status, when it exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// How long it ran.
    pub duration_ms: u64,
    /// What it said on stderr (capped), or why it did not start.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    /// Why it blocked, when it did (its stderr, or the reason of its JSON decision).
    /// Additive: the tool card and `exec` say it from the log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Its timeout, when it was cut at it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
}

/// What one logged run means, read the same way by every place that says it: the TUI's
/// tool card, `exec`'s line and the notices. Each rule of reading the
/// event is here once: which text is the reason, when exit 2 refused something and when it
/// only told the model, a failure without an exit status, the timeout of an older log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookRunSaid<'a> {
    /// The session went on; it ran this long.
    Ok { ms: u64 },
    /// A `pre_tool_use` hook refused the call (it was neither approved nor run).
    BlockedTool { reason: &'a str },
    /// A `user_prompt_submit` hook refused the prompt (it was not sent).
    BlockedPrompt { reason: &'a str },
    /// A `post_tool_use` hook's exit 2: it blocked nothing, its reason went to the model.
    ToldModel { reason: &'a str },
    /// Another event's exit 2 (`stop`, `session_start`): said, nothing to refuse.
    Said { reason: &'a str },
    /// Any other exit status: a warning, the session went on.
    Warning { code: i32 },
    /// Killed by a signal (a failure without an exit status).
    Signal,
    /// Cut at its timeout, in seconds.
    TimedOut { secs: u64 },
    /// Killed because the user cancelled.
    Cancelled,
    /// Could not be started, and why.
    NotStarted { error: &'a str },
}

impl HookRunData {
    /// What this run means (see [`HookRunSaid`]).
    pub fn said(&self) -> HookRunSaid<'_> {
        // A JSON decision's reason is not on stderr; exit 2's reason is stderr.
        let reason = self.reason.as_deref().unwrap_or(&self.stderr);
        match self.outcome {
            HookRunOutcome::Continued => HookRunSaid::Ok {
                ms: self.duration_ms,
            },
            HookRunOutcome::Blocked => match self.event.as_str() {
                "pre_tool_use" => HookRunSaid::BlockedTool { reason },
                "user_prompt_submit" => HookRunSaid::BlockedPrompt { reason },
                "post_tool_use" => HookRunSaid::ToldModel { reason },
                _ => HookRunSaid::Said { reason },
            },
            HookRunOutcome::Failed => match self.exit_code {
                Some(code) => HookRunSaid::Warning { code },
                None => HookRunSaid::Signal,
            },
            // A log from before `timeoutSecs` was logged: how long it ran.
            HookRunOutcome::TimedOut => HookRunSaid::TimedOut {
                secs: self.timeout_secs.unwrap_or(self.duration_ms / 1000),
            },
            HookRunOutcome::Cancelled => HookRunSaid::Cancelled,
            HookRunOutcome::NotStarted => HookRunSaid::NotStarted {
                error: &self.stderr,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(event: &str, outcome: HookRunOutcome) -> HookRunData {
        HookRunData {
            event: event.into(),
            command: vec!["./check.sh".into()],
            turn: Some(1),
            tool_call_id: None,
            tool_name: None,
            outcome,
            exit_code: Some(2),
            duration_ms: 2500,
            stderr: "from stderr".into(),
            reason: None,
            timeout_secs: None,
        }
    }

    #[test]
    fn exit_2_refuses_before_a_call_or_prompt_and_only_tells_the_model_after_one() {
        let runs = [
            "pre_tool_use",
            "user_prompt_submit",
            "post_tool_use",
            "stop",
        ]
        .map(|event| run(event, HookRunOutcome::Blocked));
        let reason = "from stderr";
        assert_eq!(runs[0].said(), HookRunSaid::BlockedTool { reason });
        assert_eq!(runs[1].said(), HookRunSaid::BlockedPrompt { reason });
        assert_eq!(runs[2].said(), HookRunSaid::ToldModel { reason });
        assert_eq!(runs[3].said(), HookRunSaid::Said { reason });
    }

    #[test]
    fn a_json_decisions_reason_wins_over_stderr() {
        let mut d = run("pre_tool_use", HookRunOutcome::Blocked);
        d.reason = Some("no rm -rf".into());
        assert_eq!(
            d.said(),
            HookRunSaid::BlockedTool {
                reason: "no rm -rf"
            }
        );
    }

    #[test]
    fn an_older_logs_timeout_is_how_long_the_hook_ran() {
        let mut d = run("stop", HookRunOutcome::TimedOut);
        assert_eq!(d.said(), HookRunSaid::TimedOut { secs: 2 });
        d.timeout_secs = Some(30);
        assert_eq!(d.said(), HookRunSaid::TimedOut { secs: 30 });
    }
}
