//! The session event and message vocabulary (SPEC §4, reference E-1…E-6, D-1…D-6).
//!
//! Plain serde data with no behaviour; everything else in the crate depends on it.
//! Field names are camelCase on disk.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Current session log format.
pub const LOG_FORMAT: u32 = 1;

/// One line of the JSONL session log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// Type tag and payload (`type` and `data` on disk).
    #[serde(flatten)]
    pub kind: EventKind,
    /// Contiguous index from 0.
    pub seq: u64,
    /// RFC 3339 timestamp.
    pub time: String,
    /// Surface operation; present exactly on surface events (E-2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface_op: Option<SurfaceOp>,
    /// Shadowed surface nodes cited by a replacement (E-2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_event_seqs: Option<Vec<u64>>,
}

/// How a surface event changes the surface (E-2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SurfaceOp {
    /// The literal string `"append"`.
    Append(AppendTag),
    /// `{op: "replace", startSeq, endSeq}`: shadows a contiguous range of surface nodes.
    Replace(ReplaceOp),
}

impl SurfaceOp {
    /// The `append` operation.
    pub fn append() -> Self {
        SurfaceOp::Append(AppendTag::Append)
    }
    /// A replacement of the surface nodes whose event seqs lie in `start..=end`.
    pub fn replace(start_seq: u64, end_seq: u64) -> Self {
        SurfaceOp::Replace(ReplaceOp {
            op: ReplaceTag::Replace,
            start_seq,
            end_seq,
        })
    }
}

/// The string tag `"append"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AppendTag {
    /// `"append"`.
    Append,
}

/// The string tag `"replace"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReplaceTag {
    /// `"replace"`.
    Replace,
}

/// A replacement surface operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplaceOp {
    /// Always `replace`.
    pub op: ReplaceTag,
    /// Event seq of the first shadowed surface node.
    pub start_seq: u64,
    /// Event seq of the last shadowed surface node (inclusive).
    pub end_seq: u64,
}

/// Event type and payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "data")]
pub enum EventKind {
    /// Always seq 0.
    #[serde(rename = "session/start")]
    SessionStart(SessionStart),
    /// A turn begins with a user submission.
    #[serde(rename = "turn/start")]
    TurnStart(TurnRef),
    /// A turn ends.
    #[serde(rename = "turn/end")]
    TurnEnd(TurnEnd),
    /// A step (one model request) begins.
    #[serde(rename = "step/start")]
    StepStart(StepRef),
    /// A step ends.
    #[serde(rename = "step/end")]
    StepEnd(StepRef),
    /// A system prompt node.
    #[serde(rename = "system/message")]
    SystemMessage(StepMessage),
    /// A user message (also the compaction checkpoint).
    #[serde(rename = "user/message")]
    UserMessage(UserMessageData),
    /// A developer message (tool-registry changes, E-5).
    #[serde(rename = "developer/message")]
    DeveloperMessage(DeveloperMessageData),
    /// The settled assistant message of one attempt.
    #[serde(rename = "assistant/message")]
    AssistantMessage(AssistantMessageData),
    /// A failed model attempt (kept for the Trajectory).
    #[serde(rename = "assistant/attempt")]
    AssistantAttempt(AssistantAttempt),
    /// The loop is about to execute a tool call.
    #[serde(rename = "tool/call")]
    ToolCall(ToolCallData),
    /// A tool result message.
    #[serde(rename = "tool/result")]
    ToolResult(ToolResultData),
    /// The active request header (E-3).
    #[serde(rename = "request/header")]
    RequestHeader(RequestHeaderData),
    /// The route of the following requests (E-4 plus `toolUpdate`).
    #[serde(rename = "request/context")]
    RequestContext(RequestContext),
    /// An MCP server lifecycle change.
    #[serde(rename = "mcp/status")]
    McpStatus(McpStatus),
    /// Compaction begins.
    #[serde(rename = "compaction/start")]
    CompactionStart(CompactionStart),
    /// The summary a compaction produced.
    #[serde(rename = "compaction/summary")]
    CompactionSummary(CompactionSummary),
    /// Compaction ends.
    #[serde(rename = "compaction/end")]
    CompactionEnd(CompactionEnd),
    /// A checkpoint before a turn first changed the workspace (SPEC §14.3).
    #[serde(rename = "checkpoint/taken")]
    CheckpointTaken(crate::session::checkpoint_event::CheckpointTaken),
    /// The workspace as a checkpointed turn left it.
    #[serde(rename = "checkpoint/settled")]
    CheckpointSettled(crate::session::checkpoint_event::CheckpointSettled),
    /// A turn's file changes were put back.
    #[serde(rename = "checkpoint/undo")]
    CheckpointUndo(crate::session::checkpoint_event::CheckpointUndo),
    /// The session went back to before a prompt (SPEC §14.3).
    #[serde(rename = "session/rewind")]
    SessionRewind(crate::session::checkpoint_event::SessionRewind),
    /// One hook ran (SPEC §14.4; additive, see `session::hook_event`).
    #[serde(rename = "hook/run")]
    HookRun(crate::session::hook_event::HookRunData),
}

