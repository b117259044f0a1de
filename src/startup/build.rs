//! `build_agent`: the agent assembled whole for a setup — the session's sandbox, the tool
//! registry with `shell` and `task`, approvals, hooks, custom commands, checkpoints, MCP
//! servers connecting in the background, elicitations — through `AgentBuilder`.

use std::path::PathBuf;

use crate::agent::run::{Agent, ApprovalMode};
use crate::config::ApiKey;
use crate::i18n::{Arg, Localizer};
use crate::session::Session;

use super::demo_sim::demo_route;
use super::environment::AppEnvironment;
use super::setup::{Setup, StartupError};

/// The session's sandbox: the write scope over the workspace (the start directory) with its
/// protected paths (`.git` and its `gitdir:`, `.deepterm/`, the config file, the session
/// directory), and the backend probed once for this start (SPEC §14.2).
fn session_sandbox(
    setup: &Setup,
    cwd: &std::path::Path,
) -> (
    crate::sandbox::handle::SandboxHandle,
    std::sync::Arc<crate::sandbox::probe::SandboxStatus>,
) {
    let helper = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("deepterm"));
    let (scope, status) = crate::sandbox::probe::start(
        &setup.config.sandbox,
        cwd,
        setup.config_location.as_ref().map(|l| l.path.as_path()),
        &setup.session_dir,
        &helper,
    );
    // The user's rules.toml decides what runs without asking: nothing the agent runs or
    // edits may change it.
    if let Some(rules) = crate::approval::user_rules_path() {
        let mut s = scope.write().unwrap_or_else(|e| e.into_inner());
        // Once, canonical; the path as given too only when it differs (a symlink).
        for p in [
            crate::sandbox::protected::canonical_or_lexical(&rules),
            rules,
        ] {
            if !s.protected.contains(&p) {
                s.protected.push(p);
            }
        }
    }
    let handle = crate::sandbox::handle::SandboxHandle {
        scope,
        network: setup.config.sandbox.network,
        plan: false,
    };
    (handle, status)
}

/// Who answers MCP servers' elicitations (SPEC §15.2): the TUI (interactive approvals)
/// opens a form through `AgentEvent::Elicitation`; `exec` declines each, with a notice on
/// stderr. Notices go out as `AgentEvent::Notice`.
fn elicitations(
    tx: &tokio::sync::mpsc::UnboundedSender<crate::agent::protocol::AgentEvent>,
    approval: ApprovalMode,
) -> crate::tools::mcp::elicit::Elicitations {
    use crate::agent::protocol::{AgentEvent, Notice, NoticeLevel};
    use crate::tools::mcp::elicit::Elicitations;
    let notices = tx.clone();
    let tell = std::sync::Arc::new(move |t: crate::i18n::Text| {
        // Only "opened" is news; the rest say what was declined.
        let level = match t.key.as_str() {
            "elicit-url-opened" => NoticeLevel::Info,
            _ => NoticeLevel::Warn,
        };
        let _ = notices.send(AgentEvent::Notice(Notice {
            level,
            key: t.key,
            args: t.args,
        }));
    });
    match approval {
        ApprovalMode::Interactive => {
            let asks = tx.clone();
            Elicitations::asking(
                std::sync::Arc::new(move |r| asks.send(AgentEvent::Elicitation(r)).is_ok()),
                tell,
            )
        }
        _ => Elicitations::declining(tell),
    }
}

