//! ProviderClient against a tiny loopback HTTP server serving canned responses.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use deepterm::llm::client::{ProviderClient, StreamFailure};
use deepterm::llm::retry::RetryPolicy;
use deepterm::llm::types::{
    Completion, ErrorCode, GenerateOptions, ProviderKind, Purpose, Route, StopReason, StreamEvent,
    Thinking,
};
use deepterm::session::event::{Block, Message, Role, Source, ToolSchema, Usage};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

const KEY: &str = "sk-test-SECRET-0123456789";

/// One step of a canned response.
#[derive(Clone)]
enum Part {
    Bytes(Vec<u8>),
    Sleep(Duration),
}

#[derive(Clone)]
struct Canned {
    head: String,
    parts: Vec<Part>,
}

impl Canned {
    fn sse(parts: Vec<Part>) -> Self {
        Canned {
            head:
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nx-ds-trace-id: trace-1\r\n"
                    .into(),
            parts,
        }
    }
    fn sse_text(body: &str, chunk: usize) -> Self {
        let parts = body
            .as_bytes()
            .chunks(chunk)
            .map(|c| Part::Bytes(c.to_vec()))
            .collect();
        Canned::sse(parts)
    }
    fn error(status: &str, extra_headers: &str, body: &str) -> Self {
        Canned {
            head: format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{extra_headers}",
                body.len()
            ),
            parts: vec![Part::Bytes(body.as_bytes().to_vec())],
        }
    }
}

#[derive(Debug, Clone)]
struct Recorded {
    request_line: String,
    headers: Vec<(String, String)>,
    body: serde_json::Value,
}

impl Recorded {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

type Log = Arc<Mutex<Vec<Recorded>>>;

async fn read_request(sock: &mut TcpStream) -> Option<Recorded> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 4096];
    let head_end = loop {
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let request_line = lines.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&tmp[..n]);
    }
    let body = serde_json::from_slice(&buf[head_end..]).unwrap_or(serde_json::Value::Null);
    Some(Recorded {
        request_line,
        headers,
        body,
    })
}

/// Serves `responses` in order, one per connection; returns the base URL and the log.
async fn serve(responses: Vec<Canned>) -> (String, Log) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let log: Log = Arc::default();
    let log2 = log.clone();
    tokio::spawn(async move {
        for canned in responses {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let log = log2.clone();
            tokio::spawn(async move {
                if let Some(r) = read_request(&mut sock).await {
                    log.lock().unwrap().push(r);
                }
                let head = format!("{}connection: close\r\n\r\n", canned.head);
                if sock.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                for part in canned.parts {
                    match part {
                        Part::Bytes(b) => {
                            if sock.write_all(&b).await.is_err() {
                                return;
                            }
                            let _ = sock.flush().await;
                        }
                        Part::Sleep(d) => tokio::time::sleep(d).await,
                    }
                }
                let _ = sock.shutdown().await;
            });
        }
    });
    (base, log)
}

fn route(kind: ProviderKind, base: &str) -> Route {
    Route {
        provider: "deepseek".into(),
        model: "deepseek-flash".into(),
        kind,
        base_url: base.into(),
        api_key_env: "DEEPSEEK_API_KEY".into(),
        caps: deepterm::llm::types::Capabilities::plain(1_048_576),
    }
}

fn options(
    route: Route,
    messages: Vec<Message>,
    tools: Option<Vec<ToolSchema>>,
) -> GenerateOptions {
    GenerateOptions {
        route,
        messages: messages.into_iter().map(Arc::new).collect(),
        tools,
        tool_history: None,
        bridge_history: None,
        system: None,
        max_tokens: 1024,
        thinking: Thinking::Enabled,
        effort: Some("high".into()),
        temperature: None,
        stop: None,
        purpose: Purpose::Step,
    }
}

fn user(text: &str) -> Message {
    Message::text(Role::User, text, Source::kind("user"))
}

fn tool(name: &str, deferred: bool) -> ToolSchema {
    ToolSchema {
        name: name.into(),
        description: "d".into(),
        parameters: serde_json::json!({"type": "object"}),
        defer_loading: deferred.then_some(true),
    }
}

fn frame(event: &str, data: &str) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

