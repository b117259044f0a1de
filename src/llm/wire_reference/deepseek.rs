//! The Messages writer as it was before decision 0100: `serde` wire structs built per
//! message, then `serde_json::to_writer`. Kept unchanged as the oracle the one-pass writer
//! must match byte for byte.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::llm::adapter::{RequestParts, encode_error};
use crate::llm::types::{ErrorCode, LlmError, Thinking};
use crate::session::event::{Block, Message, Role, SystemPromptUpdate};

/// The beta owed when any wire message carries a tool-change block (W-9).
const TOOL_CHANGES_BETA: &str = "mid-conversation-tool-changes-2026-07-01";

/// One content block on the wire; the variant order of fields is the wire's key order
/// (`type` first).
#[derive(Debug, Serialize)]
#[serde(tag = "type")]
enum WireBlock<'a> {
    #[serde(rename = "text")]
    Text { text: Cow<'a, str> },
    #[serde(rename = "thinking")]
    Thinking {
        thinking: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        signature: Option<&'a str>,
    },
    #[serde(rename = "tool_use")]
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: Value,
    },
    #[serde(rename = "tool_result")]
    ToolResult {
        tool_use_id: &'a str,
        content: Vec<WireBlock<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        is_error: Option<bool>,
    },
    #[serde(rename = "tool_addition")]
    ToolAddition { tool: ToolReference<'a> },
    #[serde(rename = "tool_removal")]
    ToolRemoval { tool: ToolReference<'a> },
}

#[derive(Debug, Serialize)]
struct ToolReference<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
}

fn tool_ref(name: &str) -> ToolReference<'_> {
    ToolReference {
        kind: "tool_reference",
        name,
    }
}

/// One wire message under construction.
#[derive(Debug, Serialize)]
struct WireMessage<'a> {
    role: &'static str,
    content: Vec<WireBlock<'a>>,
}

#[derive(Serialize)]
struct WireTool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    defer_loading: Option<bool>,
}

#[derive(Serialize)]
struct OutputConfig<'a> {
    effort: &'a str,
}

/// The whole body, borrowing the history; field order is the wire's key order.
#[derive(Serialize)]
struct WireBody<'a> {
    model: &'a str,
    stream: bool,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_config: Option<OutputConfig<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop_sequences: Option<&'a [String]>,
    messages: Vec<WireMessage<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<Vec<WireTool<'a>>>,
}

fn unsupported(what: &str) -> LlmError {
    LlmError::new(
        ErrorCode::UnsupportedContent,
        format!("DeepSeek Messages cannot represent {what}"),
    )
}

fn invalid(what: &str) -> LlmError {
    LlmError::new(
        ErrorCode::InvalidContent,
        format!("DeepSeek Messages {what}"),
    )
}

fn block_type(block: &Block) -> &'static str {
    match block {
        Block::Text { .. } => "text",
        Block::Reasoning { .. } => "reasoning",
        Block::ToolCall { .. } => "tool-call",
        Block::ToolAddition { .. } => "tool-addition",
        Block::ToolRemoval { .. } => "tool-removal",
    }
}

/// Tool-call arguments as the `input` object. Arguments that are not a JSON object (for
/// example a call truncated by `max_tokens`, which the loop already answered with a tool
/// error) are sent as `{}`: the Messages API only accepts an object here, and the durable
/// message keeps the raw text unchanged.
fn tool_input(raw: &str) -> Value {
    match serde_json::from_str::<Value>(raw) {
        Ok(v @ Value::Object(_)) => v,
        _ => Value::Object(Map::new()),
    }
}

fn text_block(text: &str) -> WireBlock<'_> {
    WireBlock::Text {
        text: Cow::Borrowed(text),
    }
}

fn developer_content(message: &Message) -> Result<Vec<WireBlock<'_>>, LlmError> {
    let mut out = Vec::with_capacity(message.content.len());
    for block in &message.content {
        match block {
            Block::Text { text } if text.is_empty() => {}
            Block::Text { text } => out.push(text_block(text)),
            Block::ToolAddition { tool_name, .. } => out.push(WireBlock::ToolAddition {
                tool: tool_ref(tool_name),
            }),
            Block::ToolRemoval { tool_name } => out.push(WireBlock::ToolRemoval {
                tool: tool_ref(tool_name),
            }),
            other => {
                return Err(unsupported(&format!(
                    "developer content {}",
                    block_type(other)
                )));
            }
        }
    }
    Ok(out)
}

