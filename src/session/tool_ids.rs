//! Tool-call id repair primitives, at the bottom of the layering so the
//! session can track whether its derived history needs the dispatch-time repair
//! (`llm::tool_ids` re-exports them and holds the repair itself).

use std::collections::HashSet;

use crate::session::event::{Block, Message, Role};

/// One renamed tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolIdRepair {
    /// Position of the call among the message's tool calls.
    pub index: usize,
    /// The id the provider sent (possibly empty).
    pub original: String,
    /// The id it has now.
    pub replacement: String,
}

impl ToolIdRepair {
    /// `"" → call_1` / `call_x → call_x_dup2`, for notices and logs.
    pub fn describe(repairs: &[ToolIdRepair]) -> String {
        repairs
            .iter()
            .map(|r| format!("{:?} → {}", r.original, r.replacement))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Base name for a renamed call: an empty id becomes `<prefix>_<index>`, the `k`-th
/// repeat of an id becomes `<id>_dup<k>` (k ≥ 2).
pub fn standard_name(prefix: &str) -> impl Fn(&str, usize, usize) -> String + '_ {
    move |original, index, occurrence| {
        if original.is_empty() {
            format!("{prefix}_{index}")
        } else {
            format!("{original}_dup{occurrence}")
        }
    }
}

/// Gives every tool call in `blocks` a non-empty id that is unique within `blocks` and not
/// in `taken`. The first call with a given free id keeps it; any other gets
/// `name(original, index, k)` (index among the tool calls; k = 2 for the second call
/// with that original id, and counts up while the name is taken; a name that ignores k
/// gets a `_2`, `_3`, … suffix instead). Deterministic. Returns what was renamed.
pub fn assign_unique_ids(
    blocks: &mut [Block],
    taken: &HashSet<String>,
    name: impl Fn(&str, usize, usize) -> String,
) -> Vec<ToolIdRepair> {
    // Original ids are reserved first so a replacement never steals a later call's id.
    let reserved: HashSet<String> = blocks
        .iter()
        .filter_map(|b| match b {
            Block::ToolCall { id, .. } if !id.is_empty() => Some(id.clone()),
            _ => None,
        })
        .collect();
    let mut used: HashSet<String> = HashSet::new();
    let mut seen: Vec<String> = Vec::new();
    let mut repairs = Vec::new();
    for block in blocks.iter_mut() {
        let Block::ToolCall { id, .. } = block else {
            continue;
        };
        let index = seen.len();
        let occurrence = seen.iter().filter(|s| *s == id).count() + 1;
        seen.push(id.clone());
        let free = |c: &str| !taken.contains(c) && !used.contains(c);
        if !id.is_empty() && free(id) {
            used.insert(id.clone());
            continue;
        }
        // Repeats count from 2; a name that ignores the count gets a numeric suffix.
        let first = occurrence.max(2);
        let base = name(id, index, first);
        let varies = name(id, index, first + 1) != base;
        let mut candidate = base.clone();
        let (mut k, mut n) = (first, 1u64);
        while candidate.is_empty() || !free(&candidate) || reserved.contains(&candidate) {
            if varies {
                k += 1;
                candidate = name(id, index, k);
            } else {
                n += 1;
                candidate = format!("{base}_{n}");
            }
        }
        repairs.push(ToolIdRepair {
            index,
            original: std::mem::replace(id, candidate.clone()),
            replacement: candidate.clone(),
        });
        used.insert(candidate);
    }
    repairs
}

/// The dispatch-time repair of [`crate::llm::tool_ids::repair_history`] as a scan fed one
/// message at a time, so the session can keep it up to date as messages are appended
/// and know, without a walk over the history, that a request needs no repair.
#[derive(Debug, Clone, Default)]
pub struct RepairScan {
    /// Final ids of every tool call seen so far.
    taken: HashSet<String>,
    /// Calls of the latest assistant message: (original id, final id, answered).
    pending: Vec<(String, String, bool)>,
}

impl RepairScan {
    /// Feeds the next request message. Returns its repaired copy when it needs one,
    /// with the renamed calls (empty for a re-pointed tool result).
    pub fn step(&mut self, m: &Message) -> Option<(Message, Vec<ToolIdRepair>)> {
        match m.role {
            Role::Assistant if m.tool_calls().next().is_some() => {
                let mut content = m.content.clone();
                let tag: String =
                    m.id.chars()
                        .filter(char::is_ascii_alphanumeric)
                        .take(8)
                        .collect();
                let prefix = format!("call_{tag}");
                let repairs = assign_unique_ids(&mut content, &self.taken, standard_name(&prefix));
                self.pending = m
                    .tool_calls()
                    .zip(content.iter().filter_map(|b| match b {
                        Block::ToolCall { id, .. } => Some(id.clone()),
                        _ => None,
                    }))
                    .map(|((orig, _, _), new)| (orig.to_string(), new, false))
                    .collect();
                self.taken
                    .extend(self.pending.iter().map(|(_, new, _)| new.clone()));
                (!repairs.is_empty()).then(|| {
                    (
                        Message {
                            content,
                            ..m.clone()
                        },
                        repairs,
                    )
                })
            }
            Role::Tool => {
                let id = m.tool_call_id.as_deref().unwrap_or("");
                let entry = self
                    .pending
                    .iter_mut()
                    .find(|(orig, _, done)| !done && orig == id)?;
                entry.2 = true;
                (entry.1 != id).then(|| {
                    (
                        Message {
                            tool_call_id: Some(entry.1.clone()),
                            ..m.clone()
                        },
                        Vec::new(),
                    )
                })
            }
            _ => None,
        }
    }
}
