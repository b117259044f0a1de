//! Provider-neutral request and stream vocabulary.

use std::sync::Arc;
use std::time::Duration;

use crate::session::event::{
    Block, SystemPromptUpdate, ToolRemoval, ToolSchema, ToolUpdateMode, Usage,
};
pub use crate::session::message_list::MessageList;
pub use crate::session::vocab::{ToolHistory, ToolHistoryUpdate};

/// Which wire protocol a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderKind {
    /// Anthropic-format Messages API (`{base}/v1/messages`).
    DeepseekMessages,
    /// OpenAI-format Chat Completions (`{base}/chat/completions`).
    OpenaiChat,
}

impl ProviderKind {
    /// The config spelling.
    pub fn as_str(&self) -> &'static str {
        match self {
            ProviderKind::DeepseekMessages => "deepseek-messages",
            ProviderKind::OpenaiChat => "openai-chat",
        }
    }

    /// Parses the config spelling.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "deepseek-messages" => Some(ProviderKind::DeepseekMessages),
            "openai-chat" => Some(ProviderKind::OpenaiChat),
            _ => None,
        }
    }
}

/// A resolved route: provider + model + capabilities (D-7, W-11).
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// Provider name from config (e.g. `deepseek`).
    pub provider: String,
    /// Model id (e.g. `deepseek-flash`).
    pub model: String,
    /// Wire protocol.
    pub kind: ProviderKind,
    /// Base URL (no trailing slash).
    pub base_url: String,
    /// Environment variable holding the API key.
    pub api_key_env: String,
    /// Context window in tokens.
    pub context_window: u64,
    /// In-history system prompt updates.
    pub system_prompt_update: Option<SystemPromptUpdate>,
    /// Mid-conversation tool update mode.
    pub tool_update: Option<ToolUpdateMode>,
    /// What an `addition-only` route does with a removed tool (`omit` unless configured).
    pub tool_removal: ToolRemoval,
    /// Accepts image input.
    pub image_input: bool,
    /// Most tools one request may declare (the catalog's `max_tools`).
    pub max_tools: usize,
    /// Prices in USD per million tokens, when known (`None` shows no cost).
    pub prices: Option<Prices>,
}

impl Route {
    /// `provider/model`.
    pub fn id(&self) -> String {
        format!("{}/{}", self.provider, self.model)
    }
}

/// What a request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Purpose {
    /// An ordinary loop step.
    #[default]
    Step,
    /// The compaction summarizer.
    Compaction,
}

/// Thinking (reasoning) setting of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Thinking {
    /// Provider default (DeepSeek: enabled).
    #[default]
    Default,
    /// `thinking: {type: enabled}`.
    Enabled,
    /// `thinking: {type: disabled}`.
    Disabled,
}

impl Thinking {
    /// The `thinking` body field both DeepSeek routes take (`None` = leave it out).
    pub fn wire_value(&self) -> Option<serde_json::Value> {
        match self {
            Thinking::Default => None,
            Thinking::Enabled => Some(serde_json::json!({"type": "enabled"})),
            Thinking::Disabled => Some(serde_json::json!({"type": "disabled"})),
        }
    }
}

/// Everything an adapter needs for one request (SPEC §7).
///
/// `messages` and `tools` are the unprojected values; the runtime projects them for the
/// route just before the adapter serializes.
#[derive(Debug, Clone)]
pub struct GenerateOptions {
    /// Route to send to.
    pub route: Route,
    /// Request messages derived from the session surface (a shared snapshot).
    pub messages: MessageList,
    /// Current active tools (the header's tools); `None` when there are none.
    pub tools: Option<Vec<ToolSchema>>,
    /// Fold snapshot; `None` = send complete declarations without updates.
    pub tool_history: Option<Arc<ToolHistory>>,
    /// One-shot system text placed before the first system message (W-7).
    pub system: Option<String>,
    /// Max output tokens.
    pub max_tokens: u32,
    /// Thinking setting.
    pub thinking: Thinking,
    /// `low` / `high` / `max`.
    pub effort: Option<String>,
    /// Temperature.
    pub temperature: Option<f64>,
    /// Stop sequences.
    pub stop: Option<Vec<String>>,
    /// What the request is for.
    pub purpose: Purpose,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// Finished normally.
    EndTurn,
    /// Wants tool results.
    ToolUse,
    /// Hit `max_tokens`.
    MaxTokens,
    /// Hit a stop sequence.
    StopSequence,
    /// Anything else the provider said, verbatim.
    Other(String),
}

