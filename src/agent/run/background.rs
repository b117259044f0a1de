//! Background changes (tool sources, MCP status) applied at attempt boundaries or at
//! once while idle, and the MCP servers the loop reports through them.

use super::*;

impl Agent {
    /// A sender for background changes (tool sources, MCP status), for what reports to
    /// the agent after it is built.
    pub fn background_sender(&self) -> mpsc::UnboundedSender<Background> {
        self.bg.tx.clone()
    }

    /// `exec`: waits (at most `limit`) for the MCP servers with `enabled = true` to be
    /// connected or failed, so the first line's requests declare their tools; warns
    /// about each server that is not connected, by name.
    pub async fn wait_for_mcp(&mut self, limit: std::time::Duration) {
        let Some(mcp) = self.bg.mcp.clone() else {
            return;
        };
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
        if let Err(e) = self.runner().drain_background() {
            self.events.emit(Notice::new(
                NoticeLevel::Error,
                "agent-session-error",
                vec![("error", Arg::from(e.text()))],
            ));
        }
    }

    /// The MCP servers, if attached.
    pub fn mcp(&self) -> Option<crate::tools::mcp::McpManager> {
        self.bg.mcp.clone()
    }
}
