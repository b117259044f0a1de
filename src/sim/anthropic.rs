//! Anthropic Messages output: SSE events (§1.8) and the non-streaming message (§1.7).

use serde_json::{Value, json};

use super::stream::{Frame, split_chunks};
use super::turn::{OutBlock, Turn};

/// Prompt/usage numbers for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// Total prompt tokens.
    pub total: u64,
    /// Cached prompt tokens.
    pub hit: u64,
    /// Output tokens.
    pub output: u64,
    /// Reasoning tokens (part of output).
    pub reasoning: u64,
}

/// The Anthropic `usage` object.
pub fn usage_json(u: &Usage, output: u64) -> Value {
    json!({
        "input_tokens": u.total - u.hit,
        "output_tokens": output,
        "cache_read_input_tokens": u.hit,
        "cache_creation_input_tokens": 0
    })
}

/// Streaming options for Anthropic frames.
#[derive(Debug, Clone, Copy)]
pub struct StreamStyle {
    /// Emit `: keep-alive` comments and `ping` events.
    pub keepalive: bool,
    /// Put the signature into `content_block_start` instead of a `signature_delta`.
    pub signature_in_start: bool,
    /// Maximum chunk size in bytes.
    pub max_chunk: usize,
}

/// All frames of a streamed message.
pub fn frames(
    turn: &Turn,
    model: &str,
    usage: &Usage,
    style: StreamStyle,
    rng: &mut fastrand::Rng,
) -> Vec<Frame> {
    let mut out = Vec::new();
    if style.keepalive {
        out.push(Frame::keep_alive());
    }
    out.push(Frame::event(
        "message_start",
        &json!({"type": "message_start", "message": {
            "id": turn.id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": usage_json(usage, 0)}}),
    ));
    if style.keepalive {
        out.push(Frame::ping());
    }
    let mut index = 0usize;
    if let Some(thinking) = &turn.thinking {
        let mut skeleton = json!({"type": "thinking", "thinking": ""});
        if style.signature_in_start {
            skeleton["signature"] = json!(turn.signature);
        }
        out.push(Frame::event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": skeleton}),
        ));
        for piece in split_chunks(thinking, rng, style.max_chunk) {
            out.push(Frame::event("content_block_delta", &json!({"type": "content_block_delta", "index": index, "delta": {"type": "thinking_delta", "thinking": piece}})));
        }
        if !style.signature_in_start {
            out.push(Frame::event("content_block_delta", &json!({"type": "content_block_delta", "index": index, "delta": {"type": "signature_delta", "signature": turn.signature}})));
        }
        out.push(Frame::event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
        if style.keepalive {
            out.push(Frame::keep_alive());
        }
    }
    for b in &turn.blocks {
        match b {
            OutBlock::Text(t) => {
                out.push(Frame::event("content_block_start", &json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})));
                for piece in split_chunks(t, rng, style.max_chunk) {
                    out.push(Frame::event("content_block_delta", &json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}})));
                }
            }
            OutBlock::ToolUse { id, name, json } => {
                out.push(Frame::event("content_block_start", &json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})));
                for piece in split_chunks(json, rng, style.max_chunk) {
                    out.push(Frame::event("content_block_delta", &json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}})));
                }
            }
        }
        out.push(Frame::event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    out.push(Frame::event(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": turn.stop.anthropic(), "stop_sequence": null},
            "usage": usage_json(usage, turn.output_tokens)}),
    ));
    out.push(Frame::event(
        "message_stop",
        &json!({"type": "message_stop"}),
    ));
    out
}

/// The in-stream `error` frame.
pub fn error_frame(message: &str) -> Frame {
    Frame::event(
        "error",
        &json!({"type": "error", "error": {"type": "overloaded_error", "message": message}}),
    )
}

/// The non-streaming message body.
pub fn message(turn: &Turn, model: &str, usage: &Usage) -> Value {
    let mut content = Vec::new();
    if let Some(t) = &turn.thinking {
        content.push(json!({"type": "thinking", "thinking": t, "signature": turn.signature}));
    }
    for b in &turn.blocks {
        match b {
            OutBlock::Text(t) => content.push(json!({"type": "text", "text": t})),
            OutBlock::ToolUse { id, name, json } => {
                // Truncated JSON cannot be an object; Anthropic would still send an object.
                let input: Value = serde_json::from_str(json).unwrap_or_else(|_| json!({}));
                content.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
            }
        }
    }
    json!({
        "id": turn.id, "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": turn.stop.anthropic(), "stop_sequence": null,
        "usage": usage_json(usage, turn.output_tokens)
    })
}
