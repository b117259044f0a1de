//! Provider-neutral request and stream vocabulary.

use std::sync::Arc;
use std::time::Duration;

use crate::session::event::{Block, RequestContext, ToolSchema, Usage};
pub use crate::session::event::{Capabilities, Prices};
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
    /// What the route supports.
    pub caps: Capabilities,
}

impl Route {
    /// `provider/model`.
    pub fn id(&self) -> String {
        format!("{}/{}", self.provider, self.model)
    }

    /// The `request/context` payload logging this route.
    pub fn context(&self) -> RequestContext {
        RequestContext::new(&self.provider, &self.model, self.kind.as_str(), &self.caps)
    }

    /// The route a logged context records: the single place where `request/context`
    /// feeds the request builder. Connection details (base URL, key variable) are not
    /// part of the body and stay empty; the client sends with its own route. Contexts
    /// written before the protocol was logged ask `kind_of` for the provider's protocol;
    /// `None` when neither knows it.
    pub fn from_context(
        ctx: &RequestContext,
        kind_of: &dyn Fn(&str) -> Option<ProviderKind>,
    ) -> Option<Route> {
        let kind = ctx
            .protocol
            .as_deref()
            .and_then(ProviderKind::parse)
            .or_else(|| kind_of(&ctx.provider))?;
        Some(Route {
            provider: ctx.provider.clone(),
            model: ctx.model.clone(),
            kind,
            base_url: String::new(),
            api_key_env: String::new(),
            caps: ctx.caps,
        })
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
    /// The tool bridge's fold snapshot (SPEC §15.1): used instead of `tool_history` on a
    /// route projected through the bridge; `None` = `tool_history`.
    pub bridge_history: Option<Arc<ToolHistory>>,
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
    /// cannot be true (`llm::usage`): unknown, and never acted on.
    pub usage: Option<Usage>,
    /// Provider request id, when the response carried one.
    pub request_id: Option<String>,
    /// Tool calls whose missing or duplicate ids the assembler replaced.
    pub id_repairs: Vec<crate::llm::tool_ids::ToolIdRepair>,
}

/// Defines [`ErrorCode`] from one table: each class with its stable code (logged in
/// `assistant/attempt`) and the Fluent id of its one-line reason.
macro_rules! error_codes {
    ($($(#[doc = $doc:literal])* $name:ident => $code:literal, $message:literal;)*) => {
        /// Stable error classes (SPEC §8).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($(#[doc = $doc])* $name,)*
        }

        impl ErrorCode {
            /// Every class, in the table's order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$name,)*];

            /// The stable snake_case code stored in `assistant/attempt`.
            pub fn as_str(&self) -> &'static str {
                match self {
                    $(ErrorCode::$name => $code,)*
                }
            }

            /// Fluent id of the one-line localized reason (args: `message`).
            pub fn message_id(&self) -> &'static str {
                match self {
                    $(ErrorCode::$name => $message,)*
                }
            }
        }
    };
}

error_codes! {
    /// 401/403.
    Auth => "auth", "llm-error-auth";
    /// 402.
    Quota => "quota", "llm-error-quota";
    /// 400/422.
    InvalidRequest => "invalid_request", "llm-error-invalid-request";
    /// 400 mentioning the context length.
    ContextOverflow => "context_overflow", "llm-error-context-overflow";
    /// 429.
    RateLimit => "rate_limit", "llm-error-rate-limit";
    /// 5xx or an in-stream error.
    Server => "server", "llm-error-server";
    /// Connection failures, cut streams, idle timeouts.
    Transport => "transport", "llm-error-transport";
    /// The client cannot represent the content for this route (W-3…W-5).
    UnsupportedContent => "unsupported_content", "llm-error-unsupported-content";
    /// The request violates a client-side invariant (W-8).
    InvalidContent => "invalid_content", "llm-error-invalid-content";
    /// A malformed SSE frame or JSON.
    Malformed => "malformed", "llm-error-malformed";
    /// The model returned no content.
    EmptyResponse => "empty_response", "llm-error-empty-response";
    /// Cancelled by the user.
    Cancelled => "cancelled", "llm-error-cancelled";
    /// No API key.
    MissingKey => "missing_key", "llm-error-missing-key";
    /// A stream event or the whole reply exceeded its size cap (`[limits]`).
    TooLarge => "too_large", "llm-error-too-large";
    /// The stream kept the connection alive but sent no content for too long.
    NoProgress => "no_progress", "llm-error-no-progress";
}

impl ErrorCode {
    /// The class a logged code names (`None` for a code this version does not know).
    pub fn parse(code: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.iter().copied().find(|c| c.as_str() == code)
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

#[cfg(test)]
mod tests {
    use super::ErrorCode;

    #[test]
    fn every_logged_error_code_reads_back_as_its_class_with_its_own_message() {
        let mut codes = std::collections::HashSet::new();
        let mut ids = std::collections::HashSet::new();
        for c in ErrorCode::ALL {
            assert_eq!(ErrorCode::parse(c.as_str()), Some(*c));
            assert!(codes.insert(c.as_str()), "{c:?}");
            assert!(ids.insert(c.message_id()), "{c:?}");
        }
        assert_eq!(ErrorCode::parse("some_future_code"), None);
    }
}
