//! The tool bridge (SPEC §15.1, decision 0120): two built-in tools a route without
//! `tool_update` always declares, so a tool change never touches its `tools` array.
//! `tool_search` finds tools by name or description and answers their compact schemas;
//! `call_tool` names a tool and its arguments, and the loop runs that call exactly as a
//! direct one (approval, rules, hooks, checkpoint, card and log under the real name).

use serde_json::Value;

pub use crate::llm::bridge::{
    CALL_TOOL, DEFAULT_SEARCH_LIMIT, TOOL_SEARCH, bridge_schemas, is_bridge_tool, one_line,
};
use crate::session::event::ToolSchema;
use crate::tools::ToolOutcome;

pub use crate::config::DEFAULT_DEFER_TOOLS_OVER;

/// Whether `extension_tools` command and MCP tools are deferred (announced as text and loaded
/// by `tool_search`) rather than declared up front: only past the threshold, never when the
/// threshold is `0` (SPEC §15.1). Built-in tools do not count: they are always declared.
/// The registry's plan acts on it (`ToolRegistry::plan`).
pub fn defers(extension_tools: usize, threshold: usize) -> bool {
    threshold != 0 && extension_tools > threshold
}

/// The real call inside a `call_tool` call's arguments: `(name, arguments JSON text)`, or
/// the tool error to answer when they do not name one.
pub fn unwrap_call(arguments: &str) -> Result<(String, String), String> {
    let v: Value = serde_json::from_str(if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    })
    .map_err(|e| format!("invalid arguments for tool \"{CALL_TOOL}\": not valid JSON ({e})"))?;
    let name = v
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.trim().is_empty())
        .ok_or_else(|| {
            format!("invalid arguments for tool \"{CALL_TOOL}\": \"name\" must name a tool")
        })?;
    if is_bridge_tool(name) {
        return Err(format!(
            "invalid arguments for tool \"{CALL_TOOL}\": \"{name}\" is called directly"
        ));
    }
    let args = match v.get("arguments") {
        None | Some(Value::Null) => "{}".to_string(),
        Some(a @ Value::Object(_)) => a.to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => {
            return Err(format!(
                "invalid arguments for tool \"{CALL_TOOL}\": \"arguments\" must be a JSON object"
            ));
        }
    };
    Ok((name.to_string(), args))
}

/// The query and the best matches of a `tool_search` call over `tools`: by how many
/// query words their name and description contain, then by name; or the tool error for
/// arguments that are not a JSON object.
fn matches<'t>(
    tools: &'t [ToolSchema],
    arguments: &str,
) -> Result<(String, Vec<&'t ToolSchema>), ToolOutcome> {
    let v: Value = match serde_json::from_str(if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    }) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            return Err(ToolOutcome::error(format!(
                "invalid arguments for tool \"{TOOL_SEARCH}\": expected a JSON object"
            )));
        }
    };
    let query = v.get("query").and_then(Value::as_str).unwrap_or("");
    let limit = v
        .get("limit")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_SEARCH_LIMIT, |n| n.clamp(1, 50) as usize);
    let words: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut scored: Vec<(usize, &ToolSchema)> = tools
        .iter()
        .filter(|t| !is_bridge_tool(&t.name))
        .filter_map(|t| {
            let name = t.name.to_lowercase();
            let desc = t.description.to_lowercase();
            let score: usize = words
                .iter()
                .map(|w| {
                    if name == *w {
                        4
                    } else if name.contains(w.as_str()) {
                        2
                    } else {
                        usize::from(desc.contains(w.as_str()))
                    }
                })
                .sum();
            (score > 0 || words.is_empty()).then_some((score, t))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
    Ok((
        query.to_string(),
        scored.into_iter().take(limit).map(|(_, t)| t).collect(),
    ))
}

/// The names a `tool_search` call over `tools` returns (empty for bad arguments).
pub fn found(tools: &[ToolSchema], arguments: &str) -> Vec<String> {
    matches(tools, arguments)
        .map(|(_, m)| m.into_iter().map(|t| t.name.clone()).collect())
        .unwrap_or_default()
}

/// Answers a `tool_search` call over `tools` (every enabled tool, declared or not): the
/// best matches, each with its compact JSON schema.
pub fn search(tools: &[ToolSchema], arguments: &str) -> ToolOutcome {
    let (query, found) = match matches(tools, arguments) {
        Ok(m) => m,
        Err(e) => return e,
    };
    if found.is_empty() {
        return ToolOutcome::ok(format!("no tool matches \"{query}\""));
    }
    let mut out = String::new();
    for t in found {
        let schema = serde_json::to_string(&t.parameters).unwrap_or_default();
        out.push_str(&format!("{}\nschema: {schema}\n\n", one_line(t)));
    }
    ToolOutcome::ok(out.trim_end().to_string())
}

/// What the registry answers for a bridge tool's own call (a `call_tool` call the loop
/// could not unwrap reaches here only with arguments that name no tool).
/// `enabled` gives every enabled tool (asked only for a search).
pub fn answer(
    enabled: impl FnOnce() -> Vec<ToolSchema>,
    name: &str,
    arguments: &str,
) -> Option<ToolOutcome> {
    match name {
        TOOL_SEARCH => Some(search(&enabled(), arguments)),
        CALL_TOOL => Some(match unwrap_call(arguments) {
            Err(e) => ToolOutcome::error(e),
            Ok((real, _)) => ToolOutcome::error(format!("unknown tool \"{real}\"")),
        }),
        _ => None,
    }
}

#[cfg(test)]
#[path = "bridge_tests.rs"]
mod tests;
