//! Wiring: configuration, locale, route, session, tools and (in demo mode) the built-in
//! simulator, for the TUI and `exec`. `main.rs` only parses arguments and calls in here.

use std::path::{Path, PathBuf};

use crate::agent::env_error::EnvError;
use crate::agent::environment::Environment;
use crate::agent::protocol::{Notice, NoticeLevel, SessionSummary};
use crate::agent::run::{Agent, ApprovalMode};
use crate::cli::CliArgs;
use crate::config::ApiKey;
use crate::config::{Config, ConfigLocation};
use crate::i18n::{Arg, Locale, Localizer};
use crate::llm::types::{ProviderKind, Route};
use crate::session::Session;
use crate::session::listing::default_session_dir;
use crate::session::listing::{self, LogSummary, SessionInfo, SummaryCache};
use crate::session::store::{self, Store, TornTail};

pub mod demo_workspace;
mod sessions;
pub mod trust;
use sessions::{fork_env, summary_of};

/// A user-facing startup failure: one localized line, exit code 1.
#[derive(Debug)]
pub struct StartupError(pub String);

impl std::fmt::Display for StartupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StartupError {}

/// Everything resolved from the command line and config before the loop starts.
pub struct Setup {
    /// Loaded configuration.
    pub config: Config,
    /// Where the config lives (for saving `/lang`).
    pub config_location: Option<ConfigLocation>,
    /// Interface locale.
    pub locale: Locale,
    /// Session directory.
    pub session_dir: PathBuf,
    /// The route to start on.
    pub route: Route,
    /// Its key (None only in demo mode before the simulator starts).
    pub key: Option<ApiKey>,
    /// Demo mode.
    pub demo: bool,
    /// `--base-url`.
    pub base_url_override: Option<String>,
    /// What demo mode does not use of the command line, to say at start.
    pub demo_notice: Option<Notice>,
    /// The language of the demo replies: the interface language, switched with it.
    pub demo_locale: crate::sim::DemoLocale,
    /// Whether the workspace's own files (`AGENTS.md`, commands, rules) are loaded (SPEC
    /// §15.4): `exec` trusts its folder unless `--no-project-files`; the TUI asks.
    pub trusted: bool,
}

/// Loads config, negotiates the locale and resolves the starting route.
/// `allow_demo`: a missing key falls back to demo mode (TUI) instead of failing (exec).
pub fn setup(args: &CliArgs, allow_demo: bool) -> Result<Setup, StartupError> {
    let env_locale = args.locale.or_else(Locale::from_env);
    let early = Localizer::new(env_locale.unwrap_or_default());
    let mut config_location = crate::config::locate(args.config.as_deref());
    // A resumed session may continue in another directory (SPEC §14.4): the
    // paths given relative to this one must keep naming the same files.
    let keep = |p: PathBuf| match args.resume.is_some() {
        true => std::path::absolute(&p).unwrap_or(p),
        false => p,
    };
    if let Some(c) = config_location.as_mut() {
        c.path = keep(c.path.clone());
    }
    let config = Config::load_from(config_location.as_ref())
        .map_err(|e| StartupError(e.localized(early)))?;
    let locale = crate::i18n::negotiate(args.locale, config.locale);
    let l = Localizer::new(locale);
    let resolved = resolve_start(args, &config, config_location.as_ref(), allow_demo, l);
    let (route, key, demo, base_url_override) = match resolved {
        Ok(r) => r,
        Err(e) => {
            // A typo may be why the start fails (`bsae_url` leaves `base_url` unset):
            // show the warnings before the error; nothing else has the terminal yet.
            for line in config_warning_lines(&config, l) {
                eprintln!("{}", crate::safe_text::sanitize(&line));
            }
            return Err(e);
        }
    };
    let demo_notice = demo
        .then(|| demo_workspace::demo_notice(args, &route))
        .flatten();
    Ok(Setup {
        demo_notice,
        session_dir: keep(args.session_dir.clone().unwrap_or_else(default_session_dir)),
        config,
        config_location,
        locale,
        route,
        key,
        demo,
        base_url_override,
        demo_locale: crate::sim::DemoLocale::new(locale),
        trusted: !matches!(
            args.command,
            crate::cli::CliCommand::Exec {
                no_project_files: true,
                ..
            }
        ),
    })
}

