//! The real terminal UI driven in tmux: the smoke test, a panic in the agent, and the
//! daily-use and key scenarios at 80 and 120 columns in both locales. Skipped (with a
//! message) when `tmux` is not installed, or failed under `DEEPTERM_REQUIRE_EXTERNAL=1`.

#[path = "../common/mod.rs"]
mod common;

mod daily;
mod keys;
mod loop_panic;
mod mcp_churn;
mod signals;
mod smoke;