impl EventKind {
    /// The wire name of this event type.
    pub fn type_name(&self) -> &'static str {
        match self {
            EventKind::SessionStart(_) => "session/start",
            EventKind::TurnStart(_) => "turn/start",
            EventKind::TurnEnd(_) => "turn/end",
            EventKind::StepStart(_) => "step/start",
            EventKind::StepEnd(_) => "step/end",
            EventKind::SystemMessage(_) => "system/message",
            EventKind::UserMessage(_) => "user/message",
            EventKind::DeveloperMessage(_) => "developer/message",
            EventKind::AssistantMessage(_) => "assistant/message",
            EventKind::AssistantAttempt(_) => "assistant/attempt",
            EventKind::ToolCall(_) => "tool/call",
            EventKind::ToolResult(_) => "tool/result",
            EventKind::RequestHeader(_) => "request/header",
            EventKind::RequestContext(_) => "request/context",
            EventKind::McpStatus(_) => "mcp/status",
            EventKind::CompactionStart(_) => "compaction/start",
            EventKind::CompactionSummary(_) => "compaction/summary",
            EventKind::CompactionEnd(_) => "compaction/end",
            EventKind::CheckpointTaken(_) => "checkpoint/taken",
            EventKind::CheckpointSettled(_) => "checkpoint/settled",
            EventKind::CheckpointUndo(_) => "checkpoint/undo",
            EventKind::SessionRewind(_) => "session/rewind",
            EventKind::HookRun(_) => "hook/run",
        }
    }

    /// Whether this type is a surface event (must carry `surfaceOp`, E-2).
    pub fn is_surface(&self) -> bool {
        matches!(
            self,
            EventKind::SystemMessage(_)
                | EventKind::UserMessage(_)
                | EventKind::DeveloperMessage(_)
                | EventKind::AssistantMessage(_)
                | EventKind::ToolResult(_)
        )
    }

    /// The message carried by a surface event.
    pub fn message(&self) -> Option<&Message> {
        match self {
            EventKind::SystemMessage(d) => Some(&d.message),
            EventKind::UserMessage(d) => Some(&d.message),
            EventKind::DeveloperMessage(d) => Some(&d.message),
            EventKind::AssistantMessage(d) => Some(&d.message),
            EventKind::ToolResult(d) => Some(&d.message),
            _ => None,
        }
    }
}

/// `session/start` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionStart {
    /// Log format version ([`LOG_FORMAT`]).
    pub format: u32,
    /// Session id (also the file stem).
    pub id: String,
    /// Working directory the session was started in.
    pub cwd: String,
    /// deepterm version that created the log.
    pub app_version: String,
    /// The session this one was forked from (`/fork`, `--fork`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<crate::session::checkpoint_event::ForkOrigin>,
}

/// `{turn}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnRef {
    /// Turn number, from 1.
    pub turn: u64,
}

/// How a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TurnOutcome {
    /// The model stopped without tool calls.
    Completed,
    /// The user cancelled.
    Cancelled,
    /// A non-retryable error (or retries exhausted).
    Error,
}