const MESSAGE_START: &str = r#"{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"usage":{"input_tokens":10,"output_tokens":0,"cache_read_input_tokens":64}}}"#;

fn anthropic_text_stream(text_parts: &[&str]) -> String {
    let mut s = frame("message_start", MESSAGE_START) + ": keep-alive\n\n";
    s += &frame(
        "content_block_start",
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    );
    for t in text_parts {
        s += &frame(
            "content_block_delta",
            &serde_json::json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":t}})
                .to_string(),
        );
    }
    s += &frame(
        "content_block_stop",
        r#"{"type":"content_block_stop","index":0}"#,
    );
    s += &frame(
        "message_delta",
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}"#,
    );
    s + &frame("message_stop", r#"{"type":"message_stop"}"#)
}

async fn run(
    client: &ProviderClient,
    opts: &GenerateOptions,
) -> (Result<Completion, StreamFailure>, Vec<StreamEvent>) {
    let mut events = Vec::new();
    let cancel = CancellationToken::new();
    let r = client.stream(opts, &mut |e| events.push(e), &cancel).await;
    (r, events)
}

fn client(kind: ProviderKind, base: &str) -> ProviderClient {
    ProviderClient::new(route(kind, base), Some(KEY.into())).unwrap()
}

fn assert_no_key(f: &StreamFailure) {
    assert!(!f.error.message.contains(KEY), "{}", f.error.message);
    assert!(!format!("{f:?}").contains(KEY));
    assert!(!f.to_string().contains(KEY));
}

#[tokio::test]
async fn deepseek_messages_success_with_headers_and_beta() {
    let body = anthropic_text_stream(&["Hel", "lo, 世界"]);
    // 7-byte chunks split frames, CRLF-free lines and UTF-8 characters anywhere.
    let (base, log) = serve(vec![Canned::sse_text(&body, 7)]).await;
    let c = client(ProviderKind::DeepseekMessages, &base);
    let dev = Message::new(
        Role::Developer,
        vec![Block::addition("late")],
        Source::kind("tool-registry"),
    );
    // The fold snapshot that makes `late` a recorded addition (R-1 projects at dispatch).
    let history = deepterm::llm::types::ToolHistory {
        tools: vec![tool("early", false)],
        updates: vec![deepterm::llm::types::ToolHistoryUpdate {
            message_id: dev.id.clone(),
            additions: vec![tool("late", false)],
        }],
    };
    let mut route = c.route().clone();
    route.caps.tool_update = Some(deepterm::session::event::ToolUpdateMode::AdditionOnly);
    let mut opts = options(
        route,
        vec![user("hi"), dev],
        Some(vec![tool("early", false), tool("late", false)]),
    );
    opts.tool_history = Some(Arc::new(history));
    let (r, events) = run(&c, &opts).await;
    let done = r.unwrap();
    assert_eq!(done.content, vec![Block::text("Hello, 世界")]);
    assert_eq!(done.stop_reason, StopReason::EndTurn);
    assert_eq!(
        done.usage,
        Some(Usage {
            input_tokens: 10,
            cache_read_tokens: 64,
            output_tokens: 7
        })
    );
    assert_eq!(done.request_id.as_deref(), Some("trace-1"));
    assert_eq!(events.first(), Some(&StreamEvent::FirstByte));
    assert!(events.contains(&StreamEvent::TextDelta("lo, 世界".into())));

    let req = log.lock().unwrap()[0].clone();
    assert_eq!(req.request_line, "POST /v1/messages HTTP/1.1");
    assert_eq!(req.header("x-api-key"), Some(KEY));
    assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(
        req.header("anthropic-beta"),
        Some("mid-conversation-tool-changes-2026-07-01")
    );
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(req.body["messages"][1]["role"], "system");
    assert_eq!(req.body["tools"][1]["defer_loading"], true);
}

#[tokio::test]
async fn deepseek_messages_without_change_blocks_sends_no_beta() {
    let (base, log) = serve(vec![Canned::sse_text(&anthropic_text_stream(&["ok"]), 64)]).await;
    let c = client(ProviderKind::DeepseekMessages, &format!("{base}/v1"));
    let opts = options(
        c.route().clone(),
        vec![user("hi")],
        Some(vec![tool("a", true)]),
    );
    run(&c, &opts).await.0.unwrap();
    let req = log.lock().unwrap()[0].clone();
    assert_eq!(req.request_line, "POST /v1/messages HTTP/1.1");
    assert_eq!(req.header("anthropic-beta"), None);
}

