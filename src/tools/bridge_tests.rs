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
