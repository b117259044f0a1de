//! Request validation with DeepSeek-like 400 errors, and the request facts the server
//! needs afterwards (effective system prompt, effective tool set, last turn).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::render;

/// Which API a request came in on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// `/anthropic/v1/messages`.
    Anthropic,
    /// `/chat/completions`.
    OpenAi,
}

impl Route {
    /// `"anthropic"` or `"openai"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Route::Anthropic => "anthropic",
            Route::OpenAi => "openai",
        }
    }
}

/// An error answered with an OpenAI-style body.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// HTTP status.
    pub status: u16,
    /// `error.message`.
    pub message: String,
    /// `error.type`.
    pub kind: &'static str,
}

impl ApiError {
    /// A 400 `invalid_request_error`.
    pub fn bad(message: impl Into<String>) -> Self {
        Self {
            status: 400,
            message: message.into(),
            kind: "invalid_request_error",
        }
    }
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInfo {
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// JSON schema of the input.
    pub schema: Value,
}

/// What the request ends with, for the demo policy.
#[derive(Debug, Clone, PartialEq)]
pub enum LastTurn {
    /// The latest user text.
    UserText(String),
    /// Tool results (tool name, result text) answering the previous assistant turn.
    ToolResults(Vec<(String, String)>),
    /// Anything else (e.g. an assistant prefill).
    Other,
}

/// Validator knobs taken from the simulator config.
#[derive(Debug, Clone)]
pub struct Rules {
    /// Accept `tool_removal` blocks.
    pub tool_removal_ok: bool,
    /// Require a non-deferred tool when any tool is deferred.
    pub require_non_deferred_tool: bool,
    /// Mapped model ids that accept `role: "system"` inside `messages`.
    pub system_capable_models: Vec<String>,
}

/// A validated request.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// Route.
    pub route: Route,
    /// The model id as requested.
    pub model: String,
    /// The mapped DeepSeek model id (cache namespace).
    pub mapped_model: String,
    /// Streaming requested.
    pub stream: bool,
    /// OpenAI `stream_options.include_usage`.
    pub include_usage: bool,
    /// Output token budget.
    pub max_tokens: u64,
    /// Thinking mode (default on).
    pub thinking: bool,
    /// The effective system prompt (latest in-history system text replaces top-level `system`).
    pub effective_system: Option<String>,
    /// The tools offered at the end of the prompt, in declaration order.
    pub offered: Vec<ToolInfo>,
    /// How the prompt ends.
    pub last_turn: LastTurn,
    /// Canonical render for the cache model.
    pub render: String,
}

const KNOWN_MODELS: [&str; 4] = [
    "deepseek-flash",
    "deepseek-v4-pro",
    "deepseek-v4-flash",
    "deepseek-v4-flash-vision-exp",
];

/// Max output tokens accepted.
pub const MAX_OUTPUT_TOKENS: u64 = 393_216;

/// Map a requested model id to the DeepSeek id serving it.
pub fn map_model(route: Route, model: &str) -> Result<String, ApiError> {
    if KNOWN_MODELS.contains(&model) {
        return Ok(model.to_string());
    }
    if route == Route::Anthropic {
        if model.starts_with("claude-opus") {
            return Ok("deepseek-v4-pro".to_string());
        }
        if model.starts_with("claude") {
            return Ok("deepseek-flash".to_string());
        }
    }
    Err(ApiError::bad(format!(
        "Model Not Exist: `{model}` (available: {})",
        KNOWN_MODELS.join(", ")
    )))
}

pub(crate) fn deser(msg: impl std::fmt::Display) -> ApiError {
    ApiError::bad(format!(
        "Failed to deserialize the JSON body into the target type: {msg}"
    ))
}

fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

pub(crate) fn check_tool_names(names: &[String]) -> Result<(), ApiError> {
    if names.len() > 128 {
        return Err(ApiError::bad(format!(
            "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length {} instead.",
            names.len()
        )));
    }
    let mut seen = HashSet::new();
    for (i, n) in names.iter().enumerate() {
        if !valid_tool_name(n) {
            return Err(ApiError::bad(format!(
                "tools.{i}.name: Invalid tool name `{n}`: must match '^[a-zA-Z0-9_-]{{1,64}}$'"
            )));
        }
        if !seen.insert(n.as_str()) {
            return Err(ApiError::bad(format!(
                "tools: Tool names must be unique (`{n}`)"
            )));
        }
    }
    Ok(())
}

pub(crate) fn get_stream(body: &Value) -> Result<bool, ApiError> {
    match body.get("stream") {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(deser("stream: invalid type, expected a boolean")),
    }
}

