//! The agent loop: turns, steps, attempts (E-16), tool execution, retries, cancellation
//! and steering. The loop is the only writer of the session log.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::agent::env_error::{EnvError, RouteSwitchError};
use crate::agent::inbox::Inbox;
use crate::agent::protocol::{
    AgentCommand, AgentEvent, Notice, NoticeLevel, RouteInfo, SandboxInfo, TurnPhase,
};
use crate::agent::request::{AttemptInput, plan_attempt};
use crate::agent::state::SessionState;
pub use crate::agent::tool_runner::ApprovalMode;
use crate::agent::tool_runner::{ToolCall, ToolRunner};
use crate::config::ApiKey;
use crate::i18n::{Arg, Localizer};
use crate::llm::client::{ProviderClient, error_message_id};
use crate::llm::retry::RetryPolicy;
use crate::llm::types::{
    Completion, ErrorCode, GenerateOptions, LlmError, Route, StopReason, StreamEvent,
};
use crate::session::event::{
    AssistantAttempt, AssistantMessageData, AttemptError, Block, Event, EventKind, Message, Role,
    Source, StepRef, Timing, ToolCallData, ToolResultData, TurnEnd, TurnOutcome, TurnRef, Usage,
    UserMessageData,
};
use crate::session::{Session, SessionError};
use crate::tools::registry::{ToolRegistry, ToolSource};
pub use crate::tools::source::Background;

mod compaction;
pub use compaction::{
    AUTO_COMPACT_RATIO, CHECKPOINT_PREFIX, COMPACTION_INSTRUCTION, compaction_messages,
};

/// Most steps one turn may take before the loop stops it.
pub const MAX_STEPS_PER_TURN: u64 = 64;
pub use crate::agent::request::DEFAULT_MAX_TOKENS;

/// Errors that stop a turn.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The session log refused an event or could not be written.
    #[error("{0}")]
    Session(#[from] SessionError),
    /// The provider failed (after retries).
    #[error("{0}")]
    Llm(LlmError),
    /// The user cancelled.
    #[error("cancelled")]
    Cancelled,
    /// The turn took more than [`MAX_STEPS_PER_TURN`] steps.
    #[error("more than {MAX_STEPS_PER_TURN} steps in one turn")]
    TooManySteps,
}

/// Why [`Agent::inspect`] has no data to show (the text goes inside a localized frame).
#[derive(Debug, thiserror::Error)]
pub enum InspectFailure {
    /// A logged request could not be rebuilt, or there is no such request.
    #[error(transparent)]
    Rebuild(#[from] crate::agent::inspect::InspectError),
    /// The next request could not be previewed.
    #[error(transparent)]
    Preview(#[from] AgentError),
}

/// Lists the saved sessions for the `/resume` picker; blocking (it reads the logs).
pub type SummaryJob = Box<dyn FnOnce() -> Vec<crate::agent::protocol::SessionSummary> + Send>;

/// Hooks the loop needs from its surroundings (route resolution, config persistence,
/// session switching). Implemented in `crate::app`.
pub trait Environment: Send {
    /// Resolves `provider/model` (with any base URL override) to a route and its key.
    fn resolve_route(&self, spec: &str) -> Result<(Route, Option<ApiKey>), EnvError>;
    /// Every `provider/model` the catalog and config know (for `/model`).
    fn known_routes(&self) -> Vec<String> {
        vec![]
    }
    /// Persists the interface language.
    fn save_locale(&self, locale: crate::i18n::Locale) -> Result<(), EnvError>;
    /// Rendered base system prompt (instructions from config).
    fn base_prompt(&self) -> String;
    /// The effort the config sets for `route` (its model entry's `effort`, else the
    /// top-level one); `None` = the provider's default (SPEC §14.4).
    fn configured_effort(&self, _route: &Route) -> Option<crate::session::effort::Effort> {
        None
    }
    /// The instruction files as read now: which are in use (with sizes) and which were
    /// refused or cut (`/instructions`).
    fn instructions_in_use(&self) -> crate::config::InstructionsRead {
        crate::config::InstructionsRead::default()
    }
    /// Warnings about the instruction files (refused, cut) found by [`Environment::base_prompt`]
    /// since the last call, once per change (decision 0031).
    fn take_prompt_notices(&self) -> Vec<Notice> {
        vec![]
    }
    /// Opens a fresh session (for `/new`).
    fn new_session(&self) -> Result<(Session, PathBuf), EnvError>;
    /// Opens an existing session by id or `last` (for `/resume ID`); `current_id` is the
    /// session open now (`last` means the newest other one). Also returns a torn tail
    /// that was cut on load, to report.
    fn open_session(
        &self,
        query: &str,
        current_id: &str,
    ) -> Result<(Session, PathBuf, Option<crate::session::store::TornTail>), EnvError>;
    /// Lines describing saved sessions (for `/resume` alone in `exec`): the ones the TUI's
    /// picker would offer, so neither `current_id` nor a session without messages.
    fn list_sessions(&self, current_id: &str) -> Vec<String>;
    /// The work that lists the saved sessions, newest first, for the TUI's `/resume`
    /// picker. It reads the logs, so the loop runs it off its task.
    fn session_summaries(&self) -> SummaryJob {
        Box::new(Vec::new)
    }
    /// Forks `parent` into a new session that continues from its current point (`/fork`,
    /// SPEC §14.3).
    fn fork_session(&self, _parent: &Session) -> Result<(Session, PathBuf), EnvError> {
        Err(EnvError::Unsupported)
    }
    /// The protocol a configured provider speaks (for rebuilding past requests).
    fn provider_kind(&self, _provider: &str) -> Option<crate::llm::types::ProviderKind> {
        None
    }
}

/// The agent: an actor that owns its services and answers one command at a time.
/// - the session state ([`SessionState`]), rebuilt whole on `/new` and `/resume`;
/// - the turn runner (this file: turns, steps, attempts, one retry helper shared by steps
///   and compaction) over the provider client and route;
/// - the tool runner ([`ToolRunner`]: approvals, which calls may overlap);
/// - the command table (`agent::commands`);
/// - the inbox ([`Inbox`]): the typed command channel the running turn `select!`s on.
pub struct Agent {
    state: SessionState,
    route: Route,
    client: ProviderClient,
    tools: ToolRunner,
    inbox: Inbox,
    env: Box<dyn Environment>,
    l: Localizer,
    tx: mpsc::UnboundedSender<AgentEvent>,
    retry: RetryPolicy,
    demo: bool,
    bg_tx: mpsc::UnboundedSender<Background>,
    bg_rx: mpsc::UnboundedReceiver<Background>,
    mcp: Option<crate::tools::mcp::McpManager>,
    /// Names last reported as dropped by the tool limit (warned once per change).
    dropped_tools: Vec<String>,
    /// Name clashes between sources last warned about (once per clash).
    pub(crate) name_clashes: Vec<crate::tools::registry::NameClash>,
    /// The sandbox mode and write scope the acting tools read (SPEC §14.2).
    pub(crate) sandbox: crate::sandbox::handle::SandboxHandle,
    /// The backend probed at start, for `/sandbox`.
    pub(crate) sandbox_status: Option<std::sync::Arc<crate::sandbox::probe::SandboxStatus>>,
    /// Checkpoints of the workspace (SPEC §14.3; `agent::checkpoints`).
    pub(crate) checkpoints: crate::checkpoint::Checkpointer,
    /// The configured hooks (SPEC §14.4, `agent::hooks`).
    pub(crate) hooks: crate::agent::hooks::Hooks,
    /// The custom commands read at start (SPEC §14.4, `agent::commands::custom`).
    pub(crate) custom_commands: crate::agent::custom_commands::LoadedCommands,
}

/// What handling one composer line produced (for `exec`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineOutcome {
    /// Final assistant text when a turn ran.
    pub text: Option<String>,
    /// One-line localized error when the turn or command failed.
    pub error: Option<String>,
    /// `/quit` was given.
    pub quit: bool,
}

impl Agent {
    /// Builds an agent over an open session.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        session: Session,
        route: Route,
        key: Option<ApiKey>,
        registry: ToolRegistry,
        env: Box<dyn Environment>,
        l: Localizer,
        tx: mpsc::UnboundedSender<AgentEvent>,
        approval: ApprovalMode,
        demo: bool,
    ) -> Result<Agent, LlmError> {
        let mut tools = ToolRunner::new(registry, approval);
        if let Some(k) = &key {
            tools.add_secret(k.expose());
        }
        let client = ProviderClient::new(route.clone(), key.map(|k| k.expose().to_string()))?;
        let (bg_tx, bg_rx) = mpsc::unbounded_channel();
        tools.registry_mut().set_max_tools(route.max_tools);
        let mut session = session;
        session.set_secrets(tools.secrets().clone());
        Ok(Agent {
            bg_tx,
            bg_rx,
            mcp: None,
            state: SessionState::open(session),
            route,
            client,
            tools,
            inbox: Inbox::detached(tx.clone()),
            env,
            l,
            tx,
            retry: RetryPolicy::default(),
            demo,
            dropped_tools: Vec::new(),
            name_clashes: Vec::new(),
            sandbox: crate::sandbox::handle::SandboxHandle::for_workspace(
                &std::env::current_dir().unwrap_or_default(),
            ),
            sandbox_status: None,
            checkpoints: Default::default(),
            hooks: crate::agent::hooks::Hooks::default(),
            custom_commands: Default::default(),
        })
    }

