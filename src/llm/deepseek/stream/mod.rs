//! Assembly of an Anthropic-format SSE stream into live [`StreamEvent`]s and a
//! [`Completion`] (deepseek-wire §1.8–1.10).
//!
//! Memory is bounded by the message size: deltas are appended to their block and then
//! handed to the caller; nothing else is retained.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use crate::llm::adapter::{
    Assemble, BLOCK_OVERHEAD, ReplyBudget, classify_error, completed, partial_completion,
};
use crate::llm::sse::SseFrame;
use crate::llm::tool_ids::{ToolIdRepair, unique_reply_ids};
use crate::llm::types::{Completion, ErrorCode, LlmError, StopReason, StreamEvent};
use crate::llm::usage::{ReportedUsage, UsageTracker, WireCount, fields};
use crate::session::event::{Block, Usage};

#[derive(Deserialize)]
struct WireEvent<'a> {
    #[serde(rename = "type", borrow)]
    ty: Cow<'a, str>,
    #[serde(default)]
    index: Option<u64>,
    #[serde(default)]
    delta: Option<WireDelta>,
    #[serde(default)]
    content_block: Option<Value>,
    #[serde(default)]
    message: Option<WireMessageStart>,
    #[serde(default)]
    usage: Option<Value>,
}

#[derive(Deserialize)]
struct WireDelta {
    #[serde(rename = "type", default)]
    ty: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    thinking: Option<String>,
    #[serde(default)]
    partial_json: Option<String>,
    #[serde(default)]
    signature: Option<String>,
    #[serde(default)]
    stop_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireMessageStart {
    #[serde(default)]
    usage: Option<Value>,
}

#[derive(Debug, Clone)]
enum OpenBlock {
    Text(String),
    Thinking {
        text: String,
        signature: Option<String>,
    },
    ToolUse {
        id: String,
        name: String,
        json: String,
        /// The skeleton's `input`, used when no `input_json_delta` arrives.
        skeleton: Option<String>,
    },
}

/// Maps a Messages API stop reason.
pub fn map_stop_reason(reason: &str) -> StopReason {
    match reason {
        "end_turn" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "max_tokens" => StopReason::MaxTokens,
        "stop_sequence" => StopReason::StopSequence,
        other => StopReason::Other(other.to_string()),
    }
}

fn malformed(message: String) -> LlmError {
    LlmError::new(ErrorCode::Malformed, message)
}

/// Stateful assembler for one Messages API response stream.
#[derive(Debug, Default)]
pub struct MessagesAssembler {
    blocks: Vec<(u64, OpenBlock)>,
    input: WireCount,
    creation: WireCount,
    cache_read: WireCount,
    output: WireCount,
    usage: UsageTracker,
    stop_reason: Option<StopReason>,
    done: bool,
    budget: ReplyBudget,
}

impl MessagesAssembler {
    /// A fresh assembler with the default reply cap.
    pub fn new() -> Self {
        MessagesAssembler::default()
    }

    /// A fresh assembler whose reply may hold at most `max` bytes of text, reasoning and
    /// tool arguments.
    pub fn with_max_reply_bytes(max: usize) -> Self {
        MessagesAssembler {
            budget: ReplyBudget::new(max),
            ..MessagesAssembler::default()
        }
    }

    /// The same assembler, checking usage against a context window of `tokens` (0: not
    /// known, only the other checks apply).
    pub fn with_context_window(mut self, tokens: u64) -> Self {
        self.usage = UsageTracker::new((tokens > 0).then_some(tokens));
        self
    }

    fn usage(&self) -> Option<Usage> {
        self.usage.usage()
    }

    fn apply_usage(&mut self, u: &Value, emit: &mut dyn FnMut(StreamEvent)) {
        // Latest value per field (deepseek-wire §1.9).
        let [input, creation, cache_read, output] = fields(
            u,
            [
                "input_tokens",
                "cache_creation_input_tokens",
                "cache_read_input_tokens",
                "output_tokens",
            ],
        );
        for (slot, v) in [
            (&mut self.input, input),
            (&mut self.creation, creation),
            (&mut self.cache_read, cache_read),
            (&mut self.output, output),
        ] {
            if let Some(v) = v {
                *slot = v;
            }
        }
        // `input_tokens` counts neither cache writes nor cache reads.
        let reported = ReportedUsage {
            prompt: self.input.plus(self.creation).plus(self.cache_read),
            cache_read: self.cache_read,
            output: self.output,
        };
        if let Some(u) = self.usage.update(reported) {
            emit(StreamEvent::Usage(u));
        }
    }

