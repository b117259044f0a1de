//! Canonical prompt renders for the prefix-cache model (pure).
//!
//! A render looks like a chat template: the cache namespace, the non-deferred tools in
//! order, the top-level system prompt, then every message in order. A deferred tool's
//! definition is rendered where its `tool_addition` block sits, so declaring a deferred
//! tool does not change earlier bytes. Reasoning is rendered only for assistant turns that
//! called tools (DeepSeek drops it elsewhere), and tool-call ids are not rendered, so both
//! routes render the same conversation to the same bytes.

use serde_json::Value;

/// Render a tool definition (name, description, schema with the client's key order).
pub fn render_tool(out: &mut String, name: &str, description: &str, schema: &Value) {
    out.push_str("<|tool|>");
    out.push_str(&serde_json::to_string(name).unwrap_or_default());
    out.push(' ');
    out.push_str(&serde_json::to_string(description).unwrap_or_default());
    out.push(' ');
    out.push_str(&serde_json::to_string(schema).unwrap_or_default());
    out.push('\n');
}

fn render_json_args(out: &mut String, args: &Value) {
    // Arguments render as compact JSON in the client's key order.
    out.push_str(&serde_json::to_string(args).unwrap_or_default());
}

fn text_of_blocks(content: &Value, out: &mut String) {
    match content {
        Value::String(s) => out.push_str(s),
        Value::Array(blocks) => {
            for (i, b) in blocks.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        out.push_str(b.get("text").and_then(Value::as_str).unwrap_or(""))
                    }
                    Some("image") | Some("image_url") => {
                        out.push_str("<|image|>");
                        out.push_str(&format!(
                            "{:016x}",
                            fnv(&serde_json::to_string(b).unwrap_or_default())
                        ));
                    }
                    _ => out.push_str(&serde_json::to_string(b).unwrap_or_default()),
                }
            }
        }
        Value::Null => {}
        other => out.push_str(&other.to_string()),
    }
}

/// FNV-1a hash of a string (stable across runs).
pub fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// Anthropic tool entry → (name, description, schema, deferred).
pub fn anthropic_tool(tool: &Value) -> (String, String, Value, bool) {
    (
        tool.get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        tool.get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        tool.get("input_schema").cloned().unwrap_or(Value::Null),
        tool.get("defer_loading")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    )
}

/// Render one Anthropic message (a validated `{"role", "content"}` object).
pub fn render_anthropic_message(out: &mut String, msg: &Value, tools: &[Value]) {
    let role = msg.get("role").and_then(Value::as_str).unwrap_or("");
    let content = msg.get("content").cloned().unwrap_or(Value::Null);
    let blocks: Vec<Value> = match content {
        Value::String(s) => vec![serde_json::json!({"type": "text", "text": s})],
        Value::Array(a) => a,
        _ => Vec::new(),
    };
    out.push_str(&format!("<|{role}|>"));
    let has_tool_use = blocks
        .iter()
        .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"));
    for b in &blocks {
        let ty = b.get("type").and_then(Value::as_str).unwrap_or("");
        match ty {
            "text" => out.push_str(b.get("text").and_then(Value::as_str).unwrap_or("")),
            "thinking" => {
                if has_tool_use {
                    out.push_str("<think>");
                    out.push_str(b.get("thinking").and_then(Value::as_str).unwrap_or(""));
                    out.push_str("</think>");
                }
            }
            "tool_use" => {
                out.push_str("<|tool_call|>");
                out.push_str(b.get("name").and_then(Value::as_str).unwrap_or(""));
                out.push(' ');
                render_json_args(out, b.get("input").unwrap_or(&Value::Null));
                out.push_str("<|/tool_call|>");
            }
            "tool_result" => {
                out.push_str("<|tool_result|>");
                text_of_blocks(b.get("content").unwrap_or(&Value::Null), out);
                out.push_str("<|/tool_result|>");
            }
            "tool_addition" => {
                let name = b
                    .pointer("/tool/name")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                match tools
                    .iter()
                    .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
                {
                    Some(t) => {
                        let (n, d, s, _) = anthropic_tool(t);
                        render_tool(out, &n, &d, &s);
                    }
                    None => out.push_str(&format!("<|tool_addition|>{name}\n")),
                }
            }
            "tool_removal" => {
                let name = b
                    .pointer("/tool/name")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                out.push_str(&format!("<|tool_removal|>{name}\n"));
            }
            _ => out.push_str(&serde_json::to_string(b).unwrap_or_default()),
        }
    }
    out.push('\n');
}

fn system_text(system: &Value) -> String {
    let mut s = String::new();
    text_of_blocks(system, &mut s);
    s
}

/// Render a validated Anthropic request body.
pub fn render_anthropic(namespace: &str, body: &Value) -> String {
    let mut out = format!("<|ns|>{namespace}\n");
    let tools: Vec<Value> = body
        .get("tools")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for t in &tools {
        let (n, d, s, deferred) = anthropic_tool(t);
        if !deferred && !n.is_empty() {
            render_tool(&mut out, &n, &d, &s);
        }
    }
    if let Some(system) = body.get("system") {
        out.push_str("<|system|>");
        out.push_str(&system_text(system));
        out.push('\n');
    }
    for m in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        render_anthropic_message(&mut out, m, &tools);
    }
    out
}

