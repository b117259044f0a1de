//! The subagent events (SPEC §15.3, decision 0171): a `task` call's subagent logs into the
//! parent's log. `subagent/start` names it, the parent log position its conversation
//! branches from (`parentSeq`) and the call that started it; every event of its own
//! conversation follows wrapped in `subagent/event`, with the seq it has in that
//! conversation. The parent's events up to `parentSeq` plus the unwrapped events are the
//! subagent's whole log, so its requests rebuild through the one request builder like the
//! parent's. Both are additive and no surface events: the parent's fold, requests and
//! ledger never see what a subagent did, only the `task` call's result. `SubagentEvent`
//! holds an `Event`, so it is defined beside it in `session::event`.

use serde::{Deserialize, Serialize};

/// What a subagent may do (the `task` tool's `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SubagentMode {
    /// Reads only: tools that write or run anything are refused.
    #[default]
    ReadOnly,
    /// The parent's tools and mode, through the parent's approvals.
    Inherit,
}

impl SubagentMode {
    /// The name the tool's arguments and the log use.
    pub fn as_str(self) -> &'static str {
        match self {
            SubagentMode::ReadOnly => "read-only",
            SubagentMode::Inherit => "inherit",
        }
    }
}

/// `subagent/start`: a `task` call started a subagent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubagentStart {
    /// The subagent's id in this session (`a1`, `a2`, …).
    pub agent: String,
    /// The parent's turn.
    pub turn: u64,
    /// The parent's step whose reply made the call.
    pub step: u64,
    /// The `task` call's id.
    pub call_id: String,
    /// The call's `description`.
    pub description: String,
    /// The call's mode.
    pub mode: SubagentMode,
    /// The last parent event the subagent's conversation holds.
    pub parent_seq: u64,
}
