//! The start: configuration loaded, the locale negotiated, the starting route (and
//! whether to run the demo) resolved, and what the start has to say (the config's
//! warnings, what demo mode leaves out, the resume hint's arguments).

use std::path::PathBuf;

use crate::agent::protocol::{Notice, NoticeLevel};
use crate::agent::run::Agent;
use crate::cli::CliArgs;
use crate::config::ApiKey;
use crate::config::{Config, ConfigLocation};
use crate::i18n::{Arg, Locale, Localizer};
use crate::llm::types::Route;
use crate::session::listing::default_session_dir;

use super::demo_workspace;

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

#[cfg(test)]
#[path = "start_tests.rs"]
mod start_tests;
