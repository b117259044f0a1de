//! The viewer on bodies written by the real serializers of both wire protocols, so a
//! change in what is sent cannot silently drop out of the view.

use std::sync::Arc;

use serde_json::json;

use super::tests::{flowed, screen};
use super::*;
use crate::i18n::{Locale, Localizer};
use crate::llm::adapter::RequestParts;
use crate::llm::types::Thinking;
use crate::session::event::{Block, Message, Role, Source, ToolSchema};

fn msg(role: Role, content: Vec<Block>) -> Arc<Message> {
    Arc::new(Message::new(role, content, Source::kind("test")))
}

fn words(prefix: &str, n: usize) -> String {
    (1..=n)
        .map(|i| format!("{prefix} {i} says what it found"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn history() -> (Vec<Arc<Message>>, Vec<ToolSchema>) {
    let mut result = Message::text(Role::Tool, words("result row", 50), Source::kind("tool"));
    result.tool_call_id = Some("call_00_a1".into());
    result.is_error = Some(true);
    let messages = vec![
        msg(Role::System, vec![Block::text(words("system rule", 40))]),
        msg(
            Role::User,
            vec![Block::text("Count the words in README.md")],
        ),
        msg(
            Role::Assistant,
            vec![
                Block::Reasoning {
                    text: "Use the tool.".into(),
                    signature: None,
                },
                Block::ToolCall {
                    id: "call_00_a1".into(),
                    name: "word_count".into(),
                    arguments: "{\"path\":\"README.md\"}".into(),
                },
            ],
        ),
        Arc::new(result),
    ];
    let tools = vec![ToolSchema {
        name: "word_count".into(),
        description: "Count the words of a file.".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string", "minLength": 1}}}),
        defer_loading: None,
    }];
    (messages, tools)
}

fn parts<'a>(messages: &'a [Arc<Message>], tools: &'a [ToolSchema]) -> RequestParts<'a> {
    RequestParts {
        model: "deepseek-flash",
        system_prompt_update: None,
        messages,
        tools: Some(tools),
        system: None,
        max_tokens: 1024,
        thinking: Thinking::Enabled,
        effort: None,
        temperature: None,
        stop: None,
    }
}

fn bodies() -> Vec<String> {
    let (messages, tools) = history();
    let p = parts(&messages, &tools);
    let mut out = Vec::new();
    for write in [
        crate::llm::deepseek::serialize::write_body,
        crate::llm::openai::serialize::write_body,
    ] {
        let mut bytes = Vec::new();
        write(&p, &mut bytes).expect("the history serializes");
        out.push(String::from_utf8(bytes).unwrap());
    }
    out
}

#[test]
fn both_wire_protocols_show_the_prompt_schema_call_and_result_in_full() {
    for body in bodies() {
        for l in [Localizer::new(Locale::EnUs), Localizer::new(Locale::ZhCn)] {
            for w in [40, 80, 120, 200] {
                let mut v = RequestViewer::new(&body);
                assert!(v.parse_error().is_none());
                let rows = screen(&v, w, 400, l);
                let text = flowed(&rows);
                assert!(text.contains(&words("system rule", 40)), "{w} {body}");
                assert!(text.contains(&words("result row", 50)), "{w}");
                assert!(text.contains("\"minLength\": 1"), "{w}");
                assert!(text.contains("\"path\": \"README.md\""), "{w}");
                assert!(text.contains("Use the tool."), "{w}");
                assert!(text.contains("1. word_count"), "{w}");
                let call = l.tra(
                    "inspector-view-block-tool-call",
                    &[
                        ("name", Arg::from("word_count")),
                        ("id", Arg::from("call_00_a1")),
                    ],
                );
                assert!(text.contains(&call), "{w}");
                v.handle_key(&KeyEvent::from(KeyCode::Tab));
                assert!(flowed(&screen(&v, w, 600, l)).contains(&words("result row", 50)));
            }
        }
    }
}

#[test]
fn a_failed_tool_result_is_labelled_as_an_error_on_both_wire_protocols() {
    let l = Localizer::new(Locale::EnUs);
    let want = l.tra(
        "inspector-view-block-tool-result-error",
        &[("id", Arg::from("call_00_a1"))],
    );
    for body in bodies() {
        let rows = screen(&RequestViewer::new(&body), 120, 300, l);
        assert!(rows.iter().any(|r| r.trim() == want), "{body}");
    }
}

#[test]
fn a_bridged_call_shows_the_real_tool_with_the_bridge_noted_on_both_wire_protocols() {
    let messages = vec![
        msg(Role::User, vec![Block::text("Count the bytes")]),
        msg(
            Role::Assistant,
            vec![Block::ToolCall {
                id: "call_00_b1".into(),
                name: "call_tool".into(),
                arguments: r#"{"name":"word_count","arguments":{"path":"a.txt"}}"#.into(),
            }],
        ),
        {
            let mut r = Message::text(Role::Tool, "12", Source::kind("tool"));
            r.tool_call_id = Some("call_00_b1".into());
            Arc::new(r)
        },
    ];
    let tools = crate::llm::bridge::bridge_schemas().to_vec();
    let p = parts(&messages, &tools);
    for write in [
        crate::llm::deepseek::serialize::write_body,
        crate::llm::openai::serialize::write_body,
    ] {
        let mut bytes = Vec::new();
        write(&p, &mut bytes).expect("the history serializes");
        let body = String::from_utf8(bytes).unwrap();
        for (l, want) in [
            (
                Localizer::new(Locale::EnUs),
                "tool call word_count (via call_tool) · id call_00_b1",
            ),
            (
                Localizer::new(Locale::ZhCn),
                "工具调用 word_count （经 call_tool 调用） · id call_00_b1",
            ),
        ] {
            let text = flowed(&screen(&RequestViewer::new(&body), 120, 300, l));
            assert!(text.contains(want), "{text}");
            // The arguments as sent stay in full: the wire's own name is not hidden.
            assert!(text.contains("\"name\": \"word_count\""), "{text}");
        }
    }
}
