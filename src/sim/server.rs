//! The axum server: routes, auth, the per-request flow, and response building.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{OriginalUri, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::anthropic::{self, StreamStyle, Usage};
use super::cache::{CacheModel, UnitKind};
use super::openai;
use super::record::{CacheRecord, RecordedRequest, RecordedToolCall, record_headers};
use super::render;
use super::script::{Fault, ScriptedReply, kind_for};
use super::stream::{self, Playback};
use super::turn::{self, OutBlock};
use super::validate::{self, ApiError, Route, Rules};
use super::validate_openai;

/// Immutable server settings derived from `SimConfig`.
#[derive(Clone)]
pub(crate) struct Settings {
    pub api_key: Option<String>,
    pub latency: Duration,
    pub rules: Rules,
    pub keepalive: bool,
    pub signature_in_start: bool,
    pub echo_mapped_model: bool,
    pub max_chunk: usize,
    pub keepalive_interval: Duration,
    pub demo_locale: super::DemoLocale,
    pub guided_demo: bool,
}

/// Mutable simulator state.
pub(crate) struct State0 {
    pub script: VecDeque<ScriptedReply>,
    pub cache: CacheModel,
    pub thinking_tool_ids: HashSet<String>,
    pub requests: RequestRing,
    pub rng: fastrand::Rng,
}

/// The recorded requests: the newest `limit` are kept, older ones are counted as dropped,
/// so a long run's memory stays bounded.
pub(crate) struct RequestRing {
    kept: VecDeque<RecordedRequest>,
    limit: usize,
    dropped: usize,
}

impl RequestRing {
    pub fn new(limit: usize) -> Self {
        Self {
            kept: VecDeque::new(),
            limit,
            dropped: 0,
        }
    }

    /// Index of the next request (counting dropped ones).
    pub fn next_index(&self) -> usize {
        self.kept.len() + self.dropped
    }

    /// Records a request, dropping the oldest when over the limit.
    pub fn push(&mut self, rec: RecordedRequest) {
        self.kept.push_back(rec);
        while self.kept.len() > self.limit {
            self.kept.pop_front();
            self.dropped += 1;
        }
    }

    /// The kept requests, oldest first.
    pub fn to_vec(&self) -> Vec<RecordedRequest> {
        self.kept.iter().cloned().collect()
    }

    /// How many are kept, how many were dropped, and the limit.
    pub fn stats(&self) -> super::RequestStats {
        super::RequestStats {
            kept: self.kept.len(),
            dropped: self.dropped,
            limit: self.limit,
        }
    }
}

/// Shared between handlers and the handle.
pub(crate) struct Shared {
    pub settings: Settings,
    pub state: Mutex<State0>,
}

impl Shared {
    pub fn lock(&self) -> MutexGuard<'_, State0> {
        // A panic while holding the lock leaves consistent-enough data for a test server.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

type AppState = Arc<Shared>;

/// Build the router.
pub(crate) fn router(shared: AppState) -> Router {
    Router::new()
        .route("/anthropic/v1/messages", post(anthropic_route))
        .route("/anthropic/messages", post(anthropic_route))
        .route("/chat/completions", post(openai_route))
        .route("/v1/chat/completions", post(openai_route))
        .route("/models", get(models))
        .route("/v1/models", get(models))
        .route("/_sim/requests", get(sim_requests))
        .route("/_sim/replies", post(sim_push_replies))
        .fallback(not_found)
        .with_state(shared)
}

fn trace_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

fn code_for(status: u16) -> &'static str {
    match status {
        400 | 422 => "invalid_request_error",
        401 => "invalid_request_error",
        402 => "invalid_request_error",
        429 => "rate_limit_error",
        _ => "server_error",
    }
}

