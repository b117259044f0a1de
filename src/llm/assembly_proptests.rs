//! Property tests of tool-call assembly on both routes: arbitrary ids (empty,
//! repeated), indices (out of order, gaps, repeats) and partial JSON argument fragments.
//! Assembly never panics; a settled reply has unique, non-empty ids; arguments that are
//! not a JSON object are reported for a tool error and the follow-up request still
//! serializes; the reply cap holds.

use std::collections::HashSet;
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::json;

use crate::llm::adapter::Assemble;
use crate::llm::client::{RequestParts, invalid_tool_calls};
use crate::llm::deepseek::stream::MessagesAssembler;
use crate::llm::openai::stream::ChatAssembler;
use crate::llm::sse::SseFrame;
use crate::llm::tool_ids::repair_history;
use crate::llm::types::{Completion, ErrorCode, LlmError, Thinking};
use crate::session::event::{Block, Message, Role, Source};

/// One generated tool call: id, wire index, argument fragments.
#[derive(Debug, Clone)]
struct GenCall {
    id: String,
    index: u64,
    fragments: Vec<String>,
}

fn id_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("call_same".to_string()),
        Just("call_0".to_string()),
        Just("call_same_dup2".to_string()),
        "[a-z_0-9]{1,6}",
        any::<String>(),
    ]
}

/// Fragments of a valid object (cut anywhere), or arbitrary text.
fn fragments_strategy() -> impl Strategy<Value = Vec<String>> {
    let valid = (
        any::<String>(),
        any::<i64>(),
        proptest::collection::vec(0usize..40, 0..4),
    )
        .prop_map(|(s, n, cuts)| {
            let text = json!({"path": s, "n": n}).to_string();
            let chars: Vec<char> = text.chars().collect();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (chars.len() + 1)).collect();
            cuts.sort_unstable();
            let mut out = Vec::new();
            let mut start = 0;
            for c in cuts.into_iter().chain([chars.len()]) {
                out.push(chars[start..c].iter().collect::<String>());
                start = c;
            }
            out
        });
    prop_oneof![
        valid,
        proptest::collection::vec("[{}\\[\\]\":,a-z0-9 ]{0,8}", 0..4),
        proptest::collection::vec(any::<String>(), 0..3),
    ]
}

fn calls_strategy() -> impl Strategy<Value = Vec<GenCall>> {
    proptest::collection::vec(
        (id_strategy(), 0u64..6, fragments_strategy()).prop_map(|(id, index, fragments)| GenCall {
            id,
            index,
            fragments,
        }),
        0..5,
    )
}

fn frame(event: &str, data: serde_json::Value) -> SseFrame {
    SseFrame {
        event: Some(event.to_string()),
        data: data.to_string(),
    }
}

/// A Messages stream for `calls`; `interleave` sends every start first, then the deltas.
fn messages_frames(calls: &[GenCall], interleave: bool) -> Vec<SseFrame> {
    let mut frames = vec![frame(
        "message_start",
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 1}}}),
    )];
    let start = |c: &GenCall| {
        frame(
            "content_block_start",
            json!({"type": "content_block_start", "index": c.index,
                   "content_block": {"type": "tool_use", "id": c.id, "name": "t", "input": {}}}),
        )
    };
    let deltas = |c: &GenCall| {
        c.fragments
            .iter()
            .map(|f| {
                frame(
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": c.index,
                           "delta": {"type": "input_json_delta", "partial_json": f}}),
                )
            })
            .collect::<Vec<_>>()
    };
    if interleave {
        frames.extend(calls.iter().map(start));
        for c in calls {
            frames.extend(deltas(c));
        }
    } else {
        for c in calls {
            frames.push(start(c));
            frames.extend(deltas(c));
            frames.push(frame(
                "content_block_stop",
                json!({"type": "content_block_stop", "index": c.index}),
            ));
        }
    }
    frames.push(frame(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
    ));
    frames.push(frame("message_stop", json!({"type": "message_stop"})));
    frames
}

/// A Chat Completions stream: the first chunk of a call carries its id and name, later
/// ones only argument fragments (ids repeated as "" or omitted, as gateways do).
fn chat_frames(calls: &[GenCall], index_missing: bool) -> Vec<SseFrame> {
    let mut frames = Vec::new();
    let data = |v: serde_json::Value| SseFrame {
        event: None,
        data: v.to_string(),
    };
    for c in calls {
        let index = if index_missing {
            serde_json::Value::Null
        } else {
            json!(c.index)
        };
        frames.push(data(json!({"choices": [{"delta": {"tool_calls": [
            {"index": index, "id": c.id, "function": {"name": "t", "arguments": ""}}
        ]}}]})));
        for (k, f) in c.fragments.iter().enumerate() {
            let id = if k % 2 == 0 { json!("") } else { json!(null) };
            frames.push(data(json!({"choices": [{"delta": {"tool_calls": [
                {"index": index, "id": id, "function": {"arguments": f}}
            ]}}]})));
        }
    }
    frames.push(data(
        json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}),
    ));
    frames.push(SseFrame {
        event: None,
        data: "[DONE]".into(),
    });
    frames
}

