//! MCP servers as a tool source (SPEC §3 `[mcp.servers.NAME]`, §5): one rmcp client per
//! configured server over a child process's stdio.
//!
//! Each running server has a supervisor task that connects, lists tools, follows
//! `notifications/tools/list_changed`, and reconnects after a crash with bounded backoff.
//! The supervisor never touches the registry or the session log itself: every change
//! goes to the agent loop as a [`Background`] message (tool batches under
//! [`ToolSource::Mcp`], and `mcp/status` changes), which the loop applies at the next
//! attempt boundary or at once while idle.

pub mod annotations;
mod browser;
mod call;
mod catalog;
mod command;
pub mod content;
pub mod elicit;
pub mod failure;
pub mod listing;
mod login;
pub mod names;
mod offers;
mod options;
pub mod prompts;
mod remote;
mod resources;
mod server;
pub mod stderr_tail;
mod supervise;
pub mod token_store;
pub mod transport;

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

pub use command::McpReply;
pub use login::LOGIN_WAIT;
pub use options::{
    BACKOFF_ENV, DEFAULT_CALL_TIMEOUT_SECS, HEALTHY_AFTER, HEALTHY_ENV, McpOptions,
    REFRESH_INTERVAL,
};
pub use resources::ResourceRead;

use crate::config::McpServerConfig;
use crate::i18n::{Arg, Text};
use crate::session::event::McpState;
use crate::tools::source::{Background, ToolSlot};
use server::{Inner, Phase, Server, State, send_status};
use stderr_tail::StderrTail;
use supervise::supervise;

/// Errors of [`McpManager::connect`] and [`McpManager::disconnect`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    /// No `[mcp.servers.NAME]` with this name.
    #[error("no MCP server named \"{0}\" is configured")]
    UnknownServer(String),
}

/// The configured MCP servers and their connections. Cheap to clone (shared state).
#[derive(Clone)]
pub struct McpManager {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for McpManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpManager")
            .field("servers", &self.inner.servers.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl McpManager {
    /// A manager for the configured servers; nothing starts until
    /// [`McpManager::start_enabled`] or [`McpManager::connect`]. Child processes run in
    /// `workspace`.
    pub fn new(
        configs: BTreeMap<String, McpServerConfig>,
        bg: mpsc::UnboundedSender<Background>,
        workspace: PathBuf,
        options: McpOptions,
    ) -> McpManager {
        let servers = configs
            .into_iter()
            .map(|(name, config)| {
                let server = Server {
                    name: name.clone(),
                    config,
                    st: Mutex::new(State {
                        state: None,
                        tools: Vec::new(),
                        last_error: None,
                        peer: None,
                        run: None,
                        generation: 0,
                    }),
                    phase: watch::Sender::new(Phase::Idle),
                    changes_seen: AtomicU64::new(0),
                    changes_done: watch::Sender::new(0),
                    stderr_tail: Mutex::new(StderrTail::default()),
                    oversize: watch::Sender::new(None),
                    slot: Arc::new(ToolSlot::default()),
                    skipped: Mutex::new(Vec::new()),
                    warned: Mutex::new(HashSet::new()),
                    progress: Mutex::new(Default::default()),
                    catalog: Mutex::new(Default::default()),
                    asking: watch::Sender::new(0),
                };
                (name, Arc::new(server))
            })
            .collect();
        McpManager {
            inner: Arc::new(Inner {
                servers,
                bg,
                options,
                workspace,
                restored: Mutex::new(BTreeMap::new()),
            }),
        }
    }

    /// Starts every server with `enabled = true` in the background; returns at once.
    /// Needs a tokio runtime context (does nothing without one).
    pub fn start_enabled(&self) {
        for (name, s) in &self.inner.servers {
            if s.config.enabled {
                drop(self.connect(name));
            }
        }
    }

    /// Who answers the servers' elicitations; the inbox passes the user's answers here.
    pub fn elicitations(&self) -> elicit::Elicitations {
        self.inner.options.elicitations.clone()
    }

    /// Whether a server named `name` is configured.
    pub fn is_configured(&self, name: &str) -> bool {
        self.inner.servers.contains_key(name)
    }

    /// Starts `name` (if it is not running) and returns a future that resolves once it is
    /// connected or has failed. The start happens when this is called, not when the
    /// future is first polled; a server that is already reconnecting is waited for.
    pub fn connect(
        &self,
        name: &str,
    ) -> impl Future<Output = Result<McpState, McpError>> + Send + 'static {
        let result = self.start(name);
        async move {
            let server = result?;
            let mut rx = server.phase.subscribe();
            let phase = match rx.wait_for(|p| *p != Phase::Busy).await {
                Ok(p) => *p,
                Err(_) => Phase::Failed,
            };
            Ok(match phase {
                Phase::Connected => McpState::Connected,
                Phase::Idle => McpState::Disconnected,
                Phase::Busy | Phase::Failed => McpState::Failed,
            })
        }
    }

    fn start(&self, name: &str) -> Result<Arc<Server>, McpError> {
        let server = self
            .inner
            .servers
            .get(name)
            .cloned()
            .ok_or_else(|| McpError::UnknownServer(name.to_string()))?;
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            tracing::warn!("MCP server {name} not started: no async runtime");
            return Ok(server);
        };
        let mut st = server.lock();
        if st.run.is_some() {
            return Ok(server.clone());
        }
        st.generation += 1;
        let generation = st.generation;
        let token = CancellationToken::new();
        st.run = Some(token.clone());
        st.last_error = None;
        server.phase.send_replace(Phase::Busy);
        send_status(&self.inner, &mut st, name, McpState::Connecting, None);
        drop(st);
        handle.spawn(supervise(
            self.inner.clone(),
            server.clone(),
            generation,
            token,
        ));
        Ok(server)
    }

