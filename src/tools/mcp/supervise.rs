//! One server's connection lifetime: start the process, run the handshake, list the
//! tools, follow `notifications/tools/list_changed`, reconnect after a crash with backoff,
//! and give up after repeated failures.
//!
//! Two rules keep a hostile server from costing without bound (decision 0033):
//! - A burst of `list_changed` notifications is one pending refresh (a [`Notify`] holds
//!   at most one), at most one `tools/list` is in flight, and refreshes are at least
//!   [`McpOptions::refresh_interval`] apart; the lists reach the loop through a
//!   `ToolSlot`, which holds only the latest.
//! - A connection counts as healthy only after [`McpOptions::healthy_after`]: a server that
//!   crashes sooner keeps its failure count (and its growing backoff) across successful
//!   handshakes, and is given up after `max_retries` such tries.
//!
//! [`McpOptions::refresh_interval`]: super::McpOptions::refresh_interval
//! [`McpOptions::healthy_after`]: super::McpOptions::healthy_after

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{
    ClientConfig, CustomRequest, CustomResult, ElicitRequestParams, ElicitResult, ErrorCode,
    ProgressNotificationParam, Tool,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleClient, RunningService};
use rmcp::{ClientHandler, ServiceExt};
use tokio::io::AsyncReadExt;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::annotations::ToolHints;
use super::call::McpTool;
use super::catalog;
use super::elicit::Elicitations;
use super::failure::{self, text};
use super::listing::{self, SkipReason, Skipped};
use super::names;
use super::options::DEFAULT_CALL_TIMEOUT_SECS;
use super::remote;
use super::server::{Inner, Phase, Server, State, send_status};
use super::transport::{ChildTransport, ExitWatch, Oversize, OversizeReport, SkipReport};
use crate::i18n::{Arg, Text};
use crate::session::event::{McpState, ToolSchema};
use crate::tools::Approval;
use crate::tools::registry::RegisteredTool;
use crate::tools::source::Background;

/// Receives server notifications for one connection.
struct Handler {
    server: Arc<Server>,
    /// Holds at most one wake-up, however many notifications arrive meanwhile.
    changed: Arc<Notify>,
    /// The same for the prompt and resource lists (`catalog.rs`).
    catalog_changed: Arc<Notify>,
    /// Where a server's requests for user input go (SPEC §15.2).
    elicitations: Elicitations,
}

impl ClientHandler for Handler {
    /// Advertises elicitation (form and URL mode) when someone answers it: the TUI asks,
    /// `exec` declines.
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.capabilities.elicitation = self.elicitations.capability();
        info
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        // The user's time is not the server's: its calls' timeouts wait.
        self.server.asking.send_modify(|n| *n += 1);
        let result = self.elicitations.ask(&self.server.name, request).await;
        self.server.asking.send_modify(|n| *n = n.saturating_sub(1));
        Ok(result)
    }

    /// An `elicitation/create` rmcp could not type (its schema is outside the
    /// specification) arrives here: it is declined with the reason, not left unanswered.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleClient>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method == "elicitation/create" {
            let result = self
                .elicitations
                .ask_raw(&self.server.name, request.params.as_ref());
            let value = serde_json::to_value(result)
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            return Ok(CustomResult(value));
        }
        Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            request.method,
            None,
        ))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.server.progressed(params);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.server.changes_seen.fetch_add(1, Ordering::SeqCst);
        self.changed.notify_one();
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.catalog_changed.notify_one();
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.catalog_changed.notify_one();
    }
}

/// A running connection, how its process ends, and the task reading its stderr.
struct Connection {
    running: RunningService<RoleClient, Handler>,
    changed: Arc<Notify>,
    catalog_changed: Arc<Notify>,
    exit: ExitWatch,
    stderr: Option<tokio::task::JoinHandle<()>>,
}