/// A transient stream event for live display (not durable; `exec --json` prints it).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum StreamEvent {
    /// The first event of the response arrived (TTFT).
    FirstByte,
    /// Reasoning text delta.
    ReasoningDelta(String),
    /// Answer text delta.
    TextDelta(String),
    /// A tool call block started.
    ToolCallStart {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
    },
    /// A fragment of a tool call's JSON arguments.
    ToolArgsDelta {
        /// Call id.
        id: String,
        /// JSON fragment.
        fragment: String,
    },
    /// Usage so far (latest value per field).
    Usage(Usage),
}

/// The settled result of one successful request.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// Content blocks in order (reasoning with signature, text, tool calls).
    pub content: Vec<Block>,
    /// Why the model stopped.
    pub stop_reason: StopReason,
    /// Usage (input excludes cache reads); `None` when the provider reported one that
    /// cannot be true (`llm::usage`, decision 0028): unknown, and never acted on.
    pub usage: Option<Usage>,
    /// Provider request id, when the response carried one.
    pub request_id: Option<String>,
    /// Tool calls whose missing or duplicate ids the assembler replaced (decision 0009).
    pub id_repairs: Vec<crate::llm::tool_ids::ToolIdRepair>,
}

/// Stable error classes (SPEC §8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// 401/403.
    Auth,
    /// 402.
    Quota,
    /// 400/422.
    InvalidRequest,
    /// 400 mentioning the context length.
    ContextOverflow,
    /// 429.
    RateLimit,
    /// 5xx or an in-stream error.
    Server,
    /// Connection failures, cut streams, idle timeouts.
    Transport,
    /// The client cannot represent the content for this route (W-3…W-5).
    UnsupportedContent,
    /// The request violates a client-side invariant (W-8).
    InvalidContent,
    /// A malformed SSE frame or JSON.
    Malformed,
    /// The model returned no content.
    EmptyResponse,
    /// Cancelled by the user.
    Cancelled,
    /// No API key.
    MissingKey,
    /// A stream event or the whole reply exceeded its size cap (`[limits]`).
    TooLarge,
    /// The stream kept the connection alive but sent no content for too long.
    NoProgress,
}

impl ErrorCode {
    /// The stable snake_case code stored in `assistant/attempt`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorCode::Auth => "auth",
            ErrorCode::Quota => "quota",
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::ContextOverflow => "context_overflow",
            ErrorCode::RateLimit => "rate_limit",
            ErrorCode::Server => "server",
            ErrorCode::Transport => "transport",
            ErrorCode::UnsupportedContent => "unsupported_content",
            ErrorCode::InvalidContent => "invalid_content",
            ErrorCode::Malformed => "malformed",
            ErrorCode::EmptyResponse => "empty_response",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::MissingKey => "missing_key",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::NoProgress => "no_progress",
        }
    }

    /// Whether the retry policy retries this class.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            ErrorCode::RateLimit
                | ErrorCode::Server
                | ErrorCode::Transport
                | ErrorCode::EmptyResponse
                | ErrorCode::NoProgress
        )
    }
}

/// A provider or client error. `message` is the provider's text verbatim and never
/// contains the API key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{code:?}{}: {message}", status.map(|s| format!(" ({s})")).unwrap_or_default())]
pub struct LlmError {
    /// Class.
    pub code: ErrorCode,
    /// HTTP status, when there was one.
    pub status: Option<u16>,
    /// Human-readable message (provider text verbatim where there is one).
    pub message: String,
    /// Server-requested delay before retrying.
    pub retry_after: Option<Duration>,
}

impl LlmError {
    /// An error without status or retry hint.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        LlmError {
            code,
            status: None,
            message: message.into(),
            retry_after: None,
        }
    }
}

/// What a model costs, in USD per million tokens: cache-hit input, cache-miss
/// input and output, as DeepSeek publishes them.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Prices {
    /// Input tokens read from the prefix cache.
    pub input_hit: f64,
    /// Uncached input tokens.
    pub input_miss: f64,
    /// Output tokens.
    pub output: f64,
}

// Prices are finite and non-negative (the catalog's constants and validated config values),
// never NaN, so equality is reflexive.
impl Eq for Prices {}

impl Prices {
    /// The cost in USD of a request with usage `u`: cache-read tokens at the hit price,
    /// uncached input at the miss price, output at the output price.
    pub fn cost(&self, u: &Usage) -> f64 {
        (u.cache_read_tokens as f64 * self.input_hit
            + u.input_tokens as f64 * self.input_miss
            + u.output_tokens as f64 * self.output)
            / 1_000_000.0
    }

    /// What the cache saved on a request with usage `u`, in USD: its cache-read tokens at
    /// the miss price minus what they cost at the hit price.
    pub fn cache_saving(&self, u: &Usage) -> f64 {
        (self.input_miss - self.input_hit).max(0.0) * u.cache_read_tokens as f64 / 1_000_000.0
    }
}