type StartRoute = (Route, Option<ApiKey>, bool, Option<String>);

/// The starting route (with a checked `--base-url`), its key and whether to run in demo
/// mode.
fn resolve_start(
    args: &CliArgs,
    config: &Config,
    location: Option<&ConfigLocation>,
    allow_demo: bool,
    l: Localizer,
) -> Result<StartRoute, StartupError> {
    let mut route = config
        .resolve_route(args.model.as_deref())
        .map_err(|e| StartupError(e.localized(l)))?;
    check_known_route(&route, config, args.model.is_some(), location, l)?;
    let base_url_override = match &args.base_url {
        Some(url) => {
            Some(crate::config::check_base_url_arg(url).map_err(|e| StartupError(e.localized(l)))?)
        }
        None => None,
    };
    if let Some(url) = &base_url_override {
        route = route.with_base_url(url);
    }
    let mut demo = args.demo;
    let key = if demo {
        None
    } else {
        match config.api_key(&route) {
            Ok(k) => Some(k),
            Err(e) if allow_demo => {
                tracing::info!("no API key ({e:?}); starting in demo mode");
                demo = true;
                None
            }
            // `exec` has no demo fallback: point at `--demo`, which needs no key.
            Err(e) => {
                return Err(StartupError(
                    l.tra("exec-no-key-hint", &[("error", Arg::from(e.localized(l)))]),
                ));
            }
        }
    };
    Ok((route, key, demo, base_url_override))
}

/// A route the catalog and the config do not know is refused at start, naming the known
/// ones: a typo (`deepseek/flsh`) would otherwise fail only at the first request, after
/// the user typed a prompt. `/model` can still reach a model its provider lists.
fn check_known_route(
    route: &Route,
    config: &Config,
    from_args: bool,
    location: Option<&ConfigLocation>,
    l: Localizer,
) -> Result<(), StartupError> {
    let known = config.known_routes();
    if known.contains(&route.id()) {
        return Ok(());
    }
    let routes = Arg::from(known.join(", "));
    let spec = Arg::from(route.id());
    Err(StartupError(match (from_args, location) {
        (false, Some(loc)) => l.tra(
            "app-unknown-config-route",
            &[
                ("file", Arg::from(loc.path.display().to_string())),
                ("route", spec),
                ("routes", routes),
            ],
        ),
        _ => l.tra("app-unknown-route", &[("route", spec), ("routes", routes)]),
    }))
}

/// The config's warnings (unknown keys, missing instruction files), one localized line
/// each, naming the file and the key.
pub fn config_warning_lines(config: &Config, l: Localizer) -> Vec<String> {
    config.warnings.iter().map(|w| w.localized(l)).collect()
}

/// The config's warnings as notices (the TUI shows them at start; they re-render on
/// `/lang`).
pub fn config_warning_notices(config: &Config, l: Localizer) -> Vec<Notice> {
    config
        .warnings
        .iter()
        .map(|w| {
            let (id, args) = w.message(l);
            Notice::new(NoticeLevel::Warn, id, args)
        })
        .collect()
}

/// Shows the config's warnings as notices of the agent (TUI start), and what is wrong
/// with the instruction files now (`exec` reports those at its first request).
pub fn announce_config_warnings(agent: &Agent, config: &Config) {
    agent.check_instructions();
    for n in config_warning_notices(config, agent.localizer()) {
        agent.emit_notice(n);
    }
}

/// Shows what demo mode leaves out of the command line ([`Setup::demo_notice`]) as a
/// notice of the agent (TUI start).
pub fn announce_demo_notice(agent: &Agent, setup: &Setup) {
    if let Some(n) = &setup.demo_notice {
        agent.emit_notice(n.clone());
    }
}

/// The arguments the TUI's resume hint repeats: `--session-dir` and `--config` when given,
/// made absolute so the hint works from another directory too.
pub fn resume_args(args: &CliArgs) -> Vec<String> {
    let mut out = vec![];
    for (flag, path) in [
        ("--session-dir", &args.session_dir),
        ("--config", &args.config),
    ] {
        if let Some(p) = path {
            let p = std::path::absolute(p).unwrap_or_else(|_| p.clone());
            out.push(flag.to_string());
            out.push(p.display().to_string());
        }
    }
    out
}