fn assistant_content(message: &Message) -> Vec<WireBlock<'_>> {
    message
        .content
        .iter()
        .filter_map(|block| match block {
            Block::Text { text } => Some(text_block(text)),
            Block::Reasoning { text, signature } => Some(WireBlock::Thinking {
                thinking: text,
                signature: signature.as_deref(),
            }),
            Block::ToolCall {
                id,
                name,
                arguments,
            } => Some(WireBlock::ToolUse {
                id,
                name,
                input: tool_input(arguments),
            }),
            // Tool-change blocks were rejected before (W-4).
            Block::ToolAddition { .. } | Block::ToolRemoval { .. } => None,
        })
        .collect()
}

/// Text blocks of user/tool content; reasoning and tool-call blocks are not user content.
fn input_content(message: &Message) -> Vec<WireBlock<'_>> {
    message
        .content
        .iter()
        .filter_map(|block| match block {
            Block::Text { text } if !text.is_empty() => Some(text_block(text)),
            _ => None,
        })
        .collect()
}

fn tool_result(message: &Message) -> WireBlock<'_> {
    let mut content = input_content(message);
    // DeepSeek ignores `is_error`, so the failure is also marked in the text.
    if message.is_error == Some(true) {
        match content.first_mut() {
            Some(WireBlock::Text { text }) if !text.starts_with("Error: ") => {
                *text = Cow::Owned(format!("Error: {text}"));
            }
            Some(_) => {}
            None => content.push(text_block("Error: (no output)")),
        }
    }
    WireBlock::ToolResult {
        tool_use_id: message.tool_call_id.as_deref().unwrap_or_default(),
        content,
        is_error: message.is_error,
    }
}

/// Moves queued system updates into the wire list before an assistant message or at the
/// end (W-5).
fn flush<'a>(
    wire: &mut Vec<WireMessage<'a>>,
    queued: &mut Vec<WireMessage<'a>>,
) -> Result<(), LlmError> {
    if queued.is_empty() {
        return Ok(());
    }
    if wire.last().map(|m| m.role) != Some("user") {
        return Err(unsupported(
            "system update without a preceding user or tool-result turn",
        ));
    }
    wire.append(queued);
    Ok(())
}

fn push_merged<'a>(
    wire: &mut Vec<WireMessage<'a>>,
    role: &'static str,
    content: Vec<WireBlock<'a>>,
) {
    match wire.last_mut() {
        Some(last) if last.role == role => last.content.extend(content),
        _ => wire.push(WireMessage { role, content }),
    }
}

