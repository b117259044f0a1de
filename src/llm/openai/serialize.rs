//! Request body for OpenAI-format Chat Completions (deepseek-wire §4). Pure.
//!
//! The route has no update modes: the full current prompt is the first message and the
//! full tool list is sent every request. Developer messages are never sent.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::llm::adapter::{RequestParts, SerializedBody, encode_error};
use crate::llm::types::{LlmError, Thinking};
use crate::session::event::{Block, Message, Role};
#[cfg(test)]
use serde_json::json;

/// The message's text (or reasoning) blocks as one string. Borrowed when there is at most
/// one such block, the usual case, so writing a long history copies no text twice.
fn joined(message: &Message, reasoning: bool) -> Cow<'_, str> {
    let mut parts = message.content.iter().filter_map(|block| match block {
        Block::Text { text } if !reasoning => Some(text.as_str()),
        Block::Reasoning { text, .. } if reasoning => Some(text.as_str()),
        _ => None,
    });
    let Some(first) = parts.next() else {
        return Cow::Borrowed("");
    };
    match parts.next() {
        None => Cow::Borrowed(first),
        Some(second) => {
            let mut out = String::from(first);
            out.push_str(second);
            parts.for_each(|p| out.push_str(p));
            Cow::Owned(out)
        }
    }
}

/// One wire message; field order is the wire's key order.
#[derive(Serialize)]
struct WireMessage<'a> {
    role: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
    content: Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_content: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls: Option<Vec<WireCall<'a>>>,
}

#[derive(Serialize)]
struct WireCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunction<'a>,
}

#[derive(Serialize)]
struct WireFunction<'a> {
    name: &'a str,
    arguments: &'a str,
}

#[derive(Serialize)]
struct WireTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireToolFunction<'a>,
}

#[derive(Serialize)]
struct WireToolFunction<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

/// The whole body, borrowing the history; field order is the wire's key order.
#[derive(Serialize)]
struct WireBody<'a> {
    model: &'a str,
    messages: Vec<WireMessage<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<Vec<WireTool<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'a str>,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop: Option<&'a [String]>,
    stream: bool,
    stream_options: StreamOptions,
}

fn text<'a>(role: &'static str, content: impl Into<Cow<'a, str>>) -> WireMessage<'a> {
    WireMessage {
        role,
        tool_call_id: None,
        content: content.into(),
        reasoning_content: None,
        tool_calls: None,
    }
}

fn assistant(message: &Message) -> WireMessage<'_> {
    let calls: Vec<WireCall<'_>> = message
        .tool_calls()
        .map(|(id, name, arguments)| WireCall {
            id,
            kind: "function",
            function: WireFunction { name, arguments },
        })
        .collect();
    // `""` rather than null on tool-call-only turns: some stacks reject null.
    let mut m = text("assistant", joined(message, false));
    if !calls.is_empty() {
        // Required on tool-call turns in thinking mode, ignored elsewhere.
        let reasoning = joined(message, true);
        m.reasoning_content = (!reasoning.is_empty()).then_some(reasoning);
        m.tool_calls = Some(calls);
    }
    m
}

fn tool(message: &Message) -> WireMessage<'_> {
    let mut text = joined(message, false);
    if message.is_error == Some(true) && !text.starts_with("Error: ") {
        text = Cow::Owned(format!("Error: {text}"));
    }
    WireMessage {
        role: "tool",
        tool_call_id: Some(message.tool_call_id.as_deref().unwrap_or_default()),
        content: text,
        reasoning_content: None,
        tool_calls: None,
    }
}

/// Writes one Chat Completions request body from projected parts straight into `out`,
/// borrowing the history (no JSON tree of the whole request). Returns the
/// `anthropic-beta` value owed (never, on this route).
pub fn write_body(parts: &RequestParts<'_>, out: &mut Vec<u8>) -> Result<Option<String>, LlmError> {
    let mut prompt: Option<String> = None;
    let mut messages: Vec<WireMessage<'_>> = Vec::with_capacity(parts.messages.len() + 1);
    for message in parts.messages {
        match message.role {
            // Consolidated: the latest system message is the whole current prompt.
            Role::System => prompt = Some(message.joined_text()),
            Role::User => {
                let text_ = joined(message, false);
                if !text_.is_empty() {
                    messages.push(text("user", text_));
                }
            }
            Role::Assistant => messages.push(assistant(message)),
            Role::Tool => messages.push(tool(message)),
            // The projection removes tool-change messages on this route (P-1); a mode
            // note stays, in place, as user text: a system message here would replace the
            // prompt (decision 0060).
            Role::Developer if message.is_mode_note() => {
                messages.push(text("user", message.joined_text()));
            }
            Role::Developer => {}
        }
    }
    let system = [parts.system, prompt.as_deref()]
        .into_iter()
        .flatten()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    if !system.is_empty() {
        messages.insert(0, text("system", system));
    }
    let body = WireBody {
        model: parts.model,
        messages,
        tools: parts.tools.filter(|t| !t.is_empty()).map(|tools| {
            tools
                .iter()
                .map(|t| WireTool {
                    kind: "function",
                    function: WireToolFunction {
                        name: &t.name,
                        description: &t.description,
                        parameters: &t.parameters,
                    },
                })
                .collect()
        }),
        thinking: parts.thinking.wire_value(),
        reasoning_effort: parts
            .effort
            .filter(|_| parts.thinking != Thinking::Disabled),
        max_tokens: parts.max_tokens,
        temperature: parts.temperature,
        stop: parts.stop,
        stream: true,
        stream_options: StreamOptions {
            include_usage: true,
        },
    };
    serde_json::to_writer(&mut *out, &body).map_err(encode_error)?;
    Ok(None)
}