/// `turn/end` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnEnd {
    /// Turn number.
    pub turn: u64,
    /// How it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<TurnOutcome>,
}

/// `{turn, step}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRef {
    /// Turn number.
    pub turn: u64,
    /// Step number within the turn, from 1.
    pub step: u64,
}

/// `{turn, step, message}` (system messages).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepMessage {
    /// Turn number (0 before the first turn).
    pub turn: u64,
    /// Step number.
    pub step: u64,
    /// The message.
    pub message: Message,
}

/// `user/message` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserMessageData {
    /// The message.
    pub message: Message,
}

/// `developer/message` payload (E-5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeveloperMessageData {
    /// Turn number.
    pub turn: u64,
    /// Step number.
    pub step: u64,
    /// The developer message.
    pub message: Message,
    /// Seq of the `request/header` whose tools define the additions (E-11…E-13).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_seq: Option<u64>,
}

/// Token usage of one request. `input_tokens` excludes cache reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Uncached input tokens.
    pub input_tokens: u64,
    /// Input tokens read from the provider's prefix cache.
    pub cache_read_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
}

impl Usage {
    /// Cache-hit percentage, rounded: cache-read ÷ (uncached + cache-read); `None` with no
    /// input. The one definition the Trajectory, the footer and `/status` show.
    pub fn hit_percent(&self) -> Option<u64> {
        // In u128: a log may hold any count, and the products must not overflow.
        let total = u128::from(self.input_tokens) + u128::from(self.cache_read_tokens);
        let pct = (u128::from(self.cache_read_tokens) * 100 + total / 2).checked_div(total)?;
        Some(pct as u64)
    }

    /// Total prompt tokens (uncached + cache read). Saturating, as every sum of usage is:
    /// a log may hold any number.
    pub fn total_input(&self) -> u64 {
        self.input_tokens.saturating_add(self.cache_read_tokens)
    }
    /// Adds another usage field by field.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.cache_read_tokens = self
            .cache_read_tokens
            .saturating_add(other.cache_read_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
    }
}

/// Timing of one request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Timing {
    /// Time to first streamed event, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<u64>,
    /// Whole request duration, milliseconds.
    pub duration_ms: u64,
}

/// `assistant/message` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssistantMessageData {
    /// Turn number.
    pub turn: u64,
    /// Step number.
    pub step: u64,
    /// The assistant message.
    pub message: Message,
    /// Usage reported by the provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Timing measured by the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
    /// True when the stream was cancelled; the message holds what arrived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<bool>,
}

/// A failed attempt's error, as shown in the Trajectory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttemptError {
    /// Stable error code (`auth`, `quota`, `invalid_request`, `rate_limit`, `server`, `transport`, …).
    pub code: String,
    /// HTTP status, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The provider's message, verbatim (never contains the API key).
    pub message: String,
    /// Whether the loop retried after this attempt.
    #[serde(default)]
    pub retried: bool,
}

/// `assistant/attempt` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssistantAttempt {
    /// Turn number.
    pub turn: u64,
    /// Step number.
    pub step: u64,
    /// What went wrong.
    pub error: AttemptError,
}

/// `tool/call` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallData {
    /// Turn number.
    pub turn: u64,
    /// Step number.
    pub step: u64,
    /// The model's call id.
    pub call_id: String,
    /// Tool name as the model called it.
    pub name: String,
    /// Arguments as the raw JSON string the model produced.
    pub arguments: String,
}

/// `tool/result` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultData {
    /// Turn number.
    pub turn: u64,
    /// Step number.
    pub step: u64,
    /// The tool message (role `tool`, `toolCallId` set).
    pub message: Message,
    /// Error text when the call failed (also in the message content).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Why a `request/header` was written (E-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HeaderReason {
    /// First header of the log.
    Initial,
    /// First request of a new loop instance over a log that has headers.
    Resume,
    /// The header differs from the previous one.
    Change,
    /// Unchanged header that begins a new message series.
    Series,
}

/// Call configuration recorded in a header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallConfig {
    /// Provider name from config.
    pub provider: String,
    /// Model id.
    pub model: String,
    /// Reasoning effort, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<String>,
    /// Temperature, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Max output tokens, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Stop sequences, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Vec<String>>,
}

