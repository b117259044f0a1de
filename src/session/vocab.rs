//! The shared vocabulary above the log's events and below every other layer: the tool
//! history a request declares, the tool approval policy with the built-in tool names, and
//! the `[approval] policy` of the acting tools.
//!
//! Plain data; `llm`, `tools` and `config` all speak it, so it lives here, at the bottom
//! (see "Layering" in docs/architecture.md). `llm::types` and `tools` re-export it.

use crate::session::event::ToolSchema;

/// One update of a tool history: a developer message and its resolved additions (D-9).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolHistoryUpdate {
    /// Id of the developer message.
    pub message_id: String,
    /// Full definitions of the tools it added, in block order.
    pub additions: Vec<ToolSchema>,
}

/// Immutable snapshot of the current declaration series (D-9).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolHistory {
    /// Complete active declarations at the start of the series.
    pub tools: Vec<ToolSchema>,
    /// Developer messages of the series, in order.
    pub updates: Vec<ToolHistoryUpdate>,
}

/// Names of the built-in tools (command tools may not reuse them).
pub const BUILTIN_TOOL_NAMES: [&str; 9] = [
    "apply_patch",
    "edit_file",
    "grep",
    "list_dir",
    "read_file",
    "shell",
    "task",
    "update_plan",
    "write_file",
];

/// Whether a tool's calls need the user's approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Approval {
    /// Ask before every call (until "always allow").
    Ask,
    /// Run without asking.
    #[default]
    Never,
}

impl Approval {
    /// Parses the config spelling (`ask` / `never`).
    pub fn parse(s: &str) -> Option<Approval> {
        match s {
            "ask" => Some(Approval::Ask),
            "never" => Some(Approval::Never),
            _ => None,
        }
    }

    /// The config spelling.
    pub fn as_str(&self) -> &'static str {
        match self {
            Approval::Ask => "ask",
            Approval::Never => "never",
        }
    }
}

/// `[approval] policy` (§14.2); decided on by `crate::approval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalPolicy {
    /// Every `shell` call and edit asks, except commands allowed by a rule.
    Untrusted,
    /// Sandboxed commands and in-root edits run; an escalation asks (the TUI default).
    OnRequest,
    /// Never asks; an escalation is refused (the `exec` default without `--approve all`).
    Never,
}

impl ApprovalPolicy {
    /// The config spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalPolicy::Untrusted => "untrusted",
            ApprovalPolicy::OnRequest => "on-request",
            ApprovalPolicy::Never => "never",
        }
    }

    /// Parses the config spelling.
    pub fn parse(s: &str) -> Option<ApprovalPolicy> {
        match s {
            "untrusted" => Some(ApprovalPolicy::Untrusted),
            "on-request" => Some(ApprovalPolicy::OnRequest),
            "never" => Some(ApprovalPolicy::Never),
            _ => None,
        }
    }
}
