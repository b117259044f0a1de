//! Request body for OpenAI-format Chat Completions (deepseek-wire §4). Pure.
//!
//! The route has no update modes: the full current prompt is the first message and the
//! full tool list is sent every request. Developer messages are never sent.

use serde_json::{Map, Value, json};

use crate::llm::adapter::{RequestParts, SerializedBody};
use crate::llm::types::{LlmError, Thinking};
use crate::session::event::{Block, Message, Role};

fn joined(message: &Message, reasoning: bool) -> String {
    let mut out = String::new();
    for block in &message.content {
        match block {
            Block::Text { text } if !reasoning => out.push_str(text),
            Block::Reasoning { text, .. } if reasoning => out.push_str(text),
            _ => {}
        }
    }
    out
}

fn assistant(message: &Message) -> Value {
    let calls: Vec<Value> = message
        .tool_calls()
        .map(|(id, name, arguments)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    let mut m = Map::new();
    m.insert("role".into(), "assistant".into());
    // `""` rather than null on tool-call-only turns: some stacks reject null.
    m.insert("content".into(), joined(message, false).into());
    if !calls.is_empty() {
        // Required on tool-call turns in thinking mode, ignored elsewhere.
        let reasoning = joined(message, true);
        if !reasoning.is_empty() {
            m.insert("reasoning_content".into(), reasoning.into());
        }
        m.insert("tool_calls".into(), Value::Array(calls));
    }
    Value::Object(m)
}

fn tool(message: &Message) -> Value {
    let mut text = joined(message, false);
    if message.is_error == Some(true) && !text.starts_with("Error: ") {
        text.insert_str(0, "Error: ");
    }
    json!({
        "role": "tool",
        "tool_call_id": message.tool_call_id.clone().unwrap_or_default(),
        "content": text,
    })
}

/// Serializes one Chat Completions request from projected parts.
pub fn serialize(parts: &RequestParts<'_>) -> Result<SerializedBody, LlmError> {
    let mut prompt: Option<String> = None;
    let mut messages: Vec<Value> = Vec::with_capacity(parts.messages.len() + 1);
    for message in parts.messages {
        match message.role {
            // Consolidated: the latest system message is the whole current prompt.
            Role::System => prompt = Some(message.joined_text()),
            Role::User => {
                let text = joined(message, false);
                if !text.is_empty() {
                    messages.push(json!({"role": "user", "content": text}));
                }
            }
            Role::Assistant => messages.push(assistant(message)),
            Role::Tool => messages.push(tool(message)),
            // The projection removes developer messages on this route (P-1); never send one.
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
        messages.insert(0, json!({"role": "system", "content": system}));
    }

    let mut body = Map::new();
    body.insert("model".into(), parts.model.into());
    body.insert("messages".into(), Value::Array(messages));
    if let Some(tools) = parts.tools.filter(|t| !t.is_empty()) {
        body.insert(
            "tools".into(),
            Value::Array(
                tools
                    .iter()
                    .map(|t| {
                        json!({"type": "function", "function": {
                            "name": t.name,
                            "description": t.description,
                            "parameters": t.parameters,
                        }})
                    })
                    .collect(),
            ),
        );
    }
    if let Some(thinking) = parts.thinking.wire_value() {
        body.insert("thinking".into(), thinking);
    }
    if let Some(effort) = parts.effort
        && parts.thinking != Thinking::Disabled
    {
        body.insert("reasoning_effort".into(), effort.into());
    }
    body.insert("max_tokens".into(), parts.max_tokens.into());
    if let Some(t) = parts.temperature {
        body.insert("temperature".into(), t.into());
    }
    if let Some(stop) = parts.stop {
        body.insert("stop".into(), stop.into());
    }
    body.insert("stream".into(), true.into());
    body.insert("stream_options".into(), json!({"include_usage": true}));
    Ok(SerializedBody {
        body: Value::Object(body),
        beta: None,
    })
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
