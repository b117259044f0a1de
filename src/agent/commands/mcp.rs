//! `/mcp [connect|disconnect NAME]`: the loop's side of the command (the servers'
//! answers come from [`crate::tools::mcp::McpManager::command`]).

use crate::agent::protocol::{AgentEvent, Notice, NoticeLevel};
use crate::agent::run::{Agent, LineOutcome};
use crate::i18n::{Arg, Text};
use crate::tools::mcp::McpReply;

impl Agent {
    /// Handles `/mcp …` and applies the resulting background changes before returning, so
    /// the next line already sees the new tools.
    pub(crate) async fn mcp_command(&mut self, rest: &str) -> LineOutcome {
        // In the TUI a connect must not hold up the loop (a server may take seconds to
        // start): it runs in the background, its status changes reach the log through the
        // background channel, and the outcome arrives as a notice. `exec` waits, so the
        // next script line sees the new tools.
        // An unknown name is answered at once below ("no such server"), with no
        // "connecting…" before it.
        let mut words = rest.split_whitespace();
        let (connect_to, disconnect_from) = match (words.next(), words.next(), words.next()) {
            (Some("connect"), Some(name), None) => (Some(name), None),
            (Some("disconnect"), Some(name), None) => (None, Some(name)),
            _ => (None, None),
        };
        if let Some(m) = self.mcp()
            && self.is_interactive()
            && connect_to.is_some_and(|n| m.is_configured(n))
        {
            let tx = self.event_sender();
            let rest = rest.to_string();
            self.emit_notice(
                NoticeLevel::Info,
                "mcp-connecting",
                vec![("name", Arg::from(rest.trim_start_matches("connect").trim()))],
            );
            tokio::spawn(async move {
                let (level, key, args) = match m.command(&rest).await {
                    McpReply::Info(k, a) => (NoticeLevel::Info, k, a),
                    McpReply::Warn(k, a) => (NoticeLevel::Warn, k, a),
                    McpReply::Output(lines) => {
                        let _ = tx.send(AgentEvent::Output(lines));
                        return;
                    }
                };
                let _ = tx.send(AgentEvent::Notice(Notice::new(level, key, args)));
            });
            return LineOutcome::default();
        }
        // What removing its tools costs the cache, said before they go (§14.5).
        if let Some(m) = self.mcp()
            && let Some(name) = disconnect_from
        {
            let active: Vec<String> = m
                .server_tools(name)
                .into_iter()
                .filter(|t| self.registry_mut().is_active(t))
                .collect();
            self.warn_removal_cost(&active);
        }
        let reply = match self.mcp() {
            Some(m) => m.command(rest).await,
            None => McpReply::Output(vec![Text::new("mcp-none-configured", vec![])]),
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
