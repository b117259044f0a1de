//! W-rule tests for the Messages serializer (semantics.md §8).

use std::sync::Arc;

use serde_json::{Value, json};

use super::*;
use crate::session::event::Source;

fn msg(role: Role, content: Vec<Block>) -> Arc<Message> {
    Arc::new(Message::new(role, content, Source::kind("test")))
}
fn user(text: &str) -> Arc<Message> {
    msg(Role::User, vec![Block::text(text)])
}
fn system(text: &str) -> Arc<Message> {
    msg(Role::System, vec![Block::text(text)])
}
fn dev(blocks: Vec<Block>) -> Arc<Message> {
    msg(Role::Developer, blocks)
}
fn assistant_text(text: &str) -> Arc<Message> {
    msg(Role::Assistant, vec![Block::text(text)])
}
fn call(id: &str, name: &str, args: &str) -> Block {
    Block::ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.into(),
    }
}
fn result(id: &str, text: &str, is_error: Option<bool>) -> Arc<Message> {
    let mut m = Message::text(Role::Tool, text, Source::kind("tool"));
    m.tool_call_id = Some(id.into());
    m.is_error = is_error;
    Arc::new(m)
}
fn tool(name: &str, deferred: bool) -> ToolSchema {
    ToolSchema {
        name: name.into(),
        description: "...".into(),
        parameters: json!({}),
        defer_loading: deferred.then_some(true),
    }
}

fn parts<'a>(messages: &'a [Arc<Message>], tools: Option<&'a [ToolSchema]>) -> RequestParts<'a> {
    RequestParts {
        model: "deepseek-flash",
        system_prompt_update: None,
        messages,
        tools,
        system: None,
        max_tokens: 1024,
        thinking: Thinking::Disabled,
        effort: None,
        temperature: None,
        stop: None,
    }
}

fn body(messages: &[Arc<Message>]) -> Value {
    serialize(&parts(messages, None)).unwrap().body
}

fn err(messages: &[Arc<Message>]) -> LlmError {
    serialize(&parts(messages, None)).unwrap_err()
}

fn roles(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn declarations_defer_loading_only_when_deferred() {
    let tools = [tool("a", false), tool("b", true)];
    let b = serialize(&parts(&[user("hi")], Some(&tools))).unwrap();
    assert_eq!(
        b.body["tools"],
        json!([
            {"name": "a", "description": "...", "input_schema": {}},
            {"name": "b", "description": "...", "input_schema": {}, "defer_loading": true}
        ])
    );
    // defer_loading alone does not owe the beta (W-9).
    assert_eq!(b.beta, None);
}

#[test]
fn the_tools_key_is_omitted_when_the_projected_list_is_empty_or_absent() {
    let m = [user("hi")];
    assert!(body(&m).get("tools").is_none());
    let b = serialize(&parts(&m, Some(&[]))).unwrap().body;
    assert!(b.get("tools").is_none());
}

#[test]
fn developer_blocks_map_in_order_and_empty_text_is_dropped() {
    let m = [
        user("hi"),
        dev(vec![
            Block::text(""),
            Block::text("note"),
            Block::addition("x"),
            Block::removal("y"),
        ]),
    ];
    let b = body(&m);
    assert_eq!(
        b["messages"][1],
        json!({"role": "system", "content": [
            {"type": "text", "text": "note"},
            {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "x"}},
            {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "y"}}
        ]})
    );
}

#[test]
fn a_developer_message_with_nothing_mapped_sends_no_message() {
    let b = body(&[user("hi"), dev(vec![Block::text("")])]);
    assert_eq!(roles(&b), ["user"]);
}

#[test]
fn any_other_developer_block_is_unsupported() {
    let e = err(&[
        user("hi"),
        dev(vec![Block::Reasoning {
            text: "r".into(),
            signature: None,
        }]),
    ]);
    assert_eq!(e.code, ErrorCode::UnsupportedContent);
    assert_eq!(
        e.message,
        "DeepSeek Messages cannot represent developer content reasoning"
    );
}

#[test]
fn a_tool_change_block_outside_a_developer_message_is_unsupported() {
    let e = err(&[msg(
        Role::User,
        vec![Block::text("hi"), Block::addition("x")],
    )]);
    assert_eq!(e.code, ErrorCode::UnsupportedContent);
    assert_eq!(
        e.message,
        "DeepSeek Messages cannot represent tool-change blocks outside developer messages"
    );
}

#[test]
fn a_developer_message_then_user_text_serializes_as_user_then_system() {
    let b = body(&[dev(vec![Block::addition("x")]), user("hi")]);
    assert_eq!(roles(&b), ["user", "system"]);
}

#[test]
fn a_developer_message_with_nothing_before_it_fails() {
    for m in [
        vec![dev(vec![Block::addition("x")])],
        vec![dev(vec![Block::addition("x")]), assistant_text("a")],
    ] {
        let e = err(&m);
        assert_eq!(e.code, ErrorCode::UnsupportedContent);
        assert_eq!(
            e.message,
            "DeepSeek Messages cannot represent system update without a preceding user or tool-result turn"
        );
    }
}