/// OpenAI tool entry → (name, description, schema).
pub fn openai_tool(tool: &Value) -> (String, String, Value) {
    let f = tool.get("function").unwrap_or(&Value::Null);
    (
        f.get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        f.get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        f.get("parameters").cloned().unwrap_or(Value::Null),
    )
}

/// Render one OpenAI chat message.
pub fn render_openai_message(out: &mut String, msg: &Value) {
    let role = msg.get("role").and_then(Value::as_str).unwrap_or("");
    match role {
        "tool" => {
            // Consecutive tool messages render like the blocks of one Anthropic user turn.
            out.push_str("<|user|><|tool_result|>");
            text_of_blocks(msg.get("content").unwrap_or(&Value::Null), out);
            out.push_str("<|/tool_result|>\n");
        }
        "assistant" => {
            out.push_str("<|assistant|>");
            let calls = msg.get("tool_calls").and_then(Value::as_array);
            let has_calls = calls.is_some_and(|c| !c.is_empty());
            if has_calls && let Some(r) = msg.get("reasoning_content").and_then(Value::as_str) {
                out.push_str("<think>");
                out.push_str(r);
                out.push_str("</think>");
            }
            text_of_blocks(msg.get("content").unwrap_or(&Value::Null), out);
            for c in calls.into_iter().flatten() {
                out.push_str("<|tool_call|>");
                out.push_str(
                    c.pointer("/function/name")
                        .and_then(Value::as_str)
                        .unwrap_or(""),
                );
                out.push(' ');
                let raw = c
                    .pointer("/function/arguments")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                match serde_json::from_str::<Value>(raw) {
                    Ok(v) => render_json_args(out, &v),
                    Err(_) => out.push_str(raw),
                }
                out.push_str("<|/tool_call|>");
            }
            out.push('\n');
        }
        _ => {
            out.push_str(&format!("<|{role}|>"));
            text_of_blocks(msg.get("content").unwrap_or(&Value::Null), out);
            out.push('\n');
        }
    }
}

/// Render a validated OpenAI request body (all tools, then messages; no top-level system).
pub fn render_openai(namespace: &str, body: &Value) -> String {
    let mut out = format!("<|ns|>{namespace}\n");
    for t in body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (n, d, s) = openai_tool(t);
        render_tool(&mut out, &n, &d, &s);
    }
    for m in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        render_openai_message(&mut out, m);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn base() -> Value {
        json!({
            "model": "deepseek-flash", "max_tokens": 100, "system": "Be terse.",
            "tools": [{"name": "read_file", "description": "Read.", "input_schema": {"type": "object"}}],
            "messages": [{"role": "user", "content": "hello"}]
        })
    }

    #[test]
    fn deferred_tool_declaration_keeps_earlier_bytes() {
        let a = base();
        let ra = render_anthropic("deepseek-flash", &a);
        let mut b = base();
        b["tools"].as_array_mut().unwrap().push(
            json!({"name": "run_tests", "description": "Run.", "input_schema": {"type": "object"}, "defer_loading": true}),
        );
        b["messages"]
            .as_array_mut()
            .unwrap()
            .push(json!({"role": "system", "content": [
            {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "run_tests"}}]}));
        let rb = render_anthropic("deepseek-flash", &b);
        assert!(rb.starts_with(&ra), "{ra}\n---\n{rb}");
        assert!(rb[ra.len()..].contains("\"run_tests\" \"Run.\""));
    }

    #[test]
    fn system_change_breaks_the_prefix_early() {
        let ra = render_anthropic("deepseek-flash", &base());
        let mut b = base();
        b["system"] = json!("Be verbose.");
        let rb = render_anthropic("deepseek-flash", &b);
        let lcp = ra
            .bytes()
            .zip(rb.bytes())
            .take_while(|(x, y)| x == y)
            .count();
        assert_eq!(&ra[lcp - "<|system|>Be ".len()..lcp], "<|system|>Be ");
    }

    #[test]
    fn thinking_rendered_only_on_tool_call_turns() {
        let mut out = String::new();
        render_anthropic_message(
            &mut out,
            &json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "T", "signature": "s"}, {"type": "text", "text": "hi"}]}),
            &[],
        );
        assert_eq!(out, "<|assistant|>hi\n");
    }

    #[test]
    fn both_routes_render_a_tool_turn_identically() {
        let mut a = String::new();
        render_anthropic_message(
            &mut a,
            &json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "T"}, {"type": "text", "text": "x"}, {"type": "tool_use", "id": "call_00_a", "name": "f", "input": {"k": 1}}]}),
            &[],
        );
        let mut o = String::new();
        render_openai_message(
            &mut o,
            &json!({"role": "assistant", "content": "x", "reasoning_content": "T", "tool_calls": [{"id": "call_00_a", "type": "function", "function": {"name": "f", "arguments": "{\"k\": 1}"}}]}),
        );
        assert_eq!(a, o);
    }
}