/// Markers for adapter defaults that are part of header identity (D-8).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdapterDefaults {
    /// The reasoning effort came from the adapter's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<bool>,
    /// `max_tokens` came from the adapter's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<bool>,
}

/// A tool declaration (D-1). `deferLoading` is absent or literally `true`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolSchema {
    /// Model-facing name.
    pub name: String,
    /// Description shown to the model.
    pub description: String,
    /// JSON Schema of the arguments (an object).
    pub parameters: Value,
    /// Declared but not offered until a `tool-addition` names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defer_loading: Option<bool>,
}

impl ToolSchema {
    /// Whether `deferLoading` is literally `true`.
    pub fn is_deferred(&self) -> bool {
        self.defer_loading == Some(true)
    }
}

/// The canonical request header (E-3, D-8).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestHeader {
    /// Call configuration.
    pub config: CallConfig,
    /// Adapter default markers; omitted when no marker is true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adapter_defaults: Option<AdapterDefaults>,
    /// Active tools in assembled order; omitted when empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<ToolSchema>>,
}

/// `request/header` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestHeaderData {
    /// The header.
    pub header: RequestHeader,
    /// Why it was written.
    pub reason: HeaderReason,
    /// Marks a series start coinciding with another reason (only ever `true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starts_series: Option<bool>,
}

/// How a route accepts mid-conversation tool changes (D-7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolUpdateMode {
    /// Additions and removals stay in history.
    InHistory,
    /// Additions of deferred tools only; removals rewrite history.
    AdditionOnly,
}

impl ToolUpdateMode {
    /// The config/wire spelling.
    pub fn as_str(&self) -> &'static str {
        match self {
            ToolUpdateMode::InHistory => "in-history",
            ToolUpdateMode::AdditionOnly => "addition-only",
        }
    }
}

/// What an `addition-only` route does with a removed tool (SPEC §13 "Config").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolRemoval {
    /// Drop its declaration and earlier addition (P-6; the default).
    #[default]
    Omit,
    /// Keep its declaration and earlier addition, so the request prefix is unchanged.
    Retain,
}

impl ToolRemoval {
    /// The config/log spelling.
    pub fn as_str(&self) -> &'static str {
        match self {
            ToolRemoval::Omit => "omit",
            ToolRemoval::Retain => "retain",
        }
    }

    /// Whether this is the default (`omit`); the log leaves the default out.
    pub fn is_omit(&self) -> bool {
        *self == ToolRemoval::Omit
    }
}

/// How a route accepts mid-conversation system prompt changes (D-7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SystemPromptUpdate {
    /// The latest system message anywhere is the effective prompt.
    InHistory,
}

/// `request/context` payload (E-4 plus `toolUpdate`, SPEC §12.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestContext {
    /// Provider name.
    pub provider: String,
    /// Model id.
    pub model: String,
    /// Context window in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// Prompt update mode of the route.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt_update: Option<SystemPromptUpdate>,
    /// Tool update mode of the route.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_update: Option<ToolUpdateMode>,
    /// `tool_removal` of the route; omitted when `omit` (older logs have none).
    #[serde(default, skip_serializing_if = "ToolRemoval::is_omit")]
    pub tool_removal: ToolRemoval,
    /// Wire protocol of the route (`deepseek-messages` / `openai-chat`), so a request
    /// can be rebuilt without the config. Absent in logs written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// The reasoning effort the request was sent with (SPEC §14.4); absent when none was
    /// set (the provider's default) and in logs written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<super::effort::Effort>,
}

/// MCP server connection state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum McpState {
    /// Starting or reconnecting.
    Connecting,
    /// Connected; tools registered.
    Connected,
    /// Disconnected (by the user, or crashed and about to reconnect).
    Disconnected,
    /// Gave up.
    Failed,
}

/// `mcp/status` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpStatus {
    /// Configured server name.
    pub server: String,
    /// New state.
    pub state: McpState,
    /// Model-facing tool names registered for this server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Last error (English, as the tracing log has it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The same error as a message, shown in the interface language (decision 0090).
    /// Older logs have none: `error` is shown then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Box<crate::i18n::Text>>,
}