#[test]
fn a_developer_message_right_after_the_assistant_fails_without_a_user_turn() {
    let e = err(&[
        user("q"),
        assistant_text("a"),
        dev(vec![Block::addition("x")]),
        assistant_text("b"),
    ]);
    assert_eq!(e.code, ErrorCode::UnsupportedContent);
}

#[test]
fn an_update_is_flushed_before_the_next_assistant_after_merged_user_content() {
    let m = [
        user("q"),
        msg(Role::Assistant, vec![call("c1", "f", "{}")]),
        dev(vec![Block::addition("x")]),
        result("c1", "done", None),
        user("more"),
        assistant_text("ok"),
    ];
    let b = body(&m);
    assert_eq!(
        roles(&b),
        ["user", "assistant", "user", "system", "assistant"]
    );
    let merged = &b["messages"][2]["content"];
    assert_eq!(merged[0]["type"], "tool_result");
    assert_eq!(merged[1], json!({"type": "text", "text": "more"}));
}

#[test]
fn a_leading_system_message_sets_the_top_level_system_after_the_one_shot_one() {
    let m = [system("prompt"), user("hi")];
    let mut p = parts(&m, None);
    p.system = Some("one-shot");
    let b = serialize(&p).unwrap().body;
    assert_eq!(b["system"], "one-shot\n\nprompt");
    assert_eq!(roles(&b), ["user"]);
}

#[test]
fn without_in_history_every_system_message_overwrites_the_top_level() {
    let b = body(&[
        system("p1"),
        user("hi"),
        system("p2"),
        assistant_text("a"),
        user("x"),
    ]);
    assert_eq!(b["system"], "p2");
    assert_eq!(roles(&b), ["user", "assistant", "user"]);
}

#[test]
fn in_history_a_later_system_message_becomes_a_queued_update() {
    let m = [
        system("p1"),
        user("hi"),
        system("p2"),
        assistant_text("a"),
        user("x"),
    ];
    let mut p = parts(&m, None);
    p.system_prompt_update = Some(SystemPromptUpdate::InHistory);
    let b = serialize(&p).unwrap();
    assert_eq!(b.body["system"], "p1");
    assert_eq!(roles(&b.body), ["user", "system", "assistant", "user"]);
    assert_eq!(
        b.body["messages"][1]["content"],
        json!([{"type": "text", "text": "p2"}])
    );
    // A text-only update owes no beta.
    assert_eq!(b.beta, None);
}

#[test]
fn an_empty_in_history_system_update_fails() {
    let m = [system("p1"), user("hi"), system("")];
    let mut p = parts(&m, None);
    p.system_prompt_update = Some(SystemPromptUpdate::InHistory);
    let e = serialize(&p).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnsupportedContent);
    assert_eq!(
        e.message,
        "DeepSeek Messages cannot represent empty in-history system update"
    );
}

#[test]
fn tool_results_move_first_in_their_user_message() {
    let m = [
        user("q"),
        msg(
            Role::Assistant,
            vec![call("c1", "f", "{}"), call("c2", "g", "{}")],
        ),
        user("interjection"),
        result("c2", "two", None),
        result("c1", "one", Some(false)),
    ];
    let b = body(&m);
    let content = b["messages"][2]["content"].as_array().unwrap();
    let types: Vec<_> = content
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["tool_result", "tool_result", "text"]);
    assert_eq!(content[0]["tool_use_id"], "c2");
    assert_eq!(content[1]["is_error"], false);
}

#[test]
fn tool_result_order_violations_are_invalid_content() {
    let cases: Vec<Vec<Arc<Message>>> = vec![
        // unmatched result
        vec![user("q"), assistant_text("a"), result("c9", "x", None)],
        // missing result
        vec![
            user("q"),
            msg(
                Role::Assistant,
                vec![call("c1", "f", "{}"), call("c2", "f", "{}")],
            ),
            result("c1", "x", None),
            assistant_text("a"),
        ],
        // duplicate call id
        vec![
            user("q"),
            msg(
                Role::Assistant,
                vec![call("c1", "f", "{}"), call("c1", "f", "{}")],
            ),
            result("c1", "x", None),
        ],
        // unresolved at the end
        vec![user("q"), msg(Role::Assistant, vec![call("c1", "f", "{}")])],
        // result not in the immediately following user message
        vec![
            user("q"),
            msg(Role::Assistant, vec![call("c1", "f", "{}")]),
            user("x"),
            assistant_text("a"),
            result("c1", "late", None),
        ],
    ];
    for m in cases {
        assert_eq!(err(&m).code, ErrorCode::InvalidContent, "{m:?}");
    }
}

#[test]
fn the_beta_header_is_sent_only_with_tool_change_blocks() {
    let tools = [tool("a", false), tool("x", true)];
    let plain = serialize(&parts(&[user("hi")], Some(&tools))).unwrap();
    assert_eq!(plain.beta, None);
    let m = [user("hi"), dev(vec![Block::addition("x")])];
    let with = serialize(&parts(&m, Some(&tools))).unwrap();
    assert_eq!(
        with.beta.as_deref(),
        Some("mid-conversation-tool-changes-2026-07-01")
    );
    let m = [user("hi"), dev(vec![Block::removal("a")])];
    assert_eq!(
        serialize(&parts(&m, Some(&tools))).unwrap().beta.as_deref(),
        Some(TOOL_CHANGES_BETA)
    );
}