/// W-8: results first in each user message, answering exactly the preceding calls.
fn check_tool_results(wire: &mut [WireMessage<'_>]) -> Result<(), LlmError> {
    let mut pending: Vec<&str> = Vec::new();
    for message in wire.iter_mut() {
        match message.role {
            "assistant" => {
                if !pending.is_empty() {
                    return Err(invalid("tool calls need immediate results"));
                }
                for block in &message.content {
                    if let WireBlock::ToolUse { id, .. } = block {
                        if pending.contains(id) {
                            return Err(invalid(&format!("duplicate tool call id {id}")));
                        }
                        pending.push(id);
                    }
                }
            }
            "user" => {
                for block in &message.content {
                    if let WireBlock::ToolResult {
                        tool_use_id: id, ..
                    } = block
                    {
                        match pending.iter().position(|p| p == id) {
                            Some(i) => {
                                pending.remove(i);
                            }
                            None => {
                                return Err(invalid(&format!(
                                    "tool result {id} has no matching call"
                                )));
                            }
                        }
                    }
                }
                if !pending.is_empty() {
                    return Err(invalid("tool calls need immediate results"));
                }
                let (mut results, rest): (Vec<WireBlock<'_>>, Vec<WireBlock<'_>>) =
                    std::mem::take(&mut message.content)
                        .into_iter()
                        .partition(|b| matches!(b, WireBlock::ToolResult { .. }));
                results.extend(rest);
                message.content = results;
            }
            // System updates sit between a user turn and an assistant turn.
            _ => {}
        }
    }
    if !pending.is_empty() {
        return Err(invalid("history ends with unresolved tools"));
    }
    Ok(())
}

/// Writes one Messages API request body from projected parts straight into `out`,
/// borrowing the history (no JSON tree of the whole request). Returns the
/// `anthropic-beta` value owed (W-9).
pub fn write_body(parts: &RequestParts<'_>, out: &mut Vec<u8>) -> Result<Option<String>, LlmError> {
    let in_history = parts.system_prompt_update == Some(SystemPromptUpdate::InHistory);
    let mut wire: Vec<WireMessage<'_>> = Vec::with_capacity(parts.messages.len());
    let mut queued: Vec<WireMessage<'_>> = Vec::new();
    let mut history_system: Option<String> = None;

    for message in parts.messages {
        // A mode note is user text on every route: DeepSeek reads the latest system
        // message as the whole prompt, and routes without the capability refuse one.
        if message.is_mode_note() {
            push_merged(&mut wire, "user", input_content(message));
            continue;
        }
        if message.role == Role::Developer {
            let content = developer_content(message)?;
            if !content.is_empty() {
                queued.push(WireMessage {
                    role: "system",
                    content,
                });
            }
            continue;
        }
        if message.content.iter().any(Block::is_tool_change) {
            return Err(unsupported("tool-change blocks outside developer messages"));
        }
        match message.role {
            Role::System => {
                if message
                    .content
                    .iter()
                    .any(|b| !matches!(b, Block::Text { .. }))
                {
                    return Err(unsupported("non-text system message"));
                }
                let text = message.joined_text();
                if in_history && !wire.is_empty() {
                    if text.is_empty() {
                        return Err(unsupported("empty in-history system update"));
                    }
                    queued.push(WireMessage {
                        role: "system",
                        content: vec![WireBlock::Text {
                            text: Cow::Owned(text),
                        }],
                    });
                } else {
                    history_system = Some(text);
                }
            }
            Role::Assistant => {
                flush(&mut wire, &mut queued)?;
                push_merged(&mut wire, "assistant", assistant_content(message));
            }
            Role::Tool => push_merged(&mut wire, "user", vec![tool_result(message)]),
            Role::User => {
                let content = input_content(message);
                if !content.is_empty() {
                    push_merged(&mut wire, "user", content);
                }
            }
            Role::Developer => {}
        }
    }
    flush(&mut wire, &mut queued)?;
    check_tool_results(&mut wire)?;

    let beta = wire
        .iter()
        .flat_map(|m| m.content.iter())
        .any(|b| {
            matches!(
                b,
                WireBlock::ToolAddition { .. } | WireBlock::ToolRemoval { .. }
            )
        })
        .then(|| TOOL_CHANGES_BETA.to_string());

    let system = [parts.system, history_system.as_deref()]
        .into_iter()
        .flatten()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    let body = WireBody {
        model: parts.model,
        stream: true,
        max_tokens: parts.max_tokens,
        thinking: parts.thinking.wire_value(),
        output_config: parts
            .effort
            .filter(|_| parts.thinking != Thinking::Disabled)
            .map(|effort| OutputConfig { effort }),
        system: (!system.is_empty()).then_some(system),
        temperature: parts.temperature,
        stop_sequences: parts.stop,
        messages: wire,
        // SPEC §12.2: no `tools` key when nothing is declared.
        tools: parts.tools.filter(|t| !t.is_empty()).map(|tools| {
            tools
                .iter()
                .map(|t| WireTool {
                    name: &t.name,
                    description: &t.description,
                    input_schema: &t.parameters,
                    defer_loading: t.is_deferred().then_some(true),
                })
                .collect()
        }),
    };
    serde_json::to_writer(&mut *out, &body).map_err(encode_error)?;
    Ok(beta)
}
