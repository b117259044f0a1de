//! HTTP client for both provider routes: the request's bytes (`wire.rs`: projection at
//! dispatch, R-1, and serialization), streaming with idle/overall timeouts and
//! cancellation, and error classification (SPEC §7–8).

use std::time::Duration;

use futures_util::StreamExt;
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::Value;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

pub use crate::llm::adapter::{
    DEFAULT_MAX_REPLY_BYTES, RequestParts, SerializedBody, WireBytes, classify_error,
};
use crate::llm::adapter::{HeaderError, StreamAssembler};
pub use crate::llm::retry::parse_retry_after;
use crate::llm::sse::{SseError, SseFrame, SseParser};
use crate::llm::types::{Completion, ErrorCode, GenerateOptions, LlmError, Route, StreamEvent};
use crate::secret::ApiKey;

mod wire;

pub use wire::{
    build_request, build_wire, endpoint_url, models_url, wire, with_request_parts, write_wire,
};

/// Default idle timeout: longest gap between real stream events.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(120);
/// Default cap on one whole request.
pub const DEFAULT_OVERALL_TIMEOUT: Duration = Duration::from_secs(15 * 60);
/// Largest error body read from a failed response.
const MAX_ERROR_BODY: usize = 64 * 1024;
/// Default no-progress timeout: longest time without a content delta.
pub const DEFAULT_NO_PROGRESS_TIMEOUT: Duration = Duration::from_secs(300);

/// Size and progress limits of one streamed reply (`[limits]` in the config).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamLimits {
    /// Cap on one SSE event's data, across its `data:` lines.
    pub max_event_bytes: usize,
    /// Cap on one reply: text + reasoning + tool arguments (+ a little per block).
    pub max_reply_bytes: usize,
    /// After the response starts, the longest time without a content delta.
    pub no_progress_timeout: Duration,
}

impl Default for StreamLimits {
    fn default() -> Self {
        StreamLimits {
            max_event_bytes: crate::llm::sse::DEFAULT_MAX_EVENT_BYTES,
            max_reply_bytes: DEFAULT_MAX_REPLY_BYTES,
            no_progress_timeout: DEFAULT_NO_PROGRESS_TIMEOUT,
        }
    }
}

/// How long `/model` waits for the provider's model list.
pub const MODELS_TIMEOUT: Duration = Duration::from_secs(5);

/// A failed stream: the error and whatever content had arrived.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{error}")]
pub struct StreamFailure {
    /// What went wrong.
    pub error: LlmError,
    /// Content received before the failure (on cancel: store with `interrupted: true`).
    pub partial: Option<Completion>,
}

impl From<LlmError> for StreamFailure {
    fn from(error: LlmError) -> Self {
        StreamFailure {
            error,
            partial: None,
        }
    }
}

fn request_id(headers: &HeaderMap) -> Option<String> {
    [
        "request-id",
        "x-request-id",
        "x-deepseek-request-id",
        "x-ds-trace-id",
    ]
    .iter()
    .find_map(|name| headers.get(*name)?.to_str().ok().map(str::to_string))
}

/// One provider connection, built once per route.
#[derive(Debug, Clone)]
pub struct ProviderClient {
    route: Route,
    key: Option<ApiKey>,
    http: reqwest::Client,
    idle_timeout: Duration,
    overall_timeout: Duration,
    limits: StreamLimits,
}

