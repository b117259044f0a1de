//! Tools the model can call: the registry of active tools and its sources (built-in
//! read-only tools, config-declared command tools, and later MCP servers).
//!
//! Tool errors returned to the model are plain English and stable (R-5's
//! `unknown tool "NAME"` must match exactly); only user-facing listings are localized.

pub mod bridge;
pub mod builtin;
pub mod child_env;
pub mod child_process;
pub mod command;
pub mod edit;
pub mod mcp;
pub mod plan;
pub mod progress;
pub mod registry;
mod setup;
pub mod shell;
pub mod source;
pub mod walk;

use std::future::Future;
use std::time::Duration;

use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

pub use registry::{
    PreparedCall, RegisteredTool, ToolError, ToolListing, ToolRegistry, ToolSource,
};

pub use crate::session::vocab::{Approval, BUILTIN_TOOL_NAMES};

/// The result of one tool call, as the model will see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutcome {
    /// Result text (or the error text).
    pub content: String,
    /// Whether this is a tool error.
    pub is_error: bool,
}

impl ToolOutcome {
    /// A successful result.
    pub fn ok(content: impl Into<String>) -> Self {
        ToolOutcome {
            content: content.into(),
            is_error: false,
        }
    }

    /// A tool error.
    pub fn error(content: impl Into<String>) -> Self {
        ToolOutcome {
            content: content.into(),
            is_error: true,
        }
    }
}

/// Something that can run a tool call. Arguments arrive parsed (always a JSON object).
pub trait ToolExecutor: Send + Sync {
    /// Runs one call; must stop promptly when `cancel` fires.
    fn call<'a>(
        &'a self,
        arguments: serde_json::Value,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, ToolOutcome>;

    /// What the tool's MCP server says about its behaviour (shown on the approval card
    /// and in `/tools`); `None` for every other tool.
    fn hints(&self) -> Option<mcp::annotations::ToolHints> {
        None
    }
}

/// Why a guarded tool call stopped before its work finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupted {
    /// The tool's timeout passed.
    TimedOut,
    /// The call was cancelled (the user cancelled the turn).
    Cancelled,
}

/// The deadline every tool call runs under (command tools and built-in tools alike):
/// `work`'s output, unless `timeout` passes or `cancel` fires first. Finished work wins a
/// tie. The caller stops whatever `work` started (kills a process group, cancels a
/// blocking task's token).
pub async fn run_guarded<F: Future>(
    work: F,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<F::Output, Interrupted> {
    tokio::select! {
        biased;
        out = work => Ok(out),
        _ = cancel.cancelled() => Err(Interrupted::Cancelled),
        _ = tokio::time::sleep(timeout) => Err(Interrupted::TimedOut),
    }
}

/// Cuts `s` to at most `max` bytes on a character boundary; returns whether it cut.
pub(crate) fn truncate_utf8(s: &mut String, max: usize) -> bool {
    if s.len() <= max {
        return false;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.truncate(end);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn guard_times_out_cancels_and_lets_finished_work_win() {
        let never = std::future::pending::<()>();
        let t = CancellationToken::new();
        let r = run_guarded(never, Duration::from_millis(20), &t).await;
        assert_eq!(r, Err(Interrupted::TimedOut));
        let c = CancellationToken::new();
        let trigger = c.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            trigger.cancel();
        });
        let r = run_guarded(std::future::pending::<()>(), Duration::from_secs(60), &c).await;
        assert_eq!(r, Err(Interrupted::Cancelled));
        let r = run_guarded(async { 7 }, Duration::ZERO, &c).await;
        assert_eq!(r, Ok(7), "ready work wins over an expired deadline");
    }

    #[test]
    fn truncate_respects_char_boundaries() {
        let mut s = "aé".to_string();
        assert!(truncate_utf8(&mut s, 2));
        assert_eq!(s, "a");
        let mut t = "abc".to_string();
        assert!(!truncate_utf8(&mut t, 3));
    }
}
