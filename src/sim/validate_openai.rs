//! OpenAI Chat Completions request validation (split from `validate.rs`).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::render;
use super::validate::{
    ApiError, LastTurn, Parsed, Route, ToolInfo, check_tool_names, deser, forced_tool_choice,
    get_max_tokens, get_stream, get_thinking, map_model, text_content,
};

/// Validate an OpenAI Chat Completions request.
pub fn validate_openai(
    body: &Value,
    thinking_tool_ids: &HashSet<String>,
) -> Result<Parsed, ApiError> {
    let obj = body
        .as_object()
        .ok_or_else(|| deser("invalid type, expected struct ChatCompletionRequest"))?;
    let model = obj
        .get("model")
        .and_then(Value::as_str)
        .ok_or_else(|| deser("missing field `model`"))?;
    let mapped = map_model(Route::OpenAi, model)?;
    let max_tokens = get_max_tokens(body, false)?;
    let stream = get_stream(body)?;
    let thinking = get_thinking(body)?;
    if thinking && forced_tool_choice(obj.get("tool_choice"), Route::OpenAi) {
        return Err(ApiError::bad(
            "deepseek-reasoner does not support this tool_choice in thinking mode",
        ));
    }
    let include_usage = body
        .pointer("/stream_options/include_usage")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let tools: Vec<Value> = match obj.get("tools") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.clone(),
        Some(_) => return Err(deser("tools: invalid type, expected a sequence")),
    };
    let mut names = Vec::new();
    for (i, t) in tools.iter().enumerate() {
        if t.get("type").and_then(Value::as_str) != Some("function") {
            return Err(deser(format!(
                "tools[{i}].type: unknown variant, expected `function`"
            )));
        }
        let name = t
            .pointer("/function/name")
            .and_then(Value::as_str)
            .ok_or_else(|| deser(format!("tools[{i}].function: missing field `name`")))?;
        names.push(name.to_string());
    }
    check_tool_names(&names)?;

    let messages = match obj.get("messages") {
        Some(Value::Array(a)) => a,
        None => return Err(deser("missing field `messages`")),
        Some(_) => return Err(deser("messages: invalid type, expected a sequence")),
    };
    if messages.is_empty() {
        return Err(ApiError::bad("Empty input messages"));
    }
    let mut effective_system = None;
    let mut names_by_id: HashMap<String, String> = HashMap::new();
    // Ids the next tool messages must answer.
    let mut pending: Vec<String> = Vec::new();
    let mut answered_current: HashSet<String> = HashSet::new();
    for (i, m) in messages.iter().enumerate() {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("");
        if role != "tool" && !pending.is_empty() {
            let missing: Vec<&String> = pending
                .iter()
                .filter(|id| !answered_current.contains(*id))
                .collect();
            if !missing.is_empty() {
                return Err(ApiError::bad(
                    "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. (insufficient tool messages following tool_calls message)",
                ));
            }
            pending.clear();
            answered_current.clear();
        }
        match role {
            "system" => {
                effective_system = Some(text_content(m.get("content").unwrap_or(&Value::Null)));
            }
            "user" => {}
            "assistant" => {
                let calls = m.get("tool_calls").and_then(Value::as_array);
                let mut ids = Vec::new();
                for c in calls.into_iter().flatten() {
                    let id = c.get("id").and_then(Value::as_str).unwrap_or("");
                    let name = c
                        .pointer("/function/name")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    if id.is_empty() || name.is_empty() {
                        return Err(deser(format!(
                            "messages[{i}].tool_calls: missing field `id` or `function.name`"
                        )));
                    }
                    ids.push(id.to_string());
                    names_by_id.insert(id.to_string(), name.to_string());
                }
                let has_reasoning = m
                    .get("reasoning_content")
                    .and_then(Value::as_str)
                    .is_some_and(|s| !s.is_empty());
                if thinking && !has_reasoning && ids.iter().any(|id| thinking_tool_ids.contains(id))
                {
                    return Err(ApiError::bad(
                        "The reasoning_content in the thinking mode must be passed back to the API.",
                    ));
                }
                pending = ids;
            }
            "tool" => {
                let id = m.get("tool_call_id").and_then(Value::as_str).unwrap_or("");
                if !pending.iter().any(|p| p == id) {
                    return Err(ApiError::bad(
                        "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
                    ));
                }
                answered_current.insert(id.to_string());
            }
            other => {
                return Err(deser(format!(
                    "messages[{i}].role: unknown variant `{other}`, expected one of `system`, `user`, `assistant`, `tool`"
                )));
            }
        }
    }
    if !pending.is_empty() && pending.iter().any(|id| !answered_current.contains(id)) {
        return Err(ApiError::bad(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. (insufficient tool messages following tool_calls message)",
        ));
    }

    let offered = tools
        .iter()
        .map(|t| {
            let (name, description, schema) = render::openai_tool(t);
            ToolInfo {
                name,
                description,
                schema,
            }
        })
        .collect();
    let last_turn = match messages
        .last()
        .and_then(|m| m.get("role"))
        .and_then(Value::as_str)
    {
        Some("tool") => {
            let start = messages
                .iter()
                .rposition(|m| m.get("role").and_then(Value::as_str) != Some("tool"))
                .map_or(0, |p| p + 1);
            LastTurn::ToolResults(
                messages[start..]
                    .iter()
                    .map(|m| {
                        let id = m.get("tool_call_id").and_then(Value::as_str).unwrap_or("");
                        (
                            names_by_id.get(id).cloned().unwrap_or_default(),
                            text_content(m.get("content").unwrap_or(&Value::Null)),
                        )
                    })
                    .collect(),
            )
        }
        Some("user") => LastTurn::UserText(text_content(
            messages
                .last()
                .and_then(|m| m.get("content"))
                .unwrap_or(&Value::Null),
        )),
        _ => LastTurn::Other,
    };
    Ok(Parsed {
        route: Route::OpenAi,
        model: model.to_string(),
        mapped_model: mapped.clone(),
        stream,
        include_usage,
        max_tokens,
        thinking,
        effective_system,
        offered,
        last_turn,
        render: render::render_openai(&mapped, body),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn openai_pairing_and_developer_role() {
        let e = validate_openai(
            &json!({"model": "deepseek-flash",
            "messages": [{"role": "developer", "content": "x"}]}),
            &HashSet::new(),
        )
        .unwrap_err();
        assert!(e.message.contains("unknown variant `developer`"));
        let e = validate_openai(&json!({"model": "deepseek-flash",
            "messages": [{"role": "user", "content": "x"},
              {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{}"}}]},
              {"role": "user", "content": "y"}]}), &HashSet::new()).unwrap_err();
        assert!(e.message.contains("insufficient tool messages"));
        let e = validate_openai(&json!({"model": "deepseek-flash",
            "messages": [{"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "c", "content": "y"}]}), &HashSet::new()).unwrap_err();
        assert!(e.message.contains("must be a response"));
    }
}