    /// Adds a key value to redact from tool results and from everything the session logs
    /// and sends (see [`crate::secret::Secrets`], decision 0030).
    pub fn add_secret(&mut self, value: impl Into<String>) {
        self.tools.add_secret(&value.into());
    }

    /// A sender for background changes (tool sources, MCP status).
    pub fn background_sender(&self) -> mpsc::UnboundedSender<Background> {
        self.bg_tx.clone()
    }

    /// Applies queued background changes: tool sources change the registry (the next
    /// request logs the difference as usual), MCP status changes are logged.
    pub fn drain_background(&mut self) -> Result<(), AgentError> {
        while let Ok(bg) = self.bg_rx.try_recv() {
            self.apply_background(bg)?;
        }
        self.warn_dropped_tools();
        Ok(())
    }

    /// Warns when the route's tool limit leaves enabled tools undeclared, naming their
    /// sources and the first few names; once per change of the dropped set.
    fn warn_dropped_tools(&mut self) {
        let dropped = self.tools.registry().dropped();
        let names: Vec<String> = dropped.iter().map(|d| d.name.clone()).collect();
        if names == self.dropped_tools {
            return;
        }
        self.dropped_tools = names;
        if dropped.is_empty() {
            return;
        }
        let mut sources: Vec<&ToolSource> = dropped.iter().map(|d| &d.source).collect();
        sources.sort();
        sources.dedup();
        let sources: Vec<String> = sources.iter().map(|s| s.localized(self.l)).collect();
        const SHOWN: usize = 5;
        let mut shown: Vec<&str> = dropped
            .iter()
            .take(SHOWN)
            .map(|d| d.name.as_str())
            .collect();
        if dropped.len() > SHOWN {
            shown.push("…");
        }
        self.notice(
            NoticeLevel::Warn,
            "tools-limit-dropped",
            vec![
                ("count", Arg::from(dropped.len())),
                ("limit", Arg::from(self.tools.registry().max_tools())),
                (
                    "sources",
                    Arg::List(sources.iter().map(|s| s.to_string()).collect()),
                ),
                (
                    "names",
                    Arg::List(shown.iter().map(|s| s.to_string()).collect()),
                ),
            ],
        );
    }

