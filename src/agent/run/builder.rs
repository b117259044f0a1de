//! [`AgentBuilder`]: the one way to make an [`Agent`], complete when built (decision
//! 0145). Everything the agent is made of (its services, the acting policy, hooks,
//! checkpoints, custom commands, the MCP servers) goes in before [`AgentBuilder::build`];
//! nothing is installed into a running agent afterwards, and what a user changes at run
//! time arrives as a command.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use crate::agent::acting_policy::ActingPolicy;
use crate::agent::custom_commands::LoadedCommands;
use crate::agent::emitter::Emitter;
use crate::agent::environment::Environment;
use crate::agent::hooks::Hooks;
use crate::agent::inbox::Inbox;
use crate::agent::protocol::AgentEvent;
use crate::agent::state::SessionState;
use crate::agent::tool_runner::{ApprovalMode, ToolRunner};
use crate::agent::turn::{BackgroundChanges, TurnServices};
use crate::checkpoint::Checkpointer;
use crate::config::ApiKey;
use crate::i18n::Localizer;
use crate::llm::client::{ProviderClient, StreamLimits};
use crate::llm::retry::RetryPolicy;
use crate::llm::types::{LlmError, Route};
use crate::sandbox::handle::SandboxHandle;
use crate::sandbox::probe::SandboxStatus;
use crate::secret::Secrets;
use crate::session::Session;
use crate::tools::registry::ToolRegistry;
use crate::tools::source::Background;

use super::Agent;

impl super::Agent {
    /// Starts building an agent over an open session (see [`AgentBuilder`]). It lives beside
    /// the builder so that the agent's module never names it: the builder depends on the
    /// agent, not the other way round.
    pub fn builder(
        session: Session,
        route: Route,
        env: Box<dyn Environment>,
        l: Localizer,
        events: mpsc::UnboundedSender<AgentEvent>,
    ) -> AgentBuilder {
        AgentBuilder::new(session, route, env, l, events)
    }
}

/// The parts of an [`Agent`], gathered before it exists. Unset parts have safe defaults:
/// no key, no tools, approvals denied (nobody can answer), the default retry policy and
/// stream limits, a sandbox over the current directory, no hooks, checkpoints off, no
/// custom commands, no MCP servers.
pub struct AgentBuilder {
    session: Session,
    route: Route,
    env: Box<dyn Environment>,
    l: Localizer,
    events: mpsc::UnboundedSender<AgentEvent>,
    key: Option<ApiKey>,
    registry: ToolRegistry,
    approval: ApprovalMode,
    demo: bool,
    secrets: Secrets,
    idle_timeout: Option<Duration>,
    limits: Option<StreamLimits>,
    retry: RetryPolicy,
    sandbox: Option<SandboxHandle>,
    acting: Option<(Arc<ActingPolicy>, Arc<SandboxStatus>)>,
    hooks: Hooks,
    checkpoints: Checkpointer,
    custom_commands: LoadedCommands,
    background: BackgroundChanges,
    warnings: Vec<String>,
    restore_tool_state: bool,
    max_subagents: usize,
}

impl AgentBuilder {
    /// An agent over the open `session`, sending to `route`, in surroundings `env`, speaking
    /// `l`, telling the UI (or `exec`) on `events`.
    pub fn new(
        session: Session,
        route: Route,
        env: Box<dyn Environment>,
        l: Localizer,
        events: mpsc::UnboundedSender<AgentEvent>,
    ) -> AgentBuilder {
        AgentBuilder {
            session,
            route,
            env,
            l,
            events,
            key: None,
            registry: ToolRegistry::new(),
            approval: ApprovalMode::DenyAll,
            demo: false,
            secrets: Secrets::new(),
            idle_timeout: None,
            limits: None,
            retry: RetryPolicy::default(),
            sandbox: None,
            acting: None,
            hooks: Hooks::default(),
            checkpoints: Checkpointer::default(),
            custom_commands: LoadedCommands::default(),
            background: BackgroundChanges::new(),
            warnings: Vec::new(),
            restore_tool_state: false,
            max_subagents: crate::agent::subagent::DEFAULT_MAX_SUBAGENTS,
        }
    }

    /// The route's API key (redacted from everything the session logs and sends, from
    /// now on: parts built before the agent share the redaction set).
    pub fn key(mut self, key: Option<ApiKey>) -> Self {
        if let Some(k) = &key {
            self.secrets.add(k.expose());
        }
        self.key = key;
        self
    }

    /// The tools the model may be offered.
    pub fn tools(mut self, registry: ToolRegistry) -> Self {
        self.registry = registry;
        self
    }

    /// How approvals are answered: a person (the TUI) or a script's flag (`exec`).
    pub fn approval(mut self, mode: ApprovalMode) -> Self {
        self.approval = mode;
        self
    }

    /// How many subagents of one step run at once (`[tools] max_subagents`).
    pub fn max_subagents(mut self, max: usize) -> Self {
        self.max_subagents = max;
        self
    }

