//! [`CommandContext`]: what a slash command's handler may touch, lent by the agent for one
//! command (decision 0147). The handlers (`/model`, `/new`, `/undo`, …, one file per
//! group beside this one) are methods of this type, not of the agent: the agent keeps its
//! queue loop, and a handler reaches the session state, the services, the tool runner, the
//! inbox, the emitter and the background changes through these borrows alone. A command
//! that does a turn's work takes a [`TurnRunner`] from it.

use std::path::PathBuf;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::agent::command_spec::CommandSpec;
use crate::agent::custom_commands::LoadedCommands;
use crate::agent::emitter::Emitter;
use crate::agent::env_error::RouteSwitchError;
use crate::agent::environment::Environment;
use crate::agent::inbox::Inbox;
use crate::agent::protocol::{AgentEvent, Notice, NoticeLevel, OutputLine, RouteInfo, SandboxInfo};
use crate::agent::state::SessionState;
use crate::agent::tool_runner::{ApprovalMode, ToolRunner};
use crate::agent::turn::LineOutcome;
use crate::agent::turn::{BackgroundChanges, TurnRunner, TurnServices};
use crate::i18n::{Arg, Localizer, Text};
use crate::llm::client::ProviderClient;
use crate::llm::types::Route;
use crate::sandbox::probe::SandboxStatus;
use crate::session::Session;
use crate::session::effort::Effort;
use crate::tools::registry::ToolRegistry;

/// The usage message of `spec`, from the table: `Usage: /tool enable|disable NAME`.
pub fn usage_text(spec: &CommandSpec) -> Text {
    let args = match &spec.usage_key {
        Some(u) => Arg::from(Text::new(u, vec![])),
        None => Arg::from(""),
    };
    Text::new(
        "cmd-usage",
        vec![("command", Arg::from(spec.name.as_ref())), ("args", args)],
    )
}

/// One command's worth of the agent, borrowed (see the module doc).
pub struct CommandContext<'a> {
    /// The open session: its log, series, counters, `/system` text and `/effort`.
    pub(crate) state: &'a mut SessionState,
    /// Route, client, retry policy, environment, hooks, checkpoints, sandbox.
    pub(crate) services: &'a mut TurnServices,
    /// Approvals, the registry and the acting policy.
    pub(crate) tools: &'a mut ToolRunner,
    /// The command channel (a command's own cancellation, the session switch's reset).
    pub(crate) inbox: &'a mut Inbox,
    /// The one way to tell the UI (or `exec`) something.
    pub(crate) events: &'a Emitter,
    /// Tool-source and MCP changes, and the MCP servers.
    pub(crate) bg: &'a mut BackgroundChanges,
    /// The interface language of the loop's own lines (`/lang` switches it).
    pub(crate) l: &'a mut Localizer,
    /// Whether the guided demo's simulator answers for the route.
    pub(crate) demo: bool,
    /// The sandbox backend probed at start, for `/sandbox`.
    pub(crate) sandbox_status: Option<&'a Arc<SandboxStatus>>,
    /// The custom commands read at start (SPEC §14.4).
    pub(crate) custom_commands: &'a LoadedCommands,
}

