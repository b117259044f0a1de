//! Background changes (tool sources, MCP status) applied at attempt boundaries or at
//! once while idle, and the MCP servers the loop reports through them.

use super::*;

impl Agent {
    /// A sender for background changes (tool sources, MCP status).
    pub fn background_sender(&self) -> mpsc::UnboundedSender<Background> {
        self.bg_tx.clone()
    }

    /// Applies queued background changes: tool sources change the registry (the next
    /// request logs the difference as usual), MCP status changes are logged.
    pub fn drain_background(&mut self) -> Result<(), AgentError> {
        while let Ok(bg) = self.bg_rx.try_recv() {
            self.apply_background(bg)?;
        }
        self.warn_dropped_tools();
        Ok(())
    }

    /// Warns when the route's tool limit leaves enabled tools undeclared, naming their
    /// sources and the first few names; once per change of the dropped set.
    pub(super) fn warn_dropped_tools(&mut self) {
        let dropped = self.tools.registry().dropped();
        let names: Vec<String> = dropped.iter().map(|d| d.name.clone()).collect();
        if names == self.dropped_tools {
            return;
        }
        self.dropped_tools = names;
        if dropped.is_empty() {
            return;
        }
        let mut sources: Vec<&ToolSource> = dropped.iter().map(|d| &d.source).collect();
        sources.sort();
        sources.dedup();
        let sources: Vec<String> = sources.iter().map(|s| s.localized(self.l)).collect();
        const SHOWN: usize = 5;
        let mut shown: Vec<&str> = dropped
            .iter()
            .take(SHOWN)
            .map(|d| d.name.as_str())
            .collect();
        if dropped.len() > SHOWN {
            shown.push("…");
        }
        self.events.emit(Notice::new(
            NoticeLevel::Warn,
            "tools-limit-dropped",
            vec![
                ("count", Arg::from(dropped.len())),
                ("limit", Arg::from(self.tools.registry().max_tools())),
                (
                    "sources",
                    Arg::List(sources.iter().map(|s| s.to_string()).collect()),
                ),
                (
                    "names",
                    Arg::List(shown.iter().map(|s| s.to_string()).collect()),
                ),
            ],
        ));
    }

    pub(super) fn apply_background(&mut self, bg: Background) -> Result<(), AgentError> {
        match bg {
            Background::Tools { source, tools } => {
                self.tools.registry_mut().set_source_tools(source, tools);
                self.warn_name_clashes();
                self.report_tool_change();
                Ok(())
            }
            Background::LatestTools { source, slot } => {
                if let Some(tools) = slot.take() {
                    self.tools.registry_mut().set_source_tools(source, tools);
                    self.warn_name_clashes();
                    self.report_tool_change();
                }
                Ok(())
            }
            Background::Warning(t) => {
                // Like a status error, it may quote what a server sent.
                let args = t
                    .args
                    .into_iter()
                    .map(|(k, v)| match v {
                        Arg::Str(s) => (k, Arg::Str(self.tools.redact(&s))),
                        other => (k, other),
                    })
                    .collect();
                self.events.emit(AgentEvent::Notice(Notice {
                    level: NoticeLevel::Warn,
                    key: t.key,
                    args,
                }));
                Ok(())
            }
            Background::Mcp(mut status) => {
                // A server's stderr line may quote a key it was given explicitly.
                status.error = status.error.map(|e| self.tools.redact(&e));
                status.detail = status.detail.map(|t| {
                    Box::new(crate::tools::mcp::failure::redact_text(*t, &|s| {
                        self.tools.redact(s)
                    }))
                });
                self.push(EventKind::McpStatus(status))
            }
        }
    }

    /// Attaches the MCP servers (`/mcp`); they report through [`Agent::background_sender`].
    pub fn set_mcp(&mut self, m: crate::tools::mcp::McpManager) {
        self.mcp = Some(m);
    }

    /// `exec`: waits (at most `limit`) for the MCP servers with `enabled = true` to be
    /// connected or failed, so the first line's requests declare their tools; warns
    /// about each server that is not connected, by name.
    pub async fn wait_for_mcp(&mut self, limit: std::time::Duration) {
        let Some(mcp) = self.mcp.clone() else { return };
        for s in mcp.wait_enabled(limit).await {
            let error = s.error.map(Arg::from).unwrap_or_else(|| Arg::from(""));
            if s.timed_out {
                self.events.emit(Notice::new(
                    NoticeLevel::Warn,
                    "exec-mcp-timeout",
                    vec![
                        ("name", Arg::from(s.name)),
                        ("seconds", Arg::from(limit.as_secs())),
                    ],
                ));
            } else {
                self.events.emit(Notice::new(
                    NoticeLevel::Warn,
                    "exec-mcp-failed",
                    vec![("name", Arg::from(s.name)), ("error", error)],
                ));
            }
        }
        if let Err(e) = self.drain_background() {
            self.events.emit(Notice::new(
                NoticeLevel::Error,
                "agent-session-error",
                vec![("error", Arg::from(e.text()))],
            ));
        }
    }

    /// The MCP servers, if attached.
    pub fn mcp(&self) -> Option<crate::tools::mcp::McpManager> {
        self.mcp.clone()
    }
}