/// Removes a session log that never got a message; true when it did. Called on exit, for
/// the log this process created (not a `--resume`d one), after the agent released its lock:
/// a file that is not a regular file, cannot be read, is open in another process (its lock
/// is taken: `--resume` elsewhere) or holds any message, stays.
pub fn remove_if_empty(path: &Path) -> bool {
    let regular = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file());
    if !regular {
        return false;
    }
    // Held until the file is gone: nobody opens it in between.
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    if file.try_lock().is_err() || listing::summarize_log(path).messages > 0 {
        return false;
    }
    match std::fs::remove_file(path) {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!("could not remove the empty session log: {e}");
            false
        }
    }
}

/// Starts the in-process simulator for demo mode (it runs while the handle lives).
pub async fn start_demo_sim(
    latency: std::time::Duration,
    l: Localizer,
    demo_locale: crate::sim::DemoLocale,
) -> Result<crate::sim::SimHandle, StartupError> {
    let cfg = crate::sim::SimConfig {
        latency,
        demo_locale,
        guided_demo: true,
        ..Default::default()
    };
    crate::sim::start(cfg)
        .await
        .map_err(|e| StartupError(l.tra("app-sim-failed", &[("error", Arg::from(e.to_string()))])))
}

/// Points a route at the in-process simulator.
pub fn demo_route(mut route: Route, sim_base: &str) -> Route {
    route.base_url = match route.kind {
        ProviderKind::DeepseekMessages => format!("{sim_base}/anthropic"),
        ProviderKind::OpenaiChat => sim_base.to_string(),
    };
    route
}

/// Opens the session: `--resume` or a new one. Returns it, its path, and a torn tail to report.
pub fn open_session(
    dir: &Path,
    resume: Option<&str>,
    l: Localizer,
) -> Result<(Session, PathBuf, Option<TornTail>), StartupError> {
    open_session_typed(dir, resume).map_err(|e| StartupError(e.localized(l)))
}

/// [`open_session`] with a typed error (the loop's `/new` and `/resume` use it).
fn open_session_typed(
    dir: &Path,
    resume: Option<&str>,
) -> Result<(Session, PathBuf, Option<TornTail>), EnvError> {
    match resume {
        Some(q) => {
            let path = listing::resolve_resume(dir, q)?;
            let loaded = Store::open(&path)?;
            let mut session = loaded.session;
            session.set_sink(Box::new(loaded.store));
            Ok((session, path, loaded.torn))
        }
        None => {
            let (id, st) = Store::create_unique(dir, store::new_session_id)?;
            let path = st.path().to_path_buf();
            let cwd = std::env::current_dir()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            let session = Session::create(id, cwd, Box::new(st)).map_err(|error| {
                EnvError::SessionInvalid {
                    path: path.clone(),
                    error,
                }
            })?;
            Ok((session, path, None))
        }
    }
}

/// The loop's view of its surroundings.
pub struct AppEnvironment {
    /// Configuration.
    pub config: Config,
    /// Config file location (for `/lang`).
    pub config_location: Option<ConfigLocation>,
    /// Session directory.
    pub session_dir: PathBuf,
    /// `--base-url` and the provider it applies to (the one chosen at start).
    pub base_url_override: Option<(String, String)>,
    /// Simulator base URL in demo mode.
    pub demo_base: Option<String>,
    /// The demo replies' language, switched with the interface's.
    pub demo_locale: crate::sim::DemoLocale,
    /// The `/resume` picker's summaries already read (shared with the jobs that read them).
    pub summaries: std::sync::Arc<SummaryCache>,
    /// The sandbox mode and network setting the session started with: the system prompt
    /// says what the agent can do in them; later switches are appended notes (0060).
    pub sandbox_start: (crate::sandbox::SandboxMode, bool),
    /// Instruction-file problems of the latest read, and whether they changed since the
    /// loop last took them (each distinct set is warned about once, not per request).
    pub instruction_problems: std::sync::Mutex<(Vec<crate::config::InstructionProblem>, bool)>,
    /// The workspace (the start directory): where `AGENTS.md` discovery starts (§14.4).
    pub workspace: PathBuf,
    /// Whether its `AGENTS.md` files are read (SPEC §15.4).
    pub trusted: bool,
}

