//! `project_tool_updates` (reference P-1…P-14): pure projection of request messages and
//! tool declarations for a route's tool-update mode.
//!
//! "Same object" is `Arc::ptr_eq`; when nothing changed the input slice itself comes
//! back as `Cow::Borrowed`. On the capable path the declarations are always `Some`, even
//! `[]` (reference Q4); omitting an empty `tools` key on the wire is the serializer's job.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

use crate::llm::types::ToolHistory;
use crate::session::event::{Block, Message, Role, ToolSchema, ToolUpdateMode};

/// Result of a projection. `Cow::Borrowed` means "the input itself, unchanged".
#[derive(Debug, Clone)]
pub struct Projection<'a> {
    /// Messages to send.
    pub messages: Cow<'a, [Arc<Message>]>,
    /// Declarations to send (`None` = no `tools` at all).
    pub tools: Option<Cow<'a, [ToolSchema]>>,
}

/// `messages` without developer messages; the input itself when there were none.
fn without_developer(messages: &[Arc<Message>]) -> Cow<'_, [Arc<Message>]> {
    if messages.iter().any(|m| m.role == Role::Developer) {
        Cow::Owned(
            messages
                .iter()
                .filter(|m| m.role != Role::Developer)
                .cloned()
                .collect(),
        )
    } else {
        Cow::Borrowed(messages)
    }
}

/// Projects `messages` and `tools` for `mode` using the fold snapshot `history`.
pub fn project_tool_updates<'a>(
    messages: &'a [Arc<Message>],
    tools: Option<&'a [ToolSchema]>,
    mode: Option<ToolUpdateMode>,
    history: Option<&ToolHistory>,
) -> Projection<'a> {
    // P-1: unsupported route — no updates, every declaration immediately available.
    let Some(mode) = mode else {
        let tools = match tools {
            Some(t) if t.iter().any(ToolSchema::is_deferred) => Some(Cow::Owned(
                t.iter()
                    .map(|s| ToolSchema {
                        defer_loading: None,
                        ..s.clone()
                    })
                    .collect(),
            )),
            other => other.map(Cow::Borrowed),
        };
        return Projection {
            messages: without_developer(messages),
            tools,
        };
    };
    // P-2: without history, current declarations (explicit deferLoading kept).
    let fallback = || Projection {
        messages: without_developer(messages),
        tools: tools.map(Cow::Borrowed),
    };
    let Some(history) = history else {
        return fallback();
    };
    // P-3: every recorded update must be present, else the prefix is incomplete.
    let present: HashSet<&str> = messages
        .iter()
        .filter(|m| m.role == Role::Developer)
        .map(|m| m.id.as_str())
        .collect();
    if history
        .updates
        .iter()
        .any(|u| !present.contains(u.message_id.as_str()))
    {
        return fallback();
    }

    // P-4: baseline declarations as-is, then first additions deferred; never overwrite.
    let mut declarations: Vec<ToolSchema> = history.tools.clone();
    let mut declared: HashSet<&str> = history.tools.iter().map(|t| t.name.as_str()).collect();
    for update in &history.updates {
        for add in &update.additions {
            if declared.insert(add.name.as_str()) {
                declarations.push(ToolSchema {
                    defer_loading: Some(true),
                    ..add.clone()
                });
            }
        }
    }
    // P-5 / P-6.
    if mode == ToolUpdateMode::AdditionOnly {
        let active: HashSet<&str> = tools
            .unwrap_or(&[])
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        declarations.retain(|d| active.contains(d.name.as_str()));
    }
    let declared: HashSet<&str> = declarations.iter().map(|d| d.name.as_str()).collect();

    // P-7: explicitly deferred baseline tools are declared but not yet offered.
    let mut offered: HashSet<&str> = history
        .tools
        .iter()
        .filter(|t| !t.is_deferred())
        .map(|t| t.name.as_str())
        .collect();
    let update_ids: HashSet<&str> = history
        .updates
        .iter()
        .map(|u| u.message_id.as_str())
        .collect();

    // P-8: the message walk. `out` stays `None` while every position is unchanged.
    let mut out: Option<Vec<Arc<Message>>> = None;
    for (i, m) in messages.iter().enumerate() {
        let kept: Option<Arc<Message>> = if m.role != Role::Developer {
            Some(m.clone())
        } else if !update_ids.contains(m.id.as_str()) {
            None
        } else {
            let mut content = Vec::with_capacity(m.content.len());
            for b in &m.content {
                let keep = match b {
                    Block::ToolAddition { tool_name, .. } => {
                        let name = tool_name.as_str();
                        declared.contains(name) && offered.insert(name)
                    }
                    Block::ToolRemoval { tool_name } => {
                        mode == ToolUpdateMode::InHistory && offered.remove(tool_name.as_str())
                    }
                    _ => true,
                };
                if keep {
                    content.push(b.clone());
                }
            }
            if content.is_empty() {
                None
            } else if content.len() == m.content.len() {
                Some(m.clone())
            } else {
                Some(Arc::new(Message {
                    content,
                    ..Message::clone(m)
                }))
            }
        };
        let same = kept.as_ref().is_some_and(|k| Arc::ptr_eq(k, m));
        match (&mut out, same) {
            (None, true) => {}
            (None, false) => {
                let mut v = Vec::with_capacity(messages.len());
                v.extend(messages[..i].iter().cloned());
                v.extend(kept);
                out = Some(v);
            }
            (Some(v), _) => v.extend(kept),
        }
    }

    // P-9: always a fresh list on this path (the history, not the input, defines it).
    let tools_out = Cow::Owned(declarations);
    Projection {
        messages: match out {
            Some(v) => Cow::Owned(v),
            None => Cow::Borrowed(messages),
        },
        tools: Some(tools_out),
    }
}