pub(crate) fn get_thinking(body: &Value) -> Result<bool, ApiError> {
    match body.get("thinking") {
        None | Some(Value::Null) => Ok(true),
        Some(t) => match t.get("type").and_then(Value::as_str) {
            Some("enabled") | Some("adaptive") => Ok(true),
            Some("disabled") => Ok(false),
            _ => Err(deser(
                "thinking.type: unknown variant, expected `enabled` or `disabled`",
            )),
        },
    }
}

pub(crate) fn get_max_tokens(body: &Value, required: bool) -> Result<u64, ApiError> {
    match body.get("max_tokens") {
        None | Some(Value::Null) if required => Err(deser("missing field `max_tokens`")),
        None | Some(Value::Null) => Ok(32_768),
        Some(v) => match v.as_u64() {
            Some(n) if (1..=MAX_OUTPUT_TOKENS).contains(&n) => Ok(n),
            _ => Err(ApiError::bad(format!(
                "Invalid max_tokens value, the valid range of max_tokens is [1, {MAX_OUTPUT_TOKENS}]"
            ))),
        },
    }
}

pub(crate) fn forced_tool_choice(choice: Option<&Value>, route: Route) -> bool {
    match (route, choice) {
        (_, None) => false,
        (Route::Anthropic, Some(c)) => matches!(
            c.get("type").and_then(Value::as_str),
            Some("any") | Some("tool")
        ),
        (Route::OpenAi, Some(Value::String(s))) => s == "required",
        (Route::OpenAi, Some(Value::Object(_))) => true,
        _ => false,
    }
}

fn blocks_of(content: &Value) -> Vec<Value> {
    match content {
        Value::String(s) => vec![serde_json::json!({"type": "text", "text": s})],
        Value::Array(a) => a.clone(),
        _ => Vec::new(),
    }
}

