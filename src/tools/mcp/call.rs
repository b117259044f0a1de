//! Calls of one MCP tool, on its server's current connection.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::future::BoxFuture;
use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest, ServerResult};
use rmcp::service::{PeerRequestOptions, ServiceError};
use tokio_util::sync::CancellationToken;

use super::annotations::ToolHints;
use super::content;
use super::server::Server;
use crate::tools::{ToolExecutor, ToolOutcome};

/// How a call's wait ended.
enum Ended {
    Answered(Box<Result<ServerResult, ServiceError>>),
    /// By the user or the timeout: the server is told (the reason it gets).
    Cancelled(&'static str),
    Failed(ToolOutcome),
}

/// How a wait for a server's answer to one of the user's own requests (a prompt, a
/// resource) ended.
pub(super) enum Waited<T> {
    Answered(T),
    /// The user cancelled (Esc): the request future was dropped, and rmcp tells the server
    /// (`notifications/cancelled`) when a request it sent is abandoned.
    Cancelled,
    /// The server's call timeout ran out (told the same way).
    TimedOut,
}

/// Waits for `fut`, a request to `server`, until `cancel` or the server's `timeout`.
pub(super) async fn answer<T>(
    server: &Server,
    fut: impl std::future::Future<Output = T>,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Waited<T> {
    tokio::select! {
        biased;
        _ = cancel.cancelled() => Waited::Cancelled,
        r = fut => Waited::Answered(r),
        _ = timer(server, timeout) => Waited::TimedOut,
    }
}

/// Ends after `timeout` of the server's own time: while one of its elicitations waits for
/// the user (a form open on screen), the clock stops.
async fn timer(server: &Server, timeout: Duration) {
    let mut asking = server.asking.subscribe();
    let mut left = timeout;
    loop {
        // (The guards `wait_for` returns are dropped at once: they are not `Send`.)
        if asking.wait_for(|n| *n == 0).await.map(|_| ()).is_err() {
            return std::future::pending().await;
        }
        let started = tokio::time::Instant::now();
        tokio::select! {
            _ = tokio::time::sleep(left) => return,
            r = async { asking.wait_for(|n| *n > 0).await.map(|_| ()) } => {
                if r.is_err() {
                    return std::future::pending().await;
                }
                left = left.saturating_sub(started.elapsed());
            }
        }
    }
}

/// Runs calls of one MCP tool on its server's current connection.
pub(super) struct McpTool {
    pub(super) server: Arc<Server>,
    pub(super) tool: String,
    pub(super) timeout: Duration,
    /// The server's annotations of this tool.
    pub(super) hints: Option<ToolHints>,
}

impl McpTool {
    async fn run(&self, arguments: serde_json::Value, cancel: &CancellationToken) -> ToolOutcome {
        let seen_before = self.server.changes_seen.load(Ordering::SeqCst);
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
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let mut handle = match peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(h) => h,
            Err(e) => {
                return ToolOutcome::error(format!(
                    "MCP server \"{server}\" is not connected (reconnecting): {e}"
                ));
            }
        };
        // The server's progress on this call updates its card while it runs.
        let _progress = crate::tools::progress::current().map(|sink| {
            self.server
                .watch_progress(handle.progress_token.clone(), sink)
        });
        // A reply over `max_message_bytes` is dropped by the transport: fail at once.
        let mut oversize = self.server.oversize.subscribe();
        oversize.borrow_and_update();
        let ended = tokio::select! {
            Ok(()) = oversize.changed() => {
                let o = *oversize.borrow();
                Ended::Failed(ToolOutcome::error(o.map(|o| o.message(server)).unwrap_or_default()))
            }
            _ = cancel.cancelled() => Ended::Cancelled("cancelled by the user"),
            _ = timer(&self.server, self.timeout) => Ended::Cancelled("timed out"),
            r = &mut handle.rx => Ended::Answered(Box::new(
                r.unwrap_or(Err(ServiceError::TransportClosed)),
            )),
        };
        let outcome = match ended {
            Ended::Failed(o) => o,
            Ended::Cancelled(reason) => {
                // The server stops the work too (`notifications/cancelled`).
                let _ = handle.cancel(Some(reason.to_string())).await;
                if reason == "timed out" {
                    ToolOutcome::error(format!(
                        "MCP tool \"{}\" on server \"{server}\" timed out after {} s",
                        self.tool,
                        self.timeout.as_secs()
                    ))
                } else {
                    return ToolOutcome::error("tool call cancelled");
                }
            }
            Ended::Answered(r) => match *r {
                Ok(ServerResult::CallToolResult(result)) => content::outcome_from_result(&result),
                Ok(_) => ToolOutcome::error(format!(
                    "MCP server \"{server}\" answered the call with something other than a result"
                )),
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
        self.await_list_sync(seen_before).await;
        outcome
    }

    /// A call that changed the server's tool list (the server sends `list_changed` before
    /// its reply) returns only after the new list went to the loop, so the next request
    /// already declares it.
    async fn await_list_sync(&self, seen_before: u64) {
        // The notification is on the wire before the reply, but its handler may run on
        // another worker after the reply resolved the call: give it a short, bounded grace
        // (at most LIST_SYNC_GRACE) to be counted before deciding nothing changed.
        let deadline = tokio::time::Instant::now() + LIST_SYNC_GRACE;
        tokio::task::yield_now().await;
        while self.server.changes_seen.load(Ordering::SeqCst) == seen_before
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let seen = self.server.changes_seen.load(Ordering::SeqCst);
        if *self.server.changes_done.borrow() >= seen {
            return;
        }
        let mut rx = self.server.changes_done.subscribe();
        let _ = tokio::time::timeout(Duration::from_secs(5), rx.wait_for(|d| *d >= seen)).await;
    }
}

/// How long a finished call waits for a `list_changed` notification its server sent
/// before the reply (see [`McpTool::await_list_sync`]).
const LIST_SYNC_GRACE: Duration = Duration::from_millis(25);

impl ToolExecutor for McpTool {
    fn call<'a>(
        &'a self,
        arguments: serde_json::Value,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(self.run(arguments, cancel))
    }

    fn hints(&self) -> Option<ToolHints> {
        self.hints
    }
}