fn error_response(
    status: u16,
    kind: &str,
    message: &str,
    trace: &str,
    retry_after: Option<&str>,
) -> Response {
    let body = json!({"error": {"message": message, "type": kind, "param": null, "code": code_for(status)}});
    let mut resp = (
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(trace) {
        resp.headers_mut().insert("x-ds-trace-id", v);
    }
    if let Some(v) = retry_after.and_then(|r| HeaderValue::from_str(r).ok()) {
        resp.headers_mut().insert(header::RETRY_AFTER, v);
    }
    resp
}

/// Check credentials: `Authorization: Bearer` wins over `x-api-key`.
fn check_auth(headers: &HeaderMap, settings: &Settings) -> Result<(), ApiError> {
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
                .unwrap_or("")
                .trim()
                .to_string()
        });
    let key = bearer.or_else(|| {
        headers
            .get("x-api-key")
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_string())
    });
    let ok = match (key.as_deref(), settings.api_key.as_deref()) {
        (None, _) | (Some(""), _) => false,
        (Some(k), Some(expected)) => k == expected,
        (Some(_), None) => true,
    };
    if ok {
        Ok(())
    } else {
        Err(ApiError {
            status: 401,
            message: "Authentication Fails, Your api key is invalid".to_string(),
            kind: "authentication_error",
        })
    }
}

async fn anthropic_route(
    State(s): State<AppState>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    handle(s, Route::Anthropic, uri.path().to_string(), headers, body).await
}

async fn openai_route(
    State(s): State<AppState>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    handle(s, Route::OpenAi, uri.path().to_string(), headers, body).await
}

async fn models(State(s): State<AppState>, headers: HeaderMap) -> Response {
    let trace = trace_id();
    if let Err(e) = check_auth(&headers, &s.settings) {
        return error_response(e.status, e.kind, &e.message, &trace, None);
    }
    let data: Vec<Value> = [
        "deepseek-flash",
        "deepseek-v4-pro",
        "deepseek-v4-flash-vision-exp",
    ]
    .iter()
    .map(|id| json!({"id": id, "object": "model", "owned_by": "deepseek"}))
    .collect();
    let mut resp = (
        [(header::CONTENT_TYPE, "application/json")],
        json!({"object": "list", "data": data}).to_string(),
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(&trace) {
        resp.headers_mut().insert("x-ds-trace-id", v);
    }
    resp
}

async fn sim_requests(State(s): State<AppState>) -> Response {
    let (reqs, stats) = {
        let st = s.lock();
        (st.requests.to_vec(), st.requests.stats())
    };
    // The body stays a plain array (clients index it); the ring's state rides in headers.
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (
                header::HeaderName::from_static("x-sim-requests-kept"),
                HeaderValue::from(stats.kept),
            ),
            (
                header::HeaderName::from_static("x-sim-requests-dropped"),
                HeaderValue::from(stats.dropped),
            ),
            (
                header::HeaderName::from_static("x-sim-requests-limit"),
                HeaderValue::from(stats.limit),
            ),
        ],
        serde_json::to_string(&reqs).unwrap_or_else(|_| "[]".into()),
    )
        .into_response()
}

async fn sim_push_replies(State(s): State<AppState>, body: Bytes) -> Response {
    let text = String::from_utf8_lossy(&body);
    match super::Script::parse(&text) {
        Ok(script) => {
            let n = script.replies.len();
            s.lock().script.extend(script.replies);
            (
                [(header::CONTENT_TYPE, "application/json")],
                json!({"queued": n}).to_string(),
            )
                .into_response()
        }
        Err(e) => error_response(
            400,
            "invalid_request_error",
            &e.to_string(),
            &trace_id(),
            None,
        ),
    }
}

async fn not_found(OriginalUri(uri): OriginalUri) -> Response {
    error_response(
        404,
        "not_found_error",
        &format!("Not Found: {}", uri.path()),
        &trace_id(),
        None,
    )
}

fn empty_record(
    index: usize,
    route: Route,
    path: String,
    headers: &HeaderMap,
    body: &Bytes,
    trace: &str,
) -> RecordedRequest {
    RecordedRequest {
        index,
        route: route.as_str().to_string(),
        path,
        headers: record_headers(headers),
        body: serde_json::from_slice(body).unwrap_or(Value::Null),
        raw_body: String::from_utf8_lossy(body).into_owned(),
        status: 200,
        error: None,
        model: None,
        mapped_model: None,
        stream: None,
        usage: None,
        cache: None,
        effective_system: None,
        effective_tools: Vec::new(),
        reply_source: None,
        fault: None,
        stop_reason: None,
        tool_calls: Vec::new(),
        trace_id: trace.to_string(),
        thinking: None,
        effort: None,
    }
}

