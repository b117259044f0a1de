//! DeepSeek-compatible simulator (SPEC §9, `reference/deepseek-wire.md` §5): an axum server
//! speaking the Anthropic Messages and OpenAI Chat Completions routes with DeepSeek-like
//! validation, scripted replies and faults, a demo policy, and a simulated prefix cache.

mod anthropic;
pub mod cache;
mod demo;
mod error;
mod guided;
mod openai;
mod record;
pub mod render;
mod script;
mod server;
mod stream;
mod turn;
pub mod validate;
mod validate_effort;
mod validate_openai;

use std::collections::{HashSet, VecDeque};
use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use demo::DemoLocale;
pub use error::SimError;
pub use guided::{DEMO_FIX, TEST_COMMAND};
pub use record::{CacheRecord, RecordedRequest, RecordedToolCall, RequestStats};
pub use script::{Fault, Script, ScriptedReply, ScriptedToolCall};

/// Simulator settings.
#[derive(Clone)]
pub struct SimConfig {
    /// Listen address (default `127.0.0.1:0`, an ephemeral port).
    pub addr: SocketAddr,
    /// Cache unit in tokens (default 64).
    pub cache_unit: usize,
    /// Replies consumed in order before the demo policy takes over.
    pub script: Option<Script>,
    /// `Some(k)`: only `k` is accepted; `None`: any non-empty key is accepted.
    pub api_key: Option<String>,
    /// Delay after each streamed event (0 in tests, ~15 ms for the demo).
    pub latency: Duration,
    /// Accept `tool_removal` blocks (default false: 400, to keep clients honest).
    pub tool_removal_ok: bool,
    /// Reject requests whose tools are all deferred (older Claude behaviour; default false).
    pub require_non_deferred_tool: bool,
    /// Mapped model ids that accept `role: "system"` inside `messages`.
    pub system_capable_models: Vec<String>,
    /// Emit `: keep-alive` comments and `ping` events in streams (default true).
    pub keepalive: bool,
    /// Interval of keep-alives during a stall (default 1 s).
    pub keepalive_interval: Duration,
    /// Send the thinking signature in `content_block_start` instead of a `signature_delta`.
    pub signature_in_start: bool,
    /// Echo the mapped DeepSeek id in `model` instead of the requested id (default false).
    pub echo_mapped_model: bool,
    /// Largest streamed chunk of text / JSON in bytes (default 24).
    pub max_chunk: usize,
    /// Seed for ids and chunk boundaries (default: random).
    pub seed: Option<u64>,
    /// How many recorded requests to keep (the newest; default
    /// [`DEFAULT_KEEP_REQUESTS`]); older ones are dropped and counted.
    pub keep_requests: usize,
    /// The language of the demo policy's replies: the interface language in demo mode,
    /// shared so a language switch reaches the next reply (default en-US).
    pub demo_locale: DemoLocale,
    /// The guided demo of `deepterm --demo` (SPEC §15.4): the demo policy also runs the
    /// sample's task and keeps every path and command it takes from the user inside the
    /// sample's copy (default false).
    pub guided_demo: bool,
}

/// Default number of recorded requests the simulator keeps.
pub const DEFAULT_KEEP_REQUESTS: usize = 1_000;

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            cache_unit: 64,
            script: None,
            api_key: None,
            latency: Duration::ZERO,
            tool_removal_ok: false,
            require_non_deferred_tool: false,
            system_capable_models: vec![
                "deepseek-flash".to_string(),
                "deepseek-v4-flash".to_string(),
                "deepseek-v4-flash-vision-exp".to_string(),
            ],
            keepalive: true,
            keepalive_interval: Duration::from_secs(1),
            signature_in_start: false,
            echo_mapped_model: false,
            max_chunk: 24,
            seed: None,
            keep_requests: DEFAULT_KEEP_REQUESTS,
            demo_locale: DemoLocale::default(),
            guided_demo: false,
        }
    }
}

