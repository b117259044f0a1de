//! The agent loop: turns, steps, attempts (E-16), tool execution, retries, cancellation
//! and steering. The loop is the only writer of the session log.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::agent::emitter::Emitter;
use crate::agent::env_error::RouteSwitchError;
use crate::agent::inbox::Inbox;
use crate::agent::protocol::{
    AgentCommand, AgentEvent, Notice, NoticeLevel, RouteInfo, SandboxInfo,
};
use crate::agent::request::{AttemptInput, plan_attempt};
use crate::agent::state::SessionState;
pub use crate::agent::tool_runner::ApprovalMode;
use crate::agent::tool_runner::ToolRunner;
use crate::i18n::{Arg, Localizer};
use crate::llm::client::ProviderClient;
use crate::llm::types::{GenerateOptions, Route};
use crate::session::Session;
use crate::session::event::Event;
use crate::tools::registry::ToolRegistry;
pub use crate::tools::source::Background;

mod background;
mod builder;
mod preview;
pub use crate::agent::environment::{Environment, SummaryJob};
pub use crate::agent::turn::{
    AUTO_COMPACT_RATIO, AgentError, CHECKPOINT_PREFIX, COMPACTION_INSTRUCTION, LineOutcome,
    MAX_STEPS_PER_TURN, compaction_messages,
};
use crate::agent::turn::{BackgroundChanges, TurnRunner, TurnServices};
pub use builder::AgentBuilder;

pub use crate::agent::request::DEFAULT_MAX_TOKENS;

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

impl InspectFailure {
    /// The failure in the interface language.
    pub fn text(&self) -> crate::i18n::Text {
        match self {
            InspectFailure::Rebuild(e) => e.text(),
            InspectFailure::Preview(e) => e.text(),
        }
    }
}

/// The agent: an actor that owns its services and answers one command at a time. Made
/// whole by [`AgentBuilder`]; what a user changes while it runs arrives as a command.
/// - the session state ([`SessionState`]), rebuilt whole on `/new` and `/resume`;
/// - the services a turn calls ([`TurnServices`]: route, client, retry policy,
///   environment, hooks, checkpoints, sandbox), lent as one to the turn runner
///   ([`TurnRunner`], by [`Agent::runner`]) with the session state, inbox, tool runner
///   and emitter;
/// - the tool runner ([`ToolRunner`]: approvals, which calls may overlap);
/// - the command table (`agent::commands`);
/// - the inbox ([`Inbox`]): the typed command channel the running turn `select!`s on.
pub struct Agent {
    state: SessionState,
    pub(crate) services: TurnServices,
    tools: ToolRunner,
    inbox: Inbox,
    /// The interface language of the loop's own lines (`/lang` switches it).
    pub(crate) l: Localizer,
    /// The one way the loop tells the UI something.
    pub(crate) events: Emitter,
    demo: bool,
    /// Tool-source and MCP changes, and what was last warned about them.
    bg: BackgroundChanges,
    /// The backend probed at start, for `/sandbox`.
    pub(crate) sandbox_status: Option<std::sync::Arc<crate::sandbox::probe::SandboxStatus>>,
    /// The custom commands read at start (SPEC §14.4, `agent::commands::custom`).
    pub(crate) custom_commands: crate::agent::custom_commands::LoadedCommands,
}

impl Agent {
    /// Adds a key value to redact from tool results and from everything the session logs
    /// and sends (see [`crate::secret::Secrets`]): a `/model` switch's key.
    fn add_secret(&mut self, value: impl Into<String>) {
        self.tools.add_secret(&value.into());
    }

    /// The shared redaction set.
    pub fn secrets(&self) -> crate::secret::Secrets {
        self.tools.secrets().clone()
    }

    /// The session (read-only).
    pub fn session(&self) -> &Session {
        &self.state.session
    }

    /// The per-session state.
    pub(crate) fn state_mut(&mut self) -> &mut SessionState {
        &mut self.state
    }

    /// A warning found while starting (a project rule that cannot allow), shown once.
    pub fn emit_startup_warning(&self, text: String) {
        self.events.emit(Notice::new(
            NoticeLevel::Warn,
            "agent-startup-warning",
            vec![("text", Arg::from(text))],
        ));
    }

    /// The acting tools' policy, if the session has one.
    pub(crate) fn tools_acting(
        &self,
    ) -> Option<std::sync::Arc<crate::agent::acting_policy::ActingPolicy>> {
        self.tools.acting().cloned()
    }

    /// The current sandbox mode.
    pub fn sandbox_mode(&self) -> crate::sandbox::SandboxMode {
        self.services.sandbox.mode()
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
        &self.services.route
    }

    pub(crate) fn route_info(&self) -> RouteInfo {
        RouteInfo {
            id: self.services.route.id(),
            caps: self.services.route.caps,
            demo: self.demo,
            effort: self.effort(),
        }
    }