fn fail(
    state: &mut State0,
    mut rec: RecordedRequest,
    e: &ApiError,
    trace: &str,
    retry_after: Option<u64>,
) -> Response {
    rec.status = e.status;
    rec.error = Some(e.message.clone());
    state.requests.push(rec);
    let retry_after = retry_after.map(|r| r.to_string());
    error_response(e.status, e.kind, &e.message, trace, retry_after.as_deref())
}

async fn handle(
    s: AppState,
    route: Route,
    path: String,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let trace = trace_id();
    let settings = &s.settings;
    let mut st = s.lock();
    let index = st.requests.next_index();
    let mut rec = empty_record(index, route, path, &headers, &body, &trace);
    if let Err(e) = check_auth(&headers, settings) {
        return fail(&mut st, rec, &e, &trace, None);
    }
    let value: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            let err = ApiError::bad(format!(
                "Failed to deserialize the JSON body into the target type: {e}"
            ));
            return fail(&mut st, rec, &err, &trace, None);
        }
    };
    let parsed = match route {
        Route::Anthropic => {
            validate::validate_anthropic(&value, &settings.rules, &st.thinking_tool_ids)
        }
        Route::OpenAi => validate_openai::validate_openai(&value, &st.thinking_tool_ids),
    };
    let parsed = match parsed {
        Ok(p) => p,
        Err(e) => return fail(&mut st, rec, &e, &trace, None),
    };
    // The effort field of the route (SPEC §14.4): a bad value is the provider's 400.
    let effort = match super::validate_effort::effective_effort(&value, route, parsed.thinking) {
        Ok(e) => e,
        Err(e) => return fail(&mut st, rec, &e, &trace, None),
    };
    rec.model = Some(parsed.model.clone());
    rec.mapped_model = Some(parsed.mapped_model.clone());
    rec.stream = Some(parsed.stream);
    rec.thinking = Some(parsed.thinking);
    rec.effort = effort.map(str::to_string);
    rec.effective_system = parsed.effective_system.clone();
    rec.effective_tools = parsed.offered.iter().map(|t| t.name.clone()).collect();
    let ns = parsed.mapped_model.clone();
    let lookup = st.cache.lookup(&ns, parsed.render.as_bytes());
    rec.cache = Some(CacheRecord {
        hit_tokens: lookup.hit_tokens,
        miss_tokens: lookup.total_tokens - lookup.hit_tokens,
        total_tokens: lookup.total_tokens,
        render_bytes: lookup.render_bytes,
        first_diff_byte: lookup.first_diff_byte,
        matched_request: lookup.matched.map(|m| m.0),
        matched_unit: lookup.matched.map(|m| m.1.as_str().to_string()),
    });

    // A reply kept for requests that carry a text (a subagent's task) goes first to
    // those; other requests take the first entry kept for nobody.
    let pick = st
        .script
        .iter()
        .position(|e| {
            e.when
                .as_ref()
                .is_some_and(|w| parsed.render.contains(w.as_str()))
        })
        .or_else(|| st.script.iter().position(|e| e.when.is_none()));
    let entry = pick.and_then(|i| st.script.get(i).cloned());
    let locale = settings.demo_locale.get();
    let turn = match turn::build_turn(
        &parsed,
        entry.as_ref(),
        &mut st.rng,
        locale,
        settings.guided_demo,
    ) {
        Ok(t) => t,
        Err(e) => return fail(&mut st, rec, &e, &trace, None),
    };
    if let Some(i) = pick {
        st.script.remove(i);
    }
    rec.reply_source = Some(
        if entry.as_ref().is_some_and(|e| !e.has_no_content()) {
            "script"
        } else {
            "demo"
        }
        .to_string(),
    );
    let fault = entry.and_then(|e| e.fault);
    rec.fault = fault.as_ref().map(|f| format!("{f:?}"));
    if let Some(Fault::HttpError {
        status,
        message,
        retry_after,
    }) = &fault
    {
        let e = ApiError {
            status: *status,
            message: message.clone(),
            kind: kind_for(*status),
        };
        return fail(&mut st, rec, &e, &trace, *retry_after);
    }
    if let Some(Fault::OddHttpError {
        status,
        error_type,
        message,
        retry_after,
    }) = &fault
    {
        rec.status = *status;
        rec.error = Some(message.clone());
        st.requests.push(rec);
        return error_response(*status, error_type, message, &trace, retry_after.as_deref());
    }

    // Cache units: end of input, and end of output as the client should replay it.
    st.cache.store(
        &ns,
        parsed.render.clone().into_bytes(),
        index,
        UnitKind::Input,
    );
    let stream_broken = matches!(
        fault,
        Some(Fault::CutAfterEvents(_))
            | Some(Fault::StreamError { .. })
            | Some(Fault::Stall { close: true, .. })
    );
    if !stream_broken && let Some(m) = turn.replay_message(route) {
        let mut out = parsed.render.clone();
        match route {
            Route::Anthropic => {
                let tools: Vec<Value> = value
                    .get("tools")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                render::render_anthropic_message(&mut out, &m, &tools);
            }
            Route::OpenAi => render::render_openai_message(&mut out, &m),
        }
        st.cache
            .store(&ns, out.into_bytes(), index, UnitKind::Output);
    }
    if turn.thinking.is_some() {
        for id in turn.tool_ids() {
            st.thinking_tool_ids.insert(id);
        }
    }

    let usage = Usage {
        total: lookup.total_tokens,
        hit: lookup.hit_tokens,
        output: turn.output_tokens,
        reasoning: turn.reasoning_tokens,
    };
    rec.usage = Some(match route {
        Route::Anthropic => anthropic::usage_json(&usage, turn.output_tokens),
        Route::OpenAi => openai::usage_json(&usage),
    });
    rec.stop_reason = Some(turn.stop.anthropic().to_string());
    rec.tool_calls = turn
        .blocks
        .iter()
        .filter_map(|b| match b {
            OutBlock::ToolUse { id, name, .. } => Some(RecordedToolCall {
                id: id.clone(),
                name: name.clone(),
            }),
            OutBlock::Text(_) => None,
        })
        .collect();
    st.requests.push(rec);

    let model = if settings.echo_mapped_model {
        parsed.mapped_model.clone()
    } else {
        parsed.model.clone()
    };
    let mut rng = fastrand::Rng::with_seed(st.rng.u64(..));
    drop(st);

    let (content_type, body) = if parsed.stream {
        let (frames, error_frame) = match route {
            Route::Anthropic => {
                let style = StreamStyle {
                    keepalive: settings.keepalive,
                    signature_in_start: settings.signature_in_start,
                    max_chunk: settings.max_chunk,
                };
                let msg = match &fault {
                    Some(Fault::StreamError { message }) => message.clone(),
                    _ => String::new(),
                };
                (
                    anthropic::frames(&turn, &model, &usage, style, &mut rng),
                    anthropic::error_frame(&msg),
                )
            }
            Route::OpenAi => {
                let head = openai::ChunkHead {
                    id: uuid::Uuid::new_v4().to_string(),
                    created: chrono::Utc::now().timestamp(),
                    model: model.clone(),
                };
                let msg = match &fault {
                    Some(Fault::StreamError { message }) => message.clone(),
                    _ => String::new(),
                };
                (
                    openai::frames(
                        &turn,
                        &head,
                        &usage,
                        parsed.include_usage,
                        settings.keepalive,
                        settings.max_chunk,
                        &mut rng,
                    ),
                    openai::error_frame(&msg),
                )
            }
        };
        let playback = Playback {
            latency: settings.latency,
            fault: fault.clone(),
            error_frame: Some(error_frame),
            keepalive_interval: settings.keepalive_interval,
        };
        ("text/event-stream", stream::play(frames, playback))
    } else {
        let json = match route {
            Route::Anthropic => anthropic::message(&turn, &model, &usage),
            Route::OpenAi => {
                let head = openai::ChunkHead {
                    id: uuid::Uuid::new_v4().to_string(),
                    created: chrono::Utc::now().timestamp(),
                    model: model.clone(),
                };
                openai::completion(&turn, &head, &usage)
            }
        };
        (
            "application/json",
            stream::play_json(json.to_string(), fault.clone(), settings.keepalive_interval),
        )
    };
    let mut resp = Response::new(body);
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(v) = HeaderValue::from_str(&trace) {
        resp.headers_mut().insert("x-ds-trace-id", v);
    }
    resp
}
