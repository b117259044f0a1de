//! `/mcp [connect|disconnect NAME]`: the loop's side of the command (the servers'
//! answers come from `crate::tools::mcp::McpManager`'s `*_reply` methods).

use crate::agent::command_spec::McpAction;
use crate::agent::commands::CommandContext;
use crate::agent::protocol::{AgentEvent, Notice, NoticeLevel};
use crate::agent::turn::LineOutcome;
use crate::i18n::{Arg, Text};
use crate::tools::mcp::McpReply;

impl CommandContext<'_> {
    /// Handles `/mcp …` and applies the resulting background changes before returning, so
    /// the next line already sees the new tools.
    pub(crate) async fn mcp_command(&mut self, action: McpAction) -> LineOutcome {
        // In the TUI a connect must not hold up the loop (a server may take seconds to
        // start): it runs in the background, its status changes reach the log through the
        // background channel, and the outcome arrives as a notice. `exec` waits, so the
        // next script line sees the new tools.
        // An unknown name is answered at once below ("no such server"), with no
        // "connecting…" before it.
        if let Some(m) = self.mcp()
            && self.is_interactive()
            && let McpAction::Connect { server } = &action
            && m.is_configured(server)
        {
            let events = self.events.clone();
            let server = server.clone();
            self.events.emit(Notice::new(
                NoticeLevel::Info,
                "mcp-connecting",
                vec![("name", Arg::from(server.as_str()))],
            ));
            tokio::spawn(async move {
                let (level, key, args) = match m.connect_reply(&server).await {
                    McpReply::Info(k, a) => (NoticeLevel::Info, k, a),
                    // A failed connect is logged as the server's `mcp/status`, which Chat
                    // shows live and on resume: one fact, one notice.
                    McpReply::Failed(_) => return,
                    McpReply::Warn(k, a) => (NoticeLevel::Warn, k, a),
                    McpReply::Output(lines) => {
                        events.emit(AgentEvent::Output(lines));
                        return;
                    }
                };
                events.emit(Notice::new(level, key, args));
            });
            return LineOutcome::default();
        }
        if let Some(m) = self.mcp()
            && let McpAction::Login { server } = &action
        {
            return self.mcp_login(m, server.clone()).await;
        }
        // What removing its tools costs the cache, said before they go (§14.5).
        if let Some(m) = self.mcp()
            && let McpAction::Disconnect { server } | McpAction::Logout { server } = &action
        {
            let active: Vec<String> = m
                .server_tools(server)
                .into_iter()
                .filter(|t| self.registry_mut().is_active(t))
                .collect();
            self.warn_removal_cost(&active);
        }
        let reply = match (self.mcp(), action) {
            (None, _) => McpReply::Output(vec![Text::new("mcp-none-configured", vec![])]),
            (Some(m), McpAction::Status) => m.status_reply(),
            (Some(m), McpAction::Connect { server }) => m.connect_reply(&server).await,
            (Some(m), McpAction::Disconnect { server }) => m.disconnect_reply(&server),
            (Some(m), McpAction::Logout { server }) => m.logout_reply(&server),
            (Some(m), McpAction::Resources { server }) => {
                m.resources_reply(server.as_deref()).await
            }
            // Handled above.
            (Some(_), McpAction::Login { .. }) => return LineOutcome::default(),
        };
        if let Err(e) = self.runner().drain_background() {
            self.events.emit(Notice::new(
                NoticeLevel::Error,
                "agent-session-error",
                vec![("error", Arg::from(e.text()))],
            ));
        }
        match reply {
            McpReply::Output(lines) => {
                self.events.emit(AgentEvent::Output(lines));
                LineOutcome::default()
            }
            McpReply::Info(key, args) => self.info(key, args),
            McpReply::Warn(key, args) => self.warn(key, args),
            McpReply::Failed(args) => self.warn(McpReply::FAILED, args),
        }
    }
}

impl CommandContext<'_> {
    /// `/mcp login NAME`: the authorization URL is shown as soon as it is known; the TUI
    /// goes on while the browser is out (the outcome arrives as a notice), `exec` waits.
    async fn mcp_login(&mut self, m: crate::tools::mcp::McpManager, server: String) -> LineOutcome {
        let events = self.events.clone();
        let name = server.clone();
        let show = move |url: String| {
            events.emit(Notice::new(
                NoticeLevel::Info,
                "mcp-login-open",
                vec![("name", Arg::from(name.as_str())), ("url", Arg::from(url))],
            ));
            events.emit(Notice::new(
                NoticeLevel::Info,
                "mcp-login-waiting",
                vec![(
                    "seconds",
                    Arg::from(crate::tools::mcp::LOGIN_WAIT.as_secs()),
                )],
            ));
        };
        if self.is_interactive() {
            let events = self.events.clone();
            tokio::spawn(async move {
                let reply = m.login_reply(&server, show).await;
                if let Some(n) = reply_notice(reply) {
                    events.emit(n);
                }
            });
            return LineOutcome::default();
        }
        let reply = m.login_reply(&server, show).await;
        if let Err(e) = self.runner().drain_background() {
            self.events.emit(Notice::new(
                NoticeLevel::Error,
                "agent-session-error",
                vec![("error", Arg::from(e.text()))],
            ));
        }
        match reply {
            McpReply::Info(key, args) => self.info(key, args),
            McpReply::Warn(key, args) => self.warn(key, args),
            other => {
                if let Some(n) = reply_notice(other) {
                    self.events.emit(n);
                }
                LineOutcome::default()
            }
        }
    }
}

/// A login's reply as one notice.
fn reply_notice(reply: McpReply) -> Option<Notice> {
    match reply {
        McpReply::Info(k, a) => Some(Notice::new(NoticeLevel::Info, k, a)),
        McpReply::Warn(k, a) => Some(Notice::new(NoticeLevel::Warn, k, a)),
        McpReply::Failed(a) => Some(Notice::new(NoticeLevel::Warn, McpReply::FAILED, a)),
        McpReply::Output(_) => None,
    }
}
