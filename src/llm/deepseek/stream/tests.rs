//! Stream assembly tests from the illustrative streams in deepseek-wire.md §1.8.

use super::*;
use crate::llm::sse::SseParser;

/// deepseek-wire §1.8, verbatim (thinking, then a tool call).
pub(crate) const WIRE_EXAMPLE: &str = r#"event: message_start
data: {"type":"message_start","message":{"id":"msg_0a1b2c","type":"message","role":"assistant","model":"deepseek-flash","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":212,"output_tokens":0,"cache_read_input_tokens":1920,"cache_creation_input_tokens":0}}}

: keep-alive

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Need the manifest"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln..."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"call_00_Xy7","name":"read_file","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"Car"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"go.toml\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":57}}

event: message_stop
data: {"type":"message_stop"}

"#;

fn run(stream: &str) -> (Result<Completion, LlmError>, Vec<StreamEvent>) {
    let mut p = SseParser::new();
    let mut frames = Vec::new();
    p.push(stream.as_bytes(), &mut frames).unwrap();
    let mut a = MessagesAssembler::new();
    let mut events = Vec::new();
    for f in &frames {
        if let Err(e) = a.on_frame(f, &mut |e| events.push(e)) {
            return (Err(e), events);
        }
    }
    (a.finish(), events)
}

fn frame(event: &str, data: &str) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

fn text_stream(stop: &str, blocks: &str) -> String {
    format!(
        "{}{}{}{}",
        frame(
            "message_start",
            r#"{"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":0}}}"#
        ),
        blocks,
        frame(
            "message_delta",
            &format!(
                r#"{{"type":"message_delta","delta":{{"stop_reason":"{stop}"}},"usage":{{"output_tokens":3,"input_tokens":6}}}}"#
            )
        ),
        frame("message_stop", r#"{"type":"message_stop"}"#),
    )
}

#[test]
fn wire_example_assembles_thinking_with_signature_and_tool_call() {
    let (c, events) = run(WIRE_EXAMPLE);
    let c = c.unwrap();
    assert_eq!(
        c.content,
        vec![
            Block::Reasoning {
                text: "Need the manifest".into(),
                signature: Some("c2ln...".into())
            },
            Block::ToolCall {
                id: "call_00_Xy7".into(),
                name: "read_file".into(),
                arguments: r#"{"path": "Cargo.toml"}"#.into()
            },
        ]
    );
    assert_eq!(c.stop_reason, StopReason::ToolUse);
    assert_eq!(
        c.usage,
        Some(Usage {
            input_tokens: 212,
            cache_read_tokens: 1920,
            output_tokens: 57
        })
    );
    assert_eq!(
        events[1],
        StreamEvent::ReasoningDelta("Need the manifest".into())
    );
    assert!(events.contains(&StreamEvent::ToolCallStart {
        id: "call_00_Xy7".into(),
        name: "read_file".into()
    }));
    assert!(events.contains(&StreamEvent::ToolArgsDelta {
        id: "call_00_Xy7".into(),
        fragment: "go.toml\"}".into()
    }));
}

#[test]
fn usage_takes_latest_value_per_field() {
    let blocks = frame(
        "content_block_start",
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    ) + &frame(
        "content_block_delta",
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}"#,
    ) + &frame(
        "content_block_stop",
        r#"{"type":"content_block_stop","index":0}"#,
    );
    let c = run(&text_stream("end_turn", &blocks)).0.unwrap();
    assert_eq!(
        c.usage,
        Some(Usage {
            input_tokens: 6,
            cache_read_tokens: 0,
            output_tokens: 3
        })
    );
    assert_eq!(c.content, vec![Block::text("hi")]);
    assert_eq!(c.stop_reason, StopReason::EndTurn);
}

#[test]
fn skeleton_initial_content_and_signature_are_kept() {
    let blocks = frame(
        "content_block_start",
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"pre ","signature":"s1"}}"#,
    ) + &frame("ping", r#"{"type":"ping"}"#)
        + &frame(
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"more"}}"#,
        )
        + &frame(
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        )
        + &frame(
            "content_block_start",
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":"Hello"}}"#,
        )
        + &frame("future_event", r#"{"type":"future_event","x":1}"#)
        + &frame(
            "content_block_stop",
            r#"{"type":"content_block_stop","index":1}"#,
        )
        + &frame(
            "content_block_start",
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"c","name":"ls","input":{}}}"#,
        )
        + &frame(
            "content_block_stop",
            r#"{"type":"content_block_stop","index":2}"#,
        );
    let (c, events) = run(&text_stream("tool_use", &blocks));
    let c = c.unwrap();
    assert_eq!(
        c.content,
        vec![
            Block::Reasoning {
                text: "pre more".into(),
                signature: Some("s1".into())
            },
            Block::text("Hello"),
            Block::ToolCall {
                id: "c".into(),
                name: "ls".into(),
                arguments: "{}".into()
            },
        ]
    );
    assert!(events.contains(&StreamEvent::TextDelta("Hello".into())));
}

#[test]
fn truncated_tool_json_on_max_tokens_is_kept_raw() {
    let blocks = frame(
        "content_block_start",
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"c","name":"w","input":{}}}"#,
    ) + &frame(
        "content_block_delta",
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"text\": \"abc"}}"#,
    ) + &frame(
        "content_block_stop",
        r#"{"type":"content_block_stop","index":0}"#,
    );
    let c = run(&text_stream("max_tokens", &blocks)).0.unwrap();
    assert_eq!(c.stop_reason, StopReason::MaxTokens);
    assert_eq!(
        c.content,
        vec![Block::ToolCall {
            id: "c".into(),
            name: "w".into(),
            arguments: "{\"text\": \"abc".into()
        }]
    );
    assert_eq!(
        crate::llm::client::invalid_tool_calls(&c),
        vec!["c".to_string()]
    );
}

