//! The tool registry: name order, source precedence, enabling and disabling, approval policy
//! and the `/tools` listing.

use super::*;

#[test]
fn active_tools_are_in_lexicographic_name_order() {
    let (_d, mut r) = workspace_registry();
    r.set_source_tools(
        ToolSource::Mcp("zz".into()),
        vec![cmd("zz__b", &["true"]), cmd("aa__x", &["true"])],
    );
    r.set_source_tools(
        ToolSource::Command,
        vec![cmd("zeta", &["true"]), cmd("alpha", &["true"])],
    );
    assert_eq!(
        names(&r),
        [
            "aa__x",
            "alpha",
            "apply_patch",
            "edit_file",
            "grep",
            "list_dir",
            "read_file",
            "update_plan",
            "write_file",
            "zeta",
            "zz__b"
        ]
    );
    // Unregistering a source removes its batch.
    r.set_source_tools(ToolSource::Mcp("zz".into()), vec![]);
    assert_eq!(
        names(&r),
        [
            "alpha",
            "apply_patch",
            "edit_file",
            "grep",
            "list_dir",
            "read_file",
            "update_plan",
            "write_file",
            "zeta"
        ]
    );
}

#[test]
fn builtin_source_wins_a_name_clash() {
    let (_d, mut r) = workspace_registry();
    r.set_source_tools(ToolSource::Mcp("s".into()), vec![cmd("grep", &["true"])]);
    let grep = r
        .active_tools()
        .into_iter()
        .find(|t| t.name == "grep")
        .unwrap();
    assert_eq!(grep.description, builtin::schemas()[0].description);
    assert_eq!(names(&r).len(), 7);
}

#[tokio::test]
async fn the_unknown_tool_error_text_is_exact() {
    let (_d, mut r) = workspace_registry();
    let out = r.call("x", "{}", &CancellationToken::new()).await;
    assert_eq!(out.content, "unknown tool \"x\"");
    assert!(out.is_error);
    // A disabled (removed) tool fails the same way.
    assert!(r.set_enabled("grep", false).unwrap());
    let out = r
        .call("grep", "{\"pattern\":\"a\"}", &CancellationToken::new())
        .await;
    assert_eq!(out.content, "unknown tool \"grep\"");
}

#[tokio::test]
async fn enable_disable_by_name_and_config_enabled_false() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Config::default();
    c.command_tools.insert(
        "off".into(),
        cmd_config("d", &["echo", "ran"], false, Approval::Never),
    );
    let mut r = ToolRegistry::from_config(&c, dir.path());
    // The edit tools and the plan tool, beside the read-only ones.
    const EDIT: [&str; 4] = ["apply_patch", "edit_file", "update_plan", "write_file"];
    let with_edit = |read: &[&'static str]| {
        let mut v: Vec<&'static str> = EDIT.iter().chain(read).copied().collect();
        v.sort();
        v
    };
    assert_eq!(names(&r), with_edit(&["grep", "list_dir", "read_file"]));
    let v = r.version();
    assert!(r.set_enabled("off", true).unwrap());
    assert!(r.version() > v);
    assert!(!r.set_enabled("off", true).unwrap(), "already enabled");
    assert_eq!(
        names(&r),
        with_edit(&["grep", "list_dir", "off", "read_file"])
    );
    let out = r.call("off", "", &CancellationToken::new()).await;
    assert_eq!(out.content, "ran\n");
    assert!(r.set_enabled("read_file", false).unwrap());
    assert_eq!(names(&r), with_edit(&["grep", "list_dir", "off"]));
    let e = r.set_enabled("nope", true).unwrap_err();
    assert_eq!(e, ToolError::UnknownName("nope".into()));
    assert!(e.localized(EN).contains("no tool named \"nope\""));
    assert!(e.localized(ZH).contains("没有名为“nope”的工具"));
    // The override survives re-registration of the source (e.g. an MCP re-sync).
    r.set_source_tools(ToolSource::Builtin, builtin::tools(dir.path()));
    assert!(!r.is_active("read_file"));
}