#[tokio::test]
async fn openai_chat_success_with_bearer() {
    let body = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning_content\":\"\"}}],\"usage\":null}\n\n",
        ": keep-alive\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"think\"}}],\"usage\":null}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi there\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":5,\"prompt_cache_hit_tokens\":64,\"prompt_cache_miss_tokens\":36}}\n\n",
        "data: [DONE]\n\n"
    );
    let (base, log) = serve(vec![Canned::sse_text(body, 5)]).await;
    let c = client(ProviderKind::OpenaiChat, &base);
    let opts = options(c.route().clone(), vec![user("hi")], None);
    let done = run(&c, &opts).await.0.unwrap();
    assert_eq!(
        done.content,
        vec![
            Block::Reasoning {
                text: "think".into(),
                signature: None
            },
            Block::text("Hi there")
        ]
    );
    let usage = done.usage.unwrap();
    assert_eq!(usage.input_tokens, 36);
    assert_eq!(usage.cache_read_tokens, 64);
    let req = log.lock().unwrap()[0].clone();
    assert_eq!(req.request_line, "POST /chat/completions HTTP/1.1");
    assert_eq!(
        req.header("authorization").map(|v| v.to_string()),
        Some(format!("Bearer {KEY}"))
    );
    assert_eq!(req.header("x-api-key"), None);
    assert_eq!(req.body["stream_options"]["include_usage"], true);
    // A route without tool_update declares the tool bridge, so a later tool change never
    // touches the tool list (SPEC §15.1).
    let names: Vec<&str> = req.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["tool_search", "call_tool"]);
}

#[tokio::test]
async fn client_errors_are_classified_and_not_retried() {
    let cases = [
        (
            "401 Unauthorized",
            r#"{"error":{"message":"Authentication Fails (no such user)","type":"authentication_error","code":"invalid_request_error"}}"#,
            ErrorCode::Auth,
        ),
        (
            "402 Payment Required",
            r#"{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}"#,
            ErrorCode::Quota,
        ),
        (
            "400 Bad Request",
            r#"{"error":{"message":"Failed to deserialize the JSON body into the target type","type":"invalid_request_error"}}"#,
            ErrorCode::InvalidRequest,
        ),
        (
            "400 Bad Request",
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt exceeds the model's maximum context length"}}"#,
            ErrorCode::ContextOverflow,
        ),
        (
            "422 Unprocessable Entity",
            r#"{"error":{"message":"Invalid max_tokens","type":"invalid_request_error"}}"#,
            ErrorCode::InvalidRequest,
        ),
    ];
    let (base, _log) = serve(
        cases
            .iter()
            .map(|(s, b, _)| Canned::error(s, "", b))
            .collect(),
    )
    .await;
    let c = client(ProviderKind::DeepseekMessages, &base);
    let opts = options(c.route().clone(), vec![user("hi")], None);
    for (status, body, code) in cases {
        let f = run(&c, &opts).await.0.unwrap_err();
        assert_eq!(f.error.code, code, "{status}");
        let expected: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(
            f.error.message,
            expected["error"]["message"].as_str().unwrap()
        );
        assert_eq!(
            Some(f.error.status.unwrap().to_string().as_str()),
            status.split(' ').next()
        );
        assert_eq!(RetryPolicy::default().delay(1, &f.error), None, "{status}");
    }
}

