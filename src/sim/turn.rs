//! A generated assistant turn: scripted or demo content with ids, the thinking
//! signature, `max_tokens` truncation and token counts applied.

use serde_json::{Value, json};

use super::cache::tokens;
use super::demo;
use super::render::fnv;
use super::script::{Fault, ScriptedReply};
use super::validate::{ApiError, Parsed, Route};

/// One output content block (besides thinking).
#[derive(Debug, Clone, PartialEq)]
pub enum OutBlock {
    /// Text.
    Text(String),
    /// A tool call; `json` is the serialized input (possibly truncated).
    ToolUse {
        /// `call_NN_<random>`.
        id: String,
        /// Tool name.
        name: String,
        /// Input JSON text as streamed.
        json: String,
    },
}

/// Stop reason (Anthropic names; see [`Stop::openai`]).
#[allow(clippy::enum_variant_names)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// `end_turn` / `stop`.
    EndTurn,
    /// `tool_use` / `tool_calls`.
    ToolUse,
    /// `max_tokens` / `length`.
    MaxTokens,
    /// `stop_sequence` / `stop`.
    StopSequence,
}

impl Stop {
    /// Anthropic name.
    pub fn anthropic(self) -> &'static str {
        match self {
            Stop::EndTurn => "end_turn",
            Stop::ToolUse => "tool_use",
            Stop::MaxTokens => "max_tokens",
            Stop::StopSequence => "stop_sequence",
        }
    }

    /// OpenAI `finish_reason`.
    pub fn openai(self) -> &'static str {
        match self {
            Stop::EndTurn | Stop::StopSequence => "stop",
            Stop::ToolUse => "tool_calls",
            Stop::MaxTokens => "length",
        }
    }
}

/// A fully determined assistant turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// Message id (`msg_…`).
    pub id: String,
    /// Reasoning text, when thinking is on and there is any.
    pub thinking: Option<String>,
    /// Signature of the thinking block.
    pub signature: String,
    /// Content blocks after the thinking block.
    pub blocks: Vec<OutBlock>,
    /// Stop reason.
    pub stop: Stop,
    /// Output tokens (reasoning included).
    pub output_tokens: u64,
    /// Reasoning tokens.
    pub reasoning_tokens: u64,
}

impl Turn {
    /// All text blocks joined (the OpenAI route's `content`).
    pub fn text(&self) -> String {
        self.blocks
            .iter()
            .filter_map(|b| match b {
                OutBlock::Text(t) => Some(t.as_str()),
                OutBlock::ToolUse { .. } => None,
            })
            .collect()
    }

    /// Ids of the tool calls in this turn.
    pub fn tool_ids(&self) -> Vec<String> {
        self.blocks
            .iter()
            .filter_map(|b| match b {
                OutBlock::ToolUse { id, .. } => Some(id.clone()),
                OutBlock::Text(_) => None,
            })
            .collect()
    }

    /// The turn as the client is expected to replay it in history (`None` when truncated
    /// tool JSON makes it unreplayable).
    pub fn replay_message(&self, route: Route) -> Option<Value> {
        match route {
            Route::Anthropic => {
                let mut content = Vec::new();
                if let Some(t) = &self.thinking {
                    content.push(
                        json!({"type": "thinking", "thinking": t, "signature": self.signature}),
                    );
                }
                for b in &self.blocks {
                    match b {
                        OutBlock::Text(t) => content.push(json!({"type": "text", "text": t})),
                        OutBlock::ToolUse { id, name, json } => {
                            let input: Value = serde_json::from_str(json).ok()?;
                            content.push(
                                json!({"type": "tool_use", "id": id, "name": name, "input": input}),
                            );
                        }
                    }
                }
                Some(json!({"role": "assistant", "content": content}))
            }
            Route::OpenAi => {
                let mut m = json!({"role": "assistant", "content": self.text()});
                if let Some(t) = &self.thinking {
                    m["reasoning_content"] = json!(t);
                }
                let calls: Vec<Value> = self
                    .blocks
                    .iter()
                    .filter_map(|b| match b {
                        OutBlock::ToolUse { id, name, json } => Some(json!({
                            "id": id, "type": "function",
                            "function": {"name": name, "arguments": json}})),
                        OutBlock::Text(_) => None,
                    })
                    .collect();
                if calls.iter().any(|c| {
                    serde_json::from_str::<Value>(
                        c.pointer("/function/arguments")
                            .and_then(Value::as_str)
                            .unwrap_or(""),
                    )
                    .is_err()
                }) {
                    return None;
                }
                if !calls.is_empty() {
                    m["tool_calls"] = Value::Array(calls);
                }
                Some(m)
            }
        }
    }
}

/// Random alphanumeric string.
pub fn random_id(rng: &mut fastrand::Rng, len: usize) -> String {
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    (0..len)
        .map(|_| CHARS[rng.usize(..CHARS.len())] as char)
        .collect()
}