#[test]
fn empty_reply_is_empty_response() {
    let e = run(&text_stream("end_turn", "")).0.unwrap_err();
    assert_eq!(e.code, ErrorCode::EmptyResponse);
    assert!(e.code.is_retryable());
}

#[test]
fn stream_without_message_stop_is_retryable_transport() {
    let cut = WIRE_EXAMPLE.split("event: message_delta").next().unwrap();
    let (r, _) = run(cut);
    let e = r.unwrap_err();
    assert_eq!(e.code, ErrorCode::Transport);
    assert!(e.code.is_retryable());
}

#[test]
fn in_stream_error_event_is_classified() {
    let s = frame(
        "message_start",
        r#"{"type":"message_start","message":{"usage":{"input_tokens":5}}}"#,
    ) + &frame(
        "error",
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    );
    let e = run(&s).0.unwrap_err();
    assert_eq!(
        (e.code, e.status, e.message.as_str()),
        (ErrorCode::Server, None, "Overloaded")
    );
}

#[test]
fn event_name_type_mismatch_is_malformed() {
    let s = frame("content_block_stop", r#"{"type":"message_stop"}"#);
    let e = run(&s).0.unwrap_err();
    assert_eq!(e.code, ErrorCode::Malformed);
    assert!(e.message.contains("content_block_stop"), "{}", e.message);
}

#[test]
fn invalid_json_is_malformed() {
    let e = run(&frame("message_start", "{not json")).0.unwrap_err();
    assert_eq!(e.code, ErrorCode::Malformed);
    assert!(e.message.contains("message_start"));
}

#[test]
fn delta_for_wrong_block_kind_is_malformed() {
    let s = frame(
        "content_block_start",
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    ) + &frame(
        "content_block_delta",
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}"#,
    );
    assert_eq!(run(&s).0.unwrap_err().code, ErrorCode::Malformed);
}

#[test]
fn partial_holds_content_received_so_far() {
    let cut = WIRE_EXAMPLE
        .split("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}")
        .next()
        .unwrap();
    let mut p = SseParser::new();
    let mut frames = Vec::new();
    p.push(cut.as_bytes(), &mut frames).unwrap();
    let mut a = MessagesAssembler::new();
    for f in &frames {
        a.on_frame(f, &mut |_| {}).unwrap();
    }
    let partial = a.partial();
    assert_eq!(partial.content.len(), 2);
    assert_eq!(partial.usage.unwrap().cache_read_tokens, 1920);
}

proptest::proptest! {
    /// Any re-chunking of the byte stream (inside frames, CRLF pairs or UTF-8 characters)
    /// assembles the same completion and the same live events.
    #[test]
    fn rechunked_stream_assembles_identically(cuts in proptest::collection::vec(0usize..4000, 0..60)) {
        let text = WIRE_EXAMPLE.replace("Need the manifest", "需要 the manifest ✓").replace('\n', "\r\n");
        let bytes = text.as_bytes();
        let whole = run(&text);
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % bytes.len()).collect();
        cuts.sort_unstable();
        cuts.dedup();
        let mut p = SseParser::new();
        let mut a = MessagesAssembler::new();
        let mut events = Vec::new();
        let mut start = 0;
        for end in cuts.into_iter().chain([bytes.len()]) {
            let mut frames = Vec::new();
            p.push(&bytes[start..end], &mut frames).unwrap();
            for f in &frames {
                a.on_frame(f, &mut |e| events.push(e)).unwrap();
            }
            start = end;
        }
        proptest::prop_assert_eq!(a.finish(), whole.0);
        proptest::prop_assert_eq!(events, whole.1);
    }
}

#[test]
fn reply_cap_counts_text_reasoning_and_arguments() {
    let delta = |i: u64, ty: &str, field: &str, v: &str| {
        frame(
            "content_block_delta",
            &serde_json::json!({"type":"content_block_delta","index":i,"delta":{"type":ty, field: v}})
                .to_string(),
        )
    };
    let mut s = frame(
        "content_block_start",
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
    );
    s += &frame(
        "content_block_start",
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"c","name":"t","input":{}}}"#,
    );
    // 3 × 400 bytes, split over reasoning and arguments.
    s += &delta(0, "thinking_delta", "thinking", &"r".repeat(400));
    s += &delta(1, "input_json_delta", "partial_json", &"a".repeat(400));
    s += &delta(0, "thinking_delta", "thinking", &"r".repeat(400));
    let mut p = SseParser::new();
    let mut frames = Vec::new();
    p.push(s.as_bytes(), &mut frames).unwrap();
    let feed = |max: usize| {
        let mut a = MessagesAssembler::with_max_reply_bytes(max);
        frames.iter().try_for_each(|f| a.on_frame(f, &mut |_| {}))
    };
    let e = feed(1000).unwrap_err();
    assert_eq!(e.code, ErrorCode::TooLarge);
    assert!(!e.code.is_retryable());
    assert!(e.message.contains("1000 bytes"), "{}", e.message);
    assert!(feed(2000).is_ok());
}
