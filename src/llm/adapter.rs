//! The wire adapter seam (SPEC §7–8): what both provider routes share and what each one
//! implements. [`RequestParts`] in, [`SerializedBody`] out; error classification; the reply
//! budget; and the [`WireAdapter`] / [`StreamAssembler`] traits that `llm::deepseek` and
//! `llm::openai` implement. The client picks an adapter in one place and never matches on
//! the route kind itself; the adapters never depend on the client.

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::HeaderMap;
use serde_json::Value;

use crate::llm::sse::SseFrame;
use crate::llm::tool_ids::ToolIdRepair;
use crate::llm::types::{
    Completion, ErrorCode, GenerateOptions, LlmError, StopReason, StreamEvent, Thinking,
};
use crate::session::event::{Block, Message, SystemPromptUpdate, ToolSchema, Usage};

/// Default cap on one reply: text + reasoning + tool arguments (64 MiB).
pub const DEFAULT_MAX_REPLY_BYTES: usize = 64 * 1024 * 1024;

/// Bytes charged to the reply cap for every new content block (bounds block count).
pub(crate) const BLOCK_OVERHEAD: usize = 64;

/// The error for a reply over its cap (not retried).
pub(crate) fn reply_too_large(max: usize) -> LlmError {
    LlmError::new(
        ErrorCode::TooLarge,
        format!(
            "the reply is larger than {max} bytes of text, reasoning and tool arguments (limits.max_reply_bytes)"
        ),
    )
}

/// Counts reply bytes against the cap.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReplyBudget {
    max: usize,
    used: usize,
}

impl Default for ReplyBudget {
    fn default() -> Self {
        ReplyBudget::new(DEFAULT_MAX_REPLY_BYTES)
    }
}

impl ReplyBudget {
    /// A budget of `max` bytes.
    pub(crate) fn new(max: usize) -> Self {
        ReplyBudget { max, used: 0 }
    }

    /// Charges `n` bytes; over the cap is [`ErrorCode::TooLarge`].
    pub(crate) fn charge(&mut self, n: usize) -> Result<(), LlmError> {
        self.used = self.used.saturating_add(n);
        if self.used > self.max {
            return Err(reply_too_large(self.max));
        }
        Ok(())
    }
}

/// Projected request data a serializer needs; independent of `GenerateOptions` so
/// serializers stay pure.
#[derive(Debug, Clone, Copy)]
pub struct RequestParts<'a> {
    /// Model id.
    pub model: &'a str,
    /// The route's in-history prompt mode (W-7).
    pub system_prompt_update: Option<SystemPromptUpdate>,
    /// Projected messages.
    pub messages: &'a [Arc<Message>],
    /// Projected declarations (`None` or empty = no `tools` key).
    pub tools: Option<&'a [ToolSchema]>,
    /// One-shot system text placed before the first system message.
    pub system: Option<&'a str>,
    /// Max output tokens.
    pub max_tokens: u32,
    /// Thinking setting.
    pub thinking: Thinking,
    /// Reasoning effort.
    pub effort: Option<&'a str>,
    /// Temperature.
    pub temperature: Option<f64>,
    /// Stop sequences.
    pub stop: Option<&'a [String]>,
}

impl<'a> RequestParts<'a> {
    /// Parts from options plus already projected messages and tools.
    pub fn new(
        opts: &'a GenerateOptions,
        messages: &'a [Arc<Message>],
        tools: Option<&'a [ToolSchema]>,
    ) -> Self {
        RequestParts {
            model: &opts.route.model,
            system_prompt_update: opts.route.caps.system_prompt_update,
            messages,
            tools,
            system: opts.system.as_deref(),
            max_tokens: opts.max_tokens,
            thinking: opts.thinking,
            effort: opts.effort.as_deref(),
            temperature: opts.temperature,
            stop: opts.stop.as_deref(),
        }
    }
}

/// The bytes of a request body as sent, and the `anthropic-beta` value it owes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireBytes {
    /// The compact JSON body.
    pub bytes: Vec<u8>,
    /// `anthropic-beta` header value, when owed (W-9).
    pub beta: Option<String>,
}

/// The error for a body that cannot be encoded.
pub fn encode_error(e: serde_json::Error) -> LlmError {
    LlmError::new(
        ErrorCode::InvalidContent,
        format!("cannot encode body: {e}"),
    )
}