    fn apply_background(&mut self, bg: Background) -> Result<(), AgentError> {
        match bg {
            Background::Tools { source, tools } => {
                self.tools.registry_mut().set_source_tools(source, tools);
                self.warn_name_clashes();
                self.report_tool_change();
                Ok(())
            }
            Background::LatestTools { source, slot } => {
                if let Some(tools) = slot.take() {
                    self.tools.registry_mut().set_source_tools(source, tools);
                    self.warn_name_clashes();
                    self.report_tool_change();
                }
                Ok(())
            }
            Background::Warning(t) => {
                // Like a status error, it may quote what a server sent.
                let args = t
                    .args
                    .into_iter()
                    .map(|(k, v)| match v {
                        Arg::Str(s) => (k, Arg::Str(self.tools.redact(&s))),
                        other => (k, other),
                    })
                    .collect();
                self.emit(AgentEvent::Notice(Notice {
                    level: NoticeLevel::Warn,
                    key: t.key,
                    args,
                }));
                Ok(())
            }
            Background::Mcp(mut status) => {
                // A server's stderr line may quote a key it was given explicitly.
                status.error = status.error.map(|e| self.tools.redact(&e));
                status.detail = status.detail.map(|t| {
                    Box::new(crate::tools::mcp::failure::redact_text(*t, &|s| {
                        self.tools.redact(s)
                    }))
                });
                self.push(EventKind::McpStatus(status))
            }
        }
    }

    /// Attaches the MCP servers (`/mcp`); they report through [`Agent::background_sender`].
    pub fn set_mcp(&mut self, m: crate::tools::mcp::McpManager) {
        self.mcp = Some(m);
    }

    /// `exec`: waits (at most `limit`) for the MCP servers with `enabled = true` to be
    /// connected or failed, so the first line's requests declare their tools; warns
    /// about each server that is not connected, by name.
    pub async fn wait_for_mcp(&mut self, limit: std::time::Duration) {
        let Some(mcp) = self.mcp.clone() else { return };
        for s in mcp.wait_enabled(limit).await {
            let error = s.error.map(Arg::from).unwrap_or_else(|| Arg::from(""));
            if s.timed_out {
                self.notice(
                    NoticeLevel::Warn,
                    "exec-mcp-timeout",
                    vec![
                        ("name", Arg::from(s.name)),
                        ("seconds", Arg::from(limit.as_secs())),
                    ],
                );
            } else {
                self.notice(
                    NoticeLevel::Warn,
                    "exec-mcp-failed",
                    vec![("name", Arg::from(s.name)), ("error", error)],
                );
            }
        }
        if let Err(e) = self.drain_background() {
            self.notice(
                NoticeLevel::Error,
                "agent-session-error",
                vec![("error", Arg::from(e.to_string()))],
            );
        }
    }

    /// The MCP servers, if attached.
    pub fn mcp(&self) -> Option<crate::tools::mcp::McpManager> {
        self.mcp.clone()
    }

    /// Sets the stream idle timeout of the provider client (tests use short ones).
    pub fn set_idle_timeout(&mut self, idle: std::time::Duration) {
        self.client.set_idle_timeout(idle);
    }

    /// Sets the stream size and progress limits (`[limits]` in the config).
    pub fn set_stream_limits(&mut self, limits: crate::llm::client::StreamLimits) {
        self.client.set_limits(limits);
    }

    /// Replaces the retry policy (tests use short delays).
    pub fn set_retry_policy(&mut self, p: RetryPolicy) {
        self.retry = p;
    }

    /// The session (read-only).
    pub fn session(&self) -> &Session {
        &self.state.session
    }

    /// The per-session state.
    pub(crate) fn state_mut(&mut self) -> &mut SessionState {
        &mut self.state
    }

    /// Uses `sandbox` (the write scope shared with the acting tools) instead of the
    /// default over the current directory.
    pub fn set_sandbox(&mut self, sandbox: crate::sandbox::handle::SandboxHandle) {
        self.sandbox = sandbox;
    }

    /// Decides the acting tools with `acting`; `status` is what `/sandbox` shows.
    pub fn set_acting(
        &mut self,
        acting: std::sync::Arc<crate::agent::acting::ActingPolicy>,
        status: std::sync::Arc<crate::sandbox::probe::SandboxStatus>,
    ) {
        self.tools.set_acting(acting);
        self.sandbox_status = Some(status);
    }

    /// A warning found while starting (a project rule that cannot allow), shown once.
    pub fn emit_startup_warning(&self, text: String) {
        self.notice(
            NoticeLevel::Warn,
            "agent-startup-warning",
            vec![("text", Arg::from(text))],
        );
    }

    /// The acting tools' policy, if the session has one.
    pub(crate) fn tools_acting(
        &self,
    ) -> Option<std::sync::Arc<crate::agent::acting::ActingPolicy>> {
        self.tools.acting().cloned()
    }

    /// The current sandbox mode.
    pub fn sandbox_mode(&self) -> crate::sandbox::SandboxMode {
        self.sandbox.mode()
    }

    /// The latest turn number.
    pub(crate) fn current_turn(&self) -> u64 {
        self.state.turn
    }

    /// The session, for folds that need `&mut` (the tool history).
    pub(crate) fn session_mut(&mut self) -> &mut Session {
        &mut self.state.session
    }

    /// The current route.
    pub fn route(&self) -> &Route {
        &self.route
    }

    fn emit(&self, ev: AgentEvent) {
        let _ = self.tx.send(ev);
    }

    fn notice(&self, level: NoticeLevel, key: &str, args: Vec<(&str, Arg)>) {
        self.emit(AgentEvent::Notice(Notice::new(level, key, args)));
    }

    pub(crate) fn route_info(&self) -> RouteInfo {
        RouteInfo {
            id: self.route.id(),
            context_window: self.route.context_window,
            tool_update: self.route.tool_update,
            system_prompt_update: self.route.system_prompt_update,
            demo: self.demo,
            prices: self.route.prices,
            effort: self.effort(),
        }
    }

    /// Announces the session and route to the UI.
    pub fn announce(&self, path: String) {
        self.emit(AgentEvent::SessionOpened {
            id: self.state.session.id().to_string(),
            path,
            // Every event: the UI leaves out what a rewind took back (SPEC §14.3) and
            // the Trajectory marks it (decision 0096).
            history: self.state.session.events().to_vec(),
        });
        self.emit(AgentEvent::Route(self.route_info()));
        self.emit(AgentEvent::Sandbox(SandboxInfo::of(&self.sandbox)));
        self.emit(AgentEvent::SessionUsage(self.state.usage));
    }

    fn push(&mut self, kind: EventKind) -> Result<(), AgentError> {
        let ev = self.state.session.push(kind)?;
        self.emit(AgentEvent::Committed(ev));
        Ok(())
    }