impl CommandContext<'_> {
    /// The turn runner over the same parts, for a command that does a turn's work
    /// (`/compact`, `/init`, a custom command).
    pub(crate) fn runner(&mut self) -> TurnRunner<'_> {
        TurnRunner {
            state: self.state,
            inbox: self.inbox,
            tools: self.tools,
            events: self.events,
            services: self.services,
            background: self.bg,
            l: *self.l,
        }
    }

    /// Warns with `key` and returns it as the line's error.
    pub(crate) fn warn(&self, key: &str, args: Vec<(&str, Arg)>) -> LineOutcome {
        let a: Vec<(&str, Arg)> = args.clone();
        self.events.emit(Notice::new(NoticeLevel::Warn, key, args));
        LineOutcome {
            error: Some(self.l.tra(key, &a)),
            ..LineOutcome::default()
        }
    }

    /// Tells `key` as information.
    pub(crate) fn info(&self, key: &str, args: Vec<(&str, Arg)>) -> LineOutcome {
        self.events.emit(Notice::new(NoticeLevel::Info, key, args));
        LineOutcome::default()
    }

    /// Warns with `spec`'s usage (from the table, as the popup and `/help` show it).
    pub(crate) fn usage(&self, spec: &CommandSpec) -> LineOutcome {
        let t = usage_text(spec);
        let args: Vec<(&str, Arg)> = t
            .args
            .iter()
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        self.warn(&t.key, args)
    }

    /// Shows `lines` as the command's output.
    pub(crate) fn output(&self, lines: Vec<OutputLine>) -> LineOutcome {
        self.events.emit(AgentEvent::Output(lines));
        LineOutcome::default()
    }

    /// The session (read-only).
    pub(crate) fn session(&self) -> &Session {
        &self.state.session
    }

    /// The per-session state.
    pub(crate) fn state_mut(&mut self) -> &mut SessionState {
        self.state
    }

    /// The session, for folds that need `&mut` (the tool history).
    pub(crate) fn session_mut(&mut self) -> &mut Session {
        &mut self.state.session
    }

    /// The latest turn number.
    pub(crate) fn current_turn(&self) -> u64 {
        self.state.turn
    }

    /// The current route.
    pub(crate) fn route(&self) -> &Route {
        &self.services.route
    }

    /// The effort of the next request (SPEC §14.4).
    pub(crate) fn effort(&self) -> Option<Effort> {
        self.services.effort(self.state.effort)
    }

    /// This session's extra instructions (`/system`), if any.
    pub(crate) fn extra_instructions(&self) -> Option<&str> {
        self.state.extra_instructions.as_deref()
    }

    /// The route as the UI shows it.
    pub(crate) fn route_info(&self) -> RouteInfo {
        RouteInfo {
            id: self.services.route.id(),
            caps: self.services.route.caps,
            demo: self.demo,
            effort: self.effort(),
        }
    }

    /// The interface language of the loop's own lines.
    pub(crate) fn localizer(&self) -> Localizer {
        *self.l
    }

    /// Whether a person answers (the TUI) rather than a script (`exec`).
    pub(crate) fn is_interactive(&self) -> bool {
        self.tools.mode() == ApprovalMode::Interactive
    }

    /// The surroundings (routes, sessions, instruction files).
    pub(crate) fn env(&self) -> &dyn Environment {
        self.services.env.as_ref()
    }

    /// The registry, to list tools and for `/tool enable|disable`.
    pub(crate) fn registry_mut(&mut self) -> &mut ToolRegistry {
        self.tools.registry_mut()
    }

    /// The acting tools' policy, if the session has one.
    pub(crate) fn tools_acting(&self) -> Option<Arc<crate::agent::acting_policy::ActingPolicy>> {
        self.tools.acting().cloned()
    }

    /// The MCP servers, if attached.
    pub(crate) fn mcp(&self) -> Option<crate::tools::mcp::McpManager> {
        self.bg.mcp.clone()
    }

    /// A new cancellation token for the command's own waits.
    pub(crate) fn fresh_cancel(&mut self) -> CancellationToken {
        self.inbox.new_cancel()
    }

    /// Announces the session and route to the UI.
    pub(crate) fn announce(&self, path: String) {
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

    /// Reports a torn log tail that was cut on load (once).
    pub(crate) fn emit_torn_tail(&self, t: &crate::session::store::TornTail) {
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

    /// Switches the route mid-session (`/model`); the series continues (SPEC §12.4).
    pub(crate) fn switch_route(&mut self, spec: &str) -> Result<RouteInfo, RouteSwitchError> {
        let (route, key) = self.services.env.resolve_route(spec)?;
        if let Some(k) = &key {
            // The new key is redacted from everything the session logs and sends.
            self.tools.add_secret(k.expose());
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
        *self.state = SessionState::open(session);
        // The `session_start` hooks run again for the session opened (SPEC §14.4).
        let resumed = self.state.session.events().len() > 1;
        self.services.hooks.owe_session_start(resumed);
        self.restore_tool_state();
        self.inbox.reset();
        self.announce(path.display().to_string());
    }
}