/// The built-in part of the system prompt.
pub const BASE_PROMPT: &str = "You are deepterm, a coding assistant running in a terminal. \
Use the available tools when they help; never invent tool results. Answer concisely, in the \
language the user writes in.";

impl Environment for AppEnvironment {
    fn resolve_route(&self, spec: &str) -> Result<(Route, Option<ApiKey>), EnvError> {
        let mut route = self.config.resolve_route(Some(spec))?;
        if let Some(base) = &self.demo_base {
            return Ok((demo_route(route, base), Some(ApiKey::new("demo"))));
        }
        // `--base-url` overrides the chosen provider's URL only: another provider's key
        // must never be sent there.
        if let Some((provider, url)) = &self.base_url_override
            && *provider == route.provider
        {
            route = route.with_base_url(url);
        }
        let key = self.config.api_key(&route)?;
        Ok((route, Some(key)))
    }

    fn known_routes(&self) -> Vec<String> {
        self.config.known_routes()
    }

    fn missing_key(&self, spec: &str) -> Option<String> {
        let route = self.config.resolve_route(Some(spec)).ok()?;
        self.config
            .api_key(&route)
            .is_err()
            .then(|| route.api_key_env.clone())
    }

    fn provider_kind(&self, provider: &str) -> Option<ProviderKind> {
        self.config.providers.get(provider).map(|p| p.kind)
    }

    fn save_locale(&self, locale: Locale) -> Result<(), EnvError> {
        // The demo replies follow the switch even when it cannot be saved.
        self.demo_locale.set(locale);
        let path = match &self.config_location {
            Some(loc) => loc.path.clone(),
            None => return Err(EnvError::NoConfigDir),
        };
        Ok(crate::config::save_locale(&path, locale)?)
    }

    fn base_prompt(&self) -> String {
        let mut p = BASE_PROMPT.to_string();
        p.push(' ');
        p.push_str(&crate::agent::mode::capabilities(
            self.sandbox_start.0,
            self.sandbox_start.1,
        ));
        // `[instructions]` plus the discovered `AGENTS.md` files (SPEC §14.4).
        let read = self
            .config
            .read_instructions_for(&self.workspace, self.trusted);
        if let Some(extra) = read.text
            && !extra.trim().is_empty()
        {
            p.push_str("\n\n");
            p.push_str(extra.trim());
        }
        let mut last = self
            .instruction_problems
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if last.0 != read.problems {
            *last = (read.problems, true);
        }
        p
    }

    fn configured_effort(&self, route: &Route) -> Option<crate::session::effort::Effort> {
        self.config.effort_for(&route.provider, &route.model)
    }

    fn instructions_in_use(&self) -> crate::config::InstructionsRead {
        self.config
            .read_instructions_for(&self.workspace, self.trusted)
    }

    fn take_prompt_notices(&self) -> Vec<Notice> {
        let mut last = self
            .instruction_problems
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if !std::mem::take(&mut last.1) {
            return vec![];
        }
        last.0
            .iter()
            .map(|p| {
                let (id, args) = p.message();
                Notice::new(NoticeLevel::Warn, id, args)
            })
            .collect()
    }

    fn new_session(&self) -> Result<(Session, PathBuf), EnvError> {
        open_session_typed(&self.session_dir, None).map(|(s, p, _)| (s, p))
    }

    fn open_session(
        &self,
        query: &str,
        current_id: &str,
    ) -> Result<(Session, PathBuf, Option<TornTail>), EnvError> {
        let query = if query == "last" {
            // The newest session other than the one open now.
            let sessions = listing::list_sessions(&self.session_dir)?;
            match sessions.into_iter().find(|s| s.id != current_id) {
                Some(s) => s.id,
                None => return Err(EnvError::NoOtherSession),
            }
        } else {
            query.to_string()
        };
        if query == current_id {
            return Err(EnvError::SessionAlreadyOpen);
        }
        open_session_typed(&self.session_dir, Some(&query))
    }

