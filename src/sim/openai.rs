//! OpenAI Chat Completions output: `data:` chunks + `[DONE]` (§4) and the non-streaming body.

use serde_json::{Value, json};

use super::anthropic::Usage;
use super::stream::{Frame, split_chunks};
use super::turn::{OutBlock, Turn};

/// The OpenAI `usage` object.
pub fn usage_json(u: &Usage) -> Value {
    json!({
        "prompt_tokens": u.total,
        "completion_tokens": u.output,
        "total_tokens": u.total + u.output,
        "prompt_cache_hit_tokens": u.hit,
        "prompt_cache_miss_tokens": u.total - u.hit,
        "prompt_tokens_details": {"cached_tokens": u.hit},
        "completion_tokens_details": {"reasoning_tokens": u.reasoning}
    })
}

/// Identity fields shared by every chunk.
#[derive(Debug, Clone)]
pub struct ChunkHead {
    /// Completion id.
    pub id: String,
    /// Unix seconds.
    pub created: i64,
    /// Model echoed.
    pub model: String,
}

fn chunk(
    head: &ChunkHead,
    delta: Value,
    finish: Option<&str>,
    usage: Option<Value>,
    include_usage: bool,
) -> Frame {
    let mut c = json!({
        "id": head.id, "object": "chat.completion.chunk", "created": head.created,
        "model": head.model, "system_fingerprint": "fp_deepterm_sim",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]
    });
    if include_usage {
        c["usage"] = usage.unwrap_or(Value::Null);
    }
    Frame::data(&c.to_string())
}

/// All frames of a streamed completion, ending with `data: [DONE]`.
pub fn frames(
    turn: &Turn,
    head: &ChunkHead,
    usage: &Usage,
    include_usage: bool,
    keepalive: bool,
    max_chunk: usize,
    rng: &mut fastrand::Rng,
) -> Vec<Frame> {
    let mut out = Vec::new();
    if keepalive {
        out.push(Frame::keep_alive());
    }
    if turn.thinking.is_some() {
        out.push(chunk(
            head,
            json!({"role": "assistant", "content": null, "reasoning_content": ""}),
            None,
            None,
            include_usage,
        ));
    } else {
        out.push(chunk(
            head,
            json!({"role": "assistant", "content": ""}),
            None,
            None,
            include_usage,
        ));
    }
    if let Some(t) = &turn.thinking {
        for piece in split_chunks(t, rng, max_chunk) {
            out.push(chunk(
                head,
                json!({"content": null, "reasoning_content": piece}),
                None,
                None,
                include_usage,
            ));
        }
    }
    let mut tool_index = 0usize;
    for b in &turn.blocks {
        match b {
            OutBlock::Text(t) => {
                for piece in split_chunks(t, rng, max_chunk) {
                    out.push(chunk(
                        head,
                        json!({"content": piece, "reasoning_content": null}),
                        None,
                        None,
                        include_usage,
                    ));
                }
            }
            OutBlock::ToolUse { id, name, json } => {
                out.push(chunk(head, json!({"tool_calls": [{"index": tool_index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}), None, None, include_usage));
                for piece in split_chunks(json, rng, max_chunk) {
                    out.push(chunk(head, json!({"tool_calls": [{"index": tool_index, "function": {"arguments": piece}}]}), None, None, include_usage));
                }
                tool_index += 1;
            }
        }
    }
    out.push(chunk(
        head,
        json!({"content": ""}),
        Some(turn.stop.openai()),
        Some(usage_json(usage)),
        include_usage,
    ));
    out.push(Frame::data("[DONE]"));
    out
}

/// The in-stream error chunk.
pub fn error_frame(message: &str) -> Frame {
    Frame::data(&json!({"error": {"message": message, "type": "server_error", "param": null, "code": "server_error"}}).to_string())
}

/// The non-streaming completion body.
pub fn completion(turn: &Turn, head: &ChunkHead, usage: &Usage) -> Value {
    let text = turn.text();
    let calls: Vec<Value> = turn
        .blocks
        .iter()
        .filter_map(|b| match b {
            OutBlock::ToolUse { id, name, json } => Some(json!({"id": id, "type": "function", "function": {"name": name, "arguments": json}})),
            OutBlock::Text(_) => None,
        })
        .collect();
    let mut message = json!({"role": "assistant", "content": text});
    if let Some(t) = &turn.thinking {
        message["reasoning_content"] = json!(t);
    }
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    json!({
        "id": head.id, "object": "chat.completion", "created": head.created, "model": head.model,
        "system_fingerprint": "fp_deepterm_sim",
        "choices": [{"index": 0, "finish_reason": turn.stop.openai(), "logprobs": null, "message": message}],
        "usage": usage_json(usage)
    })
}