/// How long a failure waits for the process's exit status and its last stderr bytes.
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// Explains a failure whose words came from the MCP library (often a broken pipe): when the
/// process has exited (or does so within [`EXIT_GRACE`]), "exited with status N" instead;
/// either way followed by the stderr lines that carry the cause, read to the end first.
async fn explain(
    server: &Server,
    exit: &ExitWatch,
    stderr: Option<tokio::task::JoinHandle<()>>,
    otherwise: Text,
) -> Text {
    let mut exit = exit.clone();
    let status = tokio::time::timeout(EXIT_GRACE, exit.wait_for(Option::is_some))
        .await
        .ok()
        .and_then(|r| r.ok().and_then(|s| *s))
        // A process deepterm ended says nothing about the failure.
        .filter(|e| !e.killed)
        .map(|e| e.status);
    // Its stderr is complete only once it has ended.
    if let Some(reader) = stderr.filter(|_| status.is_some()) {
        let _ = tokio::time::timeout(EXIT_GRACE, reader).await;
    }
    let error = match status {
        Some(s) => {
            tracing::info!(
                "MCP server {}: {}",
                server.name,
                failure::english(&otherwise)
            );
            failure::exited(s)
        }
        None => otherwise,
    };
    server.with_hint(error)
}

/// Starts the process, runs the MCP handshake; a failure is explained (with its stderr).
/// A remote server is connected over HTTP instead, with the same handler.
async fn connect_once(inner: &Inner, server: &Arc<Server>) -> Result<Connection, Text> {
    let cfg = &server.config;
    if let Some(remote) = &cfg.remote {
        let changed = Arc::new(Notify::new());
        let catalog_changed = Arc::new(Notify::new());
        let handler = Handler {
            server: server.clone(),
            changed: changed.clone(),
            catalog_changed: catalog_changed.clone(),
            elicitations: inner.options.elicitations.clone(),
        };
        let running = remote::serve(inner, server, remote, handler).await?;
        // No process: nothing exits and nothing writes a stderr.
        let (_, exit) = tokio::sync::watch::channel(None);
        return Ok(Connection {
            running,
            changed,
            catalog_changed,
            exit,
            stderr: None,
        });
    }
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
            tracing::warn!("{}", o.message(&s.name));
            s.lock().last_error = Some(text(
                "mcp-err-oversize",
                vec![
                    ("name", s.name.clone()),
                    ("bytes", o.bytes.to_string()),
                    ("limit", o.limit.to_string()),
                ],
            ));
            s.oversize.send_replace(Some(o));
        })
    };
    let skipped: SkipReport = {
        let s = server.clone();
        Arc::new(move |left_out: Vec<Skipped>| {
            s.skipped
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .extend(left_out);
        })
    };
    let (transport, stderr, exit) =
        ChildTransport::spawn(cmd, server.max_message_bytes(), report, skipped)
            .map_err(|e| failure::cannot_start(&cfg.command, &e))?;
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
    let changed = Arc::new(Notify::new());
    let catalog_changed = Arc::new(Notify::new());
    let handler = Handler {
        server: server.clone(),
        changed: changed.clone(),
        catalog_changed: catalog_changed.clone(),
        elicitations: inner.options.elicitations.clone(),
    };
    let served = server
        .or_oversize(async {
            handler
                .serve(transport)
                .await
                .map_err(|e| failure::handshake(&e))
        })
        .await;
    match served {
        Ok(running) => Ok(Connection {
            running,
            changed,
            catalog_changed,
            exit,
            stderr: stderr_reader,
        }),
        Err(e) => Err(explain(server, &exit, stderr_reader, e).await),
    }
}

/// One listing: the model-facing names, the registrations, and what had to be left out or
/// cut (for the warnings).
struct Listed {
    mapping: Vec<(String, String)>,
    regs: Vec<RegisteredTool>,
    skipped: Vec<Skipped>,
    /// Tools whose description was cut.
    cut: Vec<String>,
}