    /// Handles one composer submission to completion (a whole turn, or a command).
    pub async fn handle_line(&mut self, line: &str) -> LineOutcome {
        self.handle_input(line, true).await
    }

    /// Runs one user message that is never a command, even when it starts with `/` (a
    /// pasted stack trace; §14.5).
    pub async fn handle_message(&mut self, text: &str) -> LineOutcome {
        self.handle_input(text, false).await
    }

    async fn handle_input(&mut self, line: &str, commands: bool) -> LineOutcome {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return LineOutcome::default();
        }
        if let Err(e) = self.drain_background() {
            self.notice(
                NoticeLevel::Error,
                "agent-session-error",
                vec![("error", Arg::from(e.to_string()))],
            );
        }
        // `session_start` hooks owed since start, `/new` or `/resume` (SPEC §14.4).
        self.run_owed_session_start().await;
        if commands && trimmed.starts_with('/') {
            let out = self.handle_command(trimmed).await;
            self.emit(AgentEvent::CommandFinished);
            return out;
        }
        self.send_prompt(line.to_string()).await
    }

    /// Sends `text` as the next prompt, unless a `user_prompt_submit` hook refuses it (its
    /// notice says why; nothing is sent or logged as a message).
    pub(crate) async fn send_prompt(&mut self, text: String) -> LineOutcome {
        let cancel = self.fresh_cancel();
        if self.prompt_refused(&text, &cancel).await {
            return LineOutcome::default();
        }
        self.run_turn(text).await
    }

    /// The shared set of key values (hooks redact what they read and print with it).
    pub(crate) fn secrets(&self) -> &crate::secret::Secrets {
        self.tools.secrets()
    }

    /// Runs `fut` while the inbox keeps absorbing commands (a Cancel cancels the turn's
    /// token, which `fut` watches).
    pub(crate) async fn while_listening<F: std::future::Future>(&mut self, fut: F) -> F::Output {
        self.inbox.during(fut).await
    }

    pub(crate) async fn run_turn(&mut self, text: String) -> LineOutcome {
        if let Err(e) = self.repair_unanswered_calls() {
            let line = self.session_error_line(&e);
            return LineOutcome {
                text: None,
                error: Some(line),
                quit: false,
            };
        }
        // A resumed session's first turn waits (bounded) for the MCP servers it had
        // connected, so its first request declares the same tools.
        if let Some(mcp) = self.mcp.clone() {
            mcp.wait_restored(std::time::Duration::from_secs(15)).await;
        }
        self.state.turn += 1;
        let turn = self.state.turn;
        let cancel = self.inbox.new_cancel();
        // `@path` mentions attach the files' content.
        self.state
            .pending_user
            .push(crate::agent::mentions::user_message(
                &crate::tools::walk::current_root(),
                text,
                crate::agent::mentions::MAX_MENTION_BYTES,
            ));
        let mut final_text = String::new();
        let mut started = false;
        let result = self
            .turn_body(turn, &cancel, &mut final_text, &mut started)
            .await;
        let (outcome, mut error) = match &result {
            Ok(()) => (TurnOutcome::Completed, None),
            Err(AgentError::Cancelled) => {
                self.notice(NoticeLevel::Warn, "agent-turn-cancelled", vec![]);
                (TurnOutcome::Cancelled, None)
            }
            Err(AgentError::Llm(e)) => {
                let line = self.llm_error_line(e);
                (TurnOutcome::Error, Some(line))
            }
            Err(AgentError::TooManySteps) => {
                let args = vec![("count", Arg::from(MAX_STEPS_PER_TURN))];
                let line = self.l.tra("agent-too-many-steps", &args);
                self.notice(NoticeLevel::Error, "agent-too-many-steps", args);
                (TurnOutcome::Error, Some(line))
            }
            Err(AgentError::Session(e)) => (TurnOutcome::Error, Some(self.session_error_line(e))),
        };
        if started {
            // Input that never reached a request (cancelled or failed before it) is still
            // the user's: keep it in the log rather than dropping it.
            for m in std::mem::take(&mut self.state.pending_user) {
                if let Err(e) = self.push(EventKind::UserMessage(UserMessageData { message: m })) {
                    error.get_or_insert_with(|| self.session_error_line(&e));
                }
            }
            // The state a checkpointed turn left, before its end (SPEC §14.3).
            self.settle_checkpoint(turn);
            if let Err(e) = self.push(EventKind::TurnEnd(TurnEnd {
                turn,
                outcome: Some(outcome),
            })) {
                error.get_or_insert_with(|| self.session_error_line(&e));
            }
            // `stop` hooks (SPEC §14.4), not after a turn the user cancelled.
            if outcome != TurnOutcome::Cancelled {
                self.stop_hooks(turn).await;
            }
        }
        self.state.pending_user.clear();
        if let Err(e) = self.state.session.sync() {
            error.get_or_insert_with(|| self.session_error_line(&e));
        }
        self.emit(AgentEvent::Phase(TurnPhase::Idle));
        self.emit(AgentEvent::TurnFinished);
        LineOutcome {
            text: Some(final_text),
            error,
            quit: false,
        }
    }

    /// A log that ends with tool calls but not all of their results (deepterm stopped
    /// while tools ran) would break the pairing rule (W-8) on every later request: answer
    /// the missing calls with an error result before anything else is sent.
    fn repair_unanswered_calls(&mut self) -> Result<(), AgentError> {
        let mut answered = std::collections::HashSet::new();
        let mut pending: Vec<(u64, u64, String)> = Vec::new();
        let session = &self.state.session;
        for e in session.events().iter().rev() {
            if session.is_rewound(e.seq) {
                continue;
            }
            match &e.kind {
                EventKind::ToolResult(r) => {
                    if let Some(id) = &r.message.tool_call_id {
                        answered.insert(id.clone());
                    }
                }
                EventKind::AssistantMessage(a) => {
                    pending = a
                        .message
                        .tool_calls()
                        .filter(|(id, _, _)| !answered.contains(*id))
                        .map(|(id, _, _)| (a.turn, a.step, id.to_string()))
                        .collect();
                    break;
                }
                _ => {}
            }
        }
        for (turn, step, id) in pending {
            let text = "the call did not finish: deepterm stopped before the tool returned";
            let mut message = Message::text(Role::Tool, text, Source::kind("tool"));
            message.tool_call_id = Some(id);
            message.is_error = Some(true);
            self.push(EventKind::ToolResult(ToolResultData {
                turn,
                step,
                message,
                error: Some(text.to_string()),
            }))?;
        }
        Ok(())
    }

    /// Notifies and returns the localized line for a session log failure.
    fn session_error_line(&self, e: &dyn std::fmt::Display) -> String {
        let args = vec![("error", Arg::from(e.to_string()))];
        let line = self.l.tra("agent-session-error", &args);
        self.notice(NoticeLevel::Error, "agent-session-error", args);
        line
    }

    fn llm_error_line(&self, e: &LlmError) -> String {
        // A transport failure says its cause in plain words, with a hint where one fits,
        // not the transport's whole error chain (the log keeps that, per attempt).
        let cause = crate::llm::cause::Cause::of(e);
        let message = if e.code == ErrorCode::Transport && cause != crate::llm::cause::Cause::Other
        {
            let mut m = self.l.tr(cause.key());
            if let Some(hint) = cause.hint_key() {
                let origin = crate::llm::cause::origin(&self.route.base_url);
                m.push_str(" · ");
                m.push_str(&self.l.tra(hint, &[("origin", Arg::from(origin))]));
            }
            m
        } else {
            e.message.clone()
        };
        let args = vec![("message", Arg::from(message))];
        self.notice(NoticeLevel::Error, error_message_id(e.code), args.clone());
        self.l.tra(error_message_id(e.code), &args)
    }

    async fn turn_body(
        &mut self,
        turn: u64,
        cancel: &CancellationToken,
        final_text: &mut String,
        started: &mut bool,
    ) -> Result<(), AgentError> {
        self.push(EventKind::TurnStart(TurnRef { turn }))?;
        *started = true;
        let mut step = 0;
        loop {
            step += 1;
            if step > MAX_STEPS_PER_TURN {
                return Err(AgentError::TooManySteps);
            }
            if step > 1 {
                self.take_steering(cancel).await;
            }
            if self.needs_auto_compaction() {
                // At step 1 the turn's input is not logged yet: summarize everything before
                // it. Later, keep the running turn (from its latest user message) verbatim.
                self.compact(
                    crate::session::event::CompactionTrigger::Auto,
                    step > 1,
                    cancel,
                )
                .await?;
            }
            self.push(EventKind::StepStart(StepRef { turn, step }))?;
            let res = self.run_step(turn, step, cancel, final_text).await;
            self.push(EventKind::StepEnd(StepRef { turn, step }))?;
            match res {
                Ok(true) => continue,
                // The turn is answered: a message queued meanwhile is its own turn, with its
                // own number, run next from the queue (§14.5, decision 0092). Between the
                // steps of a tool loop it still steers (above).
                Ok(false) => return Ok(()),
                Err(e) => return Err(e),
            }
        }
    }

    /// Moves queued plain-text submissions into the next request (steering); a line a
    /// `user_prompt_submit` hook refuses is dropped with its notice (SPEC §14.4).
    async fn take_steering(&mut self, cancel: &CancellationToken) -> bool {
        let lines = self.inbox.take_steering();
        let mut taken = false;
        for line in lines {
            if self.prompt_refused(&line, cancel).await {
                continue;
            }
            taken = true;
            self.state
                .pending_user
                .push(crate::agent::mentions::user_message(
                    &crate::tools::walk::current_root(),
                    line,
                    crate::agent::mentions::MAX_MENTION_BYTES,
                ));
        }
        taken
    }

    /// E-16: reconcile the prompt, append the user batch, the header and developer message
    /// if owed, the request context if changed; fsync; build the request.
    fn prepare_attempt(&mut self, turn: u64, step: u64) -> Result<GenerateOptions, AgentError> {
        self.drain_background()?;
        let rendered = self.render_prompt();
        self.report_prompt_notices();
        let tools = self.tools.registry().active_tools();
        let pending = std::mem::take(&mut self.state.pending_user);
        let tx = self.tx.clone();
        let mut on_commit = |ev: Arc<Event>| {
            let _ = tx.send(AgentEvent::Committed(ev));
        };
        let input = AttemptInput {
            rendered: &rendered,
            tools,
            pending_user: pending,
            turn,
            step,
            explicit_series_start: false,
            effort: self.effort(),
        };
        let plan = plan_attempt(
            &mut self.state.session,
            &mut self.state.series,
            &self.route,
            input,
            &mut on_commit,
        )?;
        // The request logged the registry's set: later changes are reported against it.
        self.state.tools_shown = None;
        Ok(plan.opts)
    }

    /// The next request as it would be sent now (no new user message), computed on a
    /// replayed copy of the session and series: nothing is written (`/inspect`).
    /// Also returns the copy's events (the real log plus what the attempt would append).
    pub fn preview_next_request(&self) -> Result<(GenerateOptions, Vec<Arc<Event>>), AgentError> {
        let mut session = Session::from_events(
            self.state
                .session
                .events()
                .iter()
                .map(|e| (**e).clone())
                .collect(),
        )?;
        // The preview redacts as the real attempt would, so it shows what would be sent.
        session.set_secrets(self.tools.secrets().clone());
        let mut series = self.state.series;
        let rendered = self.render_prompt();
        let turn = self.state.turn.max(1);
        let input = AttemptInput {
            rendered: &rendered,
            tools: self.tools.registry().active_tools(),
            pending_user: self.state.pending_user.clone(),
            turn,
            step: 1,
            explicit_series_start: false,
            effort: self.effort(),
        };
        let plan = plan_attempt(&mut session, &mut series, &self.route, input, &mut |_| {})?;
        Ok((plan.opts, session.events().to_vec()))
    }

    /// Inspector data: past request `n` next to `n - 1`, or (`None`) the next request
    /// next to the last one sent. Nothing is written to the log.
    pub fn inspect(
        &self,
        request: Option<usize>,
    ) -> Result<crate::agent::inspect::InspectorData, InspectFailure> {
        use crate::agent::inspect;
        let current = (self.route.provider.clone(), self.route.kind);
        let env = &self.env;
        let kind_of = move |provider: &str| -> Option<crate::llm::types::ProviderKind> {
            if provider == current.0 {
                return Some(current.1);
            }
            env.provider_kind(provider)
        };
        match request {
            Some(n) => Ok(inspect::inspect_past(
                self.state.session.events(),
                n,
                &kind_of,
            )?),
            None => {
                let (opts, events) = self.preview_next_request()?;
                Ok(inspect::inspect_next(&events, &opts, &kind_of)?)
            }
        }
    }

    /// Reads the instruction files now and warns about any that are refused or cut (the
    /// TUI does this at start; every request does it again, warning once per change).
    pub fn check_instructions(&self) {
        let _ = self.render_prompt();
        self.report_prompt_notices();
    }

    fn report_prompt_notices(&self) {
        for n in self.env.take_prompt_notices() {
            self.emit(AgentEvent::Notice(n));
        }
    }

    /// The rendered system prompt: the configured base plus `/system` instructions.
    pub fn render_prompt(&self) -> String {
        let mut p = self.env.base_prompt();
        if let Some(extra) = &self.state.extra_instructions {
            if !p.is_empty() {
                p.push_str("\n\n");
            }
            p.push_str(extra);
        }
        p
    }

    /// One step: attempts with retries, then tools. `Ok(true)` = tools ran, continue.
    async fn run_step(
        &mut self,
        turn: u64,
        step: u64,
        cancel: &CancellationToken,
        final_text: &mut String,
    ) -> Result<bool, AgentError> {
        let mut attempt: u32 = 0;
        let completion = loop {
            if cancel.is_cancelled() {
                return Err(AgentError::Cancelled);
            }
            let opts = self.prepare_attempt(turn, step)?;
            self.emit(AgentEvent::Phase(TurnPhase::Waiting));
            let started = Instant::now();
            let mut ttft: Option<u64> = None;
            let tx = self.tx.clone();
            let mut on_event = |ev: StreamEvent| {
                match &ev {
                    StreamEvent::FirstByte => {
                        ttft.get_or_insert(started.elapsed().as_millis() as u64);
                    }
                    StreamEvent::ReasoningDelta(_) => {
                        let _ = tx.send(AgentEvent::Phase(TurnPhase::Thinking));
                    }
                    StreamEvent::TextDelta(_) | StreamEvent::ToolCallStart { .. } => {
                        let _ = tx.send(AgentEvent::Phase(TurnPhase::Responding));
                    }
                    _ => {}
                }
                let _ = tx.send(AgentEvent::Stream {
                    turn,
                    step,
                    event: ev,
                });
            };
            // The inbox keeps taking commands (Cancel, steering) while the reply streams.
            let client = &self.client;
            let res = self
                .inbox
                .during(client.stream(&opts, &mut on_event, cancel))
                .await;
            let timing = Timing {
                ttft_ms: ttft,
                duration_ms: started.elapsed().as_millis() as u64,
            };
            match res {
                Ok(c) => break (c, timing),
                Err(f) if f.error.code == ErrorCode::Cancelled || cancel.is_cancelled() => {
                    if let Some(partial) = f.partial {
                        self.commit_interrupted(turn, step, partial, timing)?;
                    }
                    return Err(AgentError::Cancelled);
                }
                Err(f) => {
                    let delay = self.retry_delay(attempt, &f.error);
                    self.push(EventKind::AssistantAttempt(AssistantAttempt {
                        turn,
                        step,
                        error: AttemptError {
                            code: f.error.code.as_str().to_string(),
                            status: f.error.status,
                            message: f.error.message.clone(),
                            retried: delay.is_some(),
                        },
                    }))?;
                    let Some(delay) = delay else {
                        return Err(AgentError::Llm(f.error));
                    };
                    attempt += 1;
                    self.retry_wait(&f.error, attempt, delay, cancel).await?;
                }
            }
        };
        let (c, timing) = completion;
        self.commit_completion(turn, step, c, timing, cancel, final_text)
            .await
    }

    /// The retry helper shared by steps and compaction, first half: whether failed
    /// attempt number `attempt + 1` is retried, and after how long.
    pub(crate) fn retry_delay(&self, attempt: u32, e: &LlmError) -> Option<std::time::Duration> {
        self.retry.delay(attempt + 1, e)
    }

    /// The retry helper's second half: tells the user, then waits `delay` (commands keep
    /// arriving meanwhile; Cancel ends the wait).
    pub(crate) async fn retry_wait(
        &mut self,
        e: &LlmError,
        attempt: u32,
        delay: std::time::Duration,
        cancel: &CancellationToken,
    ) -> Result<(), AgentError> {
        self.retry_notice(e, attempt, delay);
        let wait = async {
            tokio::select! {
                _ = tokio::time::sleep(delay) => Ok(()),
                _ = cancel.cancelled() => Err(AgentError::Cancelled),
            }
        };
        self.inbox.during(wait).await
    }

    /// Tells the UI a failed attempt will be retried: a transient status, not a notice,
    /// so retries that end in success leave nothing behind (§14.5).
    fn retry_notice(&self, e: &LlmError, attempt: u32, delay: std::time::Duration) {
        self.emit(AgentEvent::Retrying(crate::agent::protocol::RetryStatus {
            attempt,
            max: self.retry.max_retries,
            cause: crate::llm::cause::Cause::of(e),
            seconds: delay.as_secs_f64(),
        }));
    }

    /// Adds a request's usage to the session's; an unknown one (decision 0028) adds nothing.
    fn add_usage(&mut self, u: Option<&Usage>) {
        let Some(u) = u else { return };
        self.state.usage.add(u);
        self.emit(AgentEvent::SessionUsage(self.state.usage));
    }

    fn commit_interrupted(
        &mut self,
        turn: u64,
        step: u64,
        partial: Completion,
        timing: Timing,
    ) -> Result<(), AgentError> {
        // Unanswered tool calls would break the pairing rule (W-8): keep only text and
        // reasoning of an interrupted message.
        let content: Vec<Block> = partial
            .content
            .into_iter()
            .filter(|b| !matches!(b, Block::ToolCall { .. }))
            .collect();
        if content.is_empty() {
            return Ok(());
        }
        // Counted only when logged, so a resumed session shows the same totals.
        self.add_usage(partial.usage.as_ref());
        self.push(EventKind::AssistantMessage(AssistantMessageData {
            turn,
            step,
            message: Message::new(Role::Assistant, content, Source::kind("model")),
            usage: partial.usage,
            timing: Some(timing),
            interrupted: Some(true),
        }))
    }

    async fn commit_completion(
        &mut self,
        turn: u64,
        step: u64,
        c: Completion,
        timing: Timing,
        cancel: &CancellationToken,
        final_text: &mut String,
    ) -> Result<bool, AgentError> {
        self.add_usage(c.usage.as_ref());
        let mut content = c.content;
        let mut repairs = c.id_repairs;
        // Ids must also be unique across the conversation, or later requests break (D3).
        // Every earlier id counts (a replacement must not take one either). They are read
        // from the log's events by reference (deriving the messages would copy the whole
        // history), and not at all when the reply calls no tool.
        let taken: std::collections::HashSet<String> = {
            let calls_tools = content.iter().any(|b| matches!(b, Block::ToolCall { .. }));
            if !calls_tools {
                std::collections::HashSet::new()
            } else {
                self.state
                    .session
                    .events()
                    .iter()
                    .filter_map(|e| match &e.kind {
                        EventKind::AssistantMessage(a) => Some(&a.message),
                        _ => None,
                    })
                    .flat_map(|m| m.tool_calls().map(|(id, _, _)| id.to_string()))
                    .collect()
            }
        };
        repairs.extend(crate::llm::tool_ids::assign_unique_ids(
            &mut content,
            &taken,
            |_, i, _| format!("call_{turn}_{step}_{i}"),
        ));
        if !repairs.is_empty() {
            let renamed = crate::llm::tool_ids::ToolIdRepair::describe(&repairs);
            tracing::warn!(%renamed, "renamed tool-call ids before committing the reply");
            self.notice(
                NoticeLevel::Warn,
                "agent-tool-ids-repaired",
                vec![("renamed", Arg::from(renamed))],
            );
        }
        let message = Message::new(Role::Assistant, content, Source::kind("model"));
        let calls: Vec<ToolCall> = message
            .tool_calls()
            .map(|(id, name, arguments)| ToolCall {
                id: id.to_string(),
                name: name.to_string(),
                arguments: arguments.to_string(),
            })
            .collect();
        let has_text = message
            .content
            .iter()
            .any(|b| matches!(b, Block::Text { text } if !text.is_empty()));
        self.push(EventKind::AssistantMessage(AssistantMessageData {
            turn,
            step,
            message,
            // An impossible usage stays out of the log, as unknown (decision 0028).
            usage: c.usage,
            timing: Some(timing),
            interrupted: None,
        }))?;
        // The answer is copied only after the log line is written, so a large reply is
        // held at most twice at once.
        if has_text
            && let Some(EventKind::AssistantMessage(a)) =
                self.state.session.events().last().map(|e| &e.kind)
        {
            *final_text = a.message.joined_text();
        }
        if calls.is_empty() {
            if c.stop_reason == StopReason::MaxTokens {
                self.notice(NoticeLevel::Warn, "agent-max-tokens", vec![]);
            }
            return Ok(false);
        }
        self.run_tools(
            turn,
            step,
            calls,
            c.stop_reason == StopReason::MaxTokens,
            cancel,
        )
        .await?;
        if cancel.is_cancelled() {
            return Err(AgentError::Cancelled);
        }
        Ok(true)
    }

    async fn run_tools(
        &mut self,
        turn: u64,
        step: u64,
        calls: Vec<ToolCall>,
        truncated: bool,
        cancel: &CancellationToken,
    ) -> Result<(), AgentError> {
        self.emit(AgentEvent::Phase(TurnPhase::RunningTools));
        for c in &calls {
            self.push(EventKind::ToolCall(ToolCallData {
                turn,
                step,
                call_id: c.id.clone(),
                name: c.name.clone(),
                arguments: c.arguments.clone(),
            }))?;
        }
        // `pre_tool_use` hooks first (SPEC §14.4): a call one refuses is never approved or run.
        let blocked = self.pre_tool_hooks(turn, &calls, cancel).await;
        let open = crate::agent::hooks::unblocked(&calls, &blocked);
        // Decide every call first (approvals are asked one at a time, in call order),
        // then run the approved ones and record results in call order.
        let decided = self
            .tools
            .decide(
                &open,
                truncated,
                cancel,
                &mut self.state.always_allowed,
                &mut self.inbox,
                &self.tx,
            )
            .await;
        let decided = crate::agent::hooks::merge_decisions(blocked, decided);
        let ran: Vec<bool> = decided.iter().map(Option::is_none).collect();
        // The first workspace change of the turn takes a checkpoint first (SPEC §14.3).
        self.checkpoint_before_calls(turn, &calls, &decided);
        // `tool_removal = "retain"`: a call to a removed, still declared tool says so.
        let history = self.state.session.tool_history()?;
        self.tools
            .registry_mut()
            .set_retained(crate::llm::projection::retained_declarations(
                self.route.tool_update,
                self.route.tool_removal,
                &history,
            ));
        let tools = &self.tools;
        let results = self
            .inbox
            .during(tools.execute(&calls, decided, cancel))
            .await;
        let mut results = results;
        for (call, r) in calls.iter().zip(results.iter_mut()) {
            // The sandbox seems to have refused a command: the user may run it outside.
            if let Some(again) = self
                .tools
                .offer_rerun(call, r, &mut self.inbox, &self.tx, cancel)
                .await
            {
                *r = again;
            }
        }
        // `post_tool_use` hooks see each result of a call that ran (SPEC §14.4).
        self.post_tool_hooks(turn, &calls, &ran, &mut results, cancel)
            .await;
        for (call, r) in calls.iter().zip(results) {
            // A command the sandbox seems to have refused is said on the side too (exec's
            // stderr), so a headless run never fails silently (SPEC §14.2).
            if call.name == "shell"
                && r.content
                    .contains(crate::agent::tool_runner::SANDBOX_DENIAL_NOTE)
            {
                self.notice(
                    NoticeLevel::Warn,
                    "sandbox-denied-call",
                    vec![("mode", Arg::from(self.sandbox.mode().as_str()))],
                );
            }
            let mut message = Message::text(Role::Tool, r.content.clone(), Source::kind("tool"));
            message.tool_call_id = Some(call.id.clone());
            if r.is_error {
                message.is_error = Some(true);
            }
            self.push(EventKind::ToolResult(ToolResultData {
                turn,
                step,
                message,
                error: r.is_error.then_some(r.content),
            }))?;
        }
        Ok(())
    }

    /// Runs the loop on commands from the UI until `/quit` or `Shutdown`: an actor that
    /// takes one piece of work at a time from its inbox. While a turn runs, the turn
    /// itself keeps reading the inbox (Cancel, Approve, steering).
    pub async fn run_interactive(mut self, commands: mpsc::UnboundedReceiver<AgentCommand>) {
        self.inbox.attach(commands);
        // The TUI's `session_start` hooks run at start, not at the first prompt.
        self.run_owed_session_start().await;
        loop {
            if self.inbox.shutting_down() {
                break;
            }
            let Some(work) = self.inbox.next_pending() else {
                tokio::select! {
                    _ = self.inbox.wait_command() => {}
                    Some(bg) = self.bg_rx.recv() => {
                        if let Err(e) = self.apply_background(bg) {
                            self.notice(
                                NoticeLevel::Error,
                                "agent-session-error",
                                vec![("error", Arg::from(e.to_string()))],
                            );
                        }
                    }
                }
                continue;
            };
            self.inbox.set_busy(true);
            let quit = self.handle_queued(work).await.quit;
            self.inbox.set_busy(false);
            self.inbox.report_queue();
            if quit {
                break;
            }
        }
        // Changes that arrived after the last line (an MCP server finishing its connect)
        // still belong in the log.
        if let Err(e) = self.drain_background() {
            tracing::warn!("could not log background changes at exit: {e}");
        }
        let _ = self.state.session.sync();
        self.emit(AgentEvent::Exited);
    }

    /// Reports a torn log tail that was cut on load (once).
    pub fn emit_torn_tail(&self, t: &crate::session::store::TornTail) {
        self.notice(
            NoticeLevel::Warn,
            "store-torn-tail",
            vec![
                ("line", Arg::from(t.line)),
                ("bytes", Arg::from(t.bytes)),
                ("saved", Arg::from(t.saved_to.display().to_string())),
            ],
        );
    }

    /// Sets the interface locale of the loop's own messages.
    pub fn set_locale(&mut self, l: Localizer) {
        self.l = l;
    }

    pub(crate) fn localizer(&self) -> Localizer {
        self.l
    }

    pub(crate) fn emit_notice(&self, level: NoticeLevel, key: &str, args: Vec<(&str, Arg)>) {
        self.notice(level, key, args);
    }

    /// Whether a person answers (the TUI) rather than a script (`exec`).
    pub(crate) fn is_interactive(&self) -> bool {
        self.tools.mode() == ApprovalMode::Interactive
    }

    /// A sender for events produced by background tasks.
    pub(crate) fn event_sender(&self) -> mpsc::UnboundedSender<AgentEvent> {
        self.tx.clone()
    }

    pub(crate) fn emit_event(&self, ev: AgentEvent) {
        self.emit(ev);
    }

    pub(crate) fn env(&self) -> &dyn Environment {
        self.env.as_ref()
    }

    pub(crate) fn registry_mut(&mut self) -> &mut ToolRegistry {
        self.tools.registry_mut()
    }

    pub(crate) fn fresh_cancel(&mut self) -> CancellationToken {
        self.inbox.new_cancel()
    }

    /// This session's `/effort`, if one was given (or restored from its log).
    pub(crate) fn effort_override(&self) -> Option<crate::session::effort::Effort> {
        self.state.effort
    }

    /// Sets this session's effort (`/effort`); the next request logs it (SPEC §14.4).
    pub(crate) fn set_effort_override(&mut self, e: Option<crate::session::effort::Effort>) {
        self.state.effort = e;
    }

    /// This session's extra instructions (`/system`), if any.
    pub fn extra_instructions(&self) -> Option<&str> {
        self.state.extra_instructions.as_deref()
    }

    /// Sets (or clears) this session's extra instructions (`/system`).
    pub fn set_extra_instructions(&mut self, text: Option<String>) {
        self.state.extra_instructions = text;
    }

    /// Switches the route mid-session (`/model`); the series continues (SPEC §12.4).
    pub(crate) fn switch_route(&mut self, spec: &str) -> Result<RouteInfo, RouteSwitchError> {
        let (route, key) = self.env.resolve_route(spec)?;
        if let Some(k) = &key {
            self.add_secret(k.expose());
        }
        let client = ProviderClient::new(route.clone(), key.map(|k| k.expose().to_string()))
            .map_err(RouteSwitchError::Client)?
            .with_limits(self.client.limits());
        self.tools.registry_mut().set_max_tools(route.max_tools);
        self.route = route;
        self.client = client;
        let info = self.route_info();
        self.emit(AgentEvent::Route(info.clone()));
        self.warn_dropped_tools();
        Ok(info)
    }

    /// Switches to another session (`/new`, `/resume ID`).
    /// The session state is rebuilt as a whole: `/system` text, unsent input and
    /// "always allow" answers belong to the session they were given in.
    pub(crate) fn replace_session(&mut self, mut session: Session, path: PathBuf) {
        let _ = self.state.session.sync();
        session.set_secrets(self.tools.secrets().clone());
        self.state = SessionState::open(session);
        // The `session_start` hooks run again for the session opened (SPEC §14.4).
        let resumed = self.state.session.events().len() > 1;
        self.hooks.owe_session_start(resumed);
        self.restore_tool_state();
        self.inbox.reset();
        self.announce(path.display().to_string());
    }
}

/// Where sessions live when `--session-dir` is not given.
pub fn default_session_dir() -> PathBuf {
    directories::ProjectDirs::from("", "", "deepterm")
        .map(|d| d.data_dir().join("sessions"))
        .unwrap_or_else(|| PathBuf::from(".deepterm/sessions"))
}