impl ProviderClient {
    /// A client for `route`; `api_key` is the value of `route.api_key_env` read by the
    /// caller (`None` when unset).
    pub fn new(route: Route, api_key: Option<String>) -> Result<Self, LlmError> {
        let http = reqwest::Client::builder()
            // The key must never leave the origin (deepseek-wire §1.1).
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| {
                LlmError::new(
                    ErrorCode::Transport,
                    format!("cannot build HTTP client: {e}"),
                )
            })?;
        Ok(ProviderClient {
            route,
            key: api_key.filter(|k| !k.is_empty()).map(ApiKey::new),
            http,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            overall_timeout: DEFAULT_OVERALL_TIMEOUT,
            limits: StreamLimits::default(),
        })
    }

    /// Sets the size and progress limits (`[limits]`).
    pub fn with_limits(mut self, limits: StreamLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the size and progress limits in place.
    pub fn set_limits(&mut self, limits: StreamLimits) {
        self.limits = limits;
    }

    /// The size and progress limits.
    pub fn limits(&self) -> StreamLimits {
        self.limits
    }

    /// Sets the idle timeout (longest gap between real stream events).
    pub fn with_idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// Sets the idle timeout in place.
    pub fn set_idle_timeout(&mut self, timeout: Duration) {
        self.idle_timeout = timeout;
    }

    /// Sets the cap on a whole request.
    pub fn with_overall_timeout(mut self, timeout: Duration) -> Self {
        self.overall_timeout = timeout;
        self
    }

    /// The route this client sends to.
    pub fn route(&self) -> &Route {
        &self.route
    }

    fn scrub(&self, text: &str) -> String {
        match &self.key {
            Some(k) => k.scrub(text),
            None => text.to_string(),
        }
    }

    fn scrubbed(&self, mut err: LlmError) -> LlmError {
        err.message = self.scrub(&err.message);
        err
    }

    fn transport(&self, message: String) -> LlmError {
        self.scrubbed(LlmError::new(ErrorCode::Transport, message))
    }

    fn headers(&self, key: &ApiKey, beta: Option<&str>) -> Result<HeaderMap, LlmError> {
        let mut headers = HeaderMap::new();
        let bad_key = || {
            LlmError::new(
                ErrorCode::MissingKey,
                format!(
                    "the API key in {} contains characters not allowed in an HTTP header",
                    self.route.api_key_env
                ),
            )
        };
        headers.insert(
            reqwest::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(
            reqwest::header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        wire(self.route.kind)
            .auth_headers(&mut headers, key.expose(), beta)
            .map_err(|e| match e {
                HeaderError::BadKey => bad_key(),
                HeaderError::BadBeta => {
                    LlmError::new(ErrorCode::InvalidContent, "invalid anthropic-beta value")
                }
            })?;
        Ok(headers)
    }

    /// The model ids the provider lists (`GET /models`), within [`MODELS_TIMEOUT`].
    pub async fn list_models(&self) -> Result<Vec<String>, LlmError> {
        let Some(key) = &self.key else {
            return Err(LlmError::new(
                ErrorCode::MissingKey,
                format!("no API key: set {}", self.route.api_key_env),
            ));
        };
        let mut headers = self.headers(key, None)?;
        headers.insert(
            reqwest::header::ACCEPT,
            HeaderValue::from_static("application/json"),
        );
        let url = models_url(&self.route);
        let send = self.http.get(&url).headers(headers).send();
        let response = match tokio::time::timeout(MODELS_TIMEOUT, send).await {
            Err(_) => {
                return Err(self.transport(format!(
                    "no response from {url} within {}s",
                    MODELS_TIMEOUT.as_secs()
                )));
            }
            Ok(r) => r.map_err(|e| self.transport(describe_reqwest(&e)))?,
        };
        let status = response.status();
        if !status.is_success() {
            return Err(self.transport(format!("{url} answered HTTP {}", status.as_u16())));
        }
        let body = tokio::time::timeout(MODELS_TIMEOUT, response.bytes())
            .await
            .map_err(|_| self.transport(format!("{url} did not finish its answer")))?
            .map_err(|e| self.transport(describe_reqwest(&e)))?;
        let v: serde_json::Value = serde_json::from_slice(&body)
            .map_err(|e| self.transport(format!("{url} answered with invalid JSON: {e}")))?;
        let ids = v
            .get("data")
            .and_then(|d| d.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|m| m.get("id").and_then(|i| i.as_str()).map(str::to_string))
                    .collect::<Vec<_>>()
            })
            .ok_or_else(|| self.transport(format!("{url} answered without a model list")))?;
        Ok(ids)
    }

    /// Sends one streaming request for `opts` (projected for the route, R-1), reporting
    /// live deltas to `on_event`. On cancel it returns promptly with `Cancelled` and the
    /// partial content; dropping the response closes the connection.
    pub async fn stream(
        &self,
        opts: &GenerateOptions,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
        cancel: &CancellationToken,
    ) -> Result<Completion, StreamFailure> {
        let Some(key) = &self.key else {
            return Err(LlmError::new(
                ErrorCode::MissingKey,
                format!("no API key: set {}", self.route.api_key_env),
            )
            .into());
        };
        let request = build_wire(opts).map_err(|e| self.scrubbed(e))?;
        let headers = self.headers(key, request.beta.as_deref())?;
        let body = request.bytes;
        let url = endpoint_url(&self.route);

        let started = Instant::now();
        let overall_deadline = started + self.overall_timeout;
        let mut idle_deadline = started + self.idle_timeout;
        let cancelled =
            || StreamFailure::from(LlmError::new(ErrorCode::Cancelled, "cancelled by the user"));

        let send = self.http.post(&url).headers(headers).body(body).send();
        let response = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(cancelled()),
            _ = tokio::time::sleep_until(overall_deadline.min(idle_deadline)) => {
                return Err(self.transport(format!(
                    "no response from {url} within {}s",
                    self.idle_timeout.min(self.overall_timeout).as_secs()
                )).into());
            }
            r = send => r.map_err(|e| self.transport(describe_reqwest(&e)))?,
        };

        let status = response.status();
        let req_id = request_id(response.headers());
        if !status.is_success() {
            let retry_after = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(parse_retry_after);
            if status.is_redirection() {
                let location = response
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("?")
                    .to_string();
                return Err(self
                    .scrubbed(LlmError {
                        code: ErrorCode::InvalidRequest,
                        status: Some(status.as_u16()),
                        message: format!(
                            "the provider redirected to {location}; redirects are not followed so the API key stays with {url}"
                        ),
                        retry_after: None,
                    })
                    .into());
            }
            let text = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Err(cancelled()),
                _ = tokio::time::sleep_until(overall_deadline.min(idle_deadline)) => String::new(),
                t = read_limited(response, MAX_ERROR_BODY) => t,
            };
            let err = classify_error(Some(status.as_u16()), &text, retry_after);
            return Err(self.scrubbed(err).into());
        }

        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if is_json_type(&content_type) {
            // A 200 with a JSON body (a gateway answering without `stream`, or an error
            // wrapped in a 200): not a stream, and asking again gives the same.
            let text = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Err(cancelled()),
                _ = tokio::time::sleep_until(overall_deadline.min(idle_deadline)) => String::new(),
                t = read_limited(response, MAX_ERROR_BODY) => t,
            };
            return Err(self.scrubbed(json_instead_of_stream(&text)).into());
        }

        let max_reply = self.limits.max_reply_bytes;
        let mut assembler =
            wire(self.route.kind).assembler(max_reply, self.route.caps.context_window);
        let mut parser = SseParser::with_max_event_bytes(self.limits.max_event_bytes);
        let mut frames: Vec<SseFrame> = Vec::new();
        let mut first = true;
        // The start of a body that has produced no frame yet (to recognize JSON sent
        // with a wrong content type).
        let mut head: Vec<u8> = Vec::new();
        let mut seen_frame = false;
        // Only content deltas prove progress; pings and keep-alives do not.
        let no_progress = self.limits.no_progress_timeout;
        let mut progress_deadline = Instant::now() + no_progress;
        let mut bytes = response.bytes_stream();
        let fail = |assembler: &dyn StreamAssembler, error: LlmError| StreamFailure {
            error: self.scrubbed(error),
            partial: Some(assembler.partial()),
        };

        while !assembler.is_done() {
            let chunk = tokio::select! {
                biased;
                _ = cancel.cancelled() => {
                    return Err(StreamFailure {
                        error: LlmError::new(ErrorCode::Cancelled, "cancelled by the user"),
                        partial: Some(assembler.partial()),
                    });
                }
                _ = tokio::time::sleep_until(overall_deadline) => {
                    return Err(fail(&*assembler, LlmError::new(
                        ErrorCode::Transport,
                        format!("the response took longer than {}s", self.overall_timeout.as_secs()),
                    )));
                }
                _ = tokio::time::sleep_until(idle_deadline) => {
                    return Err(fail(&*assembler, LlmError::new(
                        ErrorCode::Transport,
                        format!("no stream event for {}s", self.idle_timeout.as_secs()),
                    )));
                }
                _ = tokio::time::sleep_until(progress_deadline) => {
                    return Err(fail(&*assembler, LlmError::new(
                        ErrorCode::NoProgress,
                        format!(
                            "no text, reasoning or tool-call content for {}s (limits.no_progress_timeout_secs)",
                            no_progress.as_secs()
                        ),
                    )));
                }
                c = bytes.next() => c,
            };
            let chunk = match chunk {
                None => break,
                Some(Err(e)) => {
                    return Err(fail(
                        &*assembler,
                        LlmError::new(ErrorCode::Transport, describe_reqwest(&e)),
                    ));
                }
                Some(Ok(c)) => c,
            };
            frames.clear();
            if !seen_frame && head.len() < HEAD_BYTES {
                let room = HEAD_BYTES - head.len();
                head.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            if let Err(e) = parser.push(&chunk, &mut frames) {
                let code = match e {
                    SseError::EventTooLarge(_) | SseError::LineTooLong(_) => ErrorCode::TooLarge,
                    SseError::InvalidUtf8 => ErrorCode::Malformed,
                };
                let message = match e {
                    SseError::InvalidUtf8 => e.to_string(),
                    _ => format!("{e} (limits.max_event_bytes)"),
                };
                return Err(fail(&*assembler, LlmError::new(code, message)));
            }
            if frames.is_empty() {
                continue;
            }
            seen_frame = true;
            // Only real events prove progress; keep-alive comments do not.
            idle_deadline = Instant::now() + self.idle_timeout;
            if first {
                first = false;
                on_event(StreamEvent::FirstByte);
            }
            let mut progressed = false;
            let mut watch = |ev: StreamEvent| {
                progressed |= matches!(
                    ev,
                    StreamEvent::TextDelta(_)
                        | StreamEvent::ReasoningDelta(_)
                        | StreamEvent::ToolCallStart { .. }
                        | StreamEvent::ToolArgsDelta { .. }
                );
                on_event(ev);
            };
            for frame in frames.drain(..) {
                if let Err(e) = assembler.on_frame(&frame, &mut watch) {
                    return Err(fail(&*assembler, e));
                }
                if assembler.is_done() {
                    break;
                }
                // A fast stream never leaves the body pending: yield now and then so the
                // consumer of `on_event`'s events (exec's printer, the UI forwarder) keeps up
                // instead of letting deltas pile up in its channel.
                tokio::task::coop::consume_budget().await;
            }
            if progressed {
                progress_deadline = Instant::now() + no_progress;
            }
        }
        if !seen_frame && looks_like_json(&head) {
            return Err(self
                .scrubbed(json_instead_of_stream(&String::from_utf8_lossy(&head)))
                .into());
        }
        if !assembler.is_done() {
            let what = wire(self.route.kind).end_marker();
            return Err(fail(
                &*assembler,
                LlmError::new(
                    ErrorCode::Transport,
                    format!("the stream ended before {what}"),
                ),
            ));
        }
        let partial = assembler.partial();
        let mut completion = assembler.finish().map_err(|e| StreamFailure {
            error: self.scrubbed(e),
            partial: Some(partial),
        })?;
        completion.request_id = req_id;
        Ok(completion)
    }
}