    fn block_mut(&mut self, index: Option<u64>) -> Result<&mut OpenBlock, LlmError> {
        let index = index.ok_or_else(|| malformed("content block event without index".into()))?;
        self.blocks
            .iter_mut()
            .rev()
            .find(|(i, _)| *i == index)
            .map(|(_, b)| b)
            .ok_or_else(|| malformed(format!("delta for unknown content block {index}")))
    }

    fn start_block(
        &mut self,
        event: WireEvent<'_>,
        emit: &mut dyn FnMut(StreamEvent),
    ) -> Result<(), LlmError> {
        let index = event
            .index
            .ok_or_else(|| malformed("content_block_start without index".into()))?;
        let cb = event
            .content_block
            .ok_or_else(|| malformed("content_block_start without content_block".into()))?;
        let str_field = |name: &str| cb.get(name).and_then(Value::as_str).map(str::to_string);
        let size = ["text", "thinking", "signature", "id", "name"]
            .iter()
            .map(|f| cb.get(*f).and_then(Value::as_str).map_or(0, str::len))
            .sum::<usize>();
        self.budget.charge(size + BLOCK_OVERHEAD)?;
        let block = match cb.get("type").and_then(Value::as_str) {
            Some("text") => {
                let text = str_field("text").unwrap_or_default();
                if !text.is_empty() {
                    emit(StreamEvent::TextDelta(text.clone()));
                }
                OpenBlock::Text(text)
            }
            Some("thinking") => {
                let text = str_field("thinking").unwrap_or_default();
                if !text.is_empty() {
                    emit(StreamEvent::ReasoningDelta(text.clone()));
                }
                OpenBlock::Thinking {
                    text,
                    signature: str_field("signature"),
                }
            }
            Some("tool_use") => {
                let id = str_field("id").unwrap_or_default();
                let name = str_field("name").unwrap_or_default();
                emit(StreamEvent::ToolCallStart {
                    id: id.clone(),
                    name: name.clone(),
                });
                let skeleton = cb
                    .get("input")
                    .filter(|v| v.as_object().is_some_and(|o| !o.is_empty()))
                    .map(Value::to_string);
                OpenBlock::ToolUse {
                    id,
                    name,
                    json: String::new(),
                    skeleton,
                }
            }
            other => {
                return Err(LlmError::new(
                    ErrorCode::UnsupportedContent,
                    format!(
                        "DeepSeek Messages response block {} is not supported",
                        other.unwrap_or("(untyped)")
                    ),
                ));
            }
        };
        self.blocks.push((index, block));
        Ok(())
    }