#[tokio::test]
async fn rate_limit_with_retry_after_and_server_errors_are_retryable() {
    let (base, _log) = serve(vec![
        Canned::error(
            "429 Too Many Requests",
            "retry-after: 3\r\n",
            r#"{"error":{"message":"Rate limit reached","type":"rate_limit_error"}}"#,
        ),
        Canned::error(
            "500 Internal Server Error",
            "",
            r#"{"error":{"message":"boom","type":"api_error"}}"#,
        ),
        Canned::error("503 Service Unavailable", "", "Service Unavailable"),
    ])
    .await;
    let c = client(ProviderKind::OpenaiChat, &base);
    let opts = options(c.route().clone(), vec![user("hi")], None);
    let policy = RetryPolicy::default();

    let f = run(&c, &opts).await.0.unwrap_err();
    assert_eq!(
        (f.error.code, f.error.status),
        (ErrorCode::RateLimit, Some(429))
    );
    assert_eq!(f.error.retry_after, Some(Duration::from_secs(3)));
    assert_eq!(policy.delay(1, &f.error), Some(Duration::from_secs(3)));

    let f = run(&c, &opts).await.0.unwrap_err();
    assert_eq!(
        (f.error.code, f.error.status),
        (ErrorCode::Server, Some(500))
    );
    assert!(policy.delay(1, &f.error).is_some());

    let f = run(&c, &opts).await.0.unwrap_err();
    assert_eq!(
        (f.error.code, f.error.status),
        (ErrorCode::Server, Some(503))
    );
    assert_eq!(f.error.message, "Service Unavailable");
    assert!(policy.delay(3, &f.error).is_some());
    assert_eq!(policy.delay(4, &f.error), None);
}

#[tokio::test]
async fn in_stream_error_event_is_classified() {
    let body = frame("message_start", MESSAGE_START)
        + &frame(
            "error",
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
    let (base, _log) = serve(vec![Canned::sse_text(&body, 1000)]).await;
    let c = client(ProviderKind::DeepseekMessages, &base);
    let opts = options(c.route().clone(), vec![user("hi")], None);
    let f = run(&c, &opts).await.0.unwrap_err();
    assert_eq!((f.error.code, f.error.status), (ErrorCode::Server, None));
    assert_eq!(f.error.message, "Overloaded");
    assert!(RetryPolicy::default().delay(1, &f.error).is_some());
}

#[tokio::test]
async fn cut_stream_is_retryable_transport_with_partial() {
    let full = anthropic_text_stream(&["partial ", "text"]);
    let cut = &full[..full.find("event: content_block_stop").unwrap()];
    let (base, _log) = serve(vec![Canned::sse_text(cut, 50)]).await;
    let c = client(ProviderKind::DeepseekMessages, &base);
    let opts = options(c.route().clone(), vec![user("hi")], None);
    let f = run(&c, &opts).await.0.unwrap_err();
    assert_eq!(f.error.code, ErrorCode::Transport);
    assert!(
        f.error.message.contains("message_stop"),
        "{}",
        f.error.message
    );
    assert!(RetryPolicy::default().delay(1, &f.error).is_some());
    assert_eq!(
        f.partial.unwrap().content,
        vec![Block::text("partial text")]
    );
}

#[tokio::test]
async fn idle_stall_with_only_keepalives_times_out() {
    let mut parts = vec![Part::Bytes(
        frame("message_start", MESSAGE_START).into_bytes(),
    )];
    for _ in 0..40 {
        parts.push(Part::Sleep(Duration::from_millis(50)));
        parts.push(Part::Bytes(b": keep-alive\n\n".to_vec()));
    }
    let (base, _log) = serve(vec![Canned::sse(parts)]).await;
    let c =
        client(ProviderKind::DeepseekMessages, &base).with_idle_timeout(Duration::from_millis(400));
    let opts = options(c.route().clone(), vec![user("hi")], None);
    let started = Instant::now();
    let f = run(&c, &opts).await.0.unwrap_err();
    let took = started.elapsed();
    assert_eq!(f.error.code, ErrorCode::Transport);
    assert!(
        f.error.message.contains("no stream event"),
        "{}",
        f.error.message
    );
    // Keep-alive comments (every 50 ms) must not reset the idle timer.
    assert!(
        took >= Duration::from_millis(350) && took < Duration::from_millis(1500),
        "{took:?}"
    );
}

#[tokio::test]
async fn redirects_are_not_followed() {
    let other = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let other_addr = other.local_addr().unwrap();
    let hits = Arc::new(Mutex::new(0usize));
    let hits2 = hits.clone();
    tokio::spawn(async move {
        while let Ok((_s, _)) = other.accept().await {
            *hits2.lock().unwrap() += 1;
        }
    });
    let (base, _log) = serve(vec![Canned::error(
        "307 Temporary Redirect",
        &format!("location: http://{other_addr}/v1/messages\r\n"),
        "",
    )])
    .await;
    let c = client(ProviderKind::DeepseekMessages, &base);
    let opts = options(c.route().clone(), vec![user("hi")], None);
    let f = run(&c, &opts).await.0.unwrap_err();
    assert_eq!(
        (f.error.code, f.error.status),
        (ErrorCode::InvalidRequest, Some(307))
    );
    assert!(f.error.message.contains("redirect"), "{}", f.error.message);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        *hits.lock().unwrap(),
        0,
        "the redirect target was contacted"
    );
    assert_no_key(&f);
}

