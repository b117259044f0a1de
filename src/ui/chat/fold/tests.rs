//! The fold: live and resumed events give the same cells.

use super::*;
use crate::i18n::Locale;
use crate::i18n::Localizer;
use crate::session::event::{
    AssistantAttempt, AssistantMessageData, AttemptError, Message, Role, Source,
};
use crate::session::tools_event::{ChangedTool, ToolsChangedData};
use crate::ui::chat::cells::{CellKind, ContextCell};
use crate::ui::model::{RenderCtx, ToolCardMode};

fn ctx() -> RenderCtx {
    RenderCtx {
        l: Localizer::new(Locale::EnUs),
        cards: ToolCardMode::Collapsed,
        generation: 0,
    }
}

fn attempt(turn: u64, step: u64, retried: bool) -> Event {
    Event {
        kind: EventKind::AssistantAttempt(AssistantAttempt {
            turn,
            step,
            error: AttemptError {
                code: "server".into(),
                status: Some(500),
                message: "boom".into(),
                retried,
                detail: None,
            },
        }),
        seq: 1,
        time: String::new(),
        surface_op: None,
        source_event_seqs: None,
    }
}

fn text(t: &mut Transcript, i: usize) -> String {
    let rows = t.rows(i, 80, &ctx());
    rows.iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every row the transcript shows at `width`, in the given locale.
fn screen(t: &mut Transcript, width: u16, l: Localizer) -> Vec<String> {
    let c = RenderCtx { l, ..ctx() };
    let mut out = Vec::new();
    for i in 0..t.len() {
        for line in t.rows(i, width, &c).iter() {
            let row: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
            if !row.trim().is_empty() {
                out.push(row);
            }
        }
    }
    out
}

#[test]
fn a_retried_attempt_leaves_nothing_in_chat() {
    let mut t = Transcript::new();
    t.stream(1, 1, &StreamEvent::TextDelta("partial".into()));
    t.apply(&attempt(1, 1, true));
    t.apply(&attempt(1, 1, true));
    t.stream(1, 1, &StreamEvent::TextDelta("second".into()));
    let rows = screen(&mut t, 80, Localizer::new(Locale::EnUs));
    assert_eq!(rows, ["Assistant", "second"], "{rows:?}");
}

/// The final attempt of a turn against a dead port, as the loop logs it.
fn dead_port_attempt(turn: u64) -> Event {
    use crate::i18n::Text;
    let hint = Text::new(
        "llm-hint-refused",
        vec![("origin", Arg::from("http://127.0.0.1:9"))],
    );
    let message = Text::new(
        "llm-cause-with-hint",
        vec![
            ("cause", Arg::from(Text::new("llm-cause-refused", vec![]))),
            ("hint", Arg::from(hint)),
        ],
    );
    let mut e = attempt(turn, 1, false);
    if let EventKind::AssistantAttempt(a) = &mut e.kind {
        a.error.code = "transport".into();
        a.error.message = "error sending request for url (http://127.0.0.1:9/v1): client \
                           error (Connect): tcp connect error: Connection refused"
            .into();
        a.error.detail = Some(Box::new(Text::new(
            "llm-error-transport",
            vec![("message", Arg::from(message))],
        )));
    }
    e
}

fn failed_turn(t: &mut Transcript, turn: u64) {
    use crate::session::event::{TurnEnd, TurnOutcome};
    t.apply(&user_event("hi"));
    for _ in 0..3 {
        t.stream(turn, 1, &StreamEvent::TextDelta("half".into()));
        t.apply(&attempt(turn, 1, true));
    }
    t.apply(&dead_port_attempt(turn));
    t.apply(&event(EventKind::TurnEnd(TurnEnd {
        turn,
        outcome: Some(TurnOutcome::Error),
    })));
}

#[test]
fn a_turn_that_finally_fails_keeps_one_dim_line_with_its_hint_live_and_resumed() {
    for (locale, line) in [
        (
            Locale::EnUs,
            "Connection problem: connection refused · nothing listening at \
             http://127.0.0.1:9 — check base_url",
        ),
        (
            Locale::ZhCn,
            "连接出现问题：连接被拒绝 · http://127.0.0.1:9 上没有服务在监听——请检查 base_url",
        ),
    ] {
        let mut live = Transcript::new();
        failed_turn(&mut live, 1);
        let mut resumed = Transcript::new();
        resumed.set_replaying(true);
        failed_turn(&mut resumed, 1);
        resumed.set_replaying(false);
        for t in [&mut live, &mut resumed] {
            // Wide enough for the whole line: one row after the prompt.
            let rows = screen(t, 200, Localizer::new(locale));
            assert_eq!(rows.len(), 3, "{rows:?}");
            assert_eq!(rows[2].trim(), line);
            let last = t.len() - 1;
            let c = RenderCtx {
                l: Localizer::new(locale),
                ..ctx()
            };
            let style = t.rows(last, 200, &c).get(0).map(|l| l.spans[0].style);
            assert_eq!(style, Some(crate::ui::theme::dim()));
        }
    }
}

#[test]
fn a_turn_failed_after_a_retry_that_worked_names_no_stale_error() {
    use crate::session::event::{TurnEnd, TurnOutcome};
    // Step 1 was retried and answered; the turn then failed for another reason (too many
    // steps): the loop's notice says why, not the old attempt.
    let mut t = Transcript::new();
    t.apply(&user_event("hi"));
    t.apply(&attempt(1, 1, true));
    t.apply(&event(EventKind::TurnEnd(TurnEnd {
        turn: 1,
        outcome: Some(TurnOutcome::Error),
    })));
    let rows = screen(&mut t, 80, Localizer::new(Locale::EnUs));
    assert!(!rows.iter().any(|r| r.contains("boom")), "{rows:?}");
}

fn event(kind: EventKind) -> Event {
    Event {
        kind,
        seq: 1,
        time: String::new(),
        surface_op: None,
        source_event_seqs: None,
    }
}

fn dev_event(step: u64, blocks: Vec<Block>) -> Event {
    use crate::session::event::{DeveloperMessageData, Message, Role, Source};
    event(EventKind::DeveloperMessage(DeveloperMessageData {
        turn: 2,
        step,
        message: Message::new(Role::Developer, blocks, Source::kind("tool-registry")),
        header_seq: None,
    }))
}

fn user_event(text: &str) -> Event {
    use crate::session::event::{Message, Role, Source, UserMessageData};
    event(EventKind::UserMessage(UserMessageData {
        message: Message::text(Role::User, text, Source::kind("user")),
    }))
}

fn info(name: &str, source: ToolSource, description: &str) -> ChangedTool {
    ChangedTool {
        name: name.into(),
        source: source.logged(),
        description: description.into(),
    }
}

/// The logged `tools/changed` event of a change.
fn changed(c: ToolsChangedData) -> Event {
    event(EventKind::ToolsChanged(c))
}

fn nodes(t: &Transcript) -> Vec<usize> {
    (0..t.len())
        .filter(|&i| matches!(t.cells()[i].kind, CellKind::Context(..)))
        .collect()
}

#[test]
fn a_tool_change_is_one_node_where_it_happened() {
    let mut t = Transcript::new();
    // `/tool disable grep`: the logged change is the node, at once …
    t.apply(&changed(ToolsChangedData {
        added: vec![],
        removed: vec![info("grep", ToolSource::Builtin, "Search files.")],
    }));
    assert_eq!(nodes(&t), vec![0]);
    assert_eq!(text(&mut t, 0).trim(), "◆ Tool removed: grep");
    // … and the next request's developer message, the model's copy of the same fact,
    // adds nothing.
    t.apply(&user_event("hi"));
    t.apply(&dev_event(1, vec![Block::removal("grep")]));
    assert_eq!(nodes(&t), vec![0], "one node per change");
    // Two changes before a send: one node for both.
    t.apply(&changed(ToolsChangedData {
        added: vec![info("word_count", ToolSource::Command, "Count.")],
        removed: vec![],
    }));
    t.apply(&changed(ToolsChangedData {
        added: vec![],
        removed: vec![info("list_dir", ToolSource::Builtin, "List.")],
    }));
    t.apply(&user_event("again"));
    t.apply(&dev_event(
        1,
        vec![Block::addition("word_count"), Block::removal("list_dir")],
    ));
    assert_eq!(nodes(&t).len(), 2);
    let second = nodes(&t)[1];
    assert_eq!(
        text(&mut t, second).trim(),
        "▸ Tools updated · 1 added, 1 removed"
    );
    // A later request's developer message makes no node of its own: every change of
    // this log was logged when it happened.
    t.apply(&dev_event(2, vec![Block::addition("fs__read")]));
    assert_eq!(nodes(&t).len(), 2);
}

#[test]
fn a_log_from_before_tool_change_events_gets_its_nodes_from_developer_messages() {
    // Such a log records a change only in the next request's developer message.
    let mut t = Transcript::new();
    t.set_replaying(true);
    t.apply(&user_event("hi"));
    t.apply(&dev_event(1, vec![Block::removal("grep")]));
    t.apply(&dev_event(2, vec![Block::addition("fs__read")]));
    t.set_replaying(false);
    assert_eq!(
        nodes(&t),
        vec![0, 2],
        "the first step's node before its message"
    );
    assert_eq!(text(&mut t, 0).trim(), "◆ Tool removed: grep");
    assert_eq!(text(&mut t, 2).trim(), "◆ Tool added: fs__read");
}

#[test]
fn a_server_inventing_new_tool_names_does_not_grow_the_transcript() {
    let fx = |n: String| info(&n, ToolSource::Mcp("fx".into()), "A description.");
    let mut t = Transcript::new();
    for i in 0..20_000 {
        t.apply(&changed(ToolsChangedData {
            added: vec![fx(format!("fx__t{}", i + 1))],
            removed: vec![fx(format!("fx__t{i}"))],
        }));
    }
    assert_eq!(nodes(&t), vec![0]);
    assert!(
        t.tool_infos.len() <= MAX_TOOL_INFOS + 2,
        "{}",
        t.tool_infos.len()
    );
    let CellKind::Context(ContextCell {
        kind: ContextKind::Tools { added, removed },
        tools: infos,
    }) = &t.cells()[0].kind
    else {
        panic!("a tool node");
    };
    assert_eq!((added.len(), removed.len(), infos.len()), (1, 1, 2));
}

#[test]
fn live_tool_changes_between_two_requests_are_one_netted_node() {
    let fx = |n: &str| info(n, ToolSource::Mcp("fx".into()), "");
    let swap = |add: &str, remove: &str| ToolsChangedData {
        added: vec![fx(add)],
        removed: vec![fx(remove)],
    };
    let step_end = || {
        event(EventKind::StepEnd(crate::session::event::StepRef {
            turn: 1,
            step: 1,
        }))
    };
    let mut t = Transcript::new();
    // A server that flips between two lists: one node, however often.
    for _ in 0..1000 {
        t.apply(&changed(swap("fx__b", "fx__a")));
        t.apply(&changed(swap("fx__a", "fx__b")));
    }
    assert_eq!(nodes(&t), vec![0]);
    assert_eq!(
        text(&mut t, 0).trim(),
        "◆ Tools updated · no net change (changed and changed back)"
    );
    t.apply(&changed(swap("fx__b", "fx__a")));
    assert_eq!(
        text(&mut t, 0).trim(),
        "▸ Tools updated · 1 added, 1 removed"
    );
    // The request logs the same change: linked to the node, no second one.
    t.apply(&user_event("hi"));
    t.apply(&dev_event(
        1,
        vec![Block::addition("fx__b"), Block::removal("fx__a")],
    ));
    t.apply(&step_end());
    assert_eq!(nodes(&t), vec![0]);
    // After the request, the next change is a new node …
    t.apply(&changed(swap("fx__a", "fx__b")));
    t.apply(&changed(swap("fx__b", "fx__a")));
    assert_eq!(nodes(&t).len(), 2);
    // … and a request that logs nothing (the changes cancelled out) still closes it.
    t.apply(&user_event("again"));
    t.apply(&step_end());
    t.apply(&changed(swap("fx__a", "fx__b")));
    assert_eq!(nodes(&t).len(), 3);
    let third = nodes(&t)[2];
    assert_eq!(
        text(&mut t, third).trim(),
        "▸ Tools updated · 1 added, 1 removed"
    );
}

#[test]
fn resumed_node_sits_where_the_live_one_did() {
    // The same logged events, folded live and then replayed: the same cells.
    let log = [
        changed(ToolsChangedData {
            added: vec![],
            removed: vec![info("grep", ToolSource::Builtin, "Search files.")],
        }),
        user_event("hi"),
        dev_event(1, vec![Block::removal("grep")]),
    ];
    let mut live = Transcript::new();
    for e in &log {
        live.apply(e);
    }
    let mut resumed = Transcript::new();
    resumed.set_replaying(true);
    for e in &log {
        resumed.apply(e);
    }
    resumed.set_replaying(false);
    assert_eq!(nodes(&live), vec![0]);
    assert_eq!(
        nodes(&resumed),
        vec![0],
        "the node comes before the message"
    );
    assert_eq!(live.len(), resumed.len());
    for i in 0..live.len() {
        assert_eq!(text(&mut live, i), text(&mut resumed, i));
    }
}

#[test]
fn every_node_expands_single_to_source_grouped_one_per_line() {
    let mut t = Transcript::new();
    t.apply(&changed(ToolsChangedData {
        added: vec![],
        removed: vec![info("grep", ToolSource::Builtin, "Search file contents.")],
    }));
    assert!(t.toggle(0), "a single-tool node expands");
    let one = text(&mut t, 0);
    assert!(one.contains("    Source: built-in"), "{one}");
    assert!(one.contains("    Search file contents."), "{one}");
    // A request in between: the next change is a node of its own.
    t.apply(&event(EventKind::StepEnd(crate::session::event::StepRef {
        turn: 1,
        step: 1,
    })));
    t.apply(&changed(ToolsChangedData {
        added: vec![
            info("fs__read", ToolSource::Mcp("fs".into()), "Read a file."),
            info("fs__write", ToolSource::Mcp("fs".into()), "Write a file."),
            info("word_count", ToolSource::Command, "Count words."),
        ],
        removed: vec![info("list_dir", ToolSource::Builtin, "List.")],
    }));
    assert!(t.toggle(1));
    let many = text(&mut t, 1);
    let rows: Vec<&str> = many.lines().collect();
    assert_eq!(
        rows,
        vec![
            "▾ Tools updated · 3 added, 1 removed",
            "    Added",
            "      MCP server fs",
            "        fs__read — Read a file.",
            "        fs__write — Write a file.",
            "      command",
            "        word_count — Count words.",
            "    Removed",
            "      built-in",
            "        list_dir — List.",
        ]
    );
}

#[test]
fn resumed_cancel_and_error_are_shown() {
    use crate::session::event::{TurnEnd, TurnOutcome};
    let mut t = Transcript::new();
    t.set_replaying(true);
    t.apply(&user_event("one"));
    t.apply(&event(EventKind::TurnEnd(TurnEnd {
        turn: 1,
        outcome: Some(TurnOutcome::Cancelled),
    })));
    t.apply(&user_event("two"));
    t.apply(&attempt(2, 1, false));
    t.apply(&event(EventKind::TurnEnd(TurnEnd {
        turn: 2,
        outcome: Some(TurnOutcome::Error),
    })));
    t.set_replaying(false);
    let all: Vec<String> = (0..t.len()).map(|i| text(&mut t, i)).collect();
    assert!(all[1].contains("Turn cancelled."), "{all:?}");
    assert!(all.last().unwrap().contains("boom"), "{all:?}");
    // Live, the logged end of a cancelled turn is its one notice too (the loop sends no
    // second one), so live and resumed Chat say the same.
    let n = t.len();
    t.apply(&event(EventKind::TurnEnd(TurnEnd {
        turn: 3,
        outcome: Some(TurnOutcome::Cancelled),
    })));
    assert_eq!(t.len(), n + 1);
    assert!(text(&mut t, n).contains("Turn cancelled."));
}

#[test]
fn reasoning_streams_open_and_collapses_to_its_thinking_time_when_the_reply_starts() {
    let mut t = Transcript::new();
    t.stream(
        1,
        1,
        &StreamEvent::ReasoningDelta("weigh the options\n".into()),
    );
    t.stream(1, 1, &StreamEvent::ReasoningDelta("pick the second".into()));
    // While it thinks, the reasoning shows in full under a "Thinking…" line (SPEC §14.4).
    let live = text(&mut t, 0);
    assert!(live.contains("Thinking…"), "{live}");
    assert!(
        live.contains("weigh the options") && live.contains("pick the second"),
        "{live}"
    );
    // The reply starts: one collapsed line with the time, the reasoning hidden.
    t.stream(1, 1, &StreamEvent::TextDelta("The answer.\n".into()));
    let replying = text(&mut t, 0);
    assert!(replying.contains("▸ Thought for 1 s"), "{replying}");
    assert!(!replying.contains("weigh the options"), "{replying}");
    // The committed message keeps the time; Enter (expanded) shows the reasoning again.
    let msg = Message {
        content: vec![
            Block::Reasoning {
                text: "weigh the options\npick the second".into(),
                signature: None,
            },
            Block::Text {
                text: "The answer.".into(),
            },
        ],
        ..Message::text(Role::Assistant, "", Source::kind("model"))
    };
    t.apply(&event(EventKind::AssistantMessage(AssistantMessageData {
        turn: 1,
        step: 1,
        message: msg,
        usage: None,
        timing: None,
        interrupted: None,
    })));
    assert_eq!(t.len(), 1);
    assert!(text(&mut t, 0).contains("▸ Thought for 1 s"));
    t.toggle(0);
    let open = text(&mut t, 0);
    assert!(
        open.contains("▾ Thought for 1 s") && open.contains("pick the second"),
        "{open}"
    );
}
