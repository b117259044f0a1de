//! The registry: declarations under the tool limit and the deferral threshold, clashes,
//! approval of shadowed names, retained removals.

use super::*;
use futures_util::future::BoxFuture;

struct Nop;

impl ToolExecutor for Nop {
    fn call<'a>(
        &'a self,
        _arguments: serde_json::Value,
        _cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(async { ToolOutcome::ok("") })
    }
}

fn tool(name: &str) -> RegisteredTool {
    RegisteredTool {
        schema: ToolSchema {
            name: name.to_string(),
            description: String::new(),
            parameters: serde_json::json!({"type": "object"}),
            defer_loading: None,
        },
        approval: Approval::Never,
        enabled: true,
        executor: Arc::new(Nop),
        parallel_safe: false,
    }
}

fn names(r: &ToolRegistry) -> Vec<String> {
    r.active_tools().into_iter().map(|t| t.name).collect()
}

#[test]
fn past_the_tool_limit_builtins_come_first_and_the_rest_stays_reachable_through_the_bridge() {
    let mut r = ToolRegistry::new();
    // Never defer: only the limit cuts.
    r.set_defer_over(0);
    r.set_source_tools(
        ToolSource::Mcp("zz".into()),
        (0..300).map(|i| tool(&format!("zz__t{i:03}"))).collect(),
    );
    r.set_source_tools(
        ToolSource::Mcp("aa".into()),
        vec![tool("aa__b"), tool("aa__a")],
    );
    r.set_source_tools(ToolSource::Command, vec![tool("zcmd")]);
    r.set_source_tools(ToolSource::Builtin, vec![tool("zbuiltin"), tool("read")]);
    assert_eq!(r.active_tools().len(), 128, "the default limit is 128");
    let n = names(&r);
    for must in [
        "zbuiltin",
        "read",
        "zcmd",
        "aa__a",
        "aa__b",
        "zz__t000",
        "zz__t120",
        "tool_search",
        "call_tool",
    ] {
        assert!(n.contains(&must.to_string()), "{must} is declared");
    }
    assert!(!n.contains(&"zz__t121".to_string()));
    let mut sorted = n.clone();
    sorted.sort();
    assert_eq!(n, sorted, "the declared set stays in name order (D-2)");
    // What was cut, in priority order; it is announced, searchable and callable.
    let dropped = r.dropped();
    assert_eq!(dropped.len(), 300 + 2 + 1 + 2 - 126);
    assert_eq!(dropped[0].name, "zz__t121");
    assert_eq!(dropped[0].source, ToolSource::Mcp("zz".into()));
    let plan = r.plan(&HashSet::new());
    assert_eq!(plan.deferred.len(), dropped.len());
    assert!(r.is_active("zz__t299"));
    assert!(r.prepare_call("zz__t299", "{}").is_ok());
    assert!(r.enabled_tools().iter().any(|t| t.name == "zz__t299"));
    assert!(
        r.listing().iter().all(|l| l.active),
        "the cut hides no tool"
    );
    // Stable: the same registrations give the same cut.
    assert_eq!(n, names(&r));
    // A smaller per-route limit still keeps built-ins and command tools first.
    r.set_max_tools(5);
    assert_eq!(
        names(&r),
        vec!["call_tool", "read", "tool_search", "zbuiltin", "zcmd"]
    );
}

#[test]
fn a_disabled_tool_frees_its_slot_and_nothing_is_dropped_below_the_limit() {
    let mut r = ToolRegistry::new();
    r.set_source_tools(
        ToolSource::Mcp("s".into()),
        vec![tool("s__a"), tool("s__b"), tool("s__c"), tool("s__d")],
    );
    r.set_max_tools(3);
    assert_eq!(names(&r), vec!["call_tool", "s__a", "tool_search"]);
    r.set_enabled("s__a", false).unwrap();
    assert_eq!(names(&r), vec!["s__b", "s__c", "s__d"]);
    assert!(r.dropped().is_empty());
    r.set_max_tools(128);
    assert!(r.dropped().is_empty());
}

fn mcp(n: usize) -> Vec<RegisteredTool> {
    (0..n).map(|i| tool(&format!("m__t{i:02}"))).collect()
}

#[test]
fn past_the_threshold_command_and_mcp_tools_are_deferred_and_the_bridge_is_declared() {
    let mut r = ToolRegistry::new();
    r.set_source_tools(ToolSource::Builtin, vec![tool("read")]);
    r.set_source_tools(ToolSource::Mcp("m".into()), mcp(32));
    assert_eq!(r.defer_over(), 32, "the default threshold");
    let plan = r.plan(&HashSet::new());
    assert_eq!(plan.declared.len(), 33, "32 fit: all declared");
    assert!(plan.deferred.is_empty());
    r.set_source_tools(ToolSource::Mcp("m".into()), mcp(60));
    let plan = r.plan(&HashSet::new());
    let declared: Vec<&str> = plan.declared.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(declared, ["call_tool", "read", "tool_search"]);
    assert_eq!(plan.deferred.len(), 60);
    assert!(
        r.prepare_call("m__t59", "{}").is_ok(),
        "a deferred tool runs"
    );
    // 0 never defers.
    r.set_defer_over(0);
    assert_eq!(r.plan(&HashSet::new()).declared.len(), 61);
}

