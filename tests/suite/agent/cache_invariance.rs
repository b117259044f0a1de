//! Cache invariance of the session changes (SPEC §9, §14; decision 0102): one scripted
//! session through the real loop against the simulator applies every change once, and on
//! `deepseek-flash` with `tool_removal = "retain"` each one costs the cache only the bytes
//! it appends: the request after it repeats its baseline's prompt byte for byte and the
//! simulator serves all of it. Only a switch to another route and `/compact` may lose.
//! The script and the measure are shared with `examples/cache_churn.rs`, which prints them
//! as the table in docs/benchmarks.md.

#[path = "../../support/cache_invariance.rs"]
mod driver;

use std::sync::{Arc, Mutex};

use deepterm::config::{ApiKey, Config};
use deepterm::sim::{self, ScriptedReply, SimConfig};
use driver::{Change, Removal, Row, render, render_before_last_user, run};

use crate::common::ConfigBuilder;
use crate::common::agent_tools::{FnTool, prompt_agent, register, schema, tool};

fn row(rows: &[Row], change: Change) -> &Row {
    rows.iter()
        .find(|r| r.change == change)
        .unwrap_or_else(|| panic!("no row for {change:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_retain_every_session_change_but_a_route_switch_and_compact_keeps_the_cached_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let run = run(Removal::Retain, dir.path()).await.unwrap();
    assert_eq!(run.rows.len(), Change::ALL.len());
    for r in run.rows.iter().filter(|r| !r.change.may_lose()) {
        // Byte for byte, then as the simulator's cache counts it.
        assert_eq!(
            r.kept_bytes,
            r.prompt_bytes,
            "{}: request {} rewrote request {}'s prompt at byte {}",
            r.change.label(),
            r.request,
            r.baseline,
            r.kept_bytes
        );
        assert_eq!(r.lost, 0, "{}: {r:?}", r.change.label());
        assert!(r.hit >= r.servable && r.servable > 0, "{r:?}");
    }
    // A fork appends nothing of its own: its `/system` text goes with it.
    let fork = row(&run.rows, Change::Fork);
    assert_eq!(fork.appended_bytes, Some(0), "{fork:?}");
    // `/effort off` changes a request parameter only: the request after it still replays the
    // reasoning of the earlier tool-call turn (inside the prompt checked above), so dropping
    // or rewriting it, or the system prompt, would have failed the loop above.
    let effort = row(&run.rows, Change::Effort);
    let sent = &run.requests[effort.request];
    assert_eq!(sent.thinking, Some(false), "the change was applied");
    let kept = &render(&run.requests[effort.baseline])[..effort.prompt_bytes];
    assert!(kept.contains("<think>"), "{kept}");
    // The route switch is a real loss (another model's cache is empty), and is measured.
    let other = row(&run.rows, Change::ModelOther);
    assert_eq!(other.hit, 0, "{other:?}");
    assert!(other.lost > 0, "{other:?}");
    // Back on the first route, the prompt that route took in history was consolidated at the
    // head while on the other (L-11): the tools still match, the prompt does not.
    let back = row(&run.rows, Change::ModelBack);
    let kept = &render(&run.requests[back.baseline])[..back.kept_bytes];
    assert!(
        kept.contains("<|system|>") && !kept.contains("<|user|>"),
        "{kept}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_default_config_no_tool_change_loses_a_cached_token() {
    // SPEC §15.1: with no setting at all, removals keep the prefix as retain does.
    let dir = tempfile::tempdir().unwrap();
    let run = run(Removal::Default, dir.path()).await.unwrap();
    for change in [
        Change::McpConnect,
        Change::McpDisconnect,
        Change::ToolDisable,
        Change::ToolEnable,
    ] {
        let r = row(&run.rows, change);
        assert_eq!(r.kept_bytes, r.prompt_bytes, "{r:?}");
        assert_eq!(r.lost, 0, "{r:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_measure_sees_rewrite_removals_rewrite_the_prefix() {
    // `tool_removal = "rewrite"` omits removed tools with their addition blocks (P-6): the
    // request after a disconnect or a disable re-sends the history since the addition, and
    // the measure that reads 0 for the default reads the loss here.
    let dir = tempfile::tempdir().unwrap();
    let run = run(Removal::Rewrite, dir.path()).await.unwrap();
    for change in [Change::McpDisconnect, Change::ToolDisable] {
        let r = row(&run.rows, change);
        assert!(r.kept_bytes < r.prompt_bytes, "{r:?}");
        assert!(r.lost > 0, "{r:?}");
    }
    for change in [
        Change::ModeReadOnly,
        Change::Effort,
        Change::AgentsMd,
        Change::Fork,
    ] {
        let r = row(&run.rows, change);
        assert_eq!(r.lost, 0, "{r:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rewind_over_a_tool_and_a_prompt_change_repeats_the_prefix_and_appends_both_again() {
    // On the catalog's entry: after prompt 2 an MCP server connects and the prompt changes,
    // both logged after prompt 3. Rewinding to prompt 3 takes them back with it; the request
    // after the rewind repeats request 2's prompt up to prompt 3 and appends them again.
    let sim = sim::start(SimConfig::default()).await.unwrap();
    let text = ConfigBuilder::with_provider(
        "sim",
        "deepseek-messages",
        &format!("{}/anthropic", sim.base_url()),
    )
    .key_env("DEEPTERM_REWIND_SERIES_KEY_UNUSED")
    .text();
    let route = Config::parse(&text, None)
        .unwrap()
        .resolve_route(None)
        .unwrap();
    let prompt = Arc::new(Mutex::new("You are a test assistant.".to_string()));
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let mut agent = prompt_agent("rewind-series", route, ApiKey::new("sk-r"), &prompt, tx);
    let bg = agent.background_sender();
    let fs = |name: &str| {
        let params =
            serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}}});
        tool(
            schema(name, "Read a file of the workspace.", params),
            Arc::new(FnTool(|_| deepterm::tools::ToolOutcome::ok("text"))),
        )
    };
    register(&bg, "base", vec![fs("base__read")]);
    for n in 1..=2 {
        sim.push_reply(ScriptedReply::text("OK"));
        let line = driver::user_text(n);
        assert_eq!(agent.handle_line(&line).await.error, None);
    }
    register(&bg, "fs", vec![fs("fs__read")]);
    prompt.lock().unwrap().push_str(" Prefer short answers.");
    sim.push_reply(ScriptedReply::text("OK"));
    assert_eq!(agent.handle_line(&driver::user_text(3)).await.error, None);
    assert_eq!(
        agent.handle_line("/rewind 3 conversation").await.error,
        None
    );
    sim.push_reply(ScriptedReply::text("OK"));
    assert_eq!(agent.handle_line(&driver::user_text(4)).await.error, None);
    let reqs = sim.requests();
    assert_eq!(reqs.len(), 4);
    let kept = render_before_last_user(&reqs[2]);
    let after = render(&reqs[3]);
    assert!(after.starts_with(&kept), "{kept}\n---\n{after}");
    let appended = &after[kept.len()..];
    assert!(
        appended.contains("\"fs__read\""),
        "the tool is added again: {appended}"
    );
    assert!(appended.contains("Prefer short answers."), "{appended}");
    let cache = reqs[3].cache.as_ref().unwrap();
    assert!(
        cache.hit_tokens >= (kept.len() as u64 / 256) * 64,
        "{cache:?}"
    );
}