#[test]
fn thinking_replayed_with_signature_and_tool_input_parsed() {
    let m = [
        user("q"),
        msg(
            Role::Assistant,
            vec![
                Block::Reasoning {
                    text: "Need the manifest".into(),
                    signature: Some("c2ln".into()),
                },
                Block::Reasoning {
                    text: "unsigned".into(),
                    signature: None,
                },
                Block::text("Reading."),
                call("c1", "read_file", r#"{"path": "Cargo.toml"}"#),
                call("c2", "read_file", r#"{"path": "Car"#),
            ],
        ),
        result("c1", "ok", None),
        result("c2", "invalid JSON arguments", Some(true)),
    ];
    let b = body(&m);
    assert_eq!(
        b["messages"][1]["content"],
        json!([
            {"type": "thinking", "thinking": "Need the manifest", "signature": "c2ln"},
            {"type": "thinking", "thinking": "unsigned"},
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "c1", "name": "read_file", "input": {"path": "Cargo.toml"}},
            {"type": "tool_use", "id": "c2", "name": "read_file", "input": {}}
        ])
    );
    // is_error is ignored by DeepSeek, so the text carries the marker too.
    assert_eq!(
        b["messages"][2]["content"][1]["content"],
        json!([{"type": "text", "text": "Error: invalid JSON arguments"}])
    );
    assert_eq!(b["messages"][2]["content"][1]["is_error"], true);
}

#[test]
fn thinking_and_effort_fields() {
    let m = [user("q")];
    let mut p = parts(&m, None);
    p.thinking = Thinking::Default;
    p.effort = Some("max");
    let b = serialize(&p).unwrap().body;
    assert!(b.get("thinking").is_none());
    assert_eq!(b["output_config"], json!({"effort": "max"}));
    p.thinking = Thinking::Enabled;
    p.temperature = Some(0.5);
    let stop = vec!["END".to_string()];
    p.stop = Some(&stop);
    let b = serialize(&p).unwrap().body;
    assert_eq!(b["thinking"], json!({"type": "enabled"}));
    assert_eq!(b["temperature"], 0.5);
    assert_eq!(b["stop_sequences"], json!(["END"]));
    p.thinking = Thinking::Disabled;
    let b = serialize(&p).unwrap().body;
    assert_eq!(b["thinking"], json!({"type": "disabled"}));
    assert!(b.get("output_config").is_none());
}

/// semantics.md §8.3: addition-only route after `cache_sample` was added, prompt updated.
#[test]
fn w8x3_example_request_body() {
    let mut tool_result = Message::text(Role::Tool, "Tool added. ...", Source::kind("tool"));
    tool_result.tool_call_id = Some("call_1".into());
    tool_result.is_error = Some(false);
    let m = [
        system("<original prompt, unchanged>"),
        user("Use cache_tool_control ..."),
        msg(
            Role::Assistant,
            vec![call("call_1", "cache_tool_control", r#"{"action":"add"}"#)],
        ),
        Arc::new(tool_result),
        system("<complete updated prompt>"),
        dev(vec![Block::addition("cache_sample")]),
    ];
    let tools = [
        ToolSchema {
            description: "...".into(),
            ..tool("cache_tool_control", false)
        },
        tool("cache_sample", true),
    ];
    let mut p = parts(&m, Some(&tools));
    p.system_prompt_update = Some(SystemPromptUpdate::InHistory);
    let out = serialize(&p).unwrap();
    let expected = json!({
      "model": "deepseek-flash", "stream": true, "max_tokens": 1024,
      "thinking": { "type": "disabled" },
      "system": "<original prompt, unchanged>",
      "messages": [
        { "role": "user", "content": [ { "type": "text", "text": "Use cache_tool_control ..." } ] },
        { "role": "assistant", "content": [ { "type": "tool_use", "id": "call_1", "name": "cache_tool_control", "input": { "action": "add" } } ] },
        { "role": "user", "content": [ { "type": "tool_result", "tool_use_id": "call_1", "content": [ { "type": "text", "text": "Tool added. ..." } ], "is_error": false } ] },
        { "role": "system", "content": [ { "type": "text", "text": "<complete updated prompt>" } ] },
        { "role": "system", "content": [ { "type": "tool_addition", "tool": { "type": "tool_reference", "name": "cache_sample" } } ] }
      ],
      "tools": [
        { "name": "cache_tool_control", "description": "...", "input_schema": { } },
        { "name": "cache_sample", "description": "...", "input_schema": { }, "defer_loading": true }
      ]
    });
    assert_eq!(out.body, expected);
    assert_eq!(
        serde_json::to_string(&out.body).unwrap(),
        serde_json::to_string(&expected).unwrap(),
        "key order follows the reference example"
    );
    assert_eq!(out.beta.as_deref(), Some(TOOL_CHANGES_BETA));
}