/// `compaction/start` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionStart {
    /// Whether the user asked (`manual`) or the context filled up (`auto`).
    pub trigger: CompactionTrigger,
    /// First shadowed surface event seq.
    pub start_seq: u64,
    /// Last shadowed surface event seq.
    pub end_seq: u64,
}

// The compaction trigger and outcome are closed enums, like every other enum in the log
// (`TurnOutcome`, `McpState`, `Role`), not `Other(String)` fallbacks: an unknown value
// means a newer writer changed the format, and the compaction logic depends on these
// values (only a `completed` compaction resets the auto-compaction check). A loader that
// guessed would act on a log it does not understand, so it stops instead, and the store's
// error names the line and the value ("unknown variant `x`, expected `manual` or `auto`").

/// Why a compaction ran (`compaction/start.trigger`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CompactionTrigger {
    /// The user asked (`/compact`).
    Manual,
    /// The context window filled up.
    Auto,
}

impl CompactionTrigger {
    /// The value as written in the log (`manual`, `auto`).
    pub fn as_str(&self) -> &'static str {
        match self {
            CompactionTrigger::Manual => "manual",
            CompactionTrigger::Auto => "auto",
        }
    }
}

/// How a compaction ended (`compaction/end.outcome`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CompactionOutcome {
    /// The summary replaced the region.
    Completed,
    /// No summary; the history is untouched.
    Failed,
}

impl CompactionOutcome {
    /// The value as written in the log (`completed`, `failed`).
    pub fn as_str(&self) -> &'static str {
        match self {
            CompactionOutcome::Completed => "completed",
            CompactionOutcome::Failed => "failed",
        }
    }
}

/// `compaction/summary` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompactionSummary {
    /// The summary text.
    pub text: String,
    /// Usage of the summarizer request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// `compaction/end` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompactionEnd {
    /// `completed` or `failed`.
    pub outcome: CompactionOutcome,
    /// Error text when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Message role (D-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// System prompt.
    System,
    /// Developer (tool-registry) message.
    Developer,
    /// User.
    User,
    /// Assistant.
    Assistant,
    /// Tool result.
    Tool,
}

/// Where a message came from (D-5): `{kind, …}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// `system-prompt`, `tool-registry`, `user`, `model`, `tool`, `compaction`, …
    pub kind: String,
    /// Any other fields, kept losslessly.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Source {
    /// A source with only a kind.
    pub fn kind(kind: &str) -> Self {
        Source {
            kind: kind.to_string(),
            extra: Map::new(),
        }
    }
}

/// A durable message (D-5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// Stable id (UUID string).
    pub id: String,
    /// Role.
    pub role: Role,
    /// Content blocks.
    pub content: Vec<Block>,
    /// Producer.
    pub source: Source,
    /// Tool messages: the call this answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Tool messages: the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
}

/// Source kind of the developer note that tells the model its sandbox mode changed
/// (`/mode`, Shift+Tab; SPEC §14.2). Unlike a tool change it is meant for every route: the
/// projection keeps it where it drops tool-change messages (decision 0060).
pub const MODE_NOTE_SOURCE: &str = "sandbox-mode";

impl Message {
    /// Whether this is a text-only mode note ([`MODE_NOTE_SOURCE`]), the one kind of
    /// developer message every route receives.
    pub fn is_mode_note(&self) -> bool {
        self.role == Role::Developer
            && self.source.kind == MODE_NOTE_SOURCE
            && !self.content.is_empty()
            && self.content.iter().all(|b| matches!(b, Block::Text { .. }))
    }

    /// A message with a fresh UUID id.
    pub fn new(role: Role, content: Vec<Block>, source: Source) -> Self {
        Message {
            id: uuid::Uuid::new_v4().to_string(),
            role,
            content,
            source,
            tool_call_id: None,
            is_error: None,
        }
    }

    /// A message holding one text block.
    pub fn text(role: Role, text: impl Into<String>, source: Source) -> Self {
        Message::new(role, vec![Block::text(text)], source)
    }