/// Truncate to at most `max_bytes` on a char boundary.
pub fn truncate_utf8(s: &str, max_bytes: usize) -> &str {
    if s.len() <= max_bytes {
        return s;
    }
    let mut end = max_bytes;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Build the turn for a request from a script entry (or the demo policy when `reply` is
/// `None` or carries no content). Errors are 500s (script calls a tool not offered).
pub fn build_turn(
    parsed: &Parsed,
    reply: Option<&ScriptedReply>,
    rng: &mut fastrand::Rng,
    demo_locale: crate::i18n::Locale,
    guided: bool,
) -> Result<Turn, ApiError> {
    let fault = reply.and_then(|r| r.fault.clone());
    let content = match reply {
        Some(r) if !r.has_no_content() => r.clone(),
        _ => demo::demo_reply(parsed, crate::i18n::Localizer::new(demo_locale), guided),
    };
    let id = format!("msg_{}", random_id(rng, 24));
    if fault == Some(Fault::Empty) {
        return Ok(Turn {
            id,
            thinking: None,
            signature: String::new(),
            blocks: Vec::new(),
            stop: Stop::EndTurn,
            output_tokens: 0,
            reasoning_tokens: 0,
        });
    }
    let mut calls = content.tool_calls.clone();
    if fault == Some(Fault::TruncateToolJson) && calls.is_empty() {
        let tool = parsed.offered.first().ok_or_else(|| ApiError {
            status: 500,
            message:
                "simulator script error: truncate_tool_json needs a tool, but no tool is offered"
                    .into(),
            kind: "api_error",
        })?;
        calls.push(super::script::ScriptedToolCall {
            name: tool.name.clone(),
            input: demo::arguments_for(tool, ""),
            id: None,
        });
    }
    for c in &calls {
        if !parsed.offered.iter().any(|t| t.name == c.name) {
            let offered: Vec<&str> = parsed.offered.iter().map(|t| t.name.as_str()).collect();
            return Err(ApiError {
                status: 500,
                message: format!(
                    "simulator script error: the scripted reply calls tool `{}`, which is not in the effective tool set at the end of the prompt (offered: [{}]). Did the client forget a tool_addition?",
                    c.name,
                    offered.join(", ")
                ),
                kind: "api_error",
            });
        }
    }

    let thinking = if parsed.thinking {
        content.thinking.clone().filter(|t| !t.is_empty())
    } else {
        None
    };
    let mut blocks = Vec::new();
    if let Some(t) = content.text.clone().filter(|t| !t.is_empty()) {
        blocks.push(OutBlock::Text(t));
    }
    for (i, c) in calls.iter().enumerate() {
        let mut json = serde_json::to_string(&c.input).unwrap_or_else(|_| "{}".into());
        if i == 0 && fault == Some(Fault::TruncateToolJson) {
            let keep = (json.len() / 2).max(1);
            json = truncate_utf8(&json, keep).to_string();
        }
        blocks.push(OutBlock::ToolUse {
            id: c
                .id
                .clone()
                .unwrap_or_else(|| format!("call_{i:02}_{}", random_id(rng, 24))),
            name: c.name.clone(),
            json,
        });
        if i == 0 && fault == Some(Fault::TruncateToolJson) {
            break;
        }
    }
    let mut stop = match content.stop_reason.as_deref() {
        Some("max_tokens") => Stop::MaxTokens,
        Some("stop_sequence") => Stop::StopSequence,
        Some("tool_use") => Stop::ToolUse,
        Some(_) => Stop::EndTurn,
        None if !calls.is_empty() => Stop::ToolUse,
        None => Stop::EndTurn,
    };
    if fault == Some(Fault::TruncateToolJson) {
        stop = Stop::MaxTokens;
    }

    // Enforce max_tokens: one token per 4 bytes, in emission order.
    let mut budget = (parsed.max_tokens as usize).saturating_mul(4);
    let mut thinking = thinking;
    if let Some(t) = &mut thinking {
        if t.len() > budget {
            *t = truncate_utf8(t, budget).to_string();
            stop = Stop::MaxTokens;
            blocks.clear();
        }
        budget = budget.saturating_sub(t.len());
    }
    let mut kept = Vec::new();
    for b in blocks {
        let len = match &b {
            OutBlock::Text(t) => t.len(),
            OutBlock::ToolUse { json, .. } => json.len(),
        };
        if len <= budget {
            budget -= len;
            kept.push(b);
            continue;
        }
        stop = Stop::MaxTokens;
        match b {
            OutBlock::Text(t) => kept.push(OutBlock::Text(truncate_utf8(&t, budget).to_string())),
            OutBlock::ToolUse { id, name, json } => kept.push(OutBlock::ToolUse {
                id,
                name,
                json: truncate_utf8(&json, budget).to_string(),
            }),
        }
        break;
    }
    let thinking_bytes = thinking.as_ref().map_or(0, String::len);
    let other_bytes: usize = kept
        .iter()
        .map(|b| match b {
            OutBlock::Text(t) => t.len(),
            OutBlock::ToolUse { json, .. } => json.len(),
        })
        .sum();
    let signature = thinking
        .as_ref()
        .map(|t| format!("sim{:016x}{:016x}", fnv(t), fnv(&id)))
        .unwrap_or_default();
    Ok(Turn {
        id,
        thinking,
        signature,
        blocks: kept,
        stop,
        output_tokens: (tokens(thinking_bytes) + tokens(other_bytes)).min(parsed.max_tokens),
        reasoning_tokens: tokens(thinking_bytes),
    })
}
