//! `project_tool_updates` (reference P-1…P-14): pure projection of request messages and
//! tool declarations for a route's tool-update mode.
//!
//! "Same object" is `Arc::ptr_eq`; when nothing changed the input slice itself comes
//! back as `Cow::Borrowed`. On the capable path the declarations are always `Some`, even
//! `[]` (reference Q4); omitting an empty `tools` key on the wire is the serializer's job.
//!
//! `tool_removal = "retain"` (SPEC §13; decision 0010) changes one rule on
//! `addition-only` routes: P-6 is skipped, so every declaration of the series stays, as on
//! `in-history` (P-5), and with it the tool's addition block (P-8). Removal blocks are
//! still dropped (the route has none), so the request prefix is unchanged by a removal.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

pub use crate::llm::removal_cost::{RemovalCost, removal_cost};
use crate::llm::types::ToolHistory;
use crate::session::event::{Block, Message, Role, ToolRemoval, ToolSchema, ToolUpdateMode};

/// Result of a projection. `Cow::Borrowed` means "the input itself, unchanged".
#[derive(Debug, Clone)]
pub struct Projection<'a> {
    /// Messages to send.
    pub messages: Cow<'a, [Arc<Message>]>,
    /// Declarations to send (`None` = no `tools` at all).
    pub tools: Option<Cow<'a, [ToolSchema]>>,
}

/// Positions of the developer messages in `messages`, ascending.
pub fn developer_positions(messages: &[Arc<Message>]) -> Vec<usize> {
    messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m.role == Role::Developer)
        .map(|(i, _)| i)
        .collect()
}

/// `messages` without developer messages; the input itself when there were none.
/// Mode notes ([`Message::is_mode_note`]) stay: they are not tool changes, and the model
/// must learn its sandbox mode on every route.
fn without_developer<'a>(
    messages: &'a [Arc<Message>],
    developer: &[usize],
) -> Cow<'a, [Arc<Message>]> {
    let dropped = |m: &Arc<Message>| m.role == Role::Developer && !m.is_mode_note();
    if developer
        .iter()
        .any(|&i| messages.get(i).is_some_and(dropped))
    {
        Cow::Owned(messages.iter().filter(|m| !dropped(m)).cloned().collect())
    } else {
        Cow::Borrowed(messages)
    }
}

/// What the walk does with one message.
enum Kept {
    /// Keep the same object.
    Same,
    /// Drop it.
    Drop,
    /// Keep a filtered copy.
    Copy(Arc<Message>),
}

/// Projects `messages` and `tools` for `mode` using the fold snapshot `history`
/// (removals omitted, the default; see [`project_tool_updates_with`]).
pub fn project_tool_updates<'a>(
    messages: &'a [Arc<Message>],
    tools: Option<&'a [ToolSchema]>,
    mode: Option<ToolUpdateMode>,
    history: Option<&ToolHistory>,
) -> Projection<'a> {
    project_tool_updates_with(messages, tools, mode, ToolRemoval::Omit, history)
}

/// Names a request on a route keeps declaring although they may no longer be active, so
/// that a call of one gets `UNKNOWN_TOOL` naming its removal (SPEC §15.1): every
/// declaration of the current series on `in-history` (P-5), on `addition-only` with
/// `tool_removal = "retain"` (P-6 skipped) and on the tool bridge (a route without
/// `tool_update` with `retain`); none where a removal rewrites the declarations.
pub fn retained_declarations(
    mode: Option<ToolUpdateMode>,
    removal: ToolRemoval,
    history: &ToolHistory,
) -> Vec<String> {
    if removal_cost(mode, removal) != RemovalCost::Appended {
        return Vec::new();
    }
    let mut names: Vec<String> = history.tools.iter().map(|t| t.name.clone()).collect();
    for add in history.updates.iter().flat_map(|u| &u.additions) {
        if !names.contains(&add.name) {
            names.push(add.name.clone());
        }
    }
    names
}

/// [`project_tool_updates`] with the route's `tool_removal`: `Retain` on `addition-only`
/// skips P-6 (ignored on other modes, where it means nothing).
pub fn project_tool_updates_with<'a>(
    messages: &'a [Arc<Message>],
    tools: Option<&'a [ToolSchema]>,
    mode: Option<ToolUpdateMode>,
    removal: ToolRemoval,
    history: Option<&ToolHistory>,
) -> Projection<'a> {
    let developer = developer_positions(messages);
    project_tool_updates_indexed(messages, &developer, tools, mode, removal, history)
}

