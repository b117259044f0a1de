//! The Chat Completions writer as it was before decision 0100: `serde` wire structs built
//! per message, then `serde_json::to_writer`. Kept unchanged as the oracle the one-pass
//! writer must match byte for byte.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::llm::adapter::{RequestParts, encode_error};
use crate::llm::types::{LlmError, Thinking};
use crate::session::event::{Block, Message, Role};

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
            // prompt.
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
