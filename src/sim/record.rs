//! Recorded requests, as returned by `GET /_sim/requests` and [`super::SimHandle::requests`].

use std::collections::BTreeMap;

use axum::http::HeaderMap;
use serde::Serialize;
use serde_json::Value;

/// Per-request cache accounting.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheRecord {
    /// Cached prompt tokens.
    pub hit_tokens: u64,
    /// Uncached prompt tokens.
    pub miss_tokens: u64,
    /// Total prompt tokens.
    pub total_tokens: u64,
    /// Length of the canonical render in bytes.
    pub render_bytes: usize,
    /// First byte offset where the render differs from the best-matching earlier render
    /// (their common prefix length); `null` for the first request of a namespace.
    pub first_diff_byte: Option<usize>,
    /// Index of the request whose stored render matched best.
    pub matched_request: Option<usize>,
    /// `"input"` or `"output"`: which unit of that request matched.
    pub matched_unit: Option<String>,
}

/// A tool call the simulator answered with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordedToolCall {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
}

/// One model request as the simulator saw and answered it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedRequest {
    /// 0-based index among model requests.
    pub index: usize,
    /// `"anthropic"` or `"openai"`.
    pub route: String,
    /// Request path.
    pub path: String,
    /// Lower-case header names → values (`x-api-key` / `authorization` redacted).
    pub headers: BTreeMap<String, String>,
    /// The body as JSON (`null` if it did not parse).
    pub body: Value,
    /// The raw body text (lossy UTF-8).
    pub raw_body: String,
    /// HTTP status answered.
    pub status: u16,
    /// Error message when the status is not 200.
    pub error: Option<String>,
    /// Model id as requested.
    pub model: Option<String>,
    /// Mapped DeepSeek id (the cache namespace).
    pub mapped_model: Option<String>,
    /// Whether the request asked for streaming.
    pub stream: Option<bool>,
    /// Route-specific usage object as reported to the client.
    pub usage: Option<Value>,
    /// Cache accounting.
    pub cache: Option<CacheRecord>,
    /// Effective system prompt.
    pub effective_system: Option<String>,
    /// Names of the tools offered at the end of the prompt.
    pub effective_tools: Vec<String>,
    /// `"script"` or `"demo"`: where the reply came from.
    pub reply_source: Option<String>,
    /// The injected fault, if any (debug form).
    pub fault: Option<String>,
    /// Stop reason sent (Anthropic name).
    pub stop_reason: Option<String>,
    /// Tool calls in the reply.
    pub tool_calls: Vec<RecordedToolCall>,
    /// Value of the `x-ds-trace-id` response header.
    pub trace_id: String,
    /// Thinking mode as served (SPEC §14.4; `None` before validation).
    pub thinking: Option<bool>,
    /// The effort served: the route's field (aliases mapped), `high` by default, `None`
    /// with thinking off or before validation.
    pub effort: Option<String>,
}

/// Header map → recorded form, redacting credentials.
pub fn record_headers(headers: &HeaderMap) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in headers {
        let key = name.as_str().to_ascii_lowercase();
        let v = if key == "x-api-key" || key == "authorization" {
            "<redacted>".to_string()
        } else {
            String::from_utf8_lossy(value.as_bytes()).into_owned()
        };
        out.entry(key)
            .and_modify(|e| {
                e.push_str(", ");
                e.push_str(&v);
            })
            .or_insert(v);
    }
    out
}

/// The state of the recorded-request ring (`GET /_sim/requests` sends it as the
/// `x-sim-requests-kept`, `-dropped` and `-limit` headers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestStats {
    /// Requests kept (returned).
    pub kept: usize,
    /// Older requests dropped to stay within the limit.
    pub dropped: usize,
    /// The limit.
    pub limit: usize,
}