/// Bytes of a frameless body kept to recognize JSON sent as a stream.
const HEAD_BYTES: usize = 4096;

/// Whether a content type names JSON (`application/json`, `…+json`).
fn is_json_type(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim();
    essence == "application/json" || essence.ends_with("+json")
}

/// Whether a body starts like a JSON object or array.
fn looks_like_json(head: &[u8]) -> bool {
    matches!(
        head.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{' | b'[')
    )
}

/// The error for a 200 whose body is JSON instead of an event stream: names the
/// embedded error message when there is one, else a short excerpt. Not retried.
pub(crate) fn json_instead_of_stream(body: &str) -> LlmError {
    let body = body.trim();
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let embedded = parsed.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("message"))
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| v.get("error").and_then(Value::as_str).map(str::to_string))
    });
    let detail = match embedded {
        Some(m) => m.chars().take(500).collect::<String>(),
        None => {
            let mut excerpt: String = body.chars().take(200).collect();
            if excerpt.len() < body.len() {
                excerpt.push('…');
            }
            excerpt
        }
    };
    LlmError::new(
        ErrorCode::Malformed,
        format!("the provider answered with JSON instead of a stream: {detail}"),
    )
}

/// A reqwest error with its source chain (the URL is kept; the key is never in it).
fn describe_reqwest(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

async fn read_limited(response: reqwest::Response, limit: usize) -> String {
    let mut out: Vec<u8> = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(Ok(chunk)) = stream.next().await {
        let room = limit.saturating_sub(out.len());
        out.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if out.len() >= limit {
            break;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Ids of tool calls whose arguments are not a JSON object (truncated or provider-faulty
/// calls the loop should answer with a tool error).
pub fn invalid_tool_calls(completion: &Completion) -> Vec<String> {
    completion
        .content
        .iter()
        .filter_map(|b| match b {
            crate::session::event::Block::ToolCall { id, arguments, .. } => {
                match serde_json::from_str::<Value>(arguments) {
                    Ok(Value::Object(_)) => None,
                    _ => Some(id.clone()),
                }
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::types::ProviderKind;

    #[test]
    fn the_url_appends_v1_messages_unless_the_base_ends_in_v1() {
        let mut route = test_route(ProviderKind::DeepseekMessages, "https://x/anthropic/");
        assert_eq!(endpoint_url(&route), "https://x/anthropic/v1/messages");
        route.base_url = "https://x/anthropic/v1".into();
        assert_eq!(endpoint_url(&route), "https://x/anthropic/v1/messages");
        let chat = test_route(ProviderKind::OpenaiChat, "https://api.deepseek.com");
        assert_eq!(
            endpoint_url(&chat),
            "https://api.deepseek.com/chat/completions"
        );
    }

    pub(crate) fn test_route(kind: ProviderKind, base: &str) -> Route {
        Route {
            provider: "deepseek".into(),
            model: "deepseek-flash".into(),
            kind,
            base_url: base.into(),
            api_key_env: "DEEPSEEK_API_KEY".into(),
            caps: crate::llm::types::Capabilities::plain(1_000_000),
        }
    }

    #[test]
    fn classify_status_codes_and_body_shapes() {
        let openai = r#"{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}"#;
        let e = classify_error(Some(402), openai, None);
        assert_eq!(
            (e.code, e.message.as_str()),
            (ErrorCode::Quota, "Insufficient Balance")
        );
        assert_eq!(classify_error(Some(401), "{}", None).code, ErrorCode::Auth);
        assert_eq!(classify_error(Some(403), "", None).code, ErrorCode::Auth);
        assert_eq!(
            classify_error(Some(422), "bad", None).code,
            ErrorCode::InvalidRequest
        );
        let ctx = r#"{"error":{"message":"This model's maximum context length is 1048576 tokens","type":"invalid_request_error"}}"#;
        assert_eq!(
            classify_error(Some(400), ctx, None).code,
            ErrorCode::ContextOverflow
        );
        let thinking = r#"{"error":{"message":"The `content[].thinking` in the thinking mode must be passed back to the API.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}"#;
        let e = classify_error(Some(400), thinking, None);
        assert_eq!(e.code, ErrorCode::InvalidRequest);
        assert!(e.message.starts_with("The `content[].thinking`"));
        let anthropic =
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#;
        let e = classify_error(Some(429), anthropic, Some(Duration::from_secs(2)));
        assert_eq!(
            (e.code, e.message.as_str()),
            (ErrorCode::RateLimit, "slow down")
        );
        assert_eq!(e.retry_after, Some(Duration::from_secs(2)));
        assert_eq!(classify_error(Some(503), "", None).code, ErrorCode::Server);
        let overloaded = r#"{"type":"error","error":{"type":"overloaded_error","message":"busy"}}"#;
        assert_eq!(
            classify_error(None, overloaded, None).code,
            ErrorCode::Server
        );
        let rl = r#"{"type":"error","error":{"type":"rate_limit_error","message":"x"}}"#;
        assert_eq!(classify_error(None, rl, None).code, ErrorCode::RateLimit);
    }

    #[test]
    fn a_400_naming_a_rate_limit_type_is_an_invalid_request_and_never_retried() {
        let rl = r#"{"type":"error","error":{"type":"rate_limit_error","message":"x"}}"#;
        let e = classify_error(Some(400), rl, None);
        assert_eq!(e.code, ErrorCode::InvalidRequest);
        assert_eq!(crate::llm::retry::RetryPolicy::default().delay(1, &e), None);
    }

    #[test]
    fn a_5xx_is_a_server_error_and_retried_whatever_type_its_body_names() {
        for ty in [
            "invalid_request_error",
            "authentication_error",
            "billing_error",
        ] {
            let body = format!(r#"{{"error":{{"type":"{ty}","message":"x"}}}}"#);
            let e = classify_error(Some(503), &body, None);
            assert_eq!(e.code, ErrorCode::Server, "{ty}");
            assert!(
                crate::llm::retry::RetryPolicy::default()
                    .delay(1, &e)
                    .is_some()
            );
        }
    }

    #[test]
    fn client_debug_never_shows_the_key() {
        let client = ProviderClient::new(
            test_route(ProviderKind::OpenaiChat, "http://127.0.0.1:1"),
            Some("sk-secret-123".into()),
        )
        .unwrap();
        assert!(!format!("{client:?}").contains("sk-secret-123"));
    }
}
