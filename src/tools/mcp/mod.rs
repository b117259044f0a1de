//! MCP servers as a tool source (SPEC §3 `[mcp.servers.NAME]`, §5): one rmcp client per
//! configured server over a child process's stdio.
//!
//! Each running server has a supervisor task that connects, lists tools, follows
//! `notifications/tools/list_changed`, and reconnects after a crash with bounded backoff.
//! The supervisor never touches the registry or the session log itself: every change
//! goes to the agent loop as a [`Background`] message (tool batches under
//! [`ToolSource::Mcp`], and `mcp/status` changes), which the loop applies at the next
//! attempt boundary or at once while idle.

mod command;
pub mod content;
pub mod names;
pub mod stderr_tail;
pub mod transport;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use rmcp::model::{CallToolRequestParams, Tool};
use rmcp::service::{NotificationContext, Peer, RoleClient, RunningService};
use rmcp::{ClientHandler, ServiceExt};
use tokio::io::AsyncReadExt;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

pub use command::McpReply;

use crate::config::McpServerConfig;
use crate::i18n::{Arg, Text};
use crate::session::event::{McpState, McpStatus, ToolSchema};
use crate::tools::registry::{RegisteredTool, ToolSource};
use crate::tools::source::Background;
use crate::tools::{ToolExecutor, ToolOutcome};
use stderr_tail::StderrTail;
use transport::{ChildTransport, DEFAULT_MAX_MESSAGE_BYTES, Oversize, OversizeReport};

/// Default per-call timeout when `timeout_secs` is not configured.
pub const DEFAULT_CALL_TIMEOUT_SECS: u64 = 120;

/// Environment variable overriding the reconnect backoff, `INITIAL_MS,MAX_MS,TRIES`
/// (for tests; e.g. `20,40,3`).
pub const BACKOFF_ENV: &str = "DEEPTERM_MCP_BACKOFF_MS";

/// Connection and reconnection timings.
#[derive(Debug, Clone, PartialEq)]
pub struct McpOptions {
    /// Delay before the first reconnect attempt after a crash (doubles each try).
    pub backoff_initial: Duration,
    /// Upper bound of the reconnect delay.
    pub backoff_max: Duration,
    /// Reconnect attempts before the server is marked failed.
    pub max_retries: u32,
    /// Limit for starting the process, the MCP handshake and the first tool listing.
    pub connect_timeout: Duration,
    /// The config's `api_key_env` variables, removed from every server's environment
    /// unless its `env_passthrough` names them.
    pub key_env_vars: Vec<String>,
}

impl Default for McpOptions {
    fn default() -> Self {
        McpOptions {
            backoff_initial: Duration::from_millis(500),
            backoff_max: Duration::from_secs(30),
            max_retries: 10,
            connect_timeout: Duration::from_secs(60),
            key_env_vars: Vec::new(),
        }
    }
}

impl McpOptions {
    /// Defaults, with the backoff overridden by `DEEPTERM_MCP_BACKOFF_MS` when it parses.
    pub fn from_env() -> Self {
        let mut o = McpOptions::default();
        if let Ok(v) = std::env::var(BACKOFF_ENV) {
            let n: Vec<u64> = v.split(',').filter_map(|p| p.trim().parse().ok()).collect();
            if let [initial, max, tries] = n[..] {
                o.backoff_initial = Duration::from_millis(initial);
                o.backoff_max = Duration::from_millis(max.max(initial));
                o.max_retries = u32::try_from(tries).unwrap_or(u32::MAX).max(1);
            }
        }
        o
    }

    /// The delay before reconnect attempt `n` (0-based): initial × 2ⁿ, capped.
    pub fn backoff(&self, n: u32) -> Duration {
        let factor = 1u32.checked_shl(n.min(31)).unwrap_or(u32::MAX);
        self.backoff_initial
            .saturating_mul(factor)
            .min(self.backoff_max)
    }
}

/// Errors of [`McpManager::connect`] and [`McpManager::disconnect`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    /// No `[mcp.servers.NAME]` with this name.
    #[error("no MCP server named \"{0}\" is configured")]
    UnknownServer(String),
}

