//! The payloads of the session events that are not messages or route facts (E-3…E-6).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::message::Message;
use super::usage::{Timing, Usage};

/// `session/start` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionStart {
    /// Log format version (`LOG_FORMAT`).
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
    /// On the attempt the loop gave up after: the turn's error as a message (its cause in
    /// plain words and a hint where one fits, §14.5), shown in the interface language
    /// live and on resume. Older logs have none: `code` and `message` are shown then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Box<crate::i18n::Text>>,
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
    /// The model called it through the tool bridge's `call_tool` (SPEC §15.1): `name` and
    /// `arguments` are the real tool's. Absent otherwise (and in older logs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bridged: Option<bool>,
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
    /// A `shell` call the sandbox seemed to refuse: its sandboxed attempt and whether the
    /// user let it run again outside (SPEC §15.5). Not sent to the model.
    #[serde(
        default,
        rename = "sandboxRetry",
        skip_serializing_if = "Option::is_none"
    )]
    pub sandbox_retry: Option<crate::session::retry_event::SandboxRetry>,
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
    /// The same error as a message, shown in the interface language.
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
