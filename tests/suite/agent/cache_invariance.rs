//! Cache invariance of the session changes (SPEC §9, §14; decision 0102): one scripted
//! session through the real loop against the simulator applies every change once, and on
//! `deepseek-flash` with `tool_removal = "retain"` each one costs the cache only the bytes
//! it appends: the request after it repeats its baseline's prompt byte for byte and the
//! simulator serves all of it. Only a switch to another route and `/compact` may lose.
//! The script and the measure are shared with `examples/cache_churn.rs`, which prints them
//! as the table in docs/benchmarks.md.

#[path = "../../support/cache_invariance.rs"]
mod driver;

use driver::{Change, Removal, Row, render, run};

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
async fn the_same_measure_sees_the_default_removals_rewrite_the_prefix() {
    // The catalog's entry omits removed tools with their addition blocks (P-6): the request
    // after a disconnect or a disable re-sends the history since the addition, and the
    // measure that reads 0 for retain reads the loss here.
    let dir = tempfile::tempdir().unwrap();
    let run = run(Removal::Default, dir.path()).await.unwrap();
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