    /// Whether the guided demo's simulator answers for the route.
    pub fn demo(mut self, demo: bool) -> Self {
        self.demo = demo;
        self
    }

    /// Another value to redact from tool results and from everything the session logs and
    /// sends (a configured key other than the route's).
    pub fn secret(self, value: impl Into<String>) -> Self {
        self.secrets.add(&value.into());
        self
    }

    /// The shared redaction set the agent will use (an MCP server's OAuth tokens join it
    /// when read), for parts built before the agent.
    pub fn secrets(&self) -> Secrets {
        self.secrets.clone()
    }

    /// The longest gap between stream events before an attempt fails (tests use short
    /// ones).
    pub fn idle_timeout(mut self, idle: Duration) -> Self {
        self.idle_timeout = Some(idle);
        self
    }

    /// The stream size and progress limits (`[limits]` in the config).
    pub fn stream_limits(mut self, limits: StreamLimits) -> Self {
        self.limits = Some(limits);
        self
    }

    /// How failed attempts are retried (tests use short delays).
    pub fn retry_policy(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// The write scope shared with the acting tools, instead of one over the current
    /// directory.
    pub fn sandbox(mut self, sandbox: SandboxHandle) -> Self {
        self.sandbox = Some(sandbox);
        self
    }

    /// Decides the acting tools with `acting`; `status` is what `/sandbox` shows.
    pub fn acting(mut self, acting: Arc<ActingPolicy>, status: Arc<SandboxStatus>) -> Self {
        self.acting = Some((acting, status));
        self
    }

    /// The session's hooks (SPEC §14.4); the `session_start` ones run first.
    pub fn hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// Checkpoints of the workspace (SPEC §14.3); off unless given.
    pub fn checkpoints(mut self, checkpoints: Checkpointer) -> Self {
        self.checkpoints = checkpoints;
        self
    }

    /// The custom commands read at start; each file skipped is warned about once built.
    pub fn custom_commands(mut self, loaded: LoadedCommands) -> Self {
        self.custom_commands = loaded;
        self
    }

    /// The channel tool sources and MCP servers report on, for parts built before the
    /// agent.
    pub fn background_sender(&self) -> mpsc::UnboundedSender<Background> {
        self.background.tx.clone()
    }

    /// The MCP servers (`/mcp`); they report through [`AgentBuilder::background_sender`].
    pub fn mcp(mut self, mcp: crate::tools::mcp::McpManager) -> Self {
        self.background.mcp = Some(mcp);
        self
    }

    /// A warning found while starting (a project rule that cannot allow), told once the
    /// agent is built.
    pub fn startup_warning(mut self, text: String) -> Self {
        self.warnings.push(text);
        self
    }

    /// Whether the session's `/tool` and `/mcp` choices (and a stricter mode) come back
    /// from its log when built, as on `--resume`.
    pub fn restore_tool_state(mut self, restore: bool) -> Self {
        self.restore_tool_state = restore;
        self
    }

    /// The agent, complete. Fails only when the provider client cannot be made.
    pub fn build(self) -> Result<Agent, LlmError> {
        let mut client =
            ProviderClient::new(self.route.clone(), self.key.map(|k| k.expose().to_string()))?;
        if let Some(idle) = self.idle_timeout {
            client = client.with_idle_timeout(idle);
        }
        if let Some(limits) = self.limits {
            client = client.with_limits(limits);
        }
        let (acting, sandbox_status) = match self.acting {
            Some((acting, status)) => (Some(acting), Some(status)),
            None => (None, None),
        };
        let mut tools = ToolRunner::new(self.registry, self.approval, acting, self.secrets);
        tools
            .registry_mut()
            .set_max_tools(self.route.caps.max_tools);
        let mut session = self.session;
        session.set_secrets(tools.secrets().clone());
        let state = SessionState::open(session);
        let mut hooks = self.hooks;
        // `--resume`: the session already holds events past its start.
        hooks.owe_session_start(state.session.events().len() > 1);
        let sandbox = self.sandbox.unwrap_or_else(|| {
            SandboxHandle::for_workspace(&std::env::current_dir().unwrap_or_default())
        });
        let mut inbox = Inbox::detached(self.events.clone());
        // The user's answers to MCP servers' elicitations arrive through the inbox.
        if let Some(mcp) = &self.background.mcp {
            inbox.set_elicitations(mcp.elicitations());
        }
        let mut agent = Agent {
            state,
            services: TurnServices {
                route: self.route,
                client,
                retry: self.retry,
                env: self.env,
                hooks,
                checkpoints: self.checkpoints,
                sandbox,
                max_subagents: self.max_subagents,
            },
            tools,
            inbox,
            l: self.l,
            events: Emitter::new(self.events),
            demo: self.demo,
            bg: self.background,
            sandbox_status,
            custom_commands: self.custom_commands,
        };
        agent.commands().warn_custom_command_problems();
        for text in self.warnings {
            agent.emit_startup_warning(text);
        }
        if self.restore_tool_state {
            agent.restore_tool_state();
        }
        Ok(agent)
    }
}
