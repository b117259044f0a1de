//! The agent loop: turns, steps, attempts (E-16), tool execution, retries, cancellation
//! and steering. The loop is the only writer of the session log.

use tokio::sync::mpsc;

use crate::agent::emitter::Emitter;
use crate::agent::inbox::Inbox;
use crate::agent::protocol::{AgentCommand, AgentEvent, Notice, NoticeLevel};
use crate::agent::state::SessionState;
pub use crate::agent::tool_runner::ApprovalMode;
use crate::agent::tool_runner::ToolRunner;
use crate::i18n::{Arg, Localizer};
use crate::llm::types::Route;
use crate::session::Session;
pub use crate::tools::source::Background;

mod background;
mod builder;
use crate::agent::commands::CommandContext;
pub use crate::agent::environment::{Environment, SummaryJob};
use crate::agent::inbox::Pending;
pub use crate::agent::turn::{
    AUTO_COMPACT_RATIO, AgentError, CHECKPOINT_PREFIX, COMPACTION_INSTRUCTION, LineOutcome,
    MAX_STEPS_PER_TURN, compaction_messages,
};
use crate::agent::turn::{BackgroundChanges, TurnRunner, TurnServices};
use crate::session::effort::Effort;
pub use builder::AgentBuilder;

pub use crate::agent::request::DEFAULT_MAX_TOKENS;

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
    services: TurnServices,
    tools: ToolRunner,
    inbox: Inbox,
    /// The interface language of the loop's own lines (`/lang` switches it).
    l: Localizer,
    /// The one way the loop tells the UI something.
    events: Emitter,
    demo: bool,
    /// Tool-source and MCP changes, and what was last warned about them.
    bg: BackgroundChanges,
    /// The backend probed at start, for `/sandbox`.
    sandbox_status: Option<std::sync::Arc<crate::sandbox::probe::SandboxStatus>>,
    /// The custom commands read at start (SPEC §14.4, `agent::commands::custom`).
    custom_commands: crate::agent::custom_commands::LoadedCommands,
}

impl Agent {
    /// The shared redaction set.
    pub fn secrets(&self) -> crate::secret::Secrets {
        self.tools.secrets().clone()
    }

    /// The session (read-only).
    pub fn session(&self) -> &Session {
        &self.state.session
    }

    /// A warning found while starting (a project rule that cannot allow), shown once.
    pub fn emit_startup_warning(&self, text: String) {
        self.events.emit(Notice::new(
            NoticeLevel::Warn,
            "agent-startup-warning",
            vec![("text", Arg::from(text))],
        ));
    }

    /// The user's mode: the sandbox mode, or `plan`.
    pub fn agent_mode(&self) -> crate::sandbox::AgentMode {
        self.services.sandbox.agent_mode()
    }

    /// The current sandbox mode.
    pub fn sandbox_mode(&self) -> crate::sandbox::SandboxMode {
        self.services.sandbox.mode()
    }

    /// The current route.
    pub fn route(&self) -> &Route {
        &self.services.route
    }

    /// The effort of the next request: this session's `/effort`, else the config's (the
    /// model entry's, else the top-level `effort`), else none (the provider's default, and
    /// no thinking field is sent).
    pub fn effort(&self) -> Option<Effort> {
        self.services.effort(self.state.effort)
    }

    /// Announces the session and route to the UI.
    pub fn announce(&mut self, path: String) {
        self.commands().announce(path);
    }

    /// Offers the custom commands to the UI (its popup and key help) and warns (again)
    /// about every command file skipped: the TUI calls it after the session is announced,
    /// which starts Chat afresh.
    pub fn announce_custom_commands(&mut self) {
        self.commands().announce_custom_commands();
    }

    /// Resume restores the session's `/tool` and `/mcp` choices and a stricter mode from
    /// its log.
    pub fn restore_tool_state(&mut self) {
        self.commands().restore_tool_state();
    }

    /// Tells `notice` to the UI (the app's start-up warnings).
    pub fn emit_notice(&self, notice: Notice) {
        self.events.emit(notice);
    }

    /// The interface language of the loop's own lines.
    pub fn localizer(&self) -> Localizer {
        self.l
    }

    /// Reads the instruction files now and warns about any that are refused or cut (the
    /// TUI does this at start; every request does it again, warning once per change).
    pub fn check_instructions(&self) {
        let env = self.services.env.as_ref();
        let _ =
            crate::agent::environment::render_prompt(env, self.state.extra_instructions.as_deref());
        crate::agent::environment::report_prompt_notices(env, &self.events);
    }

    /// The agent's parts lent to one slash command's handler.
    pub(crate) fn commands(&mut self) -> CommandContext<'_> {
        CommandContext {
            state: &mut self.state,
            services: &mut self.services,
            tools: &mut self.tools,
            inbox: &mut self.inbox,
            events: &self.events,
            bg: &mut self.bg,
            l: &mut self.l,
            demo: self.demo,
            sandbox_status: self.sandbox_status.as_ref(),
            custom_commands: &self.custom_commands,
        }
    }

    /// The turn runner over this agent's parts: the session state, inbox, tool runner,
    /// emitter and the services a turn calls.
    fn runner(&mut self) -> TurnRunner<'_> {
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
            let out = self.commands().handle_command(trimmed).await;
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

    /// This session's extra instructions (`/system`), if any.
    pub fn extra_instructions(&self) -> Option<&str> {
        self.state.extra_instructions.as_deref()
    }

    /// Reports a torn log tail that was cut on load (once).
    pub fn emit_torn_tail(&mut self, t: &crate::session::store::TornTail) {
        self.commands().emit_torn_tail(t);
    }

    /// Runs one piece of queued work: a submission (text or slash command), or a typed
    /// command (language switch, inspector) that never becomes a command string. Cancel,
    /// approvals and shutdown are never queued: the inbox answers them at once.
    pub async fn handle_queued(&mut self, work: Pending) -> LineOutcome {
        let out = match work {
            Pending::Line(line) => return self.handle_line(&line).await,
            Pending::Command(parsed) => {
                // As for a typed line (`handle_input`): background changes first.
                self.apply_background_now();
                self.commands().run_command(parsed).await
            }
            Pending::Message(text) => return self.handle_message(&text).await,
            // Nothing to show and no command ran: the reader sees it at its next batch.
            Pending::StopListing(listing) => {
                self.events.stop_listing(listing);
                return LineOutcome::default();
            }
            Pending::SetLocale(locale) => {
                self.apply_background_now();
                self.commands().set_locale_command(locale)
            }
            Pending::Inspect(request) => {
                self.apply_background_now();
                self.commands().inspect_command(request)
            }
            Pending::InspectSubagent(agent, step) => {
                self.apply_background_now();
                self.commands().inspect_subagent_command(&agent, step)
            }
            Pending::SetMode(mode) => self.commands().set_mode(mode),
        };
        self.events.emit(AgentEvent::CommandFinished);
        out
    }

    /// Applies pending background changes before a command (as a submitted line does).
    fn apply_background_now(&mut self) {
        if let Err(e) = self.runner().drain_background() {
            self.events.emit(Notice::new(
                NoticeLevel::Error,
                "agent-session-error",
                vec![("error", Arg::from(e.text()))],
            ));
        }
    }
}
