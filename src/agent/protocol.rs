//! Messages between the UI (or `exec`) and the agent loop (SPEC §1): plain serde data
//! with no behaviour. `exec --json` prints [`AgentEvent`]s in this serde form, one per
//! line. Texts the user reads travel as Fluent ids with arguments and are rendered when
//! drawn, so a language switch re-renders them.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::agent::command_spec::{Command, ParseError};
use crate::agent::inspect::data::InspectorData;
use crate::i18n::{Arg, Locale, Text};
use crate::llm::types::StreamEvent;
use crate::session::event::{
    Capabilities, Event, Prices, SystemPromptUpdate, ToolUpdateMode, Usage,
};

/// UI → agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum AgentCommand {
    /// A submission: plain text is a user message, `/…` a slash command (`exec` script
    /// lines; the TUI sends its commands typed, [`AgentCommand::Run`]).
    Submit(String),
    /// A slash command, parsed once by the sender ([`Command::parse`]) or built from an
    /// intent (the resume picker's choice).
    Run(Command),
    /// A command line whose arguments do not fit: the loop answers it as it answers the
    /// same line from `exec` (the usage, or what the command needs and lacks).
    Invalid(ParseError),
    /// A user message, never a command even when it starts with `/`: a draft whose
    /// leading `/` was pasted (a stack trace, a path; §14.5).
    Message(String),
    /// Switch the interface language and save the choice (F2; `/lang` does the same).
    /// While a turn runs it waits like a submission.
    SetLocale(Locale),
    /// Cancel the running step (stream and tool calls).
    Cancel,
    /// Answer an approval request.
    Approve {
        /// The tool call being answered.
        call_id: String,
        /// The user's decision.
        decision: ApprovalDecision,
    },
    /// Deny an approval request with the user's one-line reason, which the model gets
    /// with the denial (§14.5).
    DenyWithReason {
        /// The tool call being answered.
        call_id: String,
        /// Why (already one line).
        reason: String,
    },
    /// Open the request inspector: `Some(n)` = past request `n` (Trajectory numbering)
    /// next to request `n - 1`; `None` = the next request next to the last one sent.
    /// While a turn runs it waits like a submission and is answered when the loop is idle.
    Inspect {
        /// Which request.
        request: Option<usize>,
    },
    /// Open the request inspector on a subagent's request (the Trajectory's
    /// `T3.S2·a1.S1` row): step `step` of subagent `agent`, rebuilt from its log inside
    /// the parent's, next to the request before it in that log (SPEC §15.3). Waits like
    /// [`AgentCommand::Inspect`].
    InspectSubagent {
        /// The subagent's id (`a1`).
        agent: String,
        /// Its step.
        step: u64,
    },
    /// Switch the sandbox mode (Shift+Tab; `/mode` does the same). While a turn runs it
    /// waits like a submission.
    SetMode(crate::sandbox::AgentMode),
    /// The `/resume` picker of listing `listing` was closed while the listing was still
    /// being read: its reader stops at its next batch.
    StopListing {
        /// The listing's id (`AgentEvent::Sessions::listing`).
        listing: u64,
    },
    /// The user's answer to a server's elicitation (SPEC §15.2). Passed on at once, also
    /// while a turn runs (the turn is usually waiting on the very call that asked).
    Elicit {
        /// `ElicitationRequest::id`.
        id: u64,
        /// Accept (with the form's content), decline or cancel.
        answer: crate::tools::mcp::elicit::ElicitAnswer,
    },
    /// Stop the loop and release the session.
    Shutdown,
}

/// Answer to an approval prompt (`y`, `a`, `n`/`Esc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    /// Allow this call.
    Allow,
    /// Allow this and every later call of the same tool in this session.
    AlwaysAllow,
    /// Deny; the model gets a tool error.
    Deny,
}

/// What the current turn is doing (status line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnPhase {
    /// No turn running.
    #[default]
    Idle,
    /// Request sent, nothing received yet.
    Waiting,
    /// Receiving reasoning.
    Thinking,
    /// Receiving the answer.
    Responding,
    /// Executing tool calls.
    RunningTools,
    /// A tool call waits for the user's approval; the turn's clock is paused.
    /// Back to `RunningTools` once answered.
    AwaitingApproval,
    /// Summarizing for compaction.
    Compacting,
    /// Waiting for an MCP server's prompt or resource before anything is sent (Esc
    /// cancels the wait).
    AskingServer,
}