/// [`project_tool_updates_with`] given the positions of the developer messages
/// (`developer`, ascending, as [`developer_positions`] computes them): only those
/// messages are examined, so an unchanged request costs nothing per history message.
pub fn project_tool_updates_indexed<'a>(
    messages: &'a [Arc<Message>],
    developer: &[usize],
    tools: Option<&'a [ToolSchema]>,
    mode: Option<ToolUpdateMode>,
    removal: ToolRemoval,
    history: Option<&ToolHistory>,
) -> Projection<'a> {
    let developer_messages = || {
        developer
            .iter()
            .filter_map(|&i| messages.get(i).map(|m| (i, m)))
    };
    // A route without `tool_update` that keeps its prefix: the tool bridge (SPEC §15.1).
    if mode.is_none() && removal == ToolRemoval::Retain {
        let (messages, declarations) =
            crate::llm::bridge::project_bridge(messages, developer, tools, history);
        return Projection {
            messages,
            tools: Some(Cow::Owned(declarations)),
        };
    }
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
            messages: without_developer(messages, developer),
            tools,
        };
    };
    // P-2: without history, current declarations (explicit deferLoading kept).
    let fallback = || Projection {
        messages: without_developer(messages, developer),
        tools: tools.map(Cow::Borrowed),
    };
    let Some(history) = history else {
        return fallback();
    };
    // P-3: every recorded update must be present, else the prefix is incomplete.
    let present: HashSet<&str> = developer_messages().map(|(_, m)| m.id.as_str()).collect();
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
    // P-5 / P-6 (`retain` keeps every declaration on addition-only too).
    let retained = removal_cost(Some(mode), removal) == RemovalCost::Appended;
    if !retained {
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

    // P-8: the walk over the developer messages (every other message is kept as the
    // same object). When every position is unchanged the input comes back borrowed, so
    // an unchanged request costs no allocation and no reference-count traffic.
    let mut changed: Vec<(usize, Kept)> = Vec::new();
    for (i, m) in developer_messages() {
        let kept = if m.is_mode_note() {
            Kept::Same
        } else if !update_ids.contains(m.id.as_str()) {
            Kept::Drop
        } else {
            let mut content = Vec::with_capacity(m.content.len());
            let mut noted = false;
            for b in &m.content {
                let keep = match b {
                    Block::ToolAddition { tool_name, .. } => {
                        let name = tool_name.as_str();
                        declared.contains(name) && offered.insert(name)
                    }
                    Block::ToolRemoval { tool_name } => {
                        if mode == ToolUpdateMode::InHistory {
                            offered.remove(tool_name.as_str())
                        } else if retained && offered.contains(tool_name.as_str()) {
                            // No removal block on this route: the model is told in text
                            // that the still declared tool is gone (SPEC §15.1).
                            content.push(crate::llm::bridge::removal_note(tool_name));
                            noted = true;
                            false
                        } else {
                            false
                        }
                    }
                    _ => true,
                };
                if keep {
                    content.push(b.clone());
                }
            }
            if content.is_empty() {
                Kept::Drop
            } else if content.len() == m.content.len() && !noted {
                Kept::Same
            } else {
                Kept::Copy(Arc::new(Message {
                    content,
                    ..Message::clone(m)
                }))
            }
        };
        if !matches!(kept, Kept::Same) {
            changed.push((i, kept));
        }
    }
    let out: Option<Vec<Arc<Message>>> = (!changed.is_empty()).then(|| {
        let mut v = Vec::with_capacity(messages.len());
        let mut next = 0;
        for (i, kept) in changed {
            v.extend(messages.get(next..i).unwrap_or(&[]).iter().cloned());
            if let Kept::Copy(c) = kept {
                v.push(c);
            }
            next = i + 1;
        }
        v.extend(messages.get(next..).unwrap_or(&[]).iter().cloned());
        v
    });

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

#[cfg(test)]
#[path = "projection_tests.rs"]
mod tests;
