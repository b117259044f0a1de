//! The state shared by an MCP server's manager, its supervisor and its tools' calls.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RoleClient};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::failure;
use super::listing;
use super::options::McpOptions;
use super::stderr_tail::StderrTail;
use super::transport::{DEFAULT_MAX_MESSAGE_BYTES, Oversize};
use crate::config::McpServerConfig;
use crate::i18n::Text;
use crate::session::event::{McpState, McpStatus};
use crate::tools::progress::{CallSink, Progress};
use crate::tools::registry::{RegisteredTool, ToolSource};
use crate::tools::source::{Background, ToolSlot};

/// Where a connect attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// Never started, or disconnected by the user.
    Idle,
    /// Connecting or reconnecting.
    Busy,
    /// Connected.
    Connected,
    /// Gave up.
    Failed,
}

pub(super) struct State {
    /// Last reported state (`None` before the first connect).
    pub(super) state: Option<McpState>,
    /// `(model-facing name, original name)` of the registered tools.
    pub(super) tools: Vec<(String, String)>,
    /// In the interface language when shown (see `failure`).
    pub(super) last_error: Option<Text>,
    pub(super) peer: Option<Peer<RoleClient>>,
    /// Supervisor of the current run and its generation.
    pub(super) run: Option<CancellationToken>,
    pub(super) generation: u64,
}

pub(super) struct Server {
    pub(super) name: String,
    pub(super) config: McpServerConfig,
    pub(super) st: Mutex<State>,
    pub(super) phase: watch::Sender<Phase>,
    /// `tools/list_changed` notifications received / applied (see `McpTool::call`).
    pub(super) changes_seen: AtomicU64,
    pub(super) changes_done: watch::Sender<u64>,
    /// The start and the last 64 KiB of the process's stderr (quoted in errors).
    pub(super) stderr_tail: Mutex<StderrTail>,
    /// The last message over `max_message_bytes`; every one is sent (waiters fail at once).
    pub(super) oversize: watch::Sender<Option<Oversize>>,
    /// The latest tool list not yet taken by the loop.
    pub(super) slot: Arc<ToolSlot>,
    /// Tools the running listing left out (filled by the transport).
    pub(super) skipped: Mutex<Vec<listing::Skipped>>,
    /// Warnings already shown for this server (each once).
    pub(super) warned: Mutex<HashSet<String>>,
    /// Where the progress of each running call goes, by its progress token.
    pub(super) progress: Mutex<HashMap<ProgressToken, CallSink>>,
    /// Its prompts and resource URIs as last listed (`catalog.rs`).
    pub(super) catalog: Mutex<super::prompts::Catalog>,
    /// How many of its elicitations wait for the user: a call's timeout does not run
    /// meanwhile.
    pub(super) asking: watch::Sender<usize>,
}

/// Longest progress message shown (a server's words, on one card line).
const MAX_PROGRESS_MESSAGE_CHARS: usize = 200;

/// Fewest milliseconds between two progress reports passed on for one call: a server
/// flooding notifications costs a redraw at most this often.
const PROGRESS_EVERY_MS: u128 = 50;

/// Stops passing on a call's progress when dropped (the call ended).
pub(super) struct ProgressWatch<'a> {
    server: &'a Server,
    token: ProgressToken,
}

impl Drop for ProgressWatch<'_> {
    fn drop(&mut self) {
        self.server
            .progress
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.token);
    }
}

impl Server {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.st.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn stderr_cause(&self) -> Option<String> {
        self.stderr_tail
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .cause()
    }

    /// The limit on one message from this server.
    pub(super) fn max_message_bytes(&self) -> u64 {
        self.config
            .max_message_bytes
            .unwrap_or(DEFAULT_MAX_MESSAGE_BYTES)
    }

    /// Runs `fut`, failing it at once if the server sends an oversized message meanwhile.
    pub(super) async fn or_oversize<T>(
        &self,
        fut: impl Future<Output = Result<T, Text>>,
    ) -> Result<T, Text> {
        let mut rx = self.oversize.subscribe();
        rx.borrow_and_update();
        tokio::select! {
            r = fut => r,
            Ok(()) = rx.changed() => {
                let o = (*rx.borrow()).unwrap_or(Oversize { bytes: 0, limit: 0 });
                Err(failure::text("mcp-err-oversize", vec![
                    ("name", self.name.clone()),
                    ("bytes", o.bytes.to_string()),
                    ("limit", o.limit.to_string()),
                ]))
            }
        }
    }

