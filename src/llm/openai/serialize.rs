//! Request body for OpenAI-format Chat Completions (deepseek-wire §4). Pure.
//!
//! The route has no update modes: the full current prompt is the first message and the
//! full tool list is sent every request. Developer messages are never sent.
//!
//! The body is written in one pass straight into the output buffer (decision 0100), byte
//! for byte what the earlier `serde` wire structs wrote (`llm::wire_reference`, checked by
//! `llm::wire_equivalence_proptests`).

use std::borrow::Cow;

use crate::llm::adapter::{RequestParts, SerializedBody};
use crate::llm::lookahead;
use crate::llm::types::{LlmError, Thinking};
use crate::llm::wire_json::{escaped, key, next_key, string, string_field, value};
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

/// Writes `{"role":"<role>","content":"<text>"` (the object left open).
fn open_message(out: &mut Vec<u8>, role: &str, text: &str) {
    out.extend_from_slice(b"{\"role\":\"");
    out.extend_from_slice(role.as_bytes());
    out.extend_from_slice(b"\",\"content\":");
    string(out, text);
}

fn assistant(out: &mut Vec<u8>, message: &Message) {
    // `""` rather than null on tool-call-only turns: some stacks reject null.
    open_message(out, "assistant", &joined(message, false));
    let mut calls = message.tool_calls().peekable();
    if calls.peek().is_some() {
        // Required on tool-call turns in thinking mode, ignored elsewhere.
        let reasoning = joined(message, true);
        if !reasoning.is_empty() {
            string_field(out, "reasoning_content", &reasoning);
        }
        next_key(out, "tool_calls");
        out.push(b'[');
        for (i, (id, name, arguments)) in calls.enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.push(b'{');
            key(out, "id");
            string(out, id);
            out.extend_from_slice(b",\"type\":\"function\",\"function\":{");
            key(out, "name");
            string(out, name);
            string_field(out, "arguments", arguments);
            out.extend_from_slice(b"}}");
        }
        out.push(b']');
    }
    out.push(b'}');
}

fn tool(out: &mut Vec<u8>, message: &Message) {
    out.extend_from_slice(b"{\"role\":\"tool\"");
    string_field(
        out,
        "tool_call_id",
        message.tool_call_id.as_deref().unwrap_or_default(),
    );
    next_key(out, "content");
    let text = joined(message, false);
    out.push(b'"');
    if message.is_error == Some(true) && !text.starts_with("Error: ") {
        out.extend_from_slice(b"Error: ");
    }
    escaped(out, &text);
    out.extend_from_slice(b"\"}");
}

/// Writes one Chat Completions request body from projected parts straight into `out`, in
/// one pass over the history that fetches a few messages ahead. Returns the `anthropic-beta` value owed
/// (never, on this route). On an error `out` is left as it was.
pub fn write_body(parts: &RequestParts<'_>, out: &mut Vec<u8>) -> Result<Option<String>, LlmError> {
    let start = out.len();
    let result = write(parts, out);
    if result.is_err() {
        out.truncate(start);
    }
    result.map(|()| None)
}

fn write(parts: &RequestParts<'_>, out: &mut Vec<u8>) -> Result<(), LlmError> {
    // Consolidated: the latest system message is the whole current prompt, and it goes
    // first, so it is found before the pass.
    let prompt = parts
        .messages
        .iter()
        .rev()
        .find(|m| m.role == Role::System)
        .map(|m| m.joined_text());
    let system = [parts.system, prompt.as_deref()]
        .into_iter()
        .flatten()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    out.push(b'{');
    key(out, "model");
    string(out, parts.model);
    next_key(out, "messages");
    out.push(b'[');
    let mut first = true;
    let mut separator = |out: &mut Vec<u8>| {
        if !std::mem::take(&mut first) {
            out.push(b',');
        }
    };
    if !system.is_empty() {
        separator(out);
        open_message(out, "system", &system);
        out.push(b'}');
    }
    lookahead::start(parts.messages);
    for (i, message) in parts.messages.iter().enumerate() {
        lookahead::ahead(parts.messages, i);
        match message.role {
            Role::System => {}
            Role::User => {
                let text = joined(message, false);
                if !text.is_empty() {
                    separator(out);
                    open_message(out, "user", &text);
                    out.push(b'}');
                }
            }
            Role::Assistant => {
                separator(out);
                assistant(out, message);
            }
            Role::Tool => {
                separator(out);
                tool(out, message);
            }
            // The projection removes tool-change messages on this route (P-1); a mode
            // note stays, in place, as user text: a system message here would replace the
            // prompt.
            Role::Developer if message.is_mode_note() => {
                separator(out);
                open_message(out, "user", &joined(message, false));
                out.push(b'}');
            }
            Role::Developer => {}
        }
    }
    out.push(b']');
    if let Some(tools) = parts.tools.filter(|t| !t.is_empty()) {
        next_key(out, "tools");
        out.push(b'[');
        for (i, t) in tools.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"type\":\"function\",\"function\":{");
            key(out, "name");
            string(out, &t.name);
            string_field(out, "description", &t.description);
            next_key(out, "parameters");
            value(out, &t.parameters)?;
            out.extend_from_slice(b"}}");
        }
        out.push(b']');
    }
    if let Some(thinking) = parts.thinking.wire_value() {
        next_key(out, "thinking");
        value(out, &thinking)?;
    }
    if let Some(effort) = parts
        .effort
        .filter(|_| parts.thinking != Thinking::Disabled)
    {
        string_field(out, "reasoning_effort", effort);
    }
    next_key(out, "max_tokens");
    value(out, &parts.max_tokens)?;
    if let Some(t) = parts.temperature {
        next_key(out, "temperature");
        value(out, &t)?;
    }
    if let Some(stop) = parts.stop {
        next_key(out, "stop");
        value(out, stop)?;
    }
    out.extend_from_slice(b",\"stream\":true,\"stream_options\":{\"include_usage\":true}}");
    Ok(())
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