    fn fork_session(&self, parent: &Session) -> Result<(Session, PathBuf), EnvError> {
        fork_env(&self.session_dir, parent)
    }

    fn session_summaries(&self) -> crate::agent::environment::SummaryJob {
        let dir = self.session_dir.clone();
        let cache = std::sync::Arc::clone(&self.summaries);
        let workspace = self.workspace.clone();
        Box::new(move |sink| {
            let mut sessions = listing::list_sessions(&dir).unwrap_or_default();
            sessions.truncate(SUMMARIES_MAX);
            // Each log is read within its first bytes (`summarize_log`); the picker gets a
            // batch at least every SUMMARY_BATCH_EVERY, so it fills in.
            let mut out: Vec<SessionSummary> = Vec::new();
            let mut sent = std::time::Instant::now();
            let n = sessions.len();
            for (i, s) in sessions.iter().enumerate() {
                out.push(summary_of((s.clone(), cache.summary(s))));
                if i + 1 == n || sent.elapsed() >= SUMMARY_BATCH_EVERY {
                    // SPEC §14.4: this workspace's sessions first.
                    crate::session::workspace::this_workspace_first(&mut out, &workspace, |s| {
                        s.workspace.as_deref()
                    });
                    if sink(std::mem::take(&mut out)).is_break() {
                        // A newer listing superseded this one: nobody shows the rest.
                        break;
                    }
                    sent = std::time::Instant::now();
                }
            }
            cache.retain(&sessions);
        })
    }

    fn list_sessions(&self, current_id: &str) -> Vec<String> {
        let mut sessions = listing::list_sessions(&self.session_dir).unwrap_or_default();
        sessions.retain(|s| s.id != current_id);
        sessions.truncate(SUMMARIES_MAX);
        // The picker's rule (resume_picker.rs): nothing to resume in a session without
        // messages. Twenty rows of those that have some.
        let mut rows: Vec<(LogSummary, SessionInfo)> = self
            .summaries
            .summaries(&sessions)
            .into_iter()
            .zip(sessions)
            .filter(|(sum, _)| sum.messages > 0)
            .collect();
        // SPEC §14.4: this workspace's sessions first, each row naming its workspace.
        crate::session::workspace::this_workspace_first(&mut rows, &self.workspace, |r| {
            r.0.workspace.as_deref()
        });
        rows.into_iter()
            .take(20)
            .map(|(sum, s)| {
                let title: String = sum
                    .first_prompt
                    .unwrap_or_default()
                    .chars()
                    .take(60)
                    .collect();
                let ws = sum.workspace.as_deref().unwrap_or("-");
                // A fork names its parent (SPEC §14.3).
                match sum.forked_from {
                    Some(parent) => format!("  {}  {title}  ({ws})  ← {parent}", s.id),
                    None => format!("  {}  {title}  ({ws})", s.id),
                }
            })
            .collect()
    }
}

/// The session a start opens: `--fork` (a new fork), `--resume` or a new one.
pub fn open_start_session(
    dir: &Path,
    args: &CliArgs,
    l: Localizer,
) -> Result<(Session, PathBuf, Option<TornTail>), StartupError> {
    match &args.fork {
        Some(q) => fork_at_start(dir, q, l),
        None => open_session(dir, args.resume.as_deref(), l),
    }
}

/// `--fork ID|last`: opens the parent like `--resume` (so it must not be in use), forks it
/// and returns the fork, open.
pub fn fork_at_start(
    dir: &Path,
    query: &str,
    l: Localizer,
) -> Result<(Session, PathBuf, Option<TornTail>), StartupError> {
    let (parent, _, torn) = open_session(dir, Some(query), l)?;
    let (fork, path) = fork_env(dir, &parent).map_err(|e| StartupError(e.localized(l)))?;
    Ok((fork, path, torn))
}

/// The most sessions the `/resume` picker lists (newest first).
const SUMMARIES_MAX: usize = 2000;
/// How often the `/resume` picker's list goes to the UI at most while the logs are read.
const SUMMARY_BATCH_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

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

#[cfg(test)]
mod summary_tests;

#[cfg(test)]
mod session_open_tests;

#[cfg(test)]
mod start_tests;
