//! The tool bridge's projection (SPEC §15.1, decision 0120): on a route without
//! `tool_update` that keeps its prefix (`tool_removal = "retain"`, the default), the
//! declarations are the series' baseline plus `tool_search` and `call_tool`, and never
//! change within the series; every tool change of the series is sent as text at its
//! position (a tool note, user text on the wire like a mode note). A pure function of the
//! log, like the rest of the projection: a rebuilt request equals the sent one.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::json;

use crate::llm::types::ToolHistory;
use crate::session::event::{Block, Message, Role, Source, TOOL_NOTE_SOURCE, ToolSchema};

/// The search tool's name.
pub const TOOL_SEARCH: &str = "tool_search";
/// The call tool's name.
pub const CALL_TOOL: &str = "call_tool";
/// Most matches `tool_search` answers when the call names no `limit`.
pub const DEFAULT_SEARCH_LIMIT: usize = 5;

/// The two bridge declarations, always the same bytes (the prefix depends on them).
pub fn bridge_schemas() -> [ToolSchema; 2] {
    [
        ToolSchema {
            name: TOOL_SEARCH.into(),
            description: "Find tools that are available but not declared here (added later, \
                          or announced in a note). Returns each matching tool's name, \
                          description and JSON schema; call one with call_tool."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Words to look for in tool names and descriptions"},
                    "limit": {"type": "integer", "description": "Most tools to return (default 5)"}
                },
                "required": ["query"]
            }),
            defer_loading: None,
        },
        ToolSchema {
            name: CALL_TOOL.into(),
            description: "Call a tool by name that is not declared here (one announced in a \
                          note or found with tool_search), with its arguments as a JSON object."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The tool's name"},
                    "arguments": {"type": "object", "description": "The tool's arguments"}
                },
                "required": ["name", "arguments"]
            }),
            defer_loading: None,
        },
    ]
}

/// Whether `name` is one of the bridge's own tools.
pub fn is_bridge_tool(name: &str) -> bool {
    name == TOOL_SEARCH || name == CALL_TOOL
}

/// One line about a tool: its name and the first line of its description.
pub fn one_line(tool: &ToolSchema) -> String {
    let first = tool.description.lines().next().unwrap_or("").trim();
    if first.is_empty() {
        tool.name.clone()
    } else {
        format!("{}: {first}", tool.name)
    }
}

/// The text a removed tool becomes where the route has no removal block: the tool stays
/// declared, the model reads that it is gone.
pub fn removal_note(name: &str) -> Block {
    Block::text(format!(
        "Tool removed: {name}. It is no longer available; a call of it fails."
    ))
}

/// The tool note of one developer message: its changes as lines, in block order
/// (`additions` are the definitions the fold recorded for it). How to call an added tool
/// is said once, in the bridge's own declarations, not in every note: a note is user text
/// on the wire, and naming the bridge tools there would read as a request to call them.
fn tool_note(m: &Message, additions: &[ToolSchema]) -> Option<Arc<Message>> {
    let mut lines: Vec<String> = Vec::new();
    for b in &m.content {
        match b {
            Block::ToolAddition { tool_name, .. } => {
                lines.push(match additions.iter().find(|t| &t.name == tool_name) {
                    Some(t) => format!("Tool added: {}", one_line(t)),
                    None => format!("Tool added: {tool_name}"),
                });
            }
            Block::ToolRemoval { tool_name } => {
                if let Block::Text { text } = removal_note(tool_name) {
                    lines.push(text);
                }
            }
            Block::Text { text } if !text.is_empty() => lines.push(text.clone()),
            _ => {}
        }
    }
    if lines.is_empty() {
        return None;
    }
    Some(Arc::new(Message {
        id: m.id.clone(),
        ..Message::new(
            Role::Developer,
            vec![Block::text(lines.join("\n"))],
            Source::kind(TOOL_NOTE_SOURCE),
        )
    }))
}

/// The bridge projection of `messages` (developer messages at `developer`) and `tools`
/// with the fold snapshot `history`: the messages to send and the declarations.
pub fn project_bridge<'a>(
    messages: &'a [Arc<Message>],
    developer: &[usize],
    tools: Option<&'a [ToolSchema]>,
    history: Option<&ToolHistory>,
) -> (Cow<'a, [Arc<Message>]>, Vec<ToolSchema>) {
    let base: &[ToolSchema] = history.map(|h| h.tools.as_slice()).or(tools).unwrap_or(&[]);
    let mut declarations: Vec<ToolSchema> = base
        .iter()
        .map(|t| ToolSchema {
            defer_loading: None,
            ..t.clone()
        })
        .collect();
    // Bridge tools the series already declares (a deferred catalogue) stay where they
    // are: moving them would rewrite the cached prefix when a refusal downgrades the route
    // mid-series (§15.1). Missing ones are appended after the baseline.
    for b in bridge_schemas() {
        if !declarations.iter().any(|t| t.name == b.name) {
            declarations.push(b);
        }
    }
    let updates: HashMap<&str, &[ToolSchema]> = history
        .map(|h| {
            h.updates
                .iter()
                .map(|u| (u.message_id.as_str(), u.additions.as_slice()))
                .collect()
        })
        .unwrap_or_default();
    // Only developer messages change: each becomes its note, or is dropped (an earlier
    // series', or one with nothing to say); mode notes stay as they are.
    let mut changed: Vec<(usize, Option<Arc<Message>>)> = Vec::new();
    for &i in developer {
        let Some(m) = messages.get(i) else { continue };
        if m.is_mode_note() {
            continue;
        }
        let note = updates
            .get(m.id.as_str())
            .and_then(|adds| tool_note(m, adds));
        changed.push((i, note));
    }
    let messages = if changed.is_empty() {
        Cow::Borrowed(messages)
    } else {
        let mut v = Vec::with_capacity(messages.len());
        let mut next = 0;
        for (i, note) in changed {
            v.extend(messages.get(next..i).unwrap_or(&[]).iter().cloned());
            v.extend(note);
            next = i + 1;
        }
        v.extend(messages.get(next..).unwrap_or(&[]).iter().cloned());
        Cow::Owned(v)
    };
    (messages, declarations)
}

#[cfg(test)]
#[path = "bridge_tests.rs"]
mod tests;