    /// Re-establishes a resumed session's `/mcp connect` or `/mcp disconnect` of `name`
    ///: starts or stops it, and [`McpManager::wait_enabled`] then waits
    /// for it as for an `enabled = true` server (or not). Returns false for a server the
    /// config no longer has.
    pub fn restore(&self, name: &str, on: bool) -> bool {
        if !self.inner.servers.contains_key(name) {
            return false;
        }
        if let Ok(mut r) = self.inner.restored.lock() {
            r.insert(name.to_string(), on);
        }
        if on {
            drop(self.connect(name));
        } else {
            let _ = self.disconnect(name);
        }
        true
    }

    /// Waits once (at most `limit`) for the servers a resume started to connect or fail, so
    /// the resumed session's first request declares their tools as before.
    /// Later calls return at once.
    pub async fn wait_restored(&self, limit: Duration) {
        let names: Vec<String> = match self.inner.restored.lock() {
            Ok(mut r) => {
                let on: Vec<String> = r
                    .iter()
                    .filter(|(_, on)| **on)
                    .map(|(n, _)| n.clone())
                    .collect();
                r.retain(|_, on| !*on);
                on
            }
            Err(_) => return,
        };
        if names.is_empty() {
            return;
        }
        let deadline = tokio::time::Instant::now() + limit;
        let waits = names.iter().map(|n| {
            let wait = self.connect(n);
            async move {
                let _ = tokio::time::timeout_at(deadline, wait).await;
            }
        });
        futures_util::future::join_all(waits).await;
    }

    /// Whether `name` should be running at start: its restored state, else `enabled`.
    fn wanted(&self, name: &str, s: &Server) -> bool {
        self.inner
            .restored
            .lock()
            .ok()
            .and_then(|r| r.get(name).copied())
            .unwrap_or(s.config.enabled)
    }

    /// Waits until every server with `enabled = true` is connected or has failed, for at
    /// most `limit` in all (`exec` runs its first line only then, so the first request
    /// declares their tools). Returns the servers that are not connected, in config order.
    pub async fn wait_enabled(&self, limit: Duration) -> Vec<NotReady> {
        let deadline = tokio::time::Instant::now() + limit;
        let waits = self
            .inner
            .servers
            .iter()
            .filter(|(name, s)| self.wanted(name, s))
            .map(|(name, _)| {
                let wait = self.connect(name);
                let name = name.clone();
                async move {
                    match tokio::time::timeout_at(deadline, wait).await {
                        Ok(Ok(McpState::Connected)) => None,
                        Ok(_) => Some((name, false)),
                        Err(_) => Some((name, true)),
                    }
                }
            });
        futures_util::future::join_all(waits)
            .await
            .into_iter()
            .flatten()
            .map(|(name, timed_out)| NotReady {
                error: self.last_error(&name),
                name,
                timed_out,
            })
            .collect()
    }

