use super::*;
use crate::sim::validate_openai::validate_openai;
use serde_json::json;

fn rules() -> Rules {
    Rules {
        tool_removal_ok: false,
        require_non_deferred_tool: false,
        system_capable_models: vec!["deepseek-flash".into()],
    }
}

fn anth(body: Value) -> Result<Parsed, ApiError> {
    validate_anthropic(&body, &rules(), &HashSet::new())
}

fn tool(name: &str, deferred: bool) -> Value {
    let mut t = json!({"name": name, "description": "d", "input_schema": {"type": "object"}});
    if deferred {
        t["defer_loading"] = json!(true);
    }
    t
}

#[test]
fn claude_names_map_and_unknown_models_fail() {
    assert_eq!(
        map_model(Route::Anthropic, "claude-opus-5").unwrap(),
        "deepseek-v4-pro"
    );
    assert_eq!(
        map_model(Route::Anthropic, "claude-sonnet-4").unwrap(),
        "deepseek-flash"
    );
    assert!(map_model(Route::OpenAi, "claude-sonnet-4").is_err());
    assert!(
        map_model(Route::Anthropic, "gpt-4")
            .unwrap_err()
            .message
            .contains("Model Not Exist")
    );
}

#[test]
fn system_message_snapshot_and_tool_addition_change_effective_state() {
    let p = anth(
        json!({"model": "deepseek-flash", "max_tokens": 10, "system": "old",
        "tools": [tool("a", false), tool("b", true)],
        "messages": [{"role": "user", "content": "hi"},
            {"role": "system", "content": [{"type": "text", "text": "new"},
                {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "b"}}]}]}),
    )
    .unwrap();
    assert_eq!(p.effective_system.as_deref(), Some("new"));
    let names: Vec<_> = p.offered.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
}

#[test]
fn system_role_rejected_on_incapable_model() {
    let e = anth(json!({"model": "deepseek-v4-pro", "max_tokens": 10,
        "messages": [{"role": "user", "content": "hi"}, {"role": "system", "content": "x"}]}))
    .unwrap_err();
    assert!(
        e.message
            .contains("unknown variant `system`, expected `user` or `assistant`"),
        "{}",
        e.message
    );
}

#[test]
fn system_placement_rules() {
    let after_assistant = anth(json!({"model": "deepseek-flash", "max_tokens": 10,
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"},
            {"role": "system", "content": "x"}]}));
    assert!(after_assistant.is_err());
    let first = anth(json!({"model": "deepseek-flash", "max_tokens": 10,
        "messages": [{"role": "system", "content": "x"}, {"role": "user", "content": "hi"}]}));
    assert!(first.is_err());
    let before_user = anth(json!({"model": "deepseek-flash", "max_tokens": 10,
        "messages": [{"role": "user", "content": "hi"}, {"role": "system", "content": "x"},
            {"role": "user", "content": "again"}]}));
    assert!(before_user.is_err());
    let empty = anth(json!({"model": "deepseek-flash", "max_tokens": 10,
        "messages": [{"role": "user", "content": "hi"}, {"role": "system", "content": []}]}));
    assert!(empty.unwrap_err().message.contains("non-empty"));
}

#[test]
fn tool_reference_must_exist_and_removal_rejected_by_default() {
    let e = anth(
        json!({"model": "deepseek-flash", "max_tokens": 10, "tools": [tool("a", false)],
        "messages": [{"role": "user", "content": "hi"}, {"role": "system", "content": [
            {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "zz"}}]}]}),
    )
    .unwrap_err();
    assert!(
        e.message
            .contains("Tool reference 'zz' not found in available tools")
    );
    let body = json!({"model": "deepseek-flash", "max_tokens": 10, "tools": [tool("a", false)],
        "messages": [{"role": "user", "content": "hi"}, {"role": "system", "content": [
            {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "a"}}]}]});
    assert!(
        anth(body.clone())
            .unwrap_err()
            .message
            .contains("tool_removal")
    );
    let mut r = rules();
    r.tool_removal_ok = true;
    let p = validate_anthropic(&body, &r, &HashSet::new()).unwrap();
    assert!(p.offered.is_empty());
}