impl std::fmt::Debug for SimConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimConfig")
            .field("addr", &self.addr)
            .field("cache_unit", &self.cache_unit)
            .field("script_len", &self.script.as_ref().map(|s| s.replies.len()))
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("latency", &self.latency)
            .field("tool_removal_ok", &self.tool_removal_ok)
            .field("keep_requests", &self.keep_requests)
            .finish_non_exhaustive()
    }
}

/// A running simulator.
pub struct SimHandle {
    addr: SocketAddr,
    shared: Arc<server::Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
}

impl SimHandle {
    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The recorded model requests, in arrival order: every one, or the newest
    /// [`SimConfig::keep_requests`] once more have arrived (see [`SimHandle::request_stats`]).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock().requests.to_vec()
    }

    /// How many recorded requests are kept and how many were dropped.
    pub fn request_stats(&self) -> RequestStats {
        self.shared.lock().requests.stats()
    }

    /// Append a reply to the script queue.
    pub fn push_reply(&self, reply: ScriptedReply) {
        self.shared.lock().script.push_back(reply);
    }

    /// Number of script entries not yet consumed.
    pub fn pending_replies(&self) -> usize {
        self.shared.lock().script.len()
    }

    /// Stop serving and wait for the server task to end.
    pub async fn shutdown(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let _ = (&mut self.task).await;
    }
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// Bind and spawn the simulator on the current tokio runtime.
pub async fn start(cfg: SimConfig) -> Result<SimHandle, SimError> {
    let listener = tokio::net::TcpListener::bind(cfg.addr)
        .await
        .map_err(|source| SimError::Bind {
            addr: cfg.addr,
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| SimError::Bind {
        addr: cfg.addr,
        source,
    })?;
    let rng = match cfg.seed {
        Some(s) => fastrand::Rng::with_seed(s),
        None => fastrand::Rng::new(),
    };
    let shared = Arc::new(server::Shared {
        settings: server::Settings {
            api_key: cfg.api_key.clone(),
            latency: cfg.latency,
            rules: validate::Rules {
                tool_removal_ok: cfg.tool_removal_ok,
                require_non_deferred_tool: cfg.require_non_deferred_tool,
                system_capable_models: cfg.system_capable_models.clone(),
            },
            keepalive: cfg.keepalive,
            signature_in_start: cfg.signature_in_start,
            echo_mapped_model: cfg.echo_mapped_model,
            max_chunk: cfg.max_chunk.max(1),
            keepalive_interval: cfg.keepalive_interval.max(Duration::from_millis(1)),
            demo_locale: cfg.demo_locale.clone(),
            guided_demo: cfg.guided_demo,
        },
        state: Mutex::new(server::State0 {
            script: cfg
                .script
                .map(|s| VecDeque::from(s.replies))
                .unwrap_or_default(),
            cache: cache::CacheModel::new(cfg.cache_unit),
            thinking_tool_ids: HashSet::new(),
            requests: server::RequestRing::new(cfg.keep_requests),
            rng,
        }),
    });
    let app = server::router(shared.clone());
    let (tx, rx) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let result = axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = rx.await;
            })
            .await;
        if let Err(e) = result {
            tracing::error!("simulator stopped: {e}");
        }
    });
    Ok(SimHandle {
        addr,
        shared,
        shutdown: Some(tx),
        task,
    })
}

/// `deepterm sim`: start, print the base URL as the first stdout line, serve until Ctrl+C.
pub async fn run_cli(cfg: SimConfig) -> Result<(), SimError> {
    let handle = start(cfg).await?;
    let base = handle.base_url();
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{base}").map_err(SimError::Serve)?;
        out.flush().map_err(SimError::Serve)?;
    }
    eprintln!("deepseek-messages base_url: {base}/anthropic");
    eprintln!("openai-chat base_url:       {base}");
    eprintln!(
        "recorded requests:          {base}/_sim/requests (the newest {} are kept)",
        handle.request_stats().limit
    );
    eprintln!("press Ctrl+C to stop");
    tokio::signal::ctrl_c().await.map_err(SimError::Serve)?;
    handle.shutdown().await;
    Ok(())
}
