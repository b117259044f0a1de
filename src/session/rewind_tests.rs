//! Rewinds in the fold (SPEC §14.3, decision 0081): what a conversation rewind takes back
//! leaves the derived messages, the latest header and the tool history, live and on load;
//! the log keeps every event.

use super::checkpoint_event::{RewindScope, SessionRewind};
use super::event::*;
use super::tests::{header_kind, tool};
use super::*;

fn user(text: &str) -> EventKind {
    EventKind::UserMessage(UserMessageData {
        message: Message::text(Role::User, text, Source::kind("user")),
    })
}

fn assistant(turn: u64, text: &str) -> EventKind {
    EventKind::AssistantMessage(AssistantMessageData {
        turn,
        step: 1,
        message: Message::text(Role::Assistant, text, Source::kind("model")),
        usage: None,
        timing: None,
        interrupted: None,
    })
}

/// Three turns; returns the session and the seq of each `turn/start`.
fn three_turns() -> (Session, Vec<u64>) {
    let mut s = Session::new("s", "/w");
    s.push(header_kind(&[tool("read")], HeaderReason::Initial, false))
        .unwrap();
    let mut starts = Vec::new();
    for (t, text) in [(1, "one"), (2, "two"), (3, "three")] {
        starts.push(
            s.push(EventKind::TurnStart(TurnRef { turn: t }))
                .unwrap()
                .seq,
        );
        s.push(user(text)).unwrap();
        if t == 3 {
            // A later header: the rewind must bring back the one before it.
            s.push(header_kind(
                &[tool("read"), tool("x")],
                HeaderReason::Change,
                false,
            ))
            .unwrap();
        }
        s.push(assistant(t, &format!("re {text}"))).unwrap();
        s.push(EventKind::TurnEnd(TurnEnd {
            turn: t,
            outcome: None,
        }))
        .unwrap();
    }
    (s, starts)
}

fn texts(s: &Session) -> Vec<String> {
    s.derive_messages()
        .iter()
        .map(|m| m.joined_text())
        .collect()
}

fn rewind(to_seq: u64, scope: RewindScope) -> EventKind {
    EventKind::SessionRewind(SessionRewind {
        to_seq,
        scope,
        restored: vec![],
    })
}

#[test]
fn a_conversation_rewind_leaves_the_later_turns_out_of_the_derived_history_and_header() {
    let (mut s, starts) = three_turns();
    let before = s.events().len();
    let generation = s.content_generation();
    s.push(rewind(starts[1], RewindScope::Conversation))
        .unwrap();
    assert_eq!(texts(&s), vec!["one", "re one"]);
    assert_eq!(s.events().len(), before + 1, "the log keeps every event");
    assert!(s.is_rewound(starts[1]) && !s.is_rewound(starts[0]));
    let tools = s.latest_header().unwrap().1.header.tools.clone().unwrap();
    assert_eq!(tools.len(), 1, "the header of prompt 2's time");
    // The kept history is a prefix already sent: the series goes on from it.
    assert_eq!(s.content_generation(), generation, "no new series");
    // What follows is appended after the kept history.
    s.push(EventKind::TurnStart(TurnRef { turn: 4 })).unwrap();
    s.push(user("two again")).unwrap();
    assert_eq!(texts(&s), vec!["one", "re one", "two again"]);
    // Loading the log folds the rewind the same way.
    let events: Vec<Event> = s.events().iter().map(|e| (**e).clone()).collect();
    let loaded = Session::from_events(events).unwrap();
    assert_eq!(texts(&loaded), texts(&s));
}

#[test]
fn a_code_rewind_leaves_the_conversation_as_it_is() {
    let (mut s, starts) = three_turns();
    let kept = texts(&s);
    s.push(rewind(starts[0], RewindScope::Code)).unwrap();
    assert_eq!(texts(&s), kept);
}

#[test]
fn a_rewind_must_name_the_start_of_a_turn_that_still_counts() {
    let (mut s, starts) = three_turns();
    // Not a turn/start.
    assert!(s.push(rewind(starts[1] + 1, RewindScope::Both)).is_err());
    // In the future.
    assert!(s.push(rewind(10_000, RewindScope::Both)).is_err());
    s.push(rewind(starts[1], RewindScope::Both)).unwrap();
    // Already taken back.
    assert!(s.push(rewind(starts[2], RewindScope::Both)).is_err());
    // Further back is fine.
    s.push(rewind(starts[0], RewindScope::Both)).unwrap();
    assert!(texts(&s).is_empty());
}
