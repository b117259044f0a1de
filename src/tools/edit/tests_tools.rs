//! The edit tools as the registry runs them: declarations, approval, and the scope read at
//! every call.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::tools::registry::{ToolRegistry, ToolSource};

#[test]
fn the_declarations_are_in_name_order_with_their_required_arguments() {
    let s = schemas();
    let names: Vec<&str> = s.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, EDIT_TOOL_NAMES);
    let required: Vec<String> = s
        .iter()
        .map(|t| t.parameters["required"].to_string())
        .collect();
    assert_eq!(
        required,
        [
            r#"["patch"]"#,
            r#"["path","old_string","new_string"]"#,
            r#"["path","content"]"#
        ]
    );
    // Fixed text: the declarations are part of the cached prefix.
    assert_eq!(schemas(), s);
}

#[tokio::test]
async fn a_mode_switch_applies_to_the_next_call_and_edits_ask_and_never_overlap() {
    let d = tempfile::tempdir().unwrap();
    let scope: SharedScope = Arc::new(RwLock::new(workspace_scope(
        d.path(),
        SandboxMode::WorkspaceWrite,
    )));
    let mut reg = ToolRegistry::new();
    reg.set_source_tools(
        ToolSource::Builtin,
        tools(scope.clone(), Duration::from_secs(30)),
    );
    for n in EDIT_TOOL_NAMES {
        assert!(reg.needs_approval(n), "{n}");
        assert!(!reg.is_parallel_safe(n), "{n}");
    }
    let write = |name: &str| json!({"path": name, "content": "x\n"}).to_string();
    let out = reg
        .call("write_file", &write("one.txt"), &CancellationToken::new())
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert!(d.path().join("one.txt").exists());
    scope.write().unwrap().mode = SandboxMode::ReadOnly;
    let out = reg
        .call("write_file", &write("two.txt"), &CancellationToken::new())
        .await;
    assert!(out.is_error);
    assert!(
        out.content.contains("the sandbox mode is read-only"),
        "{}",
        out.content
    );
    assert!(!d.path().join("two.txt").exists());
    scope.write().unwrap().mode = SandboxMode::WorkspaceWrite;
    let out = reg
        .call("write_file", &write("two.txt"), &CancellationToken::new())
        .await;
    assert!(!out.is_error, "{}", out.content);
}