fn reply_bytes(c: &Completion) -> usize {
    c.content
        .iter()
        .map(|b| match b {
            Block::Text { text } => text.len(),
            Block::Reasoning { text, .. } => text.len(),
            Block::ToolCall { arguments, .. } => arguments.len(),
            _ => 0,
        })
        .sum()
}

/// The invariants of a settled reply, and a follow-up request that answers every call
/// (invalid arguments with a tool error) serializes on the Messages route.
fn check_settled(c: &Completion) -> Result<(), TestCaseError> {
    let ids: Vec<&str> = c
        .content
        .iter()
        .filter_map(|b| match b {
            Block::ToolCall { id, .. } => Some(id.as_str()),
            _ => None,
        })
        .collect();
    prop_assert!(ids.iter().all(|id| !id.is_empty()), "{:?}", ids);
    prop_assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());
    let invalid: HashSet<String> = invalid_tool_calls(c).into_iter().collect();
    for b in &c.content {
        if let Block::ToolCall { id, arguments, .. } = b {
            let is_object = matches!(
                serde_json::from_str::<serde_json::Value>(arguments),
                Ok(serde_json::Value::Object(_))
            );
            prop_assert_eq!(invalid.contains(id), !is_object);
        }
    }
    let mut messages = vec![
        Arc::new(Message::text(Role::User, "go", Source::kind("user"))),
        Arc::new(Message::new(
            Role::Assistant,
            c.content.clone(),
            Source::kind("model"),
        )),
    ];
    for id in &ids {
        let mut r = Message::text(Role::Tool, "result", Source::kind("tool"));
        r.tool_call_id = Some(id.to_string());
        r.is_error = invalid.contains(*id).then_some(true);
        messages.push(Arc::new(r));
    }
    let repaired = repair_history(&messages);
    prop_assert!(
        matches!(repaired, std::borrow::Cow::Borrowed(_)),
        "arrival ids need no repair"
    );
    let parts = RequestParts {
        model: "deepseek-flash",
        system_prompt_update: None,
        messages: &messages,
        tools: None,
        system: None,
        max_tokens: 100,
        thinking: Thinking::Default,
        effort: None,
        temperature: None,
        stop: None,
    };
    let body = crate::llm::deepseek::serialize::serialize(&parts);
    prop_assert!(body.is_ok(), "{:?}", body.err());
    Ok(())
}

fn run_messages(frames: &[SseFrame], max_reply: usize) -> Result<Completion, LlmError> {
    let mut a = MessagesAssembler::with_max_reply_bytes(max_reply);
    for f in frames {
        a.on_frame(f, &mut |_| {})?;
    }
    a.finish()
}

fn run_chat(frames: &[SseFrame], max_reply: usize) -> Result<Completion, LlmError> {
    let mut a = ChatAssembler::with_max_reply_bytes(max_reply);
    for f in frames {
        a.on_frame(f, &mut |_| {})?;
    }
    a.finish()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::testing::proptest_cases(10_000),
        ..ProptestConfig::default()
    })]

    #[test]
    fn messages_tool_call_assembly(
        calls in calls_strategy(),
        interleave in any::<bool>(),
        max_reply in prop_oneof![Just(usize::MAX), 0usize..400],
    ) {
        let frames = messages_frames(&calls, interleave);
        match run_messages(&frames, max_reply) {
            Ok(c) => {
                prop_assert!(reply_bytes(&c) <= max_reply);
                check_settled(&c)?;
            }
            // Unknown or repeated indices are malformed; an oversize reply is too large.
            Err(e) => prop_assert!(
                matches!(e.code, ErrorCode::Malformed | ErrorCode::TooLarge | ErrorCode::EmptyResponse),
                "{:?}", e
            ),
        }
    }

    #[test]
    fn chat_tool_call_assembly(
        calls in calls_strategy(),
        index_missing in any::<bool>(),
        max_reply in prop_oneof![Just(usize::MAX), 0usize..400],
    ) {
        let frames = chat_frames(&calls, index_missing);
        match run_chat(&frames, max_reply) {
            Ok(c) => {
                prop_assert!(reply_bytes(&c) <= max_reply);
                check_settled(&c)?;
            }
            Err(e) => prop_assert!(
                matches!(e.code, ErrorCode::TooLarge | ErrorCode::EmptyResponse),
                "{:?}", e
            ),
        }
    }
}
