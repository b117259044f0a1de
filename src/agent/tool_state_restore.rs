//! Resume restores the session's tool state.
//!
//! The log does not record `/tool` or `/mcp` commands, only what the model was offered:
//! the declared tools of every `request/header` and the tool-change developer messages
//! (the tool-history fold), and every `mcp/status` (with the server's tool names). Resume
//! enables the tools available at the end of the log that the first request did not
//! declare (the session enabled them), disables every tool the session knew (declared at
//! some point, listed by a server, or built in) that is not available at the end, and
//! re-connects (or keeps disconnected) the MCP servers the log ends with. The config itself
//! is not restored: a tool the config no longer has, or one it newly disables, is a real
//! change and the next request logs it. An unchanged resume therefore logs no tool change,
//! and its first request declares the same tools as the last one before (cache kept).
//! See docs/decisions/0020-resume-tool-state.md.

use std::collections::{BTreeMap, BTreeSet};

use crate::agent::commands::CommandContext;
use crate::session::event::{EventKind, McpState};
use crate::session::vocab::BUILTIN_TOOL_NAMES;

/// The built-ins every session has had: known even before a request declared them.
const ORIGINAL_BUILTINS: [&str; 3] = ["grep", "list_dir", "read_file"];
use crate::session::{Session, SessionError};

/// What resuming a session changes in the registry and the MCP servers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolRestore {
    /// Tools the session enabled (available at its end, not declared by its first request).
    pub enable: Vec<String>,
    /// Tools the session disabled (declared by its first request, not available at its end).
    pub disable: Vec<String>,
    /// MCP servers connected (or connecting) at the end of the log.
    pub connect: Vec<String>,
    /// MCP servers the log ends with disconnected.
    pub disconnect: Vec<String>,
}

impl ToolRestore {
    /// Whether resuming changes nothing.
    pub fn is_empty(&self) -> bool {
        self.enable.is_empty()
            && self.disable.is_empty()
            && self.connect.is_empty()
            && self.disconnect.is_empty()
    }
}

/// The tool state to restore from `session`'s log (pure: reads the log and the fold).
pub fn plan_restore(session: &mut Session) -> Result<ToolRestore, SessionError> {
    let Some(last) = session.available_tool_names()? else {
        return Ok(ToolRestore::default());
    };
    let last: BTreeSet<String> = last.into_iter().collect();
    // Tools the session knew when it last sent a request: every name a request declared or
    // a server listed before that, and the built-ins (always registered). One of them not
    // available at the end was disabled. A server's list after the last request was never
    // offered: those tools come back as the server registers them.
    // The acting tools (SPEC §14.1) came later than the read-only built-ins: a session
    // whose requests never declared them did not have them, so they are not "disabled" on
    // resume; they are known once a request declared them.
    let mut known: BTreeSet<String> = BUILTIN_TOOL_NAMES
        .iter()
        .filter(|n| ORIGINAL_BUILTINS.contains(n))
        .map(|n| n.to_string())
        .collect();
    let mut listed: BTreeSet<String> = BTreeSet::new();
    let mut first: Option<BTreeSet<String>> = None;
    let mut servers: BTreeMap<String, McpState> = BTreeMap::new();
    for e in session.events() {
        match &e.kind {
            EventKind::RequestHeader(h) => {
                known.append(&mut listed);
                let names: BTreeSet<String> = h
                    .header
                    .tools
                    .iter()
                    .flatten()
                    .map(|t| t.name.clone())
                    .collect();
                known.extend(names.iter().cloned());
                first.get_or_insert(names);
            }
            EventKind::McpStatus(st) => {
                listed.extend(st.tools.iter().flatten().cloned());
                servers.insert(st.server.clone(), st.state);
            }
            _ => {}
        }
    }
    let first = first.unwrap_or_default();
    let mut plan = ToolRestore {
        enable: last.difference(&first).cloned().collect(),
        disable: known.difference(&last).cloned().collect(),
        ..ToolRestore::default()
    };
    for (server, state) in servers {
        match state {
            McpState::Connected | McpState::Connecting => plan.connect.push(server),
            McpState::Disconnected => plan.disconnect.push(server),
            McpState::Failed => {}
        }
    }
    Ok(plan)
}