pub(crate) fn text_content(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Validate an Anthropic Messages request. `thinking_tool_ids` are tool-call ids of turns
/// the simulator generated with thinking.
pub fn validate_anthropic(
    body: &Value,
    rules: &Rules,
    thinking_tool_ids: &HashSet<String>,
) -> Result<Parsed, ApiError> {
    let obj = body
        .as_object()
        .ok_or_else(|| deser("invalid type, expected struct MessagesRequest"))?;
    let model = obj
        .get("model")
        .and_then(Value::as_str)
        .ok_or_else(|| deser("missing field `model`"))?;
    let mapped = map_model(Route::Anthropic, model)?;
    let max_tokens = get_max_tokens(body, true)?;
    let stream = get_stream(body)?;
    let thinking = get_thinking(body)?;
    if thinking && forced_tool_choice(obj.get("tool_choice"), Route::Anthropic) {
        return Err(ApiError::bad(
            "tool_choice forcing a tool is not supported in thinking mode",
        ));
    }
    let system_capable = rules.system_capable_models.contains(&mapped);

    // Tools.
    let tools: Vec<Value> = match obj.get("tools") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.clone(),
        Some(_) => return Err(deser("tools: invalid type, expected a sequence")),
    };
    let mut names = Vec::new();
    let mut deferred: HashSet<String> = HashSet::new();
    for (i, t) in tools.iter().enumerate() {
        let name = t
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| deser(format!("tools.{i}: missing field `name`")))?;
        let custom = matches!(t.get("type").and_then(Value::as_str), None | Some("custom"));
        if custom && !t.get("input_schema").is_some_and(Value::is_object) {
            return Err(deser(format!("tools.{i}: missing field `input_schema`")));
        }
        if t.get("defer_loading").and_then(Value::as_bool) == Some(true) {
            deferred.insert(name.to_string());
        }
        names.push(name.to_string());
    }
    check_tool_names(&names)?;
    if rules.require_non_deferred_tool && !deferred.is_empty() && deferred.len() == names.len() {
        return Err(ApiError::bad("All tools have defer_loading set"));
    }
    let declared: HashMap<&str, &Value> = tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str).map(|n| (n, t)))
        .collect();

    // Messages.
    let messages = match obj.get("messages") {
        Some(Value::Array(a)) => a,
        None => return Err(deser("missing field `messages`")),
        Some(_) => return Err(deser("messages: invalid type, expected a sequence")),
    };
    if messages.is_empty() {
        return Err(ApiError::bad("messages: at least one message is required"));
    }
    let mut effective_system = obj.get("system").map(text_content);
    // Offered set, in declaration order: non-deferred, then updated by additions/removals.
    let mut offered: Vec<String> = names
        .iter()
        .filter(|n| !deferred.contains(*n))
        .cloned()
        .collect();
    let mut tool_names_by_id: HashMap<String, String> = HashMap::new();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m.get("role").and_then(Value::as_str).unwrap_or(""))
        .collect();

    for (i, m) in messages.iter().enumerate() {
        let role = roles[i];
        let content = m
            .get("content")
            .ok_or_else(|| deser(format!("messages[{i}]: missing field `content`")))?;
        if !content.is_string() && !content.is_array() {
            return Err(deser(format!(
                "messages[{i}].content: invalid type, expected a string or a sequence"
            )));
        }
        let blocks = blocks_of(content);
        match role {
            "user" => {
                for (j, b) in blocks.iter().enumerate() {
                    let ty = b.get("type").and_then(Value::as_str).unwrap_or("");
                    match ty {
                        "text" | "image" | "tool_result" | "web_search_tool_result" => {}
                        "document"
                        | "search_result"
                        | "redacted_thinking"
                        | "code_execution_tool_result"
                        | "mcp_tool_use"
                        | "mcp_tool_result"
                        | "container_upload" => {
                            return Err(ApiError::bad(format!(
                                "messages[{i}].content[{j}]: content block type `{ty}` is not supported"
                            )));
                        }
                        other => {
                            return Err(deser(format!(
                                "messages[{i}].content[{j}]: unknown variant `{other}`"
                            )));
                        }
                    }
                }
                // Orphan tool results: every tool_result must answer the previous assistant turn.
                let prev_ids: HashSet<String> = if i > 0 && roles[i - 1] == "assistant" {
                    tool_use_ids(&messages[i - 1])
                } else {
                    HashSet::new()
                };
                for (j, b) in blocks.iter().enumerate() {
                    if b.get("type").and_then(Value::as_str) == Some("tool_result") {
                        let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
                        if !prev_ids.contains(id) {
                            return Err(ApiError::bad(format!(
                                "messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                            )));
                        }
                    }
                }
            }
            "assistant" => {
                let mut has_thinking = false;
                let mut ids = Vec::new();
                for (j, b) in blocks.iter().enumerate() {
                    let ty = b.get("type").and_then(Value::as_str).unwrap_or("");
                    match ty {
                        "text" | "server_tool_use" | "web_search_tool_result" => {}
                        "thinking" => has_thinking = true,
                        "tool_use" => {
                            let id = b.get("id").and_then(Value::as_str).unwrap_or("");
                            let name = b.get("name").and_then(Value::as_str).unwrap_or("");
                            if id.is_empty() || name.is_empty() {
                                return Err(deser(format!(
                                    "messages[{i}].content[{j}]: tool_use needs `id` and `name`"
                                )));
                            }
                            ids.push(id.to_string());
                            tool_names_by_id.insert(id.to_string(), name.to_string());
                        }
                        "redacted_thinking"
                        | "document"
                        | "search_result"
                        | "mcp_tool_use"
                        | "mcp_tool_result"
                        | "code_execution_tool_result" => {
                            return Err(ApiError::bad(format!(
                                "messages[{i}].content[{j}]: content block type `{ty}` is not supported"
                            )));
                        }
                        other => {
                            return Err(deser(format!(
                                "messages[{i}].content[{j}]: unknown variant `{other}`"
                            )));
                        }
                    }
                }
                if thinking && !has_thinking && ids.iter().any(|id| thinking_tool_ids.contains(id))
                {
                    return Err(ApiError::bad(format!(
                        "The `content[].thinking` in the thinking mode must be passed back to the API. (Missing thinking block in the assistant message at message index {i})"
                    )));
                }
                if !ids.is_empty() {
                    let answered: HashSet<String> =
                        if i + 1 < messages.len() && roles[i + 1] == "user" {
                            blocks_of(messages[i + 1].get("content").unwrap_or(&Value::Null))
                                .iter()
                                .filter(|b| {
                                    b.get("type").and_then(Value::as_str) == Some("tool_result")
                                })
                                .filter_map(|b| {
                                    b.get("tool_use_id")
                                        .and_then(Value::as_str)
                                        .map(str::to_string)
                                })
                                .collect()
                        } else {
                            HashSet::new()
                        };
                    let missing: Vec<&str> = ids
                        .iter()
                        .filter(|id| !answered.contains(*id))
                        .map(String::as_str)
                        .collect();
                    if !missing.is_empty() {
                        return Err(ApiError::bad(format!(
                            "messages.{}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
                            i + 1,
                            missing.join(", ")
                        )));
                    }
                }
            }
            "system" if system_capable => {
                if i == 0 {
                    return Err(ApiError::bad(
                        "messages.0: role 'system' cannot be the first message; use the top-level `system` parameter",
                    ));
                }
                // Consecutive system messages form one section: look past them.
                let before = roles[..i].iter().rev().find(|r| **r != "system");
                if before != Some(&"user") {
                    return Err(ApiError::bad(format!(
                        "messages.{i}: a message with role 'system' must immediately follow a 'user' message"
                    )));
                }
                let after = roles[i + 1..].iter().find(|r| **r != "system");
                if after.is_some_and(|r| *r != "assistant") {
                    return Err(ApiError::bad(format!(
                        "messages.{i}: a message with role 'system' must be the last message or be followed by an 'assistant' message"
                    )));
                }
                if blocks.is_empty() {
                    return Err(ApiError::bad(format!(
                        "messages.{i}: role 'system' messages must have non-empty content"
                    )));
                }
                let mut texts = Vec::new();
                for (j, b) in blocks.iter().enumerate() {
                    let ty = b.get("type").and_then(Value::as_str).unwrap_or("");
                    match ty {
                        "text" => {
                            let t = b.get("text").and_then(Value::as_str).unwrap_or("");
                            if t.is_empty() {
                                return Err(ApiError::bad(format!(
                                    "messages.{i}.content.{j}: text content blocks must be non-empty"
                                )));
                            }
                            texts.push(t.to_string());
                        }
                        "tool_addition" | "tool_removal" => {
                            let tool = b.get("tool").unwrap_or(&Value::Null);
                            let tref = tool.get("type").and_then(Value::as_str).unwrap_or("");
                            if tref != "tool_reference" {
                                return Err(ApiError::bad(format!(
                                    "messages.{i}.content.{j}: `{ty}` with tool type `{tref}` is not supported (only `tool_reference`)"
                                )));
                            }
                            let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
                            if !declared.contains_key(name) {
                                return Err(ApiError::bad(format!(
                                    "messages.{i}.content.{j}: Tool reference '{name}' not found in available tools"
                                )));
                            }
                            if ty == "tool_removal" {
                                if !rules.tool_removal_ok {
                                    return Err(ApiError::bad(format!(
                                        "messages.{i}.content.{j}: `tool_removal` is not supported"
                                    )));
                                }
                                offered.retain(|n| n != name);
                            } else if !offered.iter().any(|n| n == name) {
                                offered.push(name.to_string());
                            }
                        }
                        _ => {
                            return Err(ApiError::bad(format!(
                                "messages.{i}.content.{j}: role 'system' supports text, tool_addition, and tool_removal blocks only"
                            )));
                        }
                    }
                }
                if !texts.is_empty() {
                    effective_system = Some(texts.join("\n"));
                }
            }
            "system" => {
                return Err(deser(format!(
                    "messages[{i}].role: unknown variant `system`, expected `user` or `assistant`"
                )));
            }
            other => {
                let expected = if system_capable {
                    "expected one of `user`, `assistant`, `system`"
                } else {
                    "expected `user` or `assistant`"
                };
                return Err(deser(format!(
                    "messages[{i}].role: unknown variant `{other}`, {expected}"
                )));
            }
        }
    }

    // Keep declaration order for the offered set.
    let offered_set: HashSet<&String> = offered.iter().collect();
    let offered_tools = tools
        .iter()
        .filter(|t| {
            t.get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| offered_set.contains(&n.to_string()))
        })
        .filter(|t| matches!(t.get("type").and_then(Value::as_str), None | Some("custom")))
        .map(|t| {
            let (name, description, schema, _) = render::anthropic_tool(t);
            ToolInfo {
                name,
                description,
                schema,
            }
        })
        .collect();

    let last_turn = last_turn_anthropic(messages, &roles, &tool_names_by_id);
    Ok(Parsed {
        route: Route::Anthropic,
        model: model.to_string(),
        mapped_model: mapped.clone(),
        stream,
        include_usage: false,
        max_tokens,
        thinking,
        effective_system,
        offered: offered_tools,
        last_turn,
        render: render::render_anthropic(&mapped, body),
    })
}

fn tool_use_ids(msg: &Value) -> HashSet<String> {
    blocks_of(msg.get("content").unwrap_or(&Value::Null))
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .filter_map(|b| b.get("id").and_then(Value::as_str).map(str::to_string))
        .collect()
}

fn last_turn_anthropic(
    messages: &[Value],
    roles: &[&str],
    names: &HashMap<String, String>,
) -> LastTurn {
    let Some(idx) = roles.iter().rposition(|r| *r != "system") else {
        return LastTurn::Other;
    };
    if roles[idx] != "user" {
        return LastTurn::Other;
    }
    let blocks = blocks_of(messages[idx].get("content").unwrap_or(&Value::Null));
    let results: Vec<(String, String)> = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        .map(|b| {
            let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
            (
                names.get(id).cloned().unwrap_or_default(),
                text_content(b.get("content").unwrap_or(&Value::Null)),
            )
        })
        .collect();
    if !results.is_empty() {
        return LastTurn::ToolResults(results);
    }
    LastTurn::UserText(text_content(&Value::Array(blocks)))
}

#[cfg(test)]
mod tests;