#[test]
fn a_declaration_once_logged_stays_and_a_loaded_tool_is_declared_next() {
    let mut r = ToolRegistry::new();
    r.set_source_tools(ToolSource::Mcp("m".into()), mcp(60));
    // The latest header declared two MCP tools before the count crossed the threshold.
    let kept: HashSet<String> = ["m__t00", "m__t01"].map(String::from).into();
    let plan = r.plan(&kept);
    let declared: Vec<&str> = plan.declared.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(declared, ["call_tool", "m__t00", "m__t01", "tool_search"]);
    assert_eq!(plan.deferred.len(), 58);
    // tool_search found one: the next request declares it.
    assert!(r.load(["m__t42".to_string()]));
    assert!(!r.load(["m__t42".to_string()]), "already loaded");
    let plan = r.plan(&kept);
    assert!(plan.declared.iter().any(|t| t.name == "m__t42"));
    assert!(!plan.deferred.iter().any(|t| t.name == "m__t42"));
    // Once the header declares it, it stays without the loaded mark.
    r.clear_loaded();
    let mut kept = kept;
    kept.extend(plan.declared.iter().map(|t| t.name.clone()));
    assert!(r.plan(&kept).declared.iter().any(|t| t.name == "m__t42"));
    // With the bridge declared, falling below the threshold keeps deferring (no new
    // declarations, no bytes).
    r.set_source_tools(ToolSource::Mcp("m".into()), mcp(50).split_off(40));
    assert_eq!(
        r.plan(&kept).deferred.len(),
        9,
        "m__t40..49 but the declared m__t42"
    );
    // A disabled declared tool is not declared.
    r.set_source_tools(ToolSource::Mcp("m".into()), mcp(60));
    r.set_enabled("m__t42", false).unwrap();
    assert!(!r.plan(&kept).declared.iter().any(|t| t.name == "m__t42"));
}

fn asking(name: &str) -> RegisteredTool {
    RegisteredTool {
        approval: Approval::Ask,
        ..tool(name)
    }
}

#[test]
fn a_shadowing_tool_needs_the_approval_of_the_tool_it_hides() {
    let mut r = ToolRegistry::new();
    r.set_source_tools(
        ToolSource::Mcp("x".into()),
        vec![asking("x__z"), tool("x__w")],
    );
    r.set_source_tools(ToolSource::Command, vec![tool("x__z")]);
    // The command tool keeps the name (source order) but not its own `never`.
    assert!(r.needs_approval("x__z"));
    assert!(!r.needs_approval("x__w"));
    let row = r.listing().into_iter().find(|l| l.name == "x__z").unwrap();
    assert_eq!(row.source, ToolSource::Command);
    assert_eq!(row.approval, Approval::Ask);
    // The card can say why: the kept tool asks only because of the one it hides.
    assert_eq!(
        r.shadowed_asking("x__z"),
        Some((ToolSource::Command, ToolSource::Mcp("x".into())))
    );
    // Without the hidden tool the command tool's own policy applies again.
    r.set_source_tools(ToolSource::Mcp("x".into()), vec![tool("x__w")]);
    assert!(!r.needs_approval("x__z"));
    assert_eq!(r.shadowed_asking("x__z"), None);
    // A tool that asks itself is not "shadowed".
    r.set_source_tools(ToolSource::Command, vec![asking("x__z")]);
    assert_eq!(r.shadowed_asking("x__z"), None);
}

#[test]
fn a_name_offered_by_two_sources_is_reported_with_both() {
    let mut r = ToolRegistry::new();
    r.set_source_tools(ToolSource::Mcp("x_".into()), vec![tool("x___y")]);
    r.set_source_tools(
        ToolSource::Mcp("x".into()),
        vec![tool("x___y"), tool("x__a")],
    );
    assert_eq!(
        r.clashes(),
        vec![NameClash {
            name: "x___y".into(),
            kept: ToolSource::Mcp("x".into()),
            hidden: vec![ToolSource::Mcp("x_".into())],
        }]
    );
    r.set_source_tools(ToolSource::Mcp("x_".into()), vec![]);
    assert!(r.clashes().is_empty());
}

#[test]
fn a_retained_removed_tool_fails_as_unknown_saying_it_was_removed() {
    let mut r = ToolRegistry::new();
    r.set_source_tools(ToolSource::Mcp("s".into()), vec![tool("s__a")]);
    r.set_retained(vec![("s__a".into(), Some(2)), ("s__gone".into(), Some(3))]);
    // Active: the retained list changes nothing.
    assert!(r.prepare_call("s__a", "{}").is_ok());
    let err = |r: &ToolRegistry, name: &str| match r.prepare_call(name, "{}") {
        Err(o) => (o.content, o.is_error),
        Ok(_) => panic!("{name} must not be callable"),
    };
    let (text, is_error) = err(&r, "s__gone");
    assert!(is_error);
    assert_eq!(
        text,
        "tool s__gone is no longer available (removed at turn 3)"
    );
    // Not retained: exactly the R-5 text.
    assert_eq!(err(&r, "other").0, "unknown tool \"other\"");
    // Without retained names (the default) a removed tool is a plain unknown tool.
    r.set_retained(vec![]);
    assert_eq!(err(&r, "s__gone").0, "unknown tool \"s__gone\"");
}
