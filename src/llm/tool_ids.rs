//! Tool-call ids that are missing or duplicated (issue 9, D3).
//!
//! A provider may send a tool call with an empty id, or two calls with the same id. Such
//! a message breaks the pairing rule (W-8) of every later request. Two repairs keep the
//! session usable, both deterministic so a replay gives the same ids:
//!
//! - on arrival, [`assign_unique_ids`] renames the offending calls of a reply before the
//!   assistant message is committed (the stream assemblers and the agent loop use it);
//! - at dispatch, [`repair_history`] renames them in a log written before this repair
//!   existed and points each tool result at the call it answers, in order.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

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

/// [`assign_unique_ids`] for one reply on its own (stream assembly): empty ids become
/// `call_<index>`, repeats `<id>_dup<k>`.
pub fn unique_reply_ids(blocks: &mut [Block]) -> Vec<ToolIdRepair> {
    assign_unique_ids(blocks, &HashSet::new(), standard_name("call"))
}

/// Renames missing and duplicate tool-call ids in request messages (a log written
/// before arrival repair existed) and re-points tool results: a result whose
/// `toolCallId` is the original id answers the first not yet answered call that had it.
/// Returns the input itself when nothing needed repair.
pub fn repair_history(messages: &[Arc<Message>]) -> Cow<'_, [Arc<Message>]> {
    let mut taken: HashSet<String> = HashSet::new();
    // Calls of the latest assistant message: (original id, final id, answered).
    let mut pending: Vec<(String, String, bool)> = Vec::new();
    let mut out: Option<Vec<Arc<Message>>> = None;
    for (i, m) in messages.iter().enumerate() {
        let mut replacement: Option<Message> = None;
        match m.role {
            Role::Assistant if m.tool_calls().next().is_some() => {
                let mut content = m.content.clone();
                let tag: String =
                    m.id.chars()
                        .filter(char::is_ascii_alphanumeric)
                        .take(8)
                        .collect();
                let prefix = format!("call_{tag}");
                let repairs = assign_unique_ids(&mut content, &taken, standard_name(&prefix));
                pending = m
                    .tool_calls()
                    .zip(content.iter().filter_map(|b| match b {
                        Block::ToolCall { id, .. } => Some(id.clone()),
                        _ => None,
                    }))
                    .map(|((orig, _, _), new)| (orig.to_string(), new, false))
                    .collect();
                taken.extend(pending.iter().map(|(_, new, _)| new.clone()));
                if !repairs.is_empty() {
                    tracing::warn!(
                        message_id = %m.id,
                        renamed = %ToolIdRepair::describe(&repairs),
                        "repaired tool-call ids of a logged message"
                    );
                    replacement = Some(Message {
                        content,
                        ..Message::clone(m)
                    });
                }
            }
            Role::Tool => {
                let id = m.tool_call_id.as_deref().unwrap_or("");
                if let Some(entry) = pending
                    .iter_mut()
                    .find(|(orig, _, done)| !done && orig == id)
                {
                    entry.2 = true;
                    if entry.1 != id {
                        replacement = Some(Message {
                            tool_call_id: Some(entry.1.clone()),
                            ..Message::clone(m)
                        });
                    }
                }
            }
            _ => {}
        }
        match (&mut out, replacement) {
            (None, None) => {}
            (None, Some(r)) => {
                let mut v = Vec::with_capacity(messages.len());
                v.extend(messages[..i].iter().cloned());
                v.push(Arc::new(r));
                out = Some(v);
            }
            (Some(v), None) => v.push(m.clone()),
            (Some(v), Some(r)) => v.push(Arc::new(r)),
        }
    }
    match out {
        Some(v) => Cow::Owned(v),
        None => Cow::Borrowed(messages),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::event::Source;

    fn call(id: &str) -> Block {
        Block::ToolCall {
            id: id.into(),
            name: "t".into(),
            arguments: "{}".into(),
        }
    }

    fn ids(blocks: &[Block]) -> Vec<String> {
        blocks
            .iter()
            .filter_map(|b| match b {
                Block::ToolCall { id, .. } => Some(id.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn hardening_d3_empty_and_duplicate_ids_get_deterministic_replacements() {
        let mut blocks = vec![
            Block::text("x"),
            call("call_same"),
            call("call_same"),
            call(""),
            call("call_2"),
        ];
        let repairs = unique_reply_ids(&mut blocks);
        // `call_2` is the last call's own id, so the empty one does not take it.
        assert_eq!(
            ids(&blocks),
            ["call_same", "call_same_dup2", "call_2_2", "call_2"]
        );
        assert_eq!(repairs.len(), 2);
        assert_eq!(repairs[1].original, "");
        // Deterministic.
        let mut again = vec![
            call("call_same"),
            call("call_same"),
            call(""),
            call("call_2"),
        ];
        unique_reply_ids(&mut again);
        assert_eq!(ids(&again), ids(&blocks));
        // Ids taken elsewhere in the conversation are renamed too.
        let taken: HashSet<String> = ["a".to_string()].into();
        let mut b = vec![call("a")];
        assign_unique_ids(&mut b, &taken, |_, i, _| format!("call_7_1_{i}"));
        assert_eq!(ids(&b), ["call_7_1_0"]);
    }

    fn msg(role: Role, content: Vec<Block>, id: &str, answers: Option<&str>) -> Arc<Message> {
        let mut m = Message::new(role, content, Source::kind("test"));
        m.id = id.into();
        m.tool_call_id = answers.map(str::to_string);
        Arc::new(m)
    }

    #[test]
    fn hardening_d3_logged_duplicates_are_repaired_and_results_paired_in_order() {
        let messages = vec![
            msg(Role::User, vec![Block::text("go")], "u1", None),
            msg(
                Role::Assistant,
                vec![call("call_same"), call("call_same"), call("")],
                "a1b2c3d4-0000",
                None,
            ),
            msg(Role::Tool, vec![Block::text("r1")], "t1", Some("call_same")),
            msg(Role::Tool, vec![Block::text("r2")], "t2", Some("call_same")),
            msg(Role::Tool, vec![Block::text("r3")], "t3", Some("")),
            msg(
                Role::Assistant,
                vec![call("call_same")],
                "ffff0000-1111",
                None,
            ),
            msg(Role::Tool, vec![Block::text("r4")], "t4", Some("call_same")),
        ];
        let out = repair_history(&messages);
        let calls: Vec<String> = out
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .flat_map(|m| ids(&m.content))
            .collect();
        let results: Vec<String> = out.iter().filter_map(|m| m.tool_call_id.clone()).collect();
        assert_eq!(
            calls,
            [
                "call_same",
                "call_same_dup2",
                "call_a1b2c3d4_2",
                "call_same_dup3"
            ]
        );
        assert_eq!(results, calls);
        // Untouched messages stay the same objects.
        assert!(Arc::ptr_eq(&out[0], &messages[0]));
        assert!(Arc::ptr_eq(&out[2], &messages[2]));
        // A clean history comes back as the input itself.
        let clean = vec![
            msg(Role::Assistant, vec![call("a")], "m", None),
            msg(Role::Tool, vec![], "t", Some("a")),
        ];
        assert!(matches!(repair_history(&clean), Cow::Borrowed(_)));
    }
}
