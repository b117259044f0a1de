//! The tool bridge's projection (SPEC §15.1, decision 0120): on a route without
//! `tool_update` that keeps its prefix (`tool_removal = "retain"`, the default), the
//! declarations are the series' baseline plus `tool_search` and `call_tool`, and never
//! change within the series; every tool change of the series is sent as text at its
//! position (a tool note, user text on the wire like a mode note). A pure function of the
//! log, like the rest of the projection: a rebuilt request equals the sent one.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use crate::llm::projection::Projection;
use crate::llm::types::ToolHistory;
use crate::session::event::{Block, Message, Role, Source, TOOL_NOTE_SOURCE, ToolSchema};
use crate::tools::bridge::{bridge_schemas, is_bridge_tool, one_line};

/// The text a removed tool becomes where the route has no removal block: the tool stays
/// declared, the model reads that it is gone.
pub fn removal_note(name: &str) -> Block {
    Block::text(format!(
        "Tool removed: {name}. It is no longer available; a call of it fails."
    ))
}

/// The tool note of one developer message: its changes as lines, in block order
/// (`additions` are the definitions the fold recorded for it).
fn tool_note(m: &Message, additions: &[ToolSchema]) -> Option<Arc<Message>> {
    let mut lines: Vec<String> = Vec::new();
    let mut added = false;
    for b in &m.content {
        match b {
            Block::ToolAddition { tool_name, .. } => {
                added = true;
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
    if added {
        lines.push(
            "Call an added tool with call_tool; tool_search shows its schema.".to_string(),
        );
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
/// with the fold snapshot `history`.
pub fn project_bridge<'a>(
    messages: &'a [Arc<Message>],
    developer: &[usize],
    tools: Option<&'a [ToolSchema]>,
    history: Option<&ToolHistory>,
) -> Projection<'a> {
    let base: &[ToolSchema] = history
        .map(|h| h.tools.as_slice())
        .or(tools)
        .unwrap_or(&[]);
    let mut declarations: Vec<ToolSchema> = base
        .iter()
        .filter(|t| !is_bridge_tool(&t.name))
        .map(|t| ToolSchema {
            defer_loading: None,
            ..t.clone()
        })
        .collect();
    declarations.extend(bridge_schemas());
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
    Projection {
        messages,
        tools: Some(Cow::Owned(declarations)),
    }
}

#[cfg(test)]
#[path = "bridge_tests.rs"]
mod tests;