/// Serializes one Chat Completions request from projected parts (the bytes of
/// [`write_body`], as JSON).
pub fn serialize(parts: &RequestParts<'_>) -> Result<SerializedBody, LlmError> {
    let mut out = Vec::new();
    let beta = write_body(parts, &mut out)?;
    SerializedBody::from_bytes(&out, beta)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::session::event::{Source, ToolSchema};

    fn msg(role: Role, content: Vec<Block>) -> Arc<Message> {
        Arc::new(Message::new(role, content, Source::kind("test")))
    }

    fn parts<'a>(
        messages: &'a [Arc<Message>],
        tools: Option<&'a [ToolSchema]>,
    ) -> RequestParts<'a> {
        RequestParts {
            model: "deepseek-flash",
            system_prompt_update: None,
            messages,
            tools,
            system: None,
            max_tokens: 8192,
            thinking: Thinking::Enabled,
            effort: Some("high"),
            temperature: None,
            stop: None,
        }
    }

    #[test]
    fn openai_body_matches_wire_reference_example() {
        let mut result = Message::text(Role::Tool, "fn main() { ... }", Source::kind("tool"));
        result.tool_call_id = Some("call_00_a1".into());
        let messages = vec![
            msg(Role::System, vec![Block::text("old prompt")]),
            msg(
                Role::System,
                vec![Block::text("You are a terse coding assistant.")],
            ),
            msg(Role::User, vec![Block::text("What does main.rs do?")]),
            msg(Role::Developer, vec![Block::addition("read_file")]),
            msg(
                Role::Assistant,
                vec![
                    Block::Reasoning {
                        text: "Need to read it.".into(),
                        signature: Some("sig".into()),
                    },
                    Block::ToolCall {
                        id: "call_00_a1".into(),
                        name: "read_file".into(),
                        arguments: "{\"path\":\"src/main.rs\"}".into(),
                    },
                ],
            ),
            Arc::new(result),
        ];
        let tools = vec![ToolSchema {
            name: "read_file".into(),
            description: "Read a file.".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            defer_loading: None,
        }];
        let body = serialize(&parts(&messages, Some(&tools))).unwrap();
        let expected = json!({
          "model": "deepseek-flash",
          "messages": [
            {"role": "system", "content": "You are a terse coding assistant."},
            {"role": "user", "content": "What does main.rs do?"},
            {"role": "assistant", "content": "", "reasoning_content": "Need to read it.",
             "tool_calls": [{"id": "call_00_a1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"src/main.rs\"}"}}]},
            {"role": "tool", "tool_call_id": "call_00_a1", "content": "fn main() { ... }"}
          ],
          "tools": [{"type": "function", "function": {"name": "read_file", "description": "Read a file.", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}],
          "thinking": {"type": "enabled"},
          "reasoning_effort": "high",
          "max_tokens": 8192,
          "stream": true,
          "stream_options": {"include_usage": true}
        });
        assert_eq!(body.body, expected);
        assert_eq!(
            serde_json::to_string(&body.body).unwrap(),
            serde_json::to_string(&expected).unwrap(),
            "key order"
        );
        assert_eq!(body.beta, None);
    }

    #[test]
    fn openai_tools_key_omitted_when_empty_and_errors_marked() {
        let mut result = Message::text(Role::Tool, "boom", Source::kind("tool"));
        result.tool_call_id = Some("c".into());
        result.is_error = Some(true);
        let messages = vec![
            msg(Role::User, vec![Block::text("hi")]),
            msg(
                Role::Assistant,
                vec![Block::ToolCall {
                    id: "c".into(),
                    name: "x".into(),
                    arguments: "{}".into(),
                }],
            ),
            Arc::new(result),
        ];
        let mut p = parts(&messages, Some(&[]));
        p.thinking = Thinking::Disabled;
        let body = serialize(&p).unwrap().body;
        assert!(body.get("tools").is_none());
        assert!(body.get("reasoning_effort").is_none());
        assert_eq!(body["thinking"], json!({"type": "disabled"}));
        assert_eq!(body["messages"][1]["content"], "");
        assert!(body["messages"][1].get("reasoning_content").is_none());
        assert_eq!(body["messages"][2]["content"], "Error: boom");
    }
}