/// Severity of a notice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeLevel {
    /// Informational.
    Info,
    /// Something the user should look at.
    Warn,
    /// Something failed.
    Error,
}

/// A localized one-line notice, rendered at draw time so a language switch re-renders it.
/// Provider and wire texts travel verbatim inside `args`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notice {
    /// Severity.
    pub level: NoticeLevel,
    /// Fluent message id.
    pub key: String,
    /// Arguments.
    pub args: Vec<(String, Arg)>,
}

impl Notice {
    /// A notice with arguments.
    pub fn new(level: NoticeLevel, key: &str, args: Vec<(&str, Arg)>) -> Self {
        Notice {
            level,
            key: key.to_string(),
            args: args.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        }
    }
}

/// One line of a slash command's output (`/help`, `/tools`, `/mcp`, `/resume`): a Fluent
/// id with arguments, rendered when drawn. Data shown as is (a session list row) uses
/// [`OUTPUT_VERBATIM`] with one `text` argument.
pub type OutputLine = Text;

/// Fluent id of an output line that is pure data (its `text` argument, verbatim).
pub const OUTPUT_VERBATIM: &str = "output-verbatim";

/// Fluent id of a two-column table row (`/help`): its `left` (a command and its
/// arguments) and `right` (what it does) arguments. Consecutive rows are one table: the
/// right column starts at one place and a wrapped description keeps to it (§14.5).
pub const OUTPUT_ROW: &str = "output-row";

/// A two-column table row (see [`OUTPUT_ROW`]).
pub fn output_row(left: Arg, right: Arg) -> OutputLine {
    Text::new(OUTPUT_ROW, vec![("left", left), ("right", right)])
}

/// The `left` and `right` cells of an [`OUTPUT_ROW`] line in `l`'s language.
pub fn row_cells(line: &OutputLine, l: crate::i18n::Localizer) -> Option<(String, String)> {
    if line.key != OUTPUT_ROW {
        return None;
    }
    let cell = |name: &str| {
        line.args
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| match v {
                Arg::Str(s) => s.clone(),
                Arg::Text(t) => l.text(t),
                Arg::Num(n) => n.to_string(),
                Arg::List(items) => l.join(items),
            })
            .unwrap_or_default()
    };
    Some((cell("left"), cell("right")))
}

/// The route shown in the footer: its id, what it supports, and whether it is the demo.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "RouteRecord", into = "RouteRecord")]
pub struct RouteInfo {
    /// `provider/model`.
    pub id: String,
    /// What the route supports (`exec --json` prints the context window, the update
    /// modes and the prices).
    pub caps: Capabilities,
    /// Demo mode (built-in simulator).
    pub demo: bool,
    /// The reasoning effort of the next request (`None` = the provider's default).
    pub effort: Option<crate::session::effort::Effort>,
}

/// [`RouteInfo`] as `exec --json` prints it.
#[derive(Serialize, Deserialize)]
struct RouteRecord {
    id: String,
    context_window: u64,
    tool_update: Option<ToolUpdateMode>,
    system_prompt_update: Option<SystemPromptUpdate>,
    demo: bool,
    // Costs are shown only with prices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    prices: Option<Prices>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    effort: Option<crate::session::effort::Effort>,
}

impl From<RouteRecord> for RouteInfo {
    fn from(r: RouteRecord) -> Self {
        RouteInfo {
            id: r.id,
            caps: Capabilities {
                tool_update: r.tool_update,
                system_prompt_update: r.system_prompt_update,
                prices: r.prices,
                ..Capabilities::plain(r.context_window)
            },
            demo: r.demo,
            effort: r.effort,
        }
    }
}

impl From<RouteInfo> for RouteRecord {
    fn from(r: RouteInfo) -> Self {
        RouteRecord {
            id: r.id,
            context_window: r.caps.context_window,
            tool_update: r.caps.tool_update,
            system_prompt_update: r.caps.system_prompt_update,
            demo: r.demo,
            prices: r.caps.prices,
            effort: r.effort,
        }
    }
}

