//! Request body for DeepSeek's Anthropic-format Messages API (reference W-1…W-9,
//! deepseek-wire §1–2). Pure: takes projected messages and tools, returns JSON.

use serde_json::{Map, Value, json};

use crate::llm::adapter::{RequestParts, SerializedBody};
use crate::llm::types::{ErrorCode, LlmError, Thinking};
use crate::session::event::{Block, Message, Role, SystemPromptUpdate, ToolSchema};

/// The beta owed when any wire message carries a tool-change block (W-9).
pub const TOOL_CHANGES_BETA: &str = "mid-conversation-tool-changes-2026-07-01";

/// One wire message under construction.
struct WireMessage {
    role: &'static str,
    content: Vec<Value>,
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

fn tool_reference(kind: &str, name: &str) -> Value {
    json!({"type": kind, "tool": {"type": "tool_reference", "name": name}})
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

fn developer_content(message: &Message) -> Result<Vec<Value>, LlmError> {
    let mut out = Vec::with_capacity(message.content.len());
    for block in &message.content {
        match block {
            Block::Text { text } if text.is_empty() => {}
            Block::Text { text } => out.push(json!({"type": "text", "text": text})),
            Block::ToolAddition { tool_name, .. } => {
                out.push(tool_reference("tool_addition", tool_name))
            }
            Block::ToolRemoval { tool_name } => out.push(tool_reference("tool_removal", tool_name)),
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

fn assistant_content(message: &Message) -> Vec<Value> {
    message
        .content
        .iter()
        .filter_map(|block| match block {
            Block::Text { text } => Some(json!({"type": "text", "text": text})),
            Block::Reasoning { text, signature } => {
                let mut b = Map::new();
                b.insert("type".into(), "thinking".into());
                b.insert("thinking".into(), text.clone().into());
                if let Some(sig) = signature {
                    b.insert("signature".into(), sig.clone().into());
                }
                Some(Value::Object(b))
            }
            Block::ToolCall {
                id,
                name,
                arguments,
            } => Some(
                json!({"type": "tool_use", "id": id, "name": name, "input": tool_input(arguments)}),
            ),
            // Tool-change blocks were rejected before (W-4).
            Block::ToolAddition { .. } | Block::ToolRemoval { .. } => None,
        })
        .collect()
}

/// Text blocks of user/tool content; reasoning and tool-call blocks are not user content.
fn input_content(message: &Message) -> Vec<Value> {
    message
        .content
        .iter()
        .filter_map(|block| match block {
            Block::Text { text } if !text.is_empty() => Some(json!({"type": "text", "text": text})),
            _ => None,
        })
        .collect()
}

fn tool_result(message: &Message) -> Value {
    let mut content = input_content(message);
    // DeepSeek ignores `is_error`, so the failure is also marked in the text.
    if message.is_error == Some(true) {
        match content.first_mut().and_then(|b| b.get_mut("text")) {
            Some(Value::String(text)) if !text.starts_with("Error: ") => {
                text.insert_str(0, "Error: ");
            }
            Some(_) => {}
            None => content.push(json!({"type": "text", "text": "Error: (no output)"})),
        }
    }
    let mut b = Map::new();
    b.insert("type".into(), "tool_result".into());
    b.insert(
        "tool_use_id".into(),
        message.tool_call_id.clone().unwrap_or_default().into(),
    );
    b.insert("content".into(), Value::Array(content));
    if let Some(is_error) = message.is_error {
        b.insert("is_error".into(), is_error.into());
    }
    Value::Object(b)
}

/// Moves queued system updates into the wire list before an assistant message or at the
/// end (W-5).
fn flush(wire: &mut Vec<WireMessage>, queued: &mut Vec<WireMessage>) -> Result<(), LlmError> {
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

fn push_merged(wire: &mut Vec<WireMessage>, role: &'static str, content: Vec<Value>) {
    match wire.last_mut() {
        Some(last) if last.role == role => last.content.extend(content),
        _ => wire.push(WireMessage { role, content }),
    }
}

fn tool_use_ids(content: &[Value]) -> impl Iterator<Item = &str> {
    content
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .filter_map(|b| b.get("id").and_then(Value::as_str))
}

fn is_tool_result(block: &Value) -> bool {
    block.get("type").and_then(Value::as_str) == Some("tool_result")
}

/// W-8: results first in each user message, answering exactly the preceding calls.
fn check_tool_results(wire: &mut [WireMessage]) -> Result<(), LlmError> {
    let mut pending: Vec<String> = Vec::new();
    for message in wire.iter_mut() {
        match message.role {
            "assistant" => {
                if !pending.is_empty() {
                    return Err(invalid("tool calls need immediate results"));
                }
                for id in tool_use_ids(&message.content) {
                    if pending.iter().any(|p| p == id) {
                        return Err(invalid(&format!("duplicate tool call id {id}")));
                    }
                    pending.push(id.to_string());
                }
            }
            "user" => {
                for block in message.content.iter().filter(|b| is_tool_result(b)) {
                    let id = block
                        .get("tool_use_id")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    match pending.iter().position(|p| p == id) {
                        Some(i) => {
                            pending.remove(i);
                        }
                        None => {
                            return Err(invalid(&format!("tool result {id} has no matching call")));
                        }
                    }
                }
                if !pending.is_empty() {
                    return Err(invalid("tool calls need immediate results"));
                }
                let (mut results, rest): (Vec<Value>, Vec<Value>) =
                    std::mem::take(&mut message.content)
                        .into_iter()
                        .partition(is_tool_result);
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

fn tools_json(tools: &[ToolSchema]) -> Value {
    Value::Array(
        tools
            .iter()
            .map(|t| {
                let mut m = Map::new();
                m.insert("name".into(), t.name.clone().into());
                m.insert("description".into(), t.description.clone().into());
                m.insert("input_schema".into(), t.parameters.clone());
                if t.is_deferred() {
                    m.insert("defer_loading".into(), true.into());
                }
                Value::Object(m)
            })
            .collect(),
    )
}

/// Serializes one Messages API request from projected parts.
pub fn serialize(parts: &RequestParts<'_>) -> Result<SerializedBody, LlmError> {
    let in_history = parts.system_prompt_update == Some(SystemPromptUpdate::InHistory);
    let mut wire: Vec<WireMessage> = Vec::with_capacity(parts.messages.len());
    let mut queued: Vec<WireMessage> = Vec::new();
    let mut history_system: Option<String> = None;

    for message in parts.messages {
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
                        content: vec![json!({"type": "text", "text": text})],
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
                b.get("type").and_then(Value::as_str),
                Some("tool_addition" | "tool_removal")
            )
        })
        .then(|| TOOL_CHANGES_BETA.to_string());

    let mut body = Map::new();
    body.insert("model".into(), parts.model.into());
    body.insert("stream".into(), true.into());
    body.insert("max_tokens".into(), parts.max_tokens.into());
    if let Some(thinking) = parts.thinking.wire_value() {
        body.insert("thinking".into(), thinking);
    }
    if let Some(effort) = parts.effort
        && parts.thinking != Thinking::Disabled
    {
        body.insert("output_config".into(), json!({"effort": effort}));
    }
    let system = [parts.system, history_system.as_deref()]
        .into_iter()
        .flatten()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    if !system.is_empty() {
        body.insert("system".into(), system.into());
    }
    if let Some(t) = parts.temperature {
        body.insert("temperature".into(), t.into());
    }
    if let Some(stop) = parts.stop {
        body.insert("stop_sequences".into(), stop.into());
    }
    body.insert(
        "messages".into(),
        Value::Array(
            wire.into_iter()
                .map(|m| json!({"role": m.role, "content": m.content}))
                .collect(),
        ),
    );
    // SPEC §12.2: no `tools` key when nothing is declared.
    if let Some(tools) = parts.tools.filter(|t| !t.is_empty()) {
        body.insert("tools".into(), tools_json(tools));
    }
    Ok(SerializedBody {
        body: Value::Object(body),
        beta,
    })
}

#[cfg(test)]
mod tests;
