//! Tool-call ids that are missing or duplicated.
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

use crate::session::event::{Block, Message};
pub use crate::session::tool_ids::{RepairScan, ToolIdRepair, assign_unique_ids, standard_name};

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
    let mut scan = RepairScan::default();
    let mut out: Option<Vec<Arc<Message>>> = None;
    for (i, m) in messages.iter().enumerate() {
        let replacement = scan.step(m).map(|(r, repairs)| {
            if !repairs.is_empty() {
                tracing::warn!(
                    message_id = %m.id,
                    renamed = %ToolIdRepair::describe(&repairs),
                    "repaired tool-call ids of a logged message"
                );
            }
            r
        });
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
    use crate::llm::client::build_wire;
    use crate::llm::types::{GenerateOptions, MessageList, ProviderKind, Purpose, Route, Thinking};
    use crate::session::Session;
    use crate::session::event::{
        AssistantMessageData, EventKind, Role, Source, ToolResultData, UserMessageData,
    };

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
    fn empty_and_duplicate_ids_get_deterministic_replacements() {
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
    fn logged_duplicates_are_repaired_and_results_paired_in_order() {
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

    fn session_with(turns: &[(&[&str], &[&str])]) -> (Session, Vec<u64>) {
        let mut s = Session::new("t", "/");
        let mut seqs = Vec::new();
        for (turn, (calls, results)) in turns.iter().enumerate() {
            let turn = turn as u64 + 1;
            let user = Message::text(Role::User, "go", Source::kind("user"));
            seqs.push(
                s.push(EventKind::UserMessage(UserMessageData { message: user }))
                    .unwrap()
                    .seq,
            );
            let message = Message::new(
                Role::Assistant,
                calls.iter().map(|id| call(id)).collect(),
                Source::kind("model"),
            );
            seqs.push(
                s.push(EventKind::AssistantMessage(AssistantMessageData {
                    turn,
                    step: 1,
                    message,
                    usage: None,
                    timing: None,
                    interrupted: None,
                }))
                .unwrap()
                .seq,
            );
            for id in *results {
                let mut message = Message::text(Role::Tool, "r", Source::kind("tool"));
                message.tool_call_id = Some(id.to_string());
                seqs.push(
                    s.push(EventKind::ToolResult(ToolResultData {
                        turn,
                        step: 1,
                        message,
                        error: None,
                        sandbox_retry: None,
                    }))
                    .unwrap()
                    .seq,
                );
            }
        }
        (s, seqs)
    }

    fn opts(messages: MessageList) -> GenerateOptions {
        GenerateOptions {
            route: Route {
                provider: "deepseek".into(),
                model: "m".into(),
                kind: ProviderKind::DeepseekMessages,
                base_url: String::new(),
                api_key_env: String::new(),
                caps: crate::llm::types::Capabilities::plain(0),
            },
            messages,
            tools: None,
            tool_history: None,
            bridge_history: None,
            system: None,
            max_tokens: 100,
            thinking: Thinking::Default,
            effort: None,
            temperature: None,
            stop: None,
            purpose: Purpose::Step,
        }
    }

    /// The session's word that its history needs no repair agrees with the full repair,
    /// and the body is byte-identical to one built with the full repair.
    fn assert_flag_matches_full_repair(s: &Session) -> bool {
        let list = s.derive_messages();
        let borrowed = matches!(repair_history(&list), Cow::Borrowed(_));
        assert_eq!(list.ids_clean(), borrowed, "flag vs full repair");
        let unflagged: MessageList = list.to_vec().into();
        assert!(!unflagged.ids_clean());
        let fast = build_wire(&opts(list)).unwrap().bytes;
        let full = build_wire(&opts(unflagged)).unwrap().bytes;
        assert_eq!(fast, full, "bytes with and without the session's scan");
        borrowed
    }

    #[test]
    fn session_tracks_whether_its_history_needs_id_repair() {
        // A clean log: the session vouches for it, so no request walks it for repair.
        let (s, _) = session_with(&[(&["a", "b"], &["a", "b"]), (&["c"], &["c"])]);
        assert!(assert_flag_matches_full_repair(&s));
        // An old log from a faulty provider: a repeated id, then an empty one.
        let (mut s, seqs) =
            session_with(&[(&["a"], &["a"]), (&["a", ""], &["a", ""]), (&["d"], &["d"])]);
        assert!(!assert_flag_matches_full_repair(&s));
        let body =
            String::from_utf8(build_wire(&opts(s.derive_messages())).unwrap().bytes).unwrap();
        assert!(body.contains("a_dup2"), "{body}");
        // A replacement shadowing the faulty turn (as compaction does) makes it clean.
        let summary = Message::text(Role::User, "summary", Source::kind("compaction"));
        s.replace(
            EventKind::UserMessage(UserMessageData { message: summary }),
            seqs[3],
            seqs[6],
        )
        .unwrap();
        assert!(assert_flag_matches_full_repair(&s));
        // A later faulty reply (appended after the rebuild) is caught again.
        let message = Message::new(Role::Assistant, vec![call("d")], Source::kind("model"));
        s.push(EventKind::AssistantMessage(AssistantMessageData {
            turn: 9,
            step: 1,
            message,
            usage: None,
            timing: None,
            interrupted: None,
        }))
        .unwrap();
        let mut message = Message::text(Role::Tool, "r", Source::kind("tool"));
        message.tool_call_id = Some("d".into());
        s.push(EventKind::ToolResult(ToolResultData {
            turn: 9,
            step: 1,
            message,
            error: None,
            sandbox_retry: None,
        }))
        .unwrap();
        assert!(!assert_flag_matches_full_repair(&s));
    }
}