    /// Hands `regs` to the loop as this server's latest list (empty: unregister it). All
    /// lists go through the one slot, so a later list (a reconnect) can never be overtaken
    /// by an earlier one (a disconnect's removal) still in the queue.
    pub(super) fn offer_tools(
        &self,
        bg: &mpsc::UnboundedSender<Background>,
        regs: Vec<RegisteredTool>,
    ) {
        if self.slot.put(regs) {
            let _ = bg.send(Background::LatestTools {
                source: ToolSource::Mcp(self.name.clone()),
                slot: self.slot.clone(),
            });
        }
    }

    /// Passes the server's `notifications/progress` for `token` to `sink` until the
    /// returned watch is dropped: throttled, with the message capped.
    pub(super) fn watch_progress(&self, token: ProgressToken, sink: CallSink) -> ProgressWatch<'_> {
        let last = Mutex::new(None::<std::time::Instant>);
        let throttled: CallSink = Arc::new(move |mut p: Progress| {
            let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
            let done = p.total.is_some_and(|t| p.progress >= t);
            if !done && last.is_some_and(|t| t.elapsed().as_millis() < PROGRESS_EVERY_MS) {
                return;
            }
            *last = Some(std::time::Instant::now());
            p.message = p
                .message
                .map(|m| listing::quote_chars(&m, MAX_PROGRESS_MESSAGE_CHARS));
            sink(p);
        });
        self.progress
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(token.clone(), throttled);
        ProgressWatch {
            server: self,
            token,
        }
    }

    /// A `notifications/progress` from the server, to the call it belongs to (if any
    /// still runs).
    pub(super) fn progressed(&self, params: ProgressNotificationParam) {
        let sink = self
            .progress
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&params.progress_token)
            .cloned();
        if let Some(sink) = sink
            && params.progress.is_finite()
        {
            sink(Progress {
                progress: params.progress,
                total: params.total.filter(|t| t.is_finite()),
                message: params.message,
            });
        }
    }

    pub(super) fn catalog(&self) -> std::sync::MutexGuard<'_, super::prompts::Catalog> {
        self.catalog.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps `catalog` as this server's prompts and resources and tells the loop when it
    /// changed (an empty one: stopped or given up).
    pub(super) fn store_catalog(
        &self,
        bg: &mpsc::UnboundedSender<Background>,
        catalog: super::prompts::Catalog,
    ) {
        let mut c = self.catalog();
        if *c != catalog {
            *c = catalog;
            drop(c);
            let _ = bg.send(Background::McpCatalog);
        }
    }

    /// `error` with the stderr lines that carry the cause.
    pub(super) fn with_hint(&self, error: Text) -> Text {
        failure::with_stderr(error, self.stderr_cause())
    }
}

pub(super) struct Inner {
    pub(super) servers: BTreeMap<String, Arc<Server>>,
    pub(super) bg: mpsc::UnboundedSender<Background>,
    pub(super) options: McpOptions,
    pub(super) workspace: PathBuf,
    /// Servers a resumed session wants on or off, over their `enabled`.
    pub(super) restored: Mutex<BTreeMap<String, bool>>,
}

impl Inner {
    /// A server's error text with the session's secrets taken out, before anything cuts
    /// it for display: a server may quote the credential it was sent, and a cut through
    /// a quoted value would leave a part no redaction recognizes.
    pub(super) fn said(&self, e: &dyn std::fmt::Display) -> String {
        self.options.secrets.redact(&e.to_string()).into_owned()
    }
}

/// A [`Background`] sender and the server it speaks for; holds the state lock while
/// sending so messages of one server stay in state order.
pub(super) fn send_status(
    inner: &Inner,
    st: &mut State,
    server: &str,
    state: McpState,
    error: Option<Text>,
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
        error: error.as_ref().map(failure::english),
        detail: error.map(Box::new),
    }));
}