/// Lists the server's tools and builds their registrations.
async fn list_tools(server: &Arc<Server>, peer: &Peer<RoleClient>) -> Result<Listed, Text> {
    let take_skipped =
        || std::mem::take(&mut *server.skipped.lock().unwrap_or_else(|p| p.into_inner()));
    take_skipped();
    let tools = server
        .or_oversize(async {
            peer.list_all_tools().await.map_err(|e| {
                remote::explain_service(server, &e).unwrap_or_else(|| failure::list_failed(&e))
            })
        })
        .await?;
    let (mapping, regs, cut) = registrations(server, &tools);
    Ok(Listed {
        mapping,
        regs,
        skipped: take_skipped(),
        cut,
    })
}

#[allow(clippy::type_complexity)]
fn registrations(
    server: &Arc<Server>,
    tools: &[Tool],
) -> (Vec<(String, String)>, Vec<RegisteredTool>, Vec<String>) {
    let originals: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    let mapping = names::map_tool_names(&server.name, &originals);
    let timeout = Duration::from_secs(
        server
            .config
            .timeout_secs
            .unwrap_or(DEFAULT_CALL_TIMEOUT_SECS),
    );
    let mut regs = Vec::with_capacity(tools.len());
    let mut cut = Vec::new();
    for (tool, (model, original)) in tools.iter().zip(&mapping) {
        let description = tool
            .description
            .as_deref()
            .map(str::to_string)
            .or_else(|| tool.title.clone())
            .unwrap_or_default();
        // Every request carries the description: a huge one costs on each.
        let (mut description, was_cut) = listing::cap_description(description);
        if was_cut {
            cut.push(model.clone());
        }
        if *model != format!("{}__{original}", server.name) {
            if !description.is_empty() {
                description.push_str("\n\n");
            }
            description.push_str(&format!(
                "(MCP server \"{}\", tool \"{original}\")",
                server.name
            ));
        }
        let trusted = server.config.trust_read_only_hint;
        let hints = ToolHints::of(tool, trusted);
        // A hint loosens approval only where the user trusts the server's hints.
        let approval = if trusted && hints.is_some_and(|h| h.is_read_only()) {
            Approval::Never
        } else {
            server.config.approval
        };
        regs.push(RegisteredTool {
            schema: ToolSchema {
                name: model.clone(),
                description,
                parameters: serde_json::Value::Object((*tool.input_schema).clone()),
                defer_loading: None,
            },
            approval,
            enabled: true,
            executor: Arc::new(McpTool {
                server: server.clone(),
                tool: original.clone(),
                timeout,
                hints,
            }),
            parallel_safe: server.config.parallel,
        });
    }
    (mapping, regs, cut)
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

/// Most distinct warnings kept per server (each is shown once).
const MAX_WARNED: usize = 256;

/// Sends `text` as a warning unless this server already had one under `key`.
fn warn_once(inner: &Inner, server: &Server, key: String, text: Text) {
    let mut warned = server.warned.lock().unwrap_or_else(|p| p.into_inner());
    if warned.len() < MAX_WARNED && warned.insert(key) {
        let _ = inner.bg.send(Background::Warning(text));
    }
}

/// Warns about what a listing left out or cut, each thing once per server: a server that
/// lists the same bad tool on every refresh is not a stream of notices.
fn warn_listing(inner: &Inner, server: &Server, listed: &Listed) {
    let name = || Arg::from(server.name.as_str());
    for s in &listed.skipped {
        let text = match &s.reason {
            SkipReason::TooDeep => Text::new(
                "mcp-tool-skipped-deep",
                vec![
                    ("name", name()),
                    ("tool", Arg::from(s.tool.as_str())),
                    ("levels", Arg::from(listing::MAX_TOOL_DEPTH)),
                ],
            ),
            SkipReason::SchemaTooLarge(bytes) => Text::new(
                "mcp-tool-skipped-schema-size",
                vec![
                    ("name", name()),
                    ("tool", Arg::from(s.tool.as_str())),
                    ("bytes", Arg::from(*bytes)),
                    ("limit", Arg::from(listing::MAX_SCHEMA_BYTES / 1024)),
                ],
            ),
            SkipReason::Malformed(e) => Text::new(
                "mcp-tool-skipped-malformed",
                vec![
                    ("name", name()),
                    ("tool", Arg::from(s.tool.as_str())),
                    ("error", Arg::from(e.as_str())),
                ],
            ),
        };
        tracing::warn!(
            "MCP server {}: tool {} left out: {:?}",
            server.name,
            s.tool,
            s.reason
        );
        warn_once(
            inner,
            server,
            format!("skip\u{0}{}\u{0}{:?}", s.tool, s.reason),
            text,
        );
    }
    if let Some(tool) = listed.cut.first() {
        let text = Text::new(
            "mcp-description-cut",
            vec![
                ("name", name()),
                ("count", Arg::from(listed.cut.len())),
                ("tool", Arg::from(tool.as_str())),
                ("limit", Arg::from(listing::MAX_DESCRIPTION_BYTES / 1024)),
            ],
        );
        warn_once(inner, server, "cut".to_string(), text);
    }
}

/// One server's lifetime: connect, serve, reconnect with backoff, give up.
pub(super) async fn supervise(
    inner: Arc<Inner>,
    server: Arc<Server>,
    generation: u64,
    token: CancellationToken,
) {
    let name = server.name.clone();
    let opts = inner.options.clone();
    let mut ever_connected = false;
    // Failed tries since the last healthy connection: connects that failed, and
    // connections that ended within `healthy_after` of their start.
    let mut failures: u32 = 0;
    loop {
        if failures > 0 {
            tokio::select! {
                _ = token.cancelled() => return,
                _ = tokio::time::sleep(opts.backoff(failures - 1)) => {}
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
                let mut c = connect_once(&inner, &server).await?;
                match list_tools(&server, c.running.peer()).await {
                    Ok(listed) => Ok::<_, Text>((c, listed)),
                    // A server that exits right after the handshake: say so, with stderr.
                    Err(e) => Err(explain(&server, &c.exit, c.stderr.take(), e).await),
                }
            }) => match r {
                Ok(r) => r,
                Err(_) => Err(server.with_hint(text(
                    "mcp-err-no-answer",
                    vec![("seconds", opts.connect_timeout.as_secs().to_string())],
                ))),
            },
        };
        let (conn, listed) = match connected {
            Ok(c) => c,
            Err(error) => {
                // Retrying cannot log in: only `/mcp login NAME` can.
                if !ever_connected || failures >= opts.max_retries || remote::is_needs_login(&error)
                {
                    give_up(&inner, &server, generation, error);
                    return;
                }
                let still = if_current(&server, generation, |st| {
                    send_status(&inner, st, &name, McpState::Disconnected, Some(error));
                });
                if !still {
                    return;
                }
                failures += 1;
                continue;
            }
        };
        ever_connected = true;
        let Connection {
            running,
            changed,
            catalog_changed,
            exit,
            stderr,
        } = conn;
        let up_since = Instant::now();
        let peer = running.peer().clone();
        warn_listing(&inner, &server, &listed);
        // Its prompts and resources before it counts as connected, so `exec`'s first line
        // can run a prompt command.
        let warnings = tokio::select! {
            _ = token.cancelled() => return,
            w = catalog::refresh(&inner, &server, &peer, opts.connect_timeout, generation) => w,
        };
        for (key, text) in warnings {
            warn_once(&inner, &server, key, text);
        }
        let Listed { mapping, regs, .. } = listed;
        let still = if_current(&server, generation, |st| {
            st.peer = Some(peer.clone());
            st.tools = mapping;
            st.last_error = None;
            server.offer_tools(&inner.bg, regs);
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
        // The earliest time the next refresh may start.
        let mut next_refresh = Instant::now();
        let mut next_catalog = Instant::now();
        let error = loop {
            tokio::select! {
                _ = token.cancelled() => {
                    stop.cancel();
                    let _ = wait.await;
                    return;
                }
                r = &mut wait => {
                    break match r {
                        Ok(_) => text("mcp-err-process-exited", vec![]),
                        Err(e) => text("mcp-err-task-failed", vec![("error", e.to_string())]),
                    };
                }
                () = catalog_changed.notified() => {
                    // Like a tool refresh: a burst is one refresh, spaced.
                    tokio::select! {
                        _ = token.cancelled() => continue,
                        _ = tokio::time::sleep_until(next_catalog) => {}
                    }
                    let warnings = tokio::select! {
                        _ = token.cancelled() => continue,
                        w = catalog::refresh(&inner, &server, &peer, opts.connect_timeout, generation) => w,
                    };
                    next_catalog = Instant::now() + opts.refresh_interval;
                    for (key, text) in warnings {
                        warn_once(&inner, &server, key, text);
                    }
                }
                () = changed.notified() => {
                    // Notifications during this pause are the same one pending refresh.
                    tokio::select! {
                        _ = token.cancelled() => continue,
                        _ = tokio::time::sleep_until(next_refresh) => {}
                    }
                    let seen = server.changes_seen.load(Ordering::SeqCst);
                    let listed = tokio::select! {
                        _ = token.cancelled() => continue,
                        r = tokio::time::timeout(opts.connect_timeout, list_tools(&server, &peer)) => {
                            r.unwrap_or_else(|_| Err(text(
                                "mcp-err-list-no-answer",
                                vec![("seconds", opts.connect_timeout.as_secs().to_string())],
                            )))
                        }
                    };
                    next_refresh = Instant::now() + opts.refresh_interval;
                    match listed {
                        Ok(listed) => {
                            warn_listing(&inner, &server, &listed);
                            let Listed { mapping, regs, .. } = listed;
                            let still = if_current(&server, generation, |st| {
                                st.tools = mapping;
                                server.offer_tools(&inner.bg, regs);
                            });
                            if !still {
                                return;
                            }
                        }
                        Err(e) => {
                            let english = failure::english(&e);
                            tracing::warn!("MCP server {name}: {english}");
                            warn_once(&inner, &server, format!("refresh\u{0}{english}"), Text::new(
                                "mcp-refresh-failed",
                                vec![("name", Arg::from(name.as_str())), ("error", Arg::from(e))],
                            ));
                        }
                    }
                    server.changes_done.send_replace(seen);
                }
            }
        };
        // Crash: keep the tools registered (calls fail clearly) and reconnect, unless it
        // keeps crashing soon after each connect.
        let error = explain(&server, &exit, stderr, error).await;
        failures = if up_since.elapsed() >= opts.healthy_after {
            1
        } else {
            failures + 1
        };
        if failures > opts.max_retries {
            let error = Text::new(
                "mcp-err-gave-up",
                vec![
                    ("count", Arg::from(failures.to_string())),
                    (
                        "seconds",
                        Arg::from(opts.healthy_after.as_secs().to_string()),
                    ),
                    ("name", Arg::from(name.as_str())),
                    ("last", Arg::from(error)),
                ],
            );
            give_up(&inner, &server, generation, error);
            return;
        }
        let still = if_current(&server, generation, |st| {
            st.peer = None;
            send_status(&inner, st, &name, McpState::Disconnected, Some(error));
            server.phase.send_replace(Phase::Busy);
        });
        if !still {
            return;
        }
    }
}

fn give_up(inner: &Inner, server: &Server, generation: u64, error: Text) {
    if_current(server, generation, |st| {
        st.run = None;
        st.peer = None;
        if !std::mem::take(&mut st.tools).is_empty() {
            server.offer_tools(&inner.bg, Vec::new());
        }
        server.store_catalog(&inner.bg, Default::default());
        send_status(inner, st, &server.name, McpState::Failed, Some(error));
        server.phase.send_replace(Phase::Failed);
    });
}
