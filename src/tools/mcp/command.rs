//! `/mcp`, `/mcp connect NAME`, `/mcp disconnect NAME`: what the servers answer. The
//! loop's handler (`crate::agent::commands`) turns the reply into events.

use super::{McpError, McpManager};
use crate::i18n::{Arg, Text};
use crate::session::event::McpState;

/// What an `/mcp` command produced.
#[derive(Debug, Clone, PartialEq)]
pub enum McpReply {
    /// Lines to show (`/mcp`), rendered when drawn.
    Output(Vec<Text>),
    /// An informational notice (Fluent id and arguments).
    Info(&'static str, Vec<(&'static str, Arg)>),
    /// A warning notice; the command failed.
    Warn(&'static str, Vec<(&'static str, Arg)>),
    /// The server could not be connected (`mcp-connect-failed`'s arguments). Its logged
    /// `mcp/status` says so as well, which is what the TUI's Chat shows.
    Failed(Vec<(&'static str, Arg)>),
}

impl McpReply {
    /// The Fluent id of [`McpReply::Failed`].
    pub const FAILED: &'static str = "mcp-connect-failed";
}

fn unknown(e: McpError) -> McpReply {
    match e {
        McpError::UnknownServer(n) => {
            McpReply::Warn("mcp-unknown-server", vec![("name", n.into())])
        }
    }
}

impl McpManager {
    /// `/mcp`: the servers and their states.
    pub fn status_reply(&self) -> McpReply {
        McpReply::Output(self.status_text())
    }

    /// `/mcp connect NAME`: resolves once the server is connected or has failed.
    pub async fn connect_reply(&self, name: &str) -> McpReply {
        match self.connect(name).await {
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
            Ok(_) => McpReply::Failed(vec![
                ("name", name.into()),
                (
                    "error",
                    self.last_error(name)
                        .map(Arg::from)
                        .unwrap_or_else(|| Arg::from("")),
                ),
            ]),
            Err(e) => unknown(e),
        }
    }

    /// `/mcp disconnect NAME`.
    pub fn disconnect_reply(&self, name: &str) -> McpReply {
        match self.disconnect(name) {
            Ok(true) => McpReply::Info("mcp-disconnected", vec![("name", name.into())]),
            Ok(false) => McpReply::Info("mcp-not-running", vec![("name", name.into())]),
            Err(e) => unknown(e),
        }
    }

    fn tool_count(&self, name: &str) -> usize {
        self.inner
            .servers
            .get(name)
            .map(|s| s.lock().tools.len())
            .unwrap_or(0)
    }

    /// The model-facing names of the tools `name` has registered.
    pub fn server_tools(&self, name: &str) -> Vec<String> {
        self.inner
            .servers
            .get(name)
            .map(|s| s.lock().tools.iter().map(|(m, _)| m.clone()).collect())
            .unwrap_or_default()
    }

    /// The last error a server reported, if any.
    pub fn last_error(&self, name: &str) -> Option<Text> {
        self.inner
            .servers
            .get(name)
            .and_then(|s| s.lock().last_error.clone())
    }
}
