//! `/mcp`, `/mcp connect NAME`, `/mcp disconnect NAME`.

use super::{McpError, McpManager};
use crate::agent::protocol::{AgentEvent, NoticeLevel};
use crate::agent::run::{Agent, LineOutcome};
use crate::i18n::{Arg, Localizer};
use crate::session::event::McpState;

/// What an `/mcp` command produced.
#[derive(Debug, Clone, PartialEq)]
pub enum McpReply {
    /// Lines to show (`/mcp`).
    Output(Vec<String>),
    /// An informational notice (Fluent id and arguments).
    Info(&'static str, Vec<(&'static str, Arg)>),
    /// A warning notice; the command failed.
    Warn(&'static str, Vec<(&'static str, Arg)>),
}

fn unknown(e: McpError) -> McpReply {
    match e {
        McpError::UnknownServer(n) => {
            McpReply::Warn("mcp-unknown-server", vec![("name", n.into())])
        }
    }
}

impl McpManager {
    /// Runs `/mcp [connect|disconnect NAME]` (`rest` is what follows `/mcp`). `connect`
    /// resolves once the server is connected or has failed.
    pub async fn command(&self, rest: &str, l: Localizer) -> McpReply {
        let mut parts = rest.split_whitespace();
        match (parts.next(), parts.next(), parts.next()) {
            (None, _, _) => McpReply::Output(self.status_lines(l)),
            (Some("connect"), Some(name), None) => match self.connect(name).await {
                Ok(McpState::Connected) => {
                    let count = self.tool_count(name);
                    McpReply::Info(
                        "mcp-connected",
                        vec![("name", name.into()), ("count", count.into())],
                    )
                }
                Ok(McpState::Disconnected) => {
                    McpReply::Info("mcp-disconnected", vec![("name", name.into())])
                }
                Ok(_) => McpReply::Warn(
                    "mcp-connect-failed",
                    vec![
                        ("name", name.into()),
                        ("error", self.last_error(name).unwrap_or_default().into()),
                    ],
                ),
                Err(e) => unknown(e),
            },
            (Some("disconnect"), Some(name), None) => match self.disconnect(name) {
                Ok(true) => McpReply::Info("mcp-disconnected", vec![("name", name.into())]),
                Ok(false) => McpReply::Info("mcp-not-running", vec![("name", name.into())]),
                Err(e) => unknown(e),
            },
            _ => McpReply::Warn("mcp-usage", vec![]),
        }
    }

    fn tool_count(&self, name: &str) -> usize {
        self.inner
            .servers
            .get(name)
            .map(|s| s.lock().tools.len())
            .unwrap_or(0)
    }

    /// The last error a server reported, if any.
    pub fn last_error(&self, name: &str) -> Option<String> {
        self.inner
            .servers
            .get(name)
            .and_then(|s| s.lock().last_error.clone())
    }
}

impl Agent {
    /// Handles `/mcp …` and applies the resulting background changes before returning, so
    /// the next line already sees the new tools.
    pub(crate) async fn mcp_command(&mut self, rest: &str) -> LineOutcome {
        let l = self.localizer();
        // In the TUI a connect must not hold up the loop (a server may take seconds to
        // start): it runs in the background, its status changes reach the log through the
        // background channel, and the outcome arrives as a notice. `exec` waits, so the
        // next script line sees the new tools.
        if let Some(m) = self.mcp()
            && self.is_interactive()
            && rest.split_whitespace().next() == Some("connect")
        {
            let tx = self.event_sender();
            let rest = rest.to_string();
            self.emit_notice(
                NoticeLevel::Info,
                "mcp-connecting",
                vec![("name", Arg::from(rest.trim_start_matches("connect").trim()))],
            );
            tokio::spawn(async move {
                let (level, key, args) = match m.command(&rest, l).await {
                    McpReply::Info(k, a) => (NoticeLevel::Info, k, a),
                    McpReply::Warn(k, a) => (NoticeLevel::Warn, k, a),
                    McpReply::Output(lines) => {
                        let _ = tx.send(AgentEvent::Output(lines));
                        return;
                    }
                };
                let _ = tx.send(AgentEvent::Notice(crate::agent::protocol::Notice::new(
                    level, key, args,
                )));
            });
            return LineOutcome::default();
        }
        let reply = match self.mcp() {
            Some(m) => m.command(rest, l).await,
            None => McpReply::Output(vec![l.tr("mcp-none-configured")]),
        };
        if let Err(e) = self.drain_background() {
            self.emit_notice(
                NoticeLevel::Error,
                "agent-session-error",
                vec![("error", Arg::from(e.to_string()))],
            );
        }
        match reply {
            McpReply::Output(lines) => {
                self.emit_event(AgentEvent::Output(lines));
                LineOutcome::default()
            }
            McpReply::Info(key, args) => self.info(key, args),
            McpReply::Warn(key, args) => self.warn(key, args),
        }
    }
}