    /// What the user typed: the first text block when `@` mentions attached files (each
    /// attachment is a further text block, listed in `source.attachments`), else all text.
    pub fn typed_text(&self) -> String {
        if self.source.extra.contains_key("attachments") {
            return self
                .content
                .iter()
                .find_map(|b| match b {
                    Block::Text { text } => Some(text.clone()),
                    _ => None,
                })
                .unwrap_or_default();
        }
        self.joined_text()
    }

    /// All text blocks joined (for display and the system prompt).
    pub fn joined_text(&self) -> String {
        let len = self
            .content
            .iter()
            .map(|b| match b {
                Block::Text { text } => text.len(),
                _ => 0,
            })
            .sum();
        let mut out = String::with_capacity(len);
        for b in &self.content {
            if let Block::Text { text } = b {
                out.push_str(text);
            }
        }
        out
    }

    /// Tool calls in this message, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = (&str, &str, &str)> {
        self.content.iter().filter_map(|b| match b {
            Block::ToolCall {
                id,
                name,
                arguments,
            } => Some((id.as_str(), name.as_str(), arguments.as_str())),
            _ => None,
        })
    }
}

/// A content block (SPEC §4, D-3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Block {
    /// Plain text.
    #[serde(rename = "text")]
    Text {
        /// The text.
        text: String,
    },
    /// Model reasoning, replayed unchanged with its signature.
    #[serde(rename = "reasoning")]
    Reasoning {
        /// Reasoning text.
        text: String,
        /// Provider signature.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    /// A tool call made by the assistant.
    #[serde(rename = "tool-call")]
    ToolCall {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments as the raw JSON string.
        arguments: String,
    },
    /// Activates a tool defined by the referenced header (developer messages only).
    #[serde(rename = "tool-addition", rename_all = "camelCase")]
    ToolAddition {
        /// Tool name.
        tool_name: String,
        /// Reserved; must be absent (E-10). Kept so validation can name the error.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool: Option<Value>,
    },
    /// Deactivates a tool (developer messages only).
    #[serde(rename = "tool-removal", rename_all = "camelCase")]
    ToolRemoval {
        /// Tool name.
        tool_name: String,
    },
}

impl Block {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Block::Text { text: text.into() }
    }
    /// A `tool-addition` block.
    pub fn addition(name: impl Into<String>) -> Self {
        Block::ToolAddition {
            tool_name: name.into(),
            tool: None,
        }
    }
    /// A `tool-removal` block.
    pub fn removal(name: impl Into<String>) -> Self {
        Block::ToolRemoval {
            tool_name: name.into(),
        }
    }
    /// Whether this is a tool-addition or tool-removal block.
    pub fn is_tool_change(&self) -> bool {
        matches!(self, Block::ToolAddition { .. } | Block::ToolRemoval { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e1_event_round_trips_with_type_and_data() {
        let ev = Event {
            kind: EventKind::DeveloperMessage(DeveloperMessageData {
                turn: 1,
                step: 2,
                message: Message::new(
                    Role::Developer,
                    vec![Block::addition("fetch")],
                    Source::kind("tool-registry"),
                ),
                header_seq: Some(4),
            }),
            seq: 5,
            time: "2026-01-01T00:00:00Z".into(),
            surface_op: Some(SurfaceOp::append()),
            source_event_seqs: None,
        };
        let line = serde_json::to_string(&ev).unwrap();
        assert!(
            line.starts_with(r#"{"type":"developer/message","data":{"#),
            "{line}"
        );
        assert!(line.contains(r#""surfaceOp":"append""#));
        assert!(line.contains(r#"{"type":"tool-addition","toolName":"fetch"}"#));
        let back: Event = serde_json::from_str(&line).unwrap();
        assert_eq!(back, ev);
    }

    #[test]
    fn e2_replace_surface_op_shape() {
        let op = SurfaceOp::replace(3, 9);
        let s = serde_json::to_string(&op).unwrap();
        assert_eq!(s, r#"{"op":"replace","startSeq":3,"endSeq":9}"#);
        assert_eq!(serde_json::from_str::<SurfaceOp>(&s).unwrap(), op);
    }
}