    /// Announces the session and route to the UI.
    pub fn announce(&self, path: String) {
        self.events.emit(AgentEvent::SessionOpened {
            id: self.state.session.id().to_string(),
            path,
            // Every event: the UI leaves out what a rewind took back (SPEC §14.3) and
            // the Trajectory marks it.
            history: self.state.session.events().to_vec(),
        });
        self.events.emit(AgentEvent::Route(self.route_info()));
        self.events
            .emit(AgentEvent::Sandbox(SandboxInfo::of(&self.services.sandbox)));
        self.events.emit(AgentEvent::SessionUsage(self.state.usage));
    }

    /// The turn runner over this agent's parts: the session state, inbox, tool runner,
    /// emitter and the services a turn calls.
    pub(crate) fn runner(&mut self) -> TurnRunner<'_> {
        TurnRunner {
            state: &mut self.state,
            inbox: &mut self.inbox,
            tools: &mut self.tools,
            events: &self.events,
            services: &mut self.services,
            background: &mut self.bg,
            l: self.l,
        }
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
        if let Err(e) = self.runner().drain_background() {
            self.events.emit(Notice::new(
                NoticeLevel::Error,
                "agent-session-error",
                vec![("error", Arg::from(e.text()))],
            ));
        }
        // `session_start` hooks owed since start, `/new` or `/resume` (SPEC §14.4).
        self.runner().run_owed_session_start().await;
        if commands && trimmed.starts_with('/') {
            let out = self.handle_command(trimmed).await;
            self.events.emit(AgentEvent::CommandFinished);
            return out;
        }
        self.runner().send_prompt(line.to_string()).await
    }

    /// Runs the loop on commands from the UI until `/quit` or `Shutdown`: an actor that
    /// takes one piece of work at a time from its inbox. While a turn runs, the turn
    /// itself keeps reading the inbox (Cancel, Approve, steering).
    pub async fn run_interactive(mut self, commands: mpsc::UnboundedReceiver<AgentCommand>) {
        self.inbox.attach(commands);
        // The TUI's `session_start` hooks run at start, not at the first prompt.
        self.runner().run_owed_session_start().await;
        loop {
            if self.inbox.shutting_down() {
                break;
            }
            let Some(work) = self.inbox.next_pending() else {
                tokio::select! {
                    _ = self.inbox.wait_command() => {}
                    Some(bg) = self.bg.rx.recv() => {
                        if let Err(e) = self.runner().apply_background(bg) {
                            self.events.emit(Notice::new(
                                NoticeLevel::Error,
                                "agent-session-error",
                                vec![("error", Arg::from(e.text()))],
                            ));
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
        if let Err(e) = self.runner().drain_background() {
            tracing::warn!("could not log background changes at exit: {e}");
        }
        let _ = self.state.session.sync();
        self.events.emit(AgentEvent::Exited);
    }

    /// Reports a torn log tail that was cut on load (once).
    pub fn emit_torn_tail(&self, t: &crate::session::store::TornTail) {
        self.events.emit(Notice::new(
            NoticeLevel::Warn,
            "store-torn-tail",
            vec![
                ("line", Arg::from(t.line)),
                ("bytes", Arg::from(t.bytes)),
                ("saved", Arg::from(t.saved_to.display().to_string())),
            ],
        ));
    }

    pub(crate) fn localizer(&self) -> Localizer {
        self.l
    }

    /// Whether a person answers (the TUI) rather than a script (`exec`).
    pub(crate) fn is_interactive(&self) -> bool {
        self.tools.mode() == ApprovalMode::Interactive
    }

    pub(crate) fn env(&self) -> &dyn Environment {
        self.services.env.as_ref()
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

    /// This session's extra instructions (`/system`), if any.
    pub fn extra_instructions(&self) -> Option<&str> {
        self.state.extra_instructions.as_deref()
    }

    /// Switches the route mid-session (`/model`); the series continues (SPEC §12.4).
    pub(crate) fn switch_route(&mut self, spec: &str) -> Result<RouteInfo, RouteSwitchError> {
        let (route, key) = self.services.env.resolve_route(spec)?;
        if let Some(k) = &key {
            self.add_secret(k.expose());
        }
        let client = ProviderClient::new(route.clone(), key.map(|k| k.expose().to_string()))
            .map_err(RouteSwitchError::Client)?
            .with_limits(self.services.client.limits());
        self.tools
            .registry_mut()
            .set_max_tools(route.caps.max_tools);
        self.services.route = route;
        self.services.client = client;
        let info = self.route_info();
        self.events.emit(AgentEvent::Route(info.clone()));
        self.runner().warn_dropped_tools();
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
        self.services.hooks.owe_session_start(resumed);
        self.restore_tool_state();
        self.inbox.reset();
        self.announce(path.display().to_string());
    }
}