/// Builds the agent for a setup (after the simulator started, in demo mode).
pub fn build_agent(
    setup: &Setup,
    session: Session,
    demo_base: Option<String>,
    tx: tokio::sync::mpsc::UnboundedSender<crate::agent::protocol::AgentEvent>,
    approval: ApprovalMode,
) -> Result<Agent, StartupError> {
    let l = Localizer::new(setup.locale);
    let (route, key) = match &demo_base {
        Some(base) => (
            demo_route(setup.route.clone(), base),
            Some(ApiKey::new("demo")),
        ),
        None => (setup.route.clone(), setup.key.clone()),
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    // One write scope for the session: the edit tools and the sandbox read it, `/mode`
    // switches it (SPEC §14.2).
    let (sandbox, sandbox_status) = session_sandbox(setup, &cwd);
    let shell = std::sync::Arc::new(crate::tools::shell::Shell::new(
        sandbox.scope.clone(),
        sandbox_status.clone(),
        crate::tools::child_env::ChildEnvPolicy::new(
            &crate::tools::child_env::key_env_vars(&setup.config),
            &[],
        ),
    ));
    let shell_tool = crate::tools::registry::RegisteredTool {
        schema: crate::tools::shell::schema(),
        // The approval policy decides (crate::agent::acting_policy), not this flag.
        approval: crate::tools::Approval::Never,
        enabled: true,
        executor: shell.clone(),
        parallel_safe: false,
    };
    let registry = crate::tools::registry::ToolRegistry::from_config_with_scope(
        &setup.config,
        &cwd,
        sandbox.scope.clone(),
        // `task` (SPEC §15.3) unless `max_subagents = 0`.
        std::iter::once(shell_tool)
            .chain((setup.config.max_subagents > 0).then(crate::agent::subagent::tool))
            .collect(),
    );
    let run_kind = match approval {
        ApprovalMode::Interactive => crate::approval::RunKind::Tui,
        ApprovalMode::AllowAll => crate::approval::RunKind::Exec { approve_all: true },
        ApprovalMode::DenyAll => crate::approval::RunKind::Exec { approve_all: false },
    };
    let policy = crate::approval::effective_policy(setup.config.approval_policy, run_kind);
    let (approvals, rules_warnings) = crate::approval::Approvals::load(
        policy,
        crate::approval::user_rules_path(),
        setup.trusted.then(|| cwd.clone()),
    )
    .map_err(|e| StartupError(e.localized(l)))?;
    let acting = std::sync::Arc::new(crate::agent::acting_policy::ActingPolicy::new(
        approvals,
        sandbox.clone(),
        Some(shell),
    ));
    let env = AppEnvironment {
        config: setup.config.clone(),
        config_location: setup.config_location.clone(),
        session_dir: setup.session_dir.clone(),
        base_url_override: setup
            .base_url_override
            .clone()
            .map(|url| (setup.route.provider.clone(), url)),
        demo_base: demo_base.clone(),
        demo_locale: setup.demo_locale.clone(),
        summaries: std::sync::Arc::default(),
        sandbox_start: (setup.config.sandbox.mode, setup.config.sandbox.network),
        instruction_problems: Default::default(),
        workspace: cwd.clone(),
        trusted: setup.trusted,
    };
    let elicit = elicitations(&tx, approval);
    let mut builder = Agent::builder(session, route, Box::new(env), l, tx)
        .key(key)
        .tools(registry)
        .approval(approval)
        .demo(demo_base.is_some())
        .stream_limits(setup.config.limits.stream_limits())
        .max_subagents(setup.config.max_subagents)
        // Hooks and custom commands (SPEC §14.4).
        .hooks(crate::agent::hooks::Hooks::new(
            setup.config.hooks.clone(),
            &crate::tools::child_env::key_env_vars(&setup.config),
            &cwd,
            &setup.session_dir,
        ));
    // Every configured key is redacted from tool results (a second line of defence
    // behind the scrubbed child environments).
    for value in crate::tools::child_env::key_values(&setup.config) {
        builder = builder.secret(value);
    }
    let user_dir = crate::config::instructions::user_config_dir();
    let mut dirs = crate::agent::custom_commands::command_dirs(&cwd, user_dir.as_deref());
    dirs.retain(|(_, root)| setup.trusted || *root != cwd);
    builder = builder.custom_commands(crate::agent::custom_commands::load(&dirs, |n| {
        crate::agent::command_spec::find_builtin(n).is_some()
    }));
    let mut mcp_options = crate::tools::mcp::McpOptions::from_env();
    mcp_options.key_env_vars = crate::tools::child_env::key_env_vars(&setup.config);
    mcp_options.secrets = builder.secrets();
    mcp_options.elicitations = elicit.with_key_env_vars(mcp_options.key_env_vars.clone());
    // Checkpoints of the workspace in the session directory's store (SPEC §14.3).
    if setup.config.checkpoints.enabled {
        let workspace = sandbox
            .scope
            .read()
            .map(|s| s.workspace.clone())
            .unwrap_or_else(|e| e.into_inner().workspace.clone());
        let session_dir =
            std::path::absolute(&setup.session_dir).unwrap_or_else(|_| setup.session_dir.clone());
        let session_dir = session_dir.canonicalize().unwrap_or(session_dir);
        builder = builder.checkpoints(crate::checkpoint::Checkpointer::new(
            session_dir.join("checkpoints"),
            crate::checkpoint::walk::WalkSpec {
                workspace,
                exclude: vec![session_dir],
                max_file_bytes: setup.config.checkpoints.max_file_bytes,
            },
        ));
    }
    for w in rules_warnings {
        builder = builder.startup_warning(w.localized(l));
    }
    // MCP servers connect in the background: start-up never waits for them.
    let mcp = crate::tools::mcp::McpManager::new(
        setup.config.mcp_servers.clone(),
        builder.background_sender(),
        cwd,
        mcp_options,
    );
    mcp.start_enabled();
    builder
        .mcp(mcp)
        .sandbox(sandbox)
        .acting(acting, sandbox_status)
        // `--resume`: the session's `/tool` and `/mcp` choices (and a stricter mode) come
        // back.
        .restore_tool_state(true)
        .build()
        .map_err(|e| StartupError(l.tra("app-client-failed", &[("error", Arg::from(e.message))])))
}