impl CommandContext<'_> {
    /// Re-establishes the open session's tool state from its log (at start with
    /// `--resume`, and on `/resume ID`); a new session changes nothing.
    pub fn restore_tool_state(&mut self) {
        self.restore_mode();
        let plan = match plan_restore(self.session_mut()) {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!("could not restore the session's tools: {e}");
                return;
            }
        };
        if plan.is_empty() {
            return;
        }
        for name in &plan.enable {
            self.registry_mut().restore_enabled(name, true);
        }
        for name in &plan.disable {
            self.registry_mut().restore_enabled(name, false);
        }
        if let Some(mcp) = self.mcp() {
            for name in &plan.connect {
                mcp.restore(name, true);
            }
            for name in &plan.disconnect {
                mcp.restore(name, false);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::event::{Block, HeaderReason, McpStatus};
    use crate::session::tests::{dev_kind, header_kind, tool};

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn status(server: &str, state: McpState, tools: &[&str]) -> EventKind {
        EventKind::McpStatus(McpStatus {
            server: server.into(),
            state,
            tools: (!tools.is_empty()).then(|| names(tools)),
            error: None,
            detail: None,
        })
    }

    #[test]
    fn fold_gives_the_session_changes_to_restore() {
        let mut s = Session::new("s1", "/tmp");
        assert!(plan_restore(&mut s).unwrap().is_empty(), "new session");
        let (g, r, w, f) = (
            tool("grep"),
            tool("read_file"),
            tool("word_count"),
            tool("fs__read"),
        );
        s.push(header_kind(
            &[g.clone(), r.clone()],
            HeaderReason::Initial,
            false,
        ))
        .unwrap();
        // `/mcp connect fs`, `/tool disable fs__write`, `/tool enable word_count`,
        // `/tool disable grep`, then a message: one developer message.
        s.push(status(
            "fs",
            McpState::Connected,
            &["fs__read", "fs__write"],
        ))
        .unwrap();
        let h = s
            .push(header_kind(
                &[f.clone(), r.clone(), w.clone()],
                HeaderReason::Change,
                false,
            ))
            .unwrap()
            .seq;
        s.push(dev_kind(
            vec![
                Block::addition("fs__read"),
                Block::addition("word_count"),
                Block::removal("grep"),
            ],
            Some(h),
        ))
        .unwrap();
        // After the last request: a server connected (never offered) and one disconnected.
        s.push(status("web", McpState::Connected, &["web__late"]))
            .unwrap();
        s.push(status("old", McpState::Disconnected, &[])).unwrap();
        let plan = plan_restore(&mut s).unwrap();
        assert_eq!(plan.enable, names(&["fs__read", "word_count"]));
        // grep and fs__write were turned off; list_dir (a built-in) was never offered;
        // web__late was never offered either, so it is left to its server. The acting
        // tools are newer than this session's requests: they stay on.
        assert_eq!(plan.disable, names(&["fs__write", "grep", "list_dir"]));
        assert_eq!(plan.connect, names(&["fs", "web"]));
        assert_eq!(plan.disconnect, names(&["old"]));
    }

    #[test]
    fn restored_registry_declares_the_last_tools() {
        use crate::tools::registry::{RegisteredTool, ToolRegistry, ToolSource};
        use crate::tools::{Approval, ToolExecutor, ToolOutcome};
        struct Nop;
        impl ToolExecutor for Nop {
            fn call<'a>(
                &'a self,
                _: serde_json::Value,
                _: &'a tokio_util::sync::CancellationToken,
            ) -> futures_util::future::BoxFuture<'a, ToolOutcome> {
                Box::pin(async { ToolOutcome::ok("") })
            }
        }
        let reg = |name: &str, enabled: bool| RegisteredTool {
            schema: tool(name),
            approval: Approval::Never,
            enabled,
            executor: std::sync::Arc::new(Nop),
            parallel_safe: true,
        };
        let mut registry = ToolRegistry::new();
        registry.set_source_tools(
            ToolSource::Builtin,
            vec![reg("grep", true), reg("read_file", true)],
        );
        registry.set_source_tools(ToolSource::Command, vec![reg("word_count", false)]);
        let plan = ToolRestore {
            enable: names(&["word_count"]),
            disable: names(&["grep"]),
            ..ToolRestore::default()
        };
        for n in &plan.enable {
            registry.restore_enabled(n, true);
        }
        for n in &plan.disable {
            registry.restore_enabled(n, false);
        }
        let active: Vec<String> = registry
            .active_tools()
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(active, names(&["read_file", "word_count"]));
        // A choice for a tool no source has registered yet holds when it arrives.
        registry.restore_enabled("fs__write", false);
        registry.set_source_tools(ToolSource::Mcp("fs".into()), vec![reg("fs__write", true)]);
        assert!(!registry.is_active("fs__write"));
    }
}