/// Where a connect attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Never started, or disconnected by the user.
    Idle,
    /// Connecting or reconnecting.
    Busy,
    /// Connected.
    Connected,
    /// Gave up.
    Failed,
}

struct State {
    /// Last reported state (`None` before the first connect).
    state: Option<McpState>,
    /// `(model-facing name, original name)` of the registered tools.
    tools: Vec<(String, String)>,
    last_error: Option<String>,
    peer: Option<Peer<RoleClient>>,
    /// Supervisor of the current run and its generation.
    run: Option<CancellationToken>,
    generation: u64,
}

struct Server {
    name: String,
    config: McpServerConfig,
    st: Mutex<State>,
    phase: watch::Sender<Phase>,
    /// `tools/list_changed` notifications received / applied (see [`McpTool::call`]).
    changes_seen: AtomicU64,
    changes_done: watch::Sender<u64>,
    /// The last 64 KiB of the process's stderr (quoted in errors).
    stderr_tail: Mutex<StderrTail>,
    /// The last message over `max_message_bytes`; every one is sent (waiters fail at once).
    oversize: watch::Sender<Option<Oversize>>,
}

impl Server {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.st.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn stderr_hint(&self) -> Option<String> {
        self.stderr_tail
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .hint()
    }

    /// The limit on one message from this server.
    fn max_message_bytes(&self) -> u64 {
        self.config
            .max_message_bytes
            .unwrap_or(DEFAULT_MAX_MESSAGE_BYTES)
    }

    /// Runs `fut`, failing it at once if the server sends an oversized message meanwhile.
    async fn or_oversize<T>(
        &self,
        fut: impl Future<Output = Result<T, String>>,
    ) -> Result<T, String> {
        let mut rx = self.oversize.subscribe();
        rx.borrow_and_update();
        tokio::select! {
            r = fut => r,
            Ok(()) = rx.changed() => {
                let o = *rx.borrow();
                Err(o.map(|o| o.message(&self.name)).unwrap_or_default())
            }
        }
    }

    fn with_hint(&self, error: String) -> String {
        match self.stderr_hint() {
            Some(h) => format!("{error} (stderr: {h})"),
            None => error,
        }
    }
}