#[tokio::test]
async fn api_key_never_appears_in_errors() {
    let echo = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {KEY}","type":"authentication_error"}}}}"#
    );
    let (base, _log) = serve(vec![
        Canned::error("401 Unauthorized", "", &echo),
        Canned::sse_text(
            &frame(
                "error",
                &format!(
                    r#"{{"type":"error","error":{{"type":"api_error","message":"bad {KEY}"}}}}"#
                ),
            ),
            100,
        ),
    ])
    .await;
    let c = client(ProviderKind::DeepseekMessages, &base);
    let opts = options(c.route().clone(), vec![user("hi")], None);
    let f = run(&c, &opts).await.0.unwrap_err();
    assert_eq!(f.error.code, ErrorCode::Auth);
    assert_eq!(f.error.message, "Incorrect API key provided: <redacted>");
    assert_no_key(&f);
    let f = run(&c, &opts).await.0.unwrap_err();
    assert_eq!(f.error.message, "bad <redacted>");
    assert_no_key(&f);
    // Transport errors too (nothing listens on the closed port).
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = closed.local_addr().unwrap();
    drop(closed);
    let c = client(ProviderKind::OpenaiChat, &format!("http://{addr}"));
    let f = run(&c, &opts).await.0.unwrap_err();
    assert_eq!(f.error.code, ErrorCode::Transport);
    assert_no_key(&f);
}

#[tokio::test]
async fn missing_key_is_reported_without_a_request() {
    let c =
        ProviderClient::new(route(ProviderKind::OpenaiChat, "http://127.0.0.1:9"), None).unwrap();
    let opts = options(c.route().clone(), vec![user("hi")], None);
    let f = run(&c, &opts).await.0.unwrap_err();
    assert_eq!(f.error.code, ErrorCode::MissingKey);
    assert!(f.error.message.contains("DEEPSEEK_API_KEY"));
}

#[tokio::test]
async fn cancel_mid_stream_returns_partial_promptly() {
    let head = frame("message_start", MESSAGE_START)
        + &frame(
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        )
        + &frame(
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}"#,
        );
    let (base, _log) = serve(vec![Canned::sse(vec![
        Part::Bytes(head.into_bytes()),
        Part::Sleep(Duration::from_secs(30)),
    ])])
    .await;
    let c = client(ProviderKind::DeepseekMessages, &base);
    let opts = options(c.route().clone(), vec![user("hi")], None);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let mut cancelled_at = None;
    let result = c
        .stream(
            &opts,
            &mut |e| {
                if matches!(e, StreamEvent::TextDelta(_)) && cancelled_at.is_none() {
                    cancelled_at = Some(Instant::now());
                    trigger.cancel();
                }
            },
            &cancel,
        )
        .await;
    let f = result.unwrap_err();
    let latency = cancelled_at.unwrap().elapsed();
    assert!(latency < Duration::from_millis(500), "{latency:?}");
    assert_eq!(f.error.code, ErrorCode::Cancelled);
    assert_eq!(f.partial.unwrap().content, vec![Block::text("Hel")]);
}

/// The agent loop spawns requests on tokio tasks: the future must be `Send`
/// (this fails to compile otherwise).
#[test]
fn stream_future_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    let c = client(ProviderKind::OpenaiChat, "http://127.0.0.1:9");
    let opts = options(c.route().clone(), vec![user("hi")], None);
    let cancel = CancellationToken::new();
    let mut on_event = |_e: StreamEvent| {};
    let fut = c.stream(&opts, &mut on_event, &cancel);
    assert_send(&fut);
}