#[test]
fn pairing_all_ids_and_orphans() {
    let e = anth(json!({"model": "deepseek-flash", "max_tokens": 10, "tools": [tool("a", false)],
        "messages": [{"role": "user", "content": "hi"},
          {"role": "assistant", "content": [
              {"type": "tool_use", "id": "c1", "name": "a", "input": {}},
              {"type": "tool_use", "id": "c2", "name": "a", "input": {}}]},
          {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c2", "content": "ok"}]}]}))
    .unwrap_err();
    assert!(
        e.message
            .contains("without `tool_result` blocks immediately after: c1"),
        "{}",
        e.message
    );
    let e = anth(json!({"model": "deepseek-flash", "max_tokens": 10,
        "messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c9", "content": "ok"}]}]}))
    .unwrap_err();
    assert!(e.message.contains("unexpected `tool_use_id`"));
}

#[test]
fn thinking_passback_required_for_sim_generated_tool_turns() {
    let ids: HashSet<String> = ["call_00_x".to_string()].into();
    let body = json!({"model": "deepseek-flash", "max_tokens": 10, "tools": [tool("a", false)],
        "messages": [{"role": "user", "content": "hi"},
          {"role": "assistant", "content": [{"type": "tool_use", "id": "call_00_x", "name": "a", "input": {}}]},
          {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_00_x", "content": "ok"}]}]});
    let e = validate_anthropic(&body, &rules(), &ids).unwrap_err();
    assert!(e.message.contains("must be passed back"));
    let mut disabled = body.clone();
    disabled["thinking"] = json!({"type": "disabled"});
    assert!(validate_anthropic(&disabled, &rules(), &ids).is_ok());

    let oa = json!({"model": "deepseek-flash", "tools": [{"type": "function", "function": {"name": "a"}}],
        "messages": [{"role": "user", "content": "hi"},
          {"role": "assistant", "content": "", "tool_calls": [{"id": "call_00_x", "type": "function", "function": {"name": "a", "arguments": "{}"}}]},
          {"role": "tool", "tool_call_id": "call_00_x", "content": "ok"}]});
    let e = validate_openai(&oa, &ids).unwrap_err();
    assert!(e.message.contains("reasoning_content"));
}

#[test]
fn rejects_unsupported_blocks_and_bad_tools() {
    for ty in [
        "document",
        "search_result",
        "redacted_thinking",
        "mcp_tool_result",
    ] {
        let e = anth(json!({"model": "deepseek-flash", "max_tokens": 10,
            "messages": [{"role": "user", "content": [{"type": ty}]}]}))
        .unwrap_err();
        assert!(e.message.contains("not supported"), "{ty}: {}", e.message);
    }
    let e = anth(
        json!({"model": "deepseek-flash", "max_tokens": 10, "tools": [tool("a b", false)],
        "messages": [{"role": "user", "content": "x"}]}),
    )
    .unwrap_err();
    assert!(e.message.contains("Invalid tool name"));
    let e = anth(json!({"model": "deepseek-flash", "max_tokens": 10, "tools": [tool("a", false), tool("a", false)],
        "messages": [{"role": "user", "content": "x"}]}))
    .unwrap_err();
    assert!(e.message.contains("unique"));
    let many: Vec<Value> = (0..129).map(|i| tool(&format!("t{i}"), false)).collect();
    let e = anth(
        json!({"model": "deepseek-flash", "max_tokens": 10, "tools": many,
        "messages": [{"role": "user", "content": "x"}]}),
    )
    .unwrap_err();
    assert!(e.message.contains("maximum length 128"));
}

#[test]
fn max_tokens_and_messages_required() {
    assert!(
        anth(json!({"model": "deepseek-flash", "messages": [{"role": "user", "content": "x"}]}))
            .unwrap_err()
            .message
            .contains("max_tokens")
    );
    assert!(anth(json!({"model": "deepseek-flash", "max_tokens": 0, "messages": [{"role": "user", "content": "x"}]}))
        .is_err());
    assert!(anth(json!({"model": "deepseek-flash", "max_tokens": 5, "messages": []})).is_err());
}