/// What a call waiting for approval would do (SPEC §14.1: the card shows an edit's diff
/// before it is applied, and a command with its directory and whether it is sandboxed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ApprovalPreview {
    /// An edit: per file, what would change.
    Edit {
        /// The files, in the order the edit touches them.
        files: Vec<FileChange>,
    },
    /// A shell command.
    Shell {
        /// The command as it would run.
        command: String,
        /// Its working directory.
        workdir: String,
        /// Whether it would run inside the sandbox.
        sandboxed: bool,
        /// The model's justification, for an escalation.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        justification: Option<String>,
        /// The prefix `a` saves to `rules.toml` (`cargo test`), when it saves one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        always_prefix: Option<String>,
        /// The sandboxed attempt, when the question is whether to run it again outside
        /// the sandbox (SPEC §15.5).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        attempt: Option<crate::session::retry_event::SandboxAttempt>,
    },
}

/// One file of an edit: its path, line counts and unified diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    /// Path as shown (relative to the workspace when inside it).
    pub path: String,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// The unified diff.
    pub diff: String,
}

/// A retry in progress: which attempt comes next, of how many, why the last one failed,
/// and when the next starts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RetryStatus {
    /// The retry about to run (1-based).
    pub attempt: u32,
    /// Retries allowed.
    pub max: u32,
    /// Why the last attempt failed.
    pub cause: crate::llm::cause::Cause,
    /// Seconds until the retry starts.
    pub seconds: f64,
}

/// The sandbox mode and network setting, for the footer (SPEC §14.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxInfo {
    /// The current sandbox mode.
    pub mode: crate::sandbox::SandboxMode,
    /// Whether shell commands get network access.
    pub network: bool,
    /// The user's mode is `plan` (the sandbox is read-only; SPEC §15.3).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub plan: bool,
}

impl SandboxInfo {
    /// What `h` says now.
    pub fn of(h: &crate::sandbox::handle::SandboxHandle) -> SandboxInfo {
        SandboxInfo {
            mode: h.mode(),
            network: h.network,
            plan: h.plan,
        }
    }

    /// The user's mode: the sandbox mode, or `plan`.
    pub fn agent_mode(&self) -> crate::sandbox::AgentMode {
        if self.plan {
            crate::sandbox::AgentMode::Plan
        } else {
            self.mode.into()
        }
    }
}

/// One tool of a tool-change node: where it comes from and what it does (the node's
/// expansion shows both).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    /// Model-facing name.
    pub name: String,
    /// Source label (`built-in`, `command`, `MCP server fs`), rendered when drawn.
    pub source: Text,
    /// The declaration's description.
    pub description: String,
}

/// One saved session in the `/resume` picker: what the listing shows of it,
/// computed by the agent's environment from the log without loading it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionSummary {
    /// Session id (the log's file stem).
    pub id: String,
    /// Last modification, seconds since the Unix epoch.
    pub modified: i64,
    /// The first user message, on one line and shortened; `None` before the first one.
    pub first_prompt: Option<String>,
    /// User and assistant messages in the log.
    pub messages: usize,
    /// The log's size in bytes.
    pub bytes: u64,
    /// The workspace the session was started in (SPEC §14.4); absent in older listings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The parent session's id when this one is a fork (SPEC §14.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<String>,
    /// `messages` counts only the start of a long log: there are at least that many.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub messages_partial: bool,
}

/// One file of a `/diff`: its unified diff, or why there is none to show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DiffFile {
    /// A text file: its unified diff (with its `---`/`+++` header).
    Text {
        /// Path relative to the workspace.
        path: String,
        /// The unified diff.
        diff: String,
    },
    /// A binary file changed.
    Binary {
        /// Path relative to the workspace.
        path: String,
    },
    /// Over the checkpoint size cap: not kept, so not shown.
    NotKept {
        /// Path relative to the workspace.
        path: String,
    },
}

/// What `/diff` or `/diff N` shows: the title and the files, for the TUI's overlay
/// (SPEC §14.3; `exec` prints the same as a plain unified diff).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiffView {
    /// "This session changed 2 files:" / "Turn 3 changed 1 file:".
    pub title: Text,
    /// The files, in path order.
    pub files: Vec<DiffFile>,
}