    /// Stops `name`: ends its process, unregisters its tools and reports `disconnected`.
    /// Returns whether it was running.
    pub fn disconnect(&self, name: &str) -> Result<bool, McpError> {
        let server = self
            .inner
            .servers
            .get(name)
            .ok_or_else(|| McpError::UnknownServer(name.to_string()))?;
        let mut st = server.lock();
        let Some(token) = st.run.take() else {
            return Ok(false);
        };
        token.cancel();
        st.generation += 1;
        st.peer = None;
        st.last_error = None;
        let had_tools = !std::mem::take(&mut st.tools).is_empty();
        if had_tools {
            server.offer_tools(&self.inner.bg, Vec::new());
        }
        server.store_catalog(&self.inner.bg, Default::default());
        send_status(&self.inner, &mut st, name, McpState::Disconnected, None);
        server.phase.send_replace(Phase::Idle);
        Ok(true)
    }

    /// Stops every running server (at exit).
    pub fn shutdown(&self) {
        for name in self.inner.servers.keys() {
            let _ = self.disconnect(name);
        }
    }

    /// `(server, model-facing name, server's own name)` of every tool whose model-facing
    /// name differs from `<server>__<tool>` (shown by `/tools` and `/mcp`).
    pub fn mapped_names(&self) -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        for (name, server) in &self.inner.servers {
            let st = server.lock();
            for (model, original) in &st.tools {
                if *model != format!("{name}__{original}") {
                    out.push((name.clone(), model.clone(), original.clone()));
                }
            }
        }
        out
    }

    /// The `/mcp` listing: per server its state, tool count and last error, plus the
    /// original names of tools whose model-facing name had to be changed.
    pub fn status_text(&self) -> Vec<Text> {
        if self.inner.servers.is_empty() {
            return vec![Text::new("mcp-none-configured", vec![])];
        }
        let mut out = vec![Text::new(
            "mcp-status-header",
            vec![("count", Arg::from(self.inner.servers.len()))],
        )];
        for (name, server) in &self.inner.servers {
            let st = server.lock();
            let reconnecting = st.run.is_some() && st.state == Some(McpState::Disconnected);
            let state = match st.state {
                None => "mcp-state-idle",
                Some(_) if reconnecting => "mcp-state-reconnecting",
                Some(McpState::Connecting) => "mcp-state-connecting",
                Some(McpState::Connected) => "mcp-state-connected",
                Some(McpState::Disconnected) => "mcp-state-disconnected",
                Some(McpState::Failed) => "mcp-state-failed",
            };
            // An OAuth server without a login says how to get one instead (SPEC §15.2).
            let needs_login = st.last_error.as_ref().is_some_and(remote::is_needs_login)
                || (server.config.remote.as_ref().is_some_and(|r| r.oauth)
                    && !matches!(st.state, Some(McpState::Connected | McpState::Connecting))
                    && !remote::token_file(&self.inner, name).has_login());
            let state = if needs_login {
                remote::needs_login(name)
            } else {
                Text::new(state, vec![])
            };
            // "needs login" with no tools says only that: "0 tools" would add nothing.
            let key = if needs_login && st.tools.is_empty() {
                "mcp-status-line-bare"
            } else {
                "mcp-status-line"
            };
            out.push(Text::new(
                key,
                vec![
                    ("name", Arg::from(name.as_str())),
                    ("state", Arg::from(state)),
                    ("count", Arg::from(st.tools.len())),
                ],
            ));
            if let Some(e) = st.last_error.as_ref().filter(|_| !needs_login) {
                out.push(Text::new(
                    "mcp-status-error",
                    vec![("error", Arg::from(e.clone()))],
                ));
            }
            for (model, original) in &st.tools {
                if *model != format!("{name}__{original}") {
                    out.push(Text::new(
                        "mcp-status-mapped",
                        vec![
                            ("model", Arg::from(model.as_str())),
                            ("original", Arg::from(original.as_str())),
                        ],
                    ));
                }
            }
        }
        out
    }
}

/// A server with `enabled = true` that was not connected in time (see
/// [`McpManager::wait_enabled`]).
#[derive(Debug, Clone, PartialEq)]
pub struct NotReady {
    /// Server name.
    pub name: String,
    /// Still starting when the wait ended (otherwise it failed).
    pub timed_out: bool,
    /// The last error it reported (rendered when shown).
    pub error: Option<Text>,
}
