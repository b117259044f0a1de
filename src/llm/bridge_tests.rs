//! The bridge projection (SPEC §15.1, decision 0120): the declarations never change within
//! a series, and a tool change is a note at its position.

use super::*;
use crate::llm::projection::project_tool_updates_with;
use crate::llm::types::ToolHistoryUpdate;
use crate::session::event::ToolRemoval;
use serde_json::json;

fn t(name: &str, desc: &str) -> ToolSchema {
    ToolSchema {
        name: name.into(),
        description: desc.into(),
        parameters: json!({"type": "object"}),
        defer_loading: None,
    }
}
fn user(text: &str) -> Arc<Message> {
    Arc::new(Message::text(Role::User, text, Source::kind("user")))
}
fn dev(id: &str, blocks: Vec<Block>) -> Arc<Message> {
    let mut m = Message::new(Role::Developer, blocks, Source::kind("tool-registry"));
    m.id = id.into();
    Arc::new(m)
}
fn project(
    msgs: &[Arc<Message>],
    tools: &[ToolSchema],
    hist: &ToolHistory,
) -> (Vec<Arc<Message>>, Vec<ToolSchema>) {
    let p = project_tool_updates_with(msgs, Some(tools), None, ToolRemoval::Retain, Some(hist));
    (p.messages.to_vec(), p.tools.unwrap().to_vec())
}
fn note_text(m: &Message) -> String {
    assert!(
        m.is_mode_note(),
        "a tool note is sent like a mode note: {m:?}"
    );
    m.joined_text()
}

#[test]
fn tool_changes_on_the_bridge_keep_the_declarations_and_become_notes_in_place() {
    let (read, fetch) = (
        t("read", "Read a file"),
        t("mcp__fetch", "Fetch a URL\nmore"),
    );
    let base = vec![read.clone(), fetch.clone()];
    let hist0 = ToolHistory {
        tools: base.clone(),
        updates: vec![],
    };
    let first = vec![user("hi")];
    let (m0, d0) = project(&first, &base, &hist0);
    assert_eq!(m0.len(), 1);
    let names: Vec<&str> = d0.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["read", "mcp__fetch", "tool_search", "call_tool"]);

    // A removal and an addition later: the active tools changed, the declarations did not.
    let grep = t("grep", "Search files");
    let hist = ToolHistory {
        tools: base.clone(),
        updates: vec![
            ToolHistoryUpdate {
                message_id: "R".into(),
                additions: vec![],
            },
            ToolHistoryUpdate {
                message_id: "A".into(),
                additions: vec![grep.clone()],
            },
        ],
    };
    let msgs = vec![
        user("hi"),
        dev("R", vec![Block::removal("mcp__fetch")]),
        user("next"),
        dev("A", vec![Block::addition("grep")]),
    ];
    let (m, d) = project(&msgs, &[read.clone(), grep], &hist);
    assert_eq!(d, d0, "the tools array never changes on the bridge");
    assert_eq!(m.len(), 4);
    assert!(Arc::ptr_eq(&m[0], &msgs[0]) && Arc::ptr_eq(&m[2], &msgs[2]));
    assert_eq!(
        note_text(&m[1]),
        "Tool removed: mcp__fetch. It is no longer available; a call of it fails."
    );
    assert_eq!(note_text(&m[3]), "Tool added: grep: Search files");
}

#[test]
fn a_developer_message_of_an_earlier_series_is_not_sent_on_the_bridge() {
    let read = t("read", "Read a file");
    let hist = ToolHistory {
        tools: vec![read.clone()],
        updates: vec![],
    };
    let msgs = vec![user("hi"), dev("OLD", vec![Block::removal("x")]), user("b")];
    let (m, _) = project(&msgs, &[read], &hist);
    assert_eq!(m.len(), 2);
}