impl SerializedBody {
    /// The JSON tree of written body bytes (for the inspector and tests; the client
    /// sends the bytes themselves).
    pub fn from_bytes(bytes: &[u8], beta: Option<String>) -> Result<Self, LlmError> {
        let body = serde_json::from_slice(bytes).map_err(encode_error)?;
        Ok(SerializedBody { body, beta })
    }
}

/// A serialized request body and the `anthropic-beta` value it owes.
#[derive(Debug, Clone, PartialEq)]
pub struct SerializedBody {
    /// The JSON body.
    pub body: Value,
    /// `anthropic-beta` header value, when owed (W-9).
    pub beta: Option<String>,
}

fn mentions_context_length(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    t.contains("context length")
        || t.contains("context_length")
        || t.contains("context window")
        || t.contains("maximum context")
        || t.contains("too many tokens")
        || t.contains("prompt is too long")
}

fn mentions_quota(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    t.contains("insufficient balance")
        || t.contains("insufficient_quota")
        || t.contains("quota")
        || t.contains("credit balance")
}

/// Classifies a provider error from its HTTP status (`None` for in-stream errors) and a
/// body in either the OpenAI (`{"error":{message,type,code}}`) or the Anthropic
/// (`{"type":"error","error":{type,message}}`) shape. The message is kept verbatim.
pub fn classify_error(status: Option<u16>, body: &str, retry_after: Option<Duration>) -> LlmError {
    let parsed: Option<Value> = serde_json::from_str(body.trim()).ok();
    let error = parsed.as_ref().and_then(|v| v.get("error"));
    let field = |name: &str| {
        error
            .and_then(|e| e.get(name))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let (ty, code_field) = (field("type"), field("code"));
    let message = match error.and_then(|e| e.get("message")).and_then(Value::as_str) {
        Some(m) => m.to_string(),
        None if !body.trim().is_empty() => body.trim().chars().take(2000).collect(),
        None => match status {
            Some(s) => format!("request failed with HTTP {s}"),
            None => "stream error".to_string(),
        },
    };
    let detail = format!("{ty} {code_field} {message}");
    // The status decides where there is one; the body's `type` only refines it. A 5xx is
    // the provider's fault and retried whatever its body names, and a 4xx other than 429
    // is the request's and never retried as a rate limit (§8).
    let server = matches!(status, Some(s) if s >= 500);
    let code = if matches!(status, Some(401 | 403))
        || (!server && matches!(ty.as_str(), "authentication_error" | "permission_error"))
    {
        ErrorCode::Auth
    } else if status == Some(402) || (!server && (ty == "billing_error" || mentions_quota(&detail)))
    {
        ErrorCode::Quota
    } else if status == Some(429)
        || (ty == "rate_limit_error" && !matches!(status, Some(400..=499)))
    {
        ErrorCode::RateLimit
    } else if matches!(status, Some(400 | 413) | None) && mentions_context_length(&detail) {
        ErrorCode::ContextOverflow
    } else if server {
        ErrorCode::Server
    } else if matches!(status, Some(400 | 413 | 422))
        || ty == "invalid_request_error"
        || ty == "request_too_large"
    {
        ErrorCode::InvalidRequest
    } else if matches!(ty.as_str(), "api_error" | "overloaded_error") || status.is_none() {
        ErrorCode::Server
    } else {
        ErrorCode::InvalidRequest
    };
    LlmError {
        code,
        status,
        message,
        retry_after,
    }
}

/// Stop reason used for partial content.
pub(crate) fn partial_stop(seen: Option<&StopReason>) -> StopReason {
    seen.cloned()
        .unwrap_or_else(|| StopReason::Other("incomplete".into()))
}

/// One route's wire protocol: body serialization, endpoint, authentication headers and
/// stream assembly.
pub trait WireAdapter: Sync {
    /// Writes one request body from projected parts straight into `out`, borrowing the
    /// history (pure); returns the `anthropic-beta` value owed.
    fn write_body(
        &self,
        parts: &RequestParts<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Option<String>, LlmError>;
    /// The body as a JSON tree (parsed from [`WireAdapter::write_body`]'s bytes).
    fn serialize(&self, parts: &RequestParts<'_>) -> Result<SerializedBody, LlmError> {
        let mut out = Vec::new();
        let beta = self.write_body(parts, &mut out)?;
        SerializedBody::from_bytes(&out, beta)
    }
    /// The endpoint URL under `base` (no trailing slash).
    fn endpoint(&self, base: &str) -> String;
    /// Adds the authentication (and protocol) headers for `key`; `beta` is the
    /// `anthropic-beta` value the body owes, if any.
    fn auth_headers(
        &self,
        headers: &mut HeaderMap,
        key: &str,
        beta: Option<&str>,
    ) -> Result<(), HeaderError>;
    /// A fresh stream assembler capped at `max_reply_bytes`, checking the reported usage
    /// against a context window of `context_window` tokens.
    fn assembler(&self, max_reply_bytes: usize, context_window: u64) -> Box<dyn StreamAssembler>;
    /// The event that ends a complete stream (named in the truncation error).
    fn end_marker(&self) -> &'static str;
}

/// Why headers could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// The key has characters not allowed in a header value.
    #[error("the API key contains characters not allowed in an HTTP header")]
    BadKey,
    /// The `anthropic-beta` value is not a valid header value.
    #[error("invalid anthropic-beta value")]
    BadBeta,
}

/// Assembles one streamed reply from SSE frames: the object the client drives
/// (`Box<dyn StreamAssembler>`). A route implements [`Assemble`] instead; the one blanket
/// implementation below forwards to it.
pub trait StreamAssembler: Send {
    /// Consumes one SSE frame, reporting live deltas.
    fn on_frame(
        &mut self,
        frame: &SseFrame,
        emit: &mut dyn FnMut(StreamEvent),
    ) -> Result<(), LlmError>;
    /// The stream reached its end marker.
    fn is_done(&self) -> bool;
    /// What has arrived so far.
    fn partial(&self) -> Completion;
    /// The finished reply.
    fn finish(self: Box<Self>) -> Result<Completion, LlmError>;
}

/// A route's stream assembler as a plain value (`finish` takes it by value), which tests
/// and the routes' own code call directly. Every `Assemble` is a [`StreamAssembler`].
pub trait Assemble: Send {
    /// Consumes one SSE frame, reporting live deltas.
    fn on_frame(
        &mut self,
        frame: &SseFrame,
        emit: &mut dyn FnMut(StreamEvent),
    ) -> Result<(), LlmError>;
    /// The stream reached its end marker.
    fn is_done(&self) -> bool;
    /// What has arrived so far (for cancelled or failed streams).
    fn partial(&self) -> Completion;
    /// The settled reply after the end marker.
    fn finish(self) -> Result<Completion, LlmError>
    where
        Self: Sized;
}

impl<A: Assemble> StreamAssembler for A {
    fn on_frame(
        &mut self,
        frame: &SseFrame,
        emit: &mut dyn FnMut(StreamEvent),
    ) -> Result<(), LlmError> {
        Assemble::on_frame(self, frame, emit)
    }
    fn is_done(&self) -> bool {
        Assemble::is_done(self)
    }
    fn partial(&self) -> Completion {
        Assemble::partial(self)
    }
    fn finish(self: Box<Self>) -> Result<Completion, LlmError> {
        Assemble::finish(*self)
    }
}

/// What a stream delivered before it was cut off, as a completion: the content so far,
/// the stop reason [`partial_stop`] makes of the one seen, no id repairs.
pub(crate) fn partial_completion(
    content: Vec<Block>,
    seen: Option<&StopReason>,
    usage: Option<Usage>,
) -> Completion {
    Completion {
        content,
        stop_reason: partial_stop(seen),
        usage,
        request_id: None,
        id_repairs: Vec::new(),
    }
}

/// A finished stream's settled content as a completion. A reply that ends its turn with
/// no content is the `EmptyResponse` error; renamed tool-call ids are logged.
pub(crate) fn completed(
    content: Vec<Block>,
    id_repairs: Vec<ToolIdRepair>,
    stop_reason: StopReason,
    usage: Option<Usage>,
) -> Result<Completion, LlmError> {
    if content.is_empty() && stop_reason == StopReason::EndTurn {
        return Err(LlmError::new(
            ErrorCode::EmptyResponse,
            "the model returned a completed response with no content",
        ));
    }
    if !id_repairs.is_empty() {
        tracing::warn!(
            renamed = %ToolIdRepair::describe(&id_repairs),
            "provider sent missing or duplicate tool-call ids"
        );
    }
    Ok(Completion {
        content,
        stop_reason,
        usage,
        request_id: None,
        id_repairs,
    })
}
