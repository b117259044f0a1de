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
    /// Additive: the tool card and `exec` say it from the log (decision 0105).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Its timeout, when it was cut at it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
}
