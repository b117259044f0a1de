//! `tool_search` and `call_tool` (SPEC §15.1).

use super::*;
use serde_json::json;

fn t(name: &str, desc: &str) -> ToolSchema {
    ToolSchema {
        name: name.into(),
        description: desc.into(),
        parameters: json!({"type": "object", "properties": {"q": {"type": "string"}}}),
        defer_loading: None,
    }
}

#[test]
fn tool_search_answers_the_best_matches_with_their_compact_schema() {
    let tools = vec![
        t("gh__issues", "List GitHub issues"),
        t("read_file", "Read a file"),
        t("gh__search", "Search code on GitHub"),
    ];
    let out = search(&tools, r#"{"query": "github issues", "limit": 1}"#);
    assert!(!out.is_error);
    assert_eq!(
        out.content,
        "gh__issues: List GitHub issues\nschema: {\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"}}}"
    );
    let none = search(&tools, r#"{"query": "kubernetes"}"#);
    assert_eq!(none.content, "no tool matches \"kubernetes\"");
    assert!(search(&tools, "[1]").is_error);
}

#[test]
fn call_tool_names_the_real_call_or_says_what_is_wrong() {
    assert_eq!(
        unwrap_call(r#"{"name": "grep", "arguments": {"pattern": "x"}}"#),
        Ok(("grep".to_string(), r#"{"pattern":"x"}"#.to_string()))
    );
    assert!(
        unwrap_call(r#"{"arguments": {}}"#)
            .unwrap_err()
            .contains("\"name\"")
    );
    assert!(unwrap_call(r#"{"name": "call_tool", "arguments": {}}"#).is_err());
    assert!(unwrap_call(r#"{"name": "grep", "arguments": 3}"#).is_err());
    assert!(unwrap_call("not json").is_err());
}

#[test]
fn the_bridge_declarations_are_always_the_same_bytes() {
    let a = serde_json::to_string(&bridge_schemas()).unwrap();
    let b = serde_json::to_string(&bridge_schemas()).unwrap();
    assert_eq!(a, b);
    assert!(a.contains("\"tool_search\"") && a.contains("\"call_tool\""));
}

#[test]
fn tools_are_deferred_only_past_the_threshold_and_never_when_it_is_zero() {
    assert_eq!(DEFAULT_DEFER_TOOLS_OVER, 32);
    // 32 tools fit under the default; the 33rd tips the catalogue into deferral.
    assert!(!defers(32, DEFAULT_DEFER_TOOLS_OVER));
    assert!(defers(33, DEFAULT_DEFER_TOOLS_OVER));
    assert!(!defers(0, DEFAULT_DEFER_TOOLS_OVER));
    // `0` never defers, however many tools are connected.
    assert!(!defers(10_000, 0));
    assert!(defers(2, 1));
}
