//! deepterm binary: argument parsing and wiring only (see `deepterm::startup`).

use std::ffi::OsString;
use std::io::Read;
use std::process::ExitCode;

use deepterm::agent::exec::{ExecOutput, decode_script, parse_script, run_script_as};
use deepterm::agent::run::ApprovalMode;
use deepterm::cli::{self, CliArgs, CliCommand};
use deepterm::i18n::{Arg, Locale, Localizer};
use deepterm::safe_text::sanitize;
use deepterm::startup::{self, StartupError};

fn main() -> ExitCode {
    let argv: Vec<OsString> = std::env::args_os().collect();
    // The Landlock sandbox helper (SPEC §14.2): restricts itself, then runs the command.
    if argv
        .get(1)
        .is_some_and(|a| a == deepterm::sandbox::landlock::HELPER_SUBCOMMAND)
    {
        return deepterm::sandbox::landlock::helper_main(&argv[2..]);
    }
    // The API key is in this process's environment: not readable from /proc by children.
    deepterm::sandbox::hide_process_memory();
    let early = Localizer::new(crate::early_locale(&argv));
    let args = match cli::parse(&argv, early) {
        Ok(a) => a,
        Err(e) if e.use_stderr() => {
            eprintln!("deepterm: {}", cli::localize_error(&e, early));
            return ExitCode::from(2);
        }
        Err(e) => {
            // --help / --version
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
    };
    init_logging();
    let result = match &args.command {
        CliCommand::Sim {
            addr,
            script,
            cache_unit,
            keep_requests,
        } => run_sim(addr, script.as_deref(), *cache_unit, *keep_requests, early),
        CliCommand::Exec {
            script,
            prompt,
            approve_all,
            json,
            ..
        } => run_exec(&args, script, prompt.as_deref(), *approve_all, *json),
        CliCommand::Tui => run_tui(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Errors quote paths and servers' words: escaped like every other exec line.
            eprintln!("deepterm: {}", sanitize(&e.to_string()));
            ExitCode::FAILURE
        }
    }
}

/// The locale help and argument errors are printed in: `--locale`, then the config's
/// `locale` (when the file is readable), then the environment.
fn early_locale(argv: &[OsString]) -> Locale {
    if let Some(l) = cli::prescan_locale(argv) {
        return l;
    }
    let loc = deepterm::config::locate(cli::prescan_config(argv).as_deref());
    let from_config = deepterm::config::Config::load_from(loc.as_ref())
        .ok()
        .and_then(|c| c.locale);
    deepterm::i18n::negotiate(None, from_config)
}

/// Tracing goes to a file in the data directory, never to the terminal.
fn init_logging() {
    let dir = deepterm::session::listing::default_session_dir();
    let Some(parent) = dir.parent() else { return };
    if std::fs::create_dir_all(parent).is_err() {
        return;
    }
    let Ok(file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(parent.join("deepterm.log"))
    else {
        return;
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("DEEPTERM_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(file))
        .try_init();
}

fn runtime(l: Localizer) -> Result<tokio::runtime::Runtime, StartupError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            StartupError(l.tra("app-runtime-failed", &[("error", Arg::from(e.to_string()))]))
        })
}

fn run_sim(
    addr: &str,
    script: Option<&std::path::Path>,
    cache_unit: usize,
    keep_requests: usize,
    l: Localizer,
) -> Result<(), StartupError> {
    let fail = |e: String| StartupError(l.tra("app-sim-failed", &[("error", Arg::from(e))]));
    let addr = addr
        .parse()
        .map_err(|e: std::net::AddrParseError| fail(e.to_string()))?;
    let script = match script {
        Some(p) => Some(deepterm::sim::Script::load(p).map_err(|e| fail(e.to_string()))?),
        None => None,
    };
    let cfg = deepterm::sim::SimConfig {
        addr,
        cache_unit,
        script,
        keep_requests,
        ..Default::default()
    };
    runtime(l)?
        .block_on(deepterm::sim::run_cli(cfg))
        .map_err(|e| fail(e.to_string()))
}

fn run_exec(
    args: &CliArgs,
    script: &std::path::Path,
    prompt: Option<&str>,
    approve_all: bool,
    json: bool,
) -> Result<(), StartupError> {
    let setup = startup::setup(args, false)?;
    let l = Localizer::new(setup.locale);
    for line in startup::config_warning_lines(&setup.config, l) {
        eprintln!("{}", sanitize(&line));
    }
    if let Some(n) = &setup.demo_notice {
        eprintln!("{}", sanitize(&l.tra_owned(&n.key, &n.args)));
    }
    let from_stdin = match prompt {
        Some(p) => p == "-",
        None => script.as_os_str() == "-",
    };
    let bytes = match (prompt, from_stdin) {
        (Some(p), false) => Ok(p.as_bytes().to_vec()),
        (_, true) => {
            let mut b = Vec::new();
            std::io::stdin().read_to_end(&mut b).map(|_| b)
        }
        (None, false) => std::fs::read(script),
    }
    .map_err(|e| {
        StartupError(l.tra(
            "exec-script-unreadable",
            &[
                ("path", Arg::from(script.display().to_string())),
                ("error", Arg::from(e.to_string())),
            ],
        ))
    })?;
    let text = decode_script(bytes, l).map_err(StartupError)?;
    // A prompt is one message, however many lines it has (SPEC §15.4).
    let lines = match prompt {
        Some(_) if text.trim().is_empty() => vec![],
        Some(_) => vec![text.trim_end().to_string()],
        None => parse_script(&text, l).map_err(StartupError)?,
    };
    let rt = runtime(l)?;
    // The guided demo works in a copy of its sample project (SPEC §15.4).
    if setup.demo && args.resume.is_none() && args.fork.is_none() {
        startup::demo_workspace::enter_at_start(l).map_err(StartupError)?;
    }
    rt.block_on(async {
        // The handle keeps the in-process simulator running until the script ends.
        let sim = match setup.demo {
            true => Some(
                startup::start_demo_sim(std::time::Duration::ZERO, l, setup.demo_locale.clone())
                    .await?,
            ),
            false => None,
        };
        let demo_base = sim.as_ref().map(|s| s.base_url());
        let (session, path, torn) = startup::open_start_session(&setup.session_dir, args, l)?;
        if let Some(t) = torn {
            eprintln!("{}", sanitize(&torn_line(&t, l)));
        }
        // SPEC §14.4: a resumed session continues in its own workspace.
        if let Some(line) = deepterm::session::workspace::enter_session_workspace(&session, l) {
            eprintln!("{line}");
        }
        if setup.demo {
            let dir = startup::demo_workspace::enter_at_start(l).map_err(StartupError)?;
            let n = startup::demo_workspace::notice(&dir);
            eprintln!("{}", l.tra_owned(&n.key, &n.args));
        }
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let approval = if approve_all {
            ApprovalMode::AllowAll
        } else {
            ApprovalMode::DenyAll
        };
        let mut agent = startup::build_agent(&setup, session, demo_base, tx, approval)?;
        let id = agent.session().id().to_string();
        // Config-enabled MCP servers are part of the first request's tools.
        let wait = setup.config.mcp_startup_wait_secs.unwrap_or(30);
        agent
            .wait_for_mcp(std::time::Duration::from_secs(wait))
            .await;
        let output = if json {
            ExecOutput::Json
        } else {
            ExecOutput::Plain
        };
        let result = run_script_as(&mut agent, lines, &mut rx, output).await;
        // The lock goes with the agent, before an empty log this run created is removed.
        drop(agent);
        if args.resume.is_none() && startup::remove_if_empty(&path) {
            return result.map_err(StartupError);
        }
        // The id and path come from the session directory's file names.
        eprintln!(
            "{}",
            sanitize(&l.tra(
                "exec-session-info",
                &[
                    ("id", Arg::from(id)),
                    ("path", Arg::from(path.display().to_string()))
                ]
            ))
        );
        result.map_err(StartupError)
    })
}

fn torn_line(t: &deepterm::session::store::TornTail, l: Localizer) -> String {
    l.tra(
        "store-torn-tail",
        &[
            ("line", Arg::from(t.line)),
            ("bytes", Arg::from(t.bytes)),
            ("saved", Arg::from(t.saved_to.display().to_string())),
        ],
    )
}

fn run_tui(args: &CliArgs) -> Result<(), StartupError> {
    let mut setup = startup::setup(args, true)?;
    let l = Localizer::new(setup.locale);
    let rt = runtime(l)?;
    // The guided demo works in a copy of its sample project (SPEC §15.4): entered before
    // a new session opens, so the session's workspace is the copy.
    if setup.demo && args.resume.is_none() && args.fork.is_none() {
        startup::demo_workspace::enter_at_start(l).map_err(StartupError)?;
    }
    let (session, path, torn) = startup::open_start_session(&setup.session_dir, args, l)?;
    // SPEC §14.4: a resumed session continues in its own workspace (told once the TUI runs).
    let workspace_line = deepterm::session::workspace::enter_session_workspace(&session, l);
    // A resumed demo session continues in its copy; any other workspace gets a new copy.
    let demo_dir = match setup.demo {
        true => Some(startup::demo_workspace::enter_at_start(l).map_err(StartupError)?),
        false => None,
    };
    // Demo replies stream in small chunks with a short delay, like a real provider.
    let sim = match setup.demo {
        true => Some(rt.block_on(startup::start_demo_sim(
            std::time::Duration::from_millis(12),
            l,
            setup.demo_locale.clone(),
        ))?),
        false => None,
    };
    let demo_base = sim.as_ref().map(|s| s.base_url());
    // The guided demo's edit asks first, so its card shows (SPEC §15.4); a policy the
    // config chose stays. (`exec` cannot ask: its own default applies.)
    if setup.demo {
        setup
            .config
            .approval_policy
            .get_or_insert(deepterm::session::vocab::ApprovalPolicy::Untrusted);
    }
    // SPEC §15.4: asked once per workspace, before anything is read from it.
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    setup.trusted = startup::trust::decide_for_tui(&cwd, l);
    let (ev_tx, ev_rx) = tokio::sync::mpsc::unbounded_channel();
    let (cmd_tx, cmd_rx) = tokio::sync::mpsc::unbounded_channel();
    let mut agent = {
        let _guard = rt.enter();
        startup::build_agent(&setup, session, demo_base, ev_tx, ApprovalMode::Interactive)?
    };
    agent.announce(path.display().to_string());
    // The popup and key help offer the custom commands the loop read (SPEC §14.4).
    agent.announce_custom_commands();
    startup::announce_config_warnings(&agent, &setup.config);
    startup::announce_demo_notice(&agent, &setup);
    if let Some(t) = torn {
        agent.emit_torn_tail(&t);
    }
    if let Some(line) = workspace_line {
        agent.emit_startup_warning(line);
    }
    let agent_task = rt.spawn(deepterm::ui::terminal::panic::named(
        deepterm::ui::terminal::panic::AGENT_TASK,
        agent_loop(agent, cmd_rx),
    ));
    let opts = deepterm::ui::UiOptions {
        locale: setup.locale,
        demo: setup.demo,
        secrets: panic_secrets(&setup),
        notify: setup.config.ui_notify,
        resume_args: startup::resume_args(args),
        demo_dir: demo_dir.map(|d| d.display().to_string()),
        prompt: args.prompt.clone(),
    };
    // The UI runs on this thread inside the runtime; the agent's events arrive directly.
    let res = rt.block_on(deepterm::ui::run(opts, cmd_tx, ev_rx, Some(agent_task)));
    rt.shutdown_timeout(std::time::Duration::from_millis(500));
    if args.resume.is_none() {
        startup::remove_if_empty(&path);
    }
    res.map_err(|e| match e {
        deepterm::ui::UiError::AgentDied(p) => StartupError(l.tra(
            "tui-task-panicked",
            &[
                ("task", Arg::from(p.task)),
                ("message", Arg::from(p.message)),
            ],
        )),
        deepterm::ui::UiError::Io(e) => {
            StartupError(l.tra("app-ui-failed", &[("error", Arg::from(e.to_string()))]))
        }
    })
}

/// The agent loop. `DEEPTERM_TEST_PANIC_AGENT=1` (test hook, tests/tui_loop_panic.rs) makes
/// the agent task panic on the first submission, to exercise the UI's handling of it.
async fn agent_loop(
    agent: deepterm::agent::run::Agent,
    mut commands: tokio::sync::mpsc::UnboundedReceiver<deepterm::agent::protocol::AgentCommand>,
) {
    if std::env::var_os("DEEPTERM_TEST_PANIC_AGENT").is_none_or(|v| v != "1") {
        return agent.run_interactive(commands).await;
    }
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let forward = async move {
        while let Some(cmd) = commands.recv().await {
            use deepterm::agent::protocol::AgentCommand;
            if matches!(
                cmd,
                AgentCommand::Submit(_) | AgentCommand::Run(_) | AgentCommand::Invalid(_)
            ) {
                panic!("DEEPTERM_TEST_PANIC_AGENT: agent panicked on submit");
            }
            let _ = tx.send(cmd);
        }
    };
    tokio::join!(agent.run_interactive(rx), forward);
}

/// Every configured provider's key present in the environment, to scrub from panic notices.
fn panic_secrets(setup: &startup::Setup) -> Vec<deepterm::config::ApiKey> {
    let mut keys: Vec<_> = setup.key.iter().cloned().collect();
    for p in setup.config.providers.values() {
        if let Ok(k) = std::env::var(&p.api_key_env)
            && !k.trim().is_empty()
        {
            keys.push(deepterm::config::ApiKey::new(k.trim()));
        }
    }
    keys
}
