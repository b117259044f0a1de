//! The real terminal UI driven in tmux: the smoke test, a panic in the agent, and the
//! daily-use and key scenarios at 80 and 120 columns in both locales. Skipped (with a
//! message) when `tmux` is not installed, or failed under `DEEPTERM_REQUIRE_EXTERNAL=1`.

#[path = "../common/mod.rs"]
mod common;

// libtest starts tests in name order: the 30-second MCP churn scenario, the longest, is
// named to start first so the others run beside it rather than after it.
mod churn;
mod daily;
mod keys;
mod loop_panic;
mod signals;
mod smoke;