    /// Settled content: tool calls get unique, non-empty ids.
    fn content(&self) -> (Vec<Block>, Vec<ToolIdRepair>) {
        settle(self.blocks.iter().map(|(_, b)| b.clone()))
    }
}

impl Assemble for MessagesAssembler {
    /// Consumes one SSE frame.
    fn on_frame(
        &mut self,
        frame: &SseFrame,
        emit: &mut dyn FnMut(StreamEvent),
    ) -> Result<(), LlmError> {
        let event: WireEvent<'_> = serde_json::from_str(&frame.data).map_err(|e| {
            malformed(format!(
                "invalid JSON in SSE event {}: {e}",
                frame.event.as_deref().unwrap_or("(unnamed)")
            ))
        })?;
        if let Some(name) = &frame.event
            && name != event.ty.as_ref()
        {
            return Err(malformed(format!(
                "SSE event {name} carries data of type {}",
                event.ty
            )));
        }
        match event.ty.as_ref() {
            "message_start" => {
                if let Some(u) = event.message.and_then(|m| m.usage) {
                    self.apply_usage(&u, emit);
                }
            }
            "content_block_start" => self.start_block(event, emit)?,
            "content_block_delta" => {
                let delta = event
                    .delta
                    .ok_or_else(|| malformed("content_block_delta without delta".into()))?;
                let size = [
                    &delta.text,
                    &delta.thinking,
                    &delta.partial_json,
                    &delta.signature,
                ]
                .iter()
                .map(|f| f.as_ref().map_or(0, String::len))
                .sum();
                self.budget.charge(size)?;
                let block = self.block_mut(event.index)?;
                apply_delta(block, delta, emit)?;
            }
            "content_block_stop" => {
                self.block_mut(event.index)?;
            }
            "message_delta" => {
                if let Some(reason) = event.delta.and_then(|d| d.stop_reason) {
                    self.stop_reason = Some(map_stop_reason(&reason));
                }
                if let Some(u) = &event.usage {
                    self.apply_usage(u, emit);
                }
            }
            "message_stop" => self.done = true,
            "error" => return Err(classify_error(None, &frame.data, None)),
            // `ping` and unknown event types are ignored.
            _ => {}
        }
        Ok(())
    }

    /// Whether `message_stop` arrived.
    fn is_done(&self) -> bool {
        self.done
    }

    /// What arrived so far (for cancelled or failed streams).
    fn partial(&self) -> Completion {
        partial_completion(self.content().0, self.stop_reason.as_ref(), self.usage())
    }

    /// The settled completion after `message_stop`.
    fn finish(self) -> Result<Completion, LlmError> {
        if !self.done {
            return Err(LlmError::new(
                ErrorCode::Transport,
                "the stream ended before message_stop",
            ));
        }
        let usage = self.usage();
        let explicit_stop = self.stop_reason.clone();
        // Moved, not copied: a large reply is held once.
        let (content, id_repairs) = settle(self.blocks.into_iter().map(|(_, b)| b));
        let has_calls = content.iter().any(|b| matches!(b, Block::ToolCall { .. }));
        let stop_reason = explicit_stop.unwrap_or(if has_calls {
            StopReason::ToolUse
        } else {
            StopReason::EndTurn
        });
        if stop_reason != StopReason::MaxTokens {
            for b in &content {
                if let Block::ToolCall { id, arguments, .. } = b
                    && serde_json::from_str::<Value>(arguments).is_err()
                {
                    // Kept raw: the loop answers it with a tool error instead of failing the turn.
                    tracing::warn!(call_id = %id, "provider sent invalid tool-call JSON");
                }
            }
        }
        completed(content, id_repairs, stop_reason, usage)
    }
}

/// The open blocks as message content: empty ones dropped, tool calls with unique,
/// non-empty ids.
fn settle(blocks: impl Iterator<Item = OpenBlock>) -> (Vec<Block>, Vec<ToolIdRepair>) {
    let mut blocks: Vec<Block> = blocks
        .filter_map(|b| match b {
            OpenBlock::Text(t) if t.is_empty() => None,
            OpenBlock::Text(t) => Some(Block::text(t)),
            OpenBlock::Thinking { text, signature } => {
                if text.is_empty() && signature.is_none() {
                    None
                } else {
                    Some(Block::Reasoning { text, signature })
                }
            }
            OpenBlock::ToolUse {
                id,
                name,
                json,
                skeleton,
            } => Some(Block::ToolCall {
                id,
                name,
                arguments: if json.is_empty() {
                    skeleton.unwrap_or_else(|| "{}".to_string())
                } else {
                    json
                },
            }),
        })
        .collect();
    let repairs = unique_reply_ids(&mut blocks);
    (blocks, repairs)
}

fn apply_delta(
    block: &mut OpenBlock,
    delta: WireDelta,
    emit: &mut dyn FnMut(StreamEvent),
) -> Result<(), LlmError> {
    let ty = delta.ty.as_deref().unwrap_or("");
    match (block, ty) {
        (OpenBlock::Text(text), "text_delta") => {
            let d = delta.text.unwrap_or_default();
            text.push_str(&d);
            emit(StreamEvent::TextDelta(d));
        }
        (OpenBlock::Thinking { text, .. }, "thinking_delta") => {
            let d = delta.thinking.unwrap_or_default();
            text.push_str(&d);
            emit(StreamEvent::ReasoningDelta(d));
        }
        (OpenBlock::Thinking { signature, .. }, "signature_delta") => {
            let d = delta.signature.unwrap_or_default();
            signature.get_or_insert_with(String::new).push_str(&d);
        }
        (OpenBlock::ToolUse { id, json, .. }, "input_json_delta") => {
            let d = delta.partial_json.unwrap_or_default();
            json.push_str(&d);
            emit(StreamEvent::ToolArgsDelta {
                id: id.clone(),
                fragment: d,
            });
        }
        (_, other) => {
            return Err(malformed(format!(
                "delta type {other} does not match its content block"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