struct Inner {
    servers: BTreeMap<String, Arc<Server>>,
    bg: mpsc::UnboundedSender<Background>,
    options: McpOptions,
    workspace: PathBuf,
    /// Servers a resumed session wants on or off, over their `enabled`.
    restored: Mutex<BTreeMap<String, bool>>,
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

/// A [`Background`] sender and the server it speaks for; holds the state lock while
/// sending so messages of one server stay in state order.
fn send_status(
    inner: &Inner,
    st: &mut State,
    server: &str,
    state: McpState,
    error: Option<String>,
) {
    st.state = Some(state);
    if error.is_some() {
        st.last_error = error.clone();
    }
    let tools = (state == McpState::Connected).then(|| {
        let mut names: Vec<String> = st.tools.iter().map(|(m, _)| m.clone()).collect();
        names.sort();
        names
    });
    let _ = inner.bg.send(Background::Mcp(McpStatus {
        server: server.to_string(),
        state,
        tools,
        error,
    }));
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
            let _ = self.inner.bg.send(Background::Tools {
                source: ToolSource::Mcp(name.to_string()),
                tools: Vec::new(),
            });
        }
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
            out.push(Text::new(
                "mcp-status-line",
                vec![
                    ("name", Arg::from(name.as_str())),
                    ("state", Arg::from(Text::new(state, vec![]))),
                    ("count", Arg::from(st.tools.len())),
                ],
            ));
            if let Some(e) = &st.last_error {
                out.push(Text::new(
                    "mcp-status-error",
                    vec![("error", Arg::from(e.as_str()))],
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

/// Receives server notifications for one connection.
struct Handler {
    server: Arc<Server>,
    changed: mpsc::UnboundedSender<()>,
}

impl ClientHandler for Handler {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.server.changes_seen.fetch_add(1, Ordering::SeqCst);
        let _ = self.changed.send(());
    }
}

type Connection = (
    RunningService<RoleClient, Handler>,
    mpsc::UnboundedReceiver<()>,
);

/// Starts the process, runs the MCP handshake.
async fn connect_once(inner: &Inner, server: &Arc<Server>) -> Result<Connection, String> {
    let cfg = &server.config;
    let mut cmd = tokio::process::Command::new(&cfg.command);
    cmd.args(&cfg.args);
    // Keys stay out of the server (SPEC §13); its explicit `env` table still applies.
    crate::tools::child_env::ChildEnvPolicy::new(&inner.options.key_env_vars, &cfg.env_passthrough)
        .apply(&mut cmd);
    cmd.envs(&cfg.env)
        .current_dir(&inner.workspace)
        .kill_on_drop(true);
    let report: OversizeReport = {
        let s = server.clone();
        Arc::new(move |o: Oversize| {
            let msg = o.message(&s.name);
            tracing::warn!("{msg}");
            s.lock().last_error = Some(msg);
            s.oversize.send_replace(Some(o));
        })
    };
    let (transport, stderr) = ChildTransport::spawn(cmd, server.max_message_bytes(), report)
        .map_err(|e| format!("cannot start \"{}\": {e}", cfg.command))?;
    server
        .stderr_tail
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clear();
    // Read stderr in bounded chunks into the ring buffer: no line is ever held whole.
    let stderr_reader = stderr.map(|mut stderr| {
        let s = server.clone();
        tokio::spawn(async move {
            let mut chunk = vec![0u8; 8 * 1024];
            while let Ok(n) = stderr.read(&mut chunk).await {
                if n == 0 {
                    break;
                }
                s.stderr_tail
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(&chunk[..n]);
            }
        })
    });
    let (tx, rx) = mpsc::unbounded_channel();
    let handler = Handler {
        server: server.clone(),
        changed: tx,
    };
    let served = server
        .or_oversize(async {
            handler
                .serve(transport)
                .await
                .map_err(|e| format!("MCP handshake failed: {e}"))
        })
        .await;
    match served {
        Ok(running) => Ok((running, rx)),
        Err(e) => {
            // The server's own explanation is usually its last stderr line: let the reader
            // drain it (the process has exited or closed its pipes) before reporting.
            if let Some(reader) = stderr_reader {
                let _ = tokio::time::timeout(Duration::from_millis(500), reader).await;
            }
            Err(e)
        }
    }
}

/// Lists the server's tools and builds their registrations.
async fn list_tools(
    server: &Arc<Server>,
    peer: &Peer<RoleClient>,
) -> Result<(Vec<(String, String)>, Vec<RegisteredTool>), String> {
    let tools = server
        .or_oversize(async {
            peer.list_all_tools()
                .await
                .map_err(|e| format!("tools/list failed: {e}"))
        })
        .await?;
    Ok(registrations(server, &tools))
}

fn registrations(
    server: &Arc<Server>,
    tools: &[Tool],
) -> (Vec<(String, String)>, Vec<RegisteredTool>) {
    let originals: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    let mapping = names::map_tool_names(&server.name, &originals);
    let timeout = Duration::from_secs(
        server
            .config
            .timeout_secs
            .unwrap_or(DEFAULT_CALL_TIMEOUT_SECS),
    );
    let mut regs = Vec::with_capacity(tools.len());
    for (tool, (model, original)) in tools.iter().zip(&mapping) {
        let mut description = tool
            .description
            .as_deref()
            .map(str::to_string)
            .or_else(|| tool.title.clone())
            .unwrap_or_default();
        if *model != format!("{}__{original}", server.name) {
            if !description.is_empty() {
                description.push_str("\n\n");
            }
            description.push_str(&format!(
                "(MCP server \"{}\", tool \"{original}\")",
                server.name
            ));
        }
        regs.push(RegisteredTool {
            schema: ToolSchema {
                name: model.clone(),
                description,
                parameters: serde_json::Value::Object((*tool.input_schema).clone()),
                defer_loading: None,
            },
            approval: server.config.approval,
            enabled: true,
            executor: Arc::new(McpTool {
                server: server.clone(),
                tool: original.clone(),
                timeout,
            }),
            parallel_safe: server.config.parallel,
        });
    }
    (mapping, regs)
}

/// A server with `enabled = true` that was not connected in time (see
/// [`McpManager::wait_enabled`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotReady {
    /// Server name.
    pub name: String,
    /// Still starting when the wait ended (otherwise it failed).
    pub timed_out: bool,
    /// The last error it reported.
    pub error: Option<String>,
}

/// Applies `f` to the state if `generation` is still current; returns whether it was.
fn if_current(server: &Server, generation: u64, f: impl FnOnce(&mut State)) -> bool {
    let mut st = server.lock();
    if st.generation != generation {
        return false;
    }
    f(&mut st);
    true
}

/// One server's lifetime: connect, serve, reconnect with backoff, give up.
async fn supervise(
    inner: Arc<Inner>,
    server: Arc<Server>,
    generation: u64,
    token: CancellationToken,
) {
    let name = server.name.clone();
    let source = ToolSource::Mcp(name.clone());
    let opts = inner.options.clone();
    let mut ever_connected = false;
    let mut attempt: u32 = 0;
    loop {
        if attempt > 0 {
            tokio::select! {
                _ = token.cancelled() => return,
                _ = tokio::time::sleep(opts.backoff(attempt - 1)) => {}
            }
            let still = if_current(&server, generation, |st| {
                send_status(&inner, st, &name, McpState::Connecting, None);
            });
            if !still {
                return;
            }
        }
        let connected = tokio::select! {
            _ = token.cancelled() => return,
            r = tokio::time::timeout(opts.connect_timeout, async {
                let (running, rx) = connect_once(&inner, &server).await?;
                let listed = list_tools(&server, running.peer()).await?;
                Ok::<_, String>((running, rx, listed))
            }) => match r {
                Ok(r) => r,
                Err(_) => Err(format!("no answer within {} s", opts.connect_timeout.as_secs())),
            },
        };
        let (running, mut changed, (mapping, regs)) = match connected {
            Ok(c) => c,
            Err(e) => {
                let error = server.with_hint(e);
                if !ever_connected || attempt >= opts.max_retries {
                    give_up(&inner, &server, generation, &source, error);
                    return;
                }
                let still = if_current(&server, generation, |st| {
                    send_status(&inner, st, &name, McpState::Disconnected, Some(error));
                });
                if !still {
                    return;
                }
                attempt += 1;
                continue;
            }
        };
        ever_connected = true;
        let peer = running.peer().clone();
        let still = if_current(&server, generation, |st| {
            st.peer = Some(peer.clone());
            st.tools = mapping;
            st.last_error = None;
            let _ = inner.bg.send(Background::Tools {
                source: source.clone(),
                tools: regs,
            });
            send_status(&inner, st, &name, McpState::Connected, None);
            server.phase.send_replace(Phase::Connected);
        });
        if !still {
            let _ = running.cancel().await;
            return;
        }
        let stop = running.cancellation_token();
        let wait = running.waiting();
        tokio::pin!(wait);
        let error = loop {
            tokio::select! {
                _ = token.cancelled() => {
                    stop.cancel();
                    let _ = wait.await;
                    return;
                }
                r = &mut wait => {
                    break match r {
                        Ok(_) => "the server process exited".to_string(),
                        Err(e) => format!("the MCP connection task failed: {e}"),
                    };
                }
                Some(()) = changed.recv() => {
                    let seen = server.changes_seen.load(Ordering::SeqCst);
                    match list_tools(&server, &peer).await {
                        Ok((mapping, regs)) => {
                            let still = if_current(&server, generation, |st| {
                                st.tools = mapping;
                                let _ = inner.bg.send(Background::Tools {
                                    source: source.clone(),
                                    tools: regs,
                                });
                            });
                            if !still {
                                return;
                            }
                        }
                        Err(e) => tracing::warn!("MCP server {name}: {e}"),
                    }
                    server.changes_done.send_replace(seen);
                }
            }
        };
        // Crash: keep the tools registered (calls fail clearly) and reconnect.
        let error = server.with_hint(error);
        let still = if_current(&server, generation, |st| {
            st.peer = None;
            send_status(&inner, st, &name, McpState::Disconnected, Some(error));
            server.phase.send_replace(Phase::Busy);
        });
        if !still {
            return;
        }
        attempt = 1;
    }
}

fn give_up(inner: &Inner, server: &Server, generation: u64, source: &ToolSource, error: String) {
    if_current(server, generation, |st| {
        st.run = None;
        st.peer = None;
        if !std::mem::take(&mut st.tools).is_empty() {
            let _ = inner.bg.send(Background::Tools {
                source: source.clone(),
                tools: Vec::new(),
            });
        }
        send_status(inner, st, &server.name, McpState::Failed, Some(error));
        server.phase.send_replace(Phase::Failed);
    });
}

/// Runs calls of one MCP tool on its server's current connection.
struct McpTool {
    server: Arc<Server>,
    tool: String,
    timeout: Duration,
}

impl McpTool {
    async fn run(&self, arguments: serde_json::Value, cancel: &CancellationToken) -> ToolOutcome {
        let server = &self.server.name;
        let peer = {
            let st = self.server.lock();
            match &st.peer {
                Some(p) if !p.is_transport_closed() => p.clone(),
                _ if st.run.is_some() => {
                    return ToolOutcome::error(format!(
                        "MCP server \"{server}\" is not connected (reconnecting)"
                    ));
                }
                _ => {
                    return ToolOutcome::error(format!("MCP server \"{server}\" is not connected"));
                }
            }
        };
        let args = match arguments {
            serde_json::Value::Object(m) => m,
            _ => serde_json::Map::new(),
        };
        let params = CallToolRequestParams::new(self.tool.clone()).with_arguments(args);
        // A reply over `max_message_bytes` is dropped by the transport: fail at once.
        let mut oversize = self.server.oversize.subscribe();
        oversize.borrow_and_update();
        let outcome = tokio::select! {
            Ok(()) = oversize.changed() => {
                let o = *oversize.borrow();
                ToolOutcome::error(o.map(|o| o.message(server)).unwrap_or_default())
            }
            _ = cancel.cancelled() => return ToolOutcome::error("tool call cancelled"),
            _ = tokio::time::sleep(self.timeout) => ToolOutcome::error(format!(
                "MCP tool \"{}\" on server \"{server}\" timed out after {} s",
                self.tool,
                self.timeout.as_secs()
            )),
            r = peer.call_tool(params) => match r {
                Ok(result) => content::outcome_from_result(&result),
                Err(e) => {
                    let reconnecting = peer.is_transport_closed();
                    if reconnecting {
                        ToolOutcome::error(format!(
                            "MCP server \"{server}\" is not connected (reconnecting): {e}"
                        ))
                    } else {
                        ToolOutcome::error(format!("MCP server \"{server}\" failed the call: {e}"))
                    }
                }
            },
        };
        self.await_list_sync().await;
        outcome
    }

    /// A call that changed the server's tool list (the server sends `list_changed` before
    /// its reply) returns only after the new list went to the loop, so the next request
    /// already declares it.
    async fn await_list_sync(&self) {
        tokio::task::yield_now().await;
        let seen = self.server.changes_seen.load(Ordering::SeqCst);
        if *self.server.changes_done.borrow() >= seen {
            return;
        }
        let mut rx = self.server.changes_done.subscribe();
        let _ = tokio::time::timeout(Duration::from_secs(5), rx.wait_for(|d| *d >= seen)).await;
    }
}

impl ToolExecutor for McpTool {
    fn call<'a>(
        &'a self,
        arguments: serde_json::Value,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(self.run(arguments, cancel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_half_a_second_to_thirty() {
        let o = McpOptions::default();
        let d: Vec<u64> = (0..10).map(|n| o.backoff(n).as_millis() as u64).collect();
        assert_eq!(
            d,
            vec![
                500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000
            ]
        );
        assert_eq!(o.max_retries, 10);
    }
}