#[test]
fn builtin_disabled_in_config_can_be_enabled() {
    let dir = tempfile::tempdir().unwrap();
    let c = Config::parse_in("[tools.builtin]\nenabled = false", None, Path::new("/")).unwrap();
    let mut r = ToolRegistry::from_config(&c, dir.path());
    assert!(r.active_tools().is_empty());
    r.set_enabled("grep", true).unwrap();
    assert_eq!(names(&r), ["grep"]);
}

#[test]
fn a_same_name_schema_change_is_accepted() {
    let mut r = ToolRegistry::new();
    r.set_source_tools(ToolSource::Command, vec![cmd("t", &["true"])]);
    let mut changed = cmd("t", &["true"]);
    changed.schema.description = "new description".into();
    r.set_source_tools(ToolSource::Command, vec![changed]);
    assert_eq!(r.active_tools()[0].description, "new description");
}

#[tokio::test]
async fn invalid_json_arguments_are_a_readable_tool_error_and_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let mut r = ToolRegistry::new();
    let script = format!("touch {}", marker.display());
    r.set_source_tools(ToolSource::Command, vec![cmd("t", &["sh", "-c", &script])]);
    let out = r.call("t", "{\"a\": ", &CancellationToken::new()).await;
    assert!(out.is_error);
    assert!(
        out.content
            .starts_with("invalid arguments for tool \"t\": not valid JSON"),
        "{}",
        out.content
    );
    let out = r.call("t", "[1, 2]", &CancellationToken::new()).await;
    assert_eq!(
        out.content,
        "invalid arguments for tool \"t\": expected a JSON object"
    );
    assert!(!marker.exists());
}

#[test]
fn approval_policy_and_parallel_safety() {
    let mut r = ToolRegistry::new();
    r.set_source_tools(
        ToolSource::Command,
        vec![
            command::tool("asks", &cmd_config("d", &["true"], true, Approval::Ask)),
            cmd("free", &["true"]),
        ],
    );
    assert!(r.needs_approval("asks"));
    assert!(!r.needs_approval("free"));
    // Command tools may have side effects: one at a time unless the config says otherwise.
    assert!(!r.is_parallel_safe("asks"));
    let mut parallel = cmd_config("d", &["true"], true, Approval::Never);
    parallel.parallel = true;
    r.set_source_tools(ToolSource::Command, vec![command::tool("par", &parallel)]);
    assert!(r.is_parallel_safe("par"));
}

#[test]
fn tools_listing_shows_active_and_disabled_with_source() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = ToolRegistry::from_config(&Config::default(), dir.path());
    r.set_source_tools(
        ToolSource::Mcp("fs".into()),
        vec![command::tool(
            "fs__read",
            &cmd_config("d", &["true"], true, Approval::Ask),
        )],
    );
    r.set_enabled("grep", false).unwrap();
    let rows = r.listing();
    assert_eq!(rows.len(), 8);
    assert_eq!((rows[2].name.as_str(), rows[2].active), ("fs__read", true));
    assert_eq!(rows[1].source, ToolSource::Builtin);
    assert_eq!(
        r.listing_lines(EN),
        [
            "Active tools (7):",
            "apply_patch (built-in, asks for approval)",
            "edit_file (built-in, asks for approval)",
            "fs__read (MCP server fs, asks for approval)",
            "list_dir (built-in)",
            "read_file (built-in)",
            "update_plan (built-in)",
            "write_file (built-in, asks for approval)",
            "Available but disabled (1):",
            "grep (built-in) — /tool enable grep",
        ]
    );
    let zh = r.listing_lines(ZH);
    assert_eq!(zh[0], "已启用的工具（7 个）：");
    assert_eq!(zh[3], "fs__read（MCP 服务器 fs，调用前需确认）");
    assert_eq!(
        ToolRegistry::new().listing_lines(EN),
        ["No tools are registered."]
    );
}