/// One earlier prompt the rewind picker offers (SPEC §14.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptChoice {
    /// Its position among the prompts that still count (what `/rewind N` takes).
    pub n: usize,
    /// The prompt, on one line and shortened.
    pub prompt: String,
    /// Whether its turn changed files that were not put back.
    pub changed_files: bool,
}

/// Agent → UI (and `exec --json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum AgentEvent {
    /// The session is open.
    SessionOpened {
        /// Session id.
        id: String,
        /// Log file path.
        path: String,
        /// Every event already in the log (on resume), in order, rewound ones included:
        /// the UI folds the `session/rewind` events itself.
        history: Vec<Arc<Event>>,
    },
    /// An event was committed to the log.
    Committed(Arc<Event>),
    /// A transient stream delta of the running step.
    Stream {
        /// Turn number.
        turn: u64,
        /// Step number.
        step: u64,
        /// The delta.
        event: StreamEvent,
    },
    /// The turn phase changed.
    Phase(TurnPhase),
    /// The route changed (start, `/model`).
    Route(RouteInfo),
    /// The sandbox mode and network setting (start, `/mode`, Shift+Tab).
    Sandbox(SandboxInfo),
    /// A failed request will be retried: the status line shows it until the next attempt
    /// answers (§14.5; the transcript keeps nothing unless the turn finally fails).
    Retrying(RetryStatus),
    /// Cumulative session usage.
    SessionUsage(Usage),
    /// A localized one-line notice (errors, retries, command feedback).
    Notice(Notice),
    /// Multi-line output of a slash command (`/tools`, `/mcp`, `/help`), rendered when drawn.
    Output(Vec<OutputLine>),
    /// The loop needs a decision on a tool call.
    ApprovalRequest {
        /// Call id.
        call_id: String,
        /// Tool name.
        tool: String,
        /// Raw JSON arguments.
        arguments: String,
    },
    /// The call [`AgentEvent::ApprovalRequest`] asks about next is a subagent's
    /// (`inherit`, SPEC §15.3): the card and the prompt name it.
    ApprovalAsker {
        /// Call id.
        call_id: String,
        /// The subagent's id (`a1`).
        agent: String,
        /// Its `task` call's description.
        description: String,
    },
    /// Why a call asks and what `a` does on its card (SPEC §15.5), sent just before its
    /// [`AgentEvent::ApprovalRequest`]; `always` is `None` when the card offers no `a`.
    ApprovalWhy {
        /// Call id.
        call_id: String,
        /// Why it asks (the policy, a rule, an escalation, a shadowed tool, …).
        why: crate::i18n::Text,
        /// What `a` does, exactly.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        always: Option<crate::i18n::Text>,
    },
    /// What an approval would do, sent just before its [`AgentEvent::ApprovalRequest`]:
    /// an edit's diff, or where and how a command runs (SPEC §14.1).
    ApprovalPreview {
        /// Call id.
        call_id: String,
        /// The preview.
        preview: ApprovalPreview,
    },
    /// A running tool call's progress (an MCP server's `notifications/progress`, SPEC
    /// §15.2): its card shows it until the result.
    ToolProgress {
        /// Call id.
        call_id: String,
        /// Work done so far.
        progress: f64,
        /// The whole, when known.
        total: Option<f64>,
        /// What the tool says it is doing (capped; escaped when shown).
        message: Option<String>,
    },
    /// Number of submissions queued behind the running turn.
    Queued(usize),
    /// The user switched language (`/lang`); the UI re-renders.
    LocaleChanged(Locale),
    /// The custom commands read at start (SPEC §14.4), for the popup and key help to
    /// offer after the built-in table.
    CustomCommands(Vec<crate::agent::command_spec::OfferedCommand>),
    /// What the MCP servers offer besides tools (SPEC §15.2), sent again whenever it
    /// changes: their prompts as commands for the popup and key help, and `NAME:URI` of
    /// their resources for `@` completion.
    McpOffers {
        /// `/NAME:PROMPT` commands.
        prompts: Vec<crate::agent::command_spec::OfferedPrompt>,
        /// `NAME:URI` of each listed resource.
        resources: Vec<String>,
    },
    /// A turn finished (any outcome); `exec` uses this to run the next line.
    /// (The final text travels in the line's outcome, not here: a copy of a large reply
    /// per turn is what the exec memory benchmark measures.)
    TurnFinished,
    /// `/clear`: the UI empties Chat's view (the session is untouched; `exec` has no
    /// screen and says so).
    ClearScreen,
    /// A slash command that runs no turn finished.
    CommandFinished,
    /// The saved sessions, newest first, for the `/resume` picker (bare `/resume` in the
    /// TUI; `exec` prints a text list instead). `current` is the session open now. The
    /// list comes in batches as the logs are read: the first opens the
    /// picker, the next ones fill it in, the last one is `done`. Each `/resume` starts a
    /// new listing with a greater `listing` id; it supersedes any earlier one, whose reader
    /// stops and whose batches the UI drops.
    Sessions {
        /// Which listing this batch belongs to (greater = newer, per agent).
        listing: u64,
        /// The open session's id.
        current: String,
        /// The saved sessions of this batch, newest first.
        sessions: Vec<SessionSummary>,
        /// Whether the listing is complete (no batch follows).
        done: bool,
    },
    /// `/diff` in the TUI: the overlay's content (`exec` prints a unified diff instead).
    Diff(DiffView),
    /// Bare `/rewind` in the TUI (and Esc Esc): the earlier prompts for the picker, in
    /// conversation order (`exec` prints a list instead).
    RewindChoices(Vec<PromptChoice>),
    /// A rewind took the conversation back (SPEC §14.3): Chat and the Trajectory are
    /// rebuilt from `history` and `prompt` goes back into the composer.
    Rewound {
        /// Every event of the log, in order; the UI leaves out what its `session/rewind`
        /// events took back.
        history: Vec<Arc<Event>>,
        /// The prompt rewound to, for the composer.
        prompt: String,
    },
    /// The request inspector's data (`/inspect`, [`AgentCommand::Inspect`]).
    Inspector(Box<InspectorData>),
    /// The model set its plan (`update_plan`, SPEC §15.3): sent after the call's result is
    /// logged. `exec` prints it; the TUI folds the plan from the log itself (the same
    /// projection a resumed session uses), so this is the headless form of it.
    PlanUpdated(crate::tools::plan::Plan),
    /// An MCP server asks the user for input (SPEC §15.2): the TUI opens the form (or the
    /// URL question) and answers with `AgentCommand::Elicit`. Never sent by `exec`, which
    /// declines.
    Elicitation(crate::tools::mcp::elicit::ElicitationRequest),
    /// The loop stopped (after `/quit` or `Shutdown`).
    Exited,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exec_json_prints_the_route_with_its_window_modes_and_prices() {
        let info = RouteInfo {
            id: "deepseek/deepseek-flash".into(),
            caps: Capabilities {
                tool_update: Some(ToolUpdateMode::AdditionOnly),
                image_input: true,
                prices: Some(Prices {
                    input_hit: 0.5,
                    input_miss: 1.0,
                    output: 2.0,
                }),
                ..Capabilities::plain(1000)
            },
            demo: true,
            effort: None,
        };
        let json = serde_json::to_string(&info).unwrap();
        assert_eq!(
            json,
            r#"{"id":"deepseek/deepseek-flash","context_window":1000,"tool_update":"addition-only","system_prompt_update":null,"demo":true,"prices":{"input_hit":0.5,"input_miss":1.0,"output":2.0}}"#
        );
        let plain = RouteInfo {
            caps: Capabilities::plain(7),
            ..info
        };
        assert_eq!(
            serde_json::to_string(&plain).unwrap(),
            r#"{"id":"deepseek/deepseek-flash","context_window":7,"tool_update":null,"system_prompt_update":null,"demo":true}"#
        );
        let back: RouteInfo = serde_json::from_str(&json).unwrap();
        assert_eq!(back.caps.prices, info.caps.prices);
        assert_eq!(back.caps.tool_update, info.caps.tool_update);
    }
}
