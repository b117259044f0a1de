//! Command line (SPEC §2), built with clap's builder API so every help text is localized.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Arg, ArgAction, Command};

use crate::i18n::{Locale, Localizer};

/// What to run.
#[derive(Debug, Clone, PartialEq)]
pub enum CliCommand {
    /// The interactive TUI.
    Tui,
    /// Headless run of a script or of one prompt.
    Exec {
        /// Script file, or `-` for standard input (unused when `prompt` is given).
        script: PathBuf,
        /// `deepterm exec "PROMPT"`: the one message to send; `-` reads it from standard
        /// input (SPEC §15.4).
        prompt: Option<String>,
        /// `--no-project-files`: `exec` does not trust its folder (SPEC §15.4).
        no_project_files: bool,
        /// Answer to approval prompts.
        approve_all: bool,
        /// `--json`: print every protocol event as one JSON line.
        json: bool,
    },
    /// The simulator as a server.
    Sim {
        /// Listen address.
        addr: String,
        /// Reply script.
        script: Option<PathBuf>,
        /// Cache unit in tokens.
        cache_unit: usize,
        /// How many recorded requests to keep.
        keep_requests: usize,
    },
}

/// Parsed command line.
#[derive(Debug, Clone, PartialEq)]
pub struct CliArgs {
    /// Subcommand.
    pub command: CliCommand,
    /// `--config PATH`.
    pub config: Option<PathBuf>,
    /// `--model PROVIDER/MODEL`.
    pub model: Option<String>,
    /// `--base-url URL`.
    pub base_url: Option<String>,
    /// `--session-dir DIR`.
    pub session_dir: Option<PathBuf>,
    /// `--resume ID|last`.
    pub resume: Option<String>,
    /// `--fork ID|last`: a new session continuing from that one (SPEC §14.3).
    pub fork: Option<String>,
    /// `--locale`.
    pub locale: Option<Locale>,
    /// `--demo`.
    pub demo: bool,
    /// `deepterm "PROMPT"`: the TUI sends PROMPT as the first message (SPEC §15.4).
    pub prompt: Option<String>,
}

/// Finds `--locale X` / `--locale=X` before full parsing (help must already be localized).
pub fn prescan_locale(args: &[OsString]) -> Option<Locale> {
    prescan(args, "--locale").and_then(|v| Locale::parse(&v))
}

/// Finds `--config X` / `--config=X` before full parsing.
pub fn prescan_config(args: &[OsString]) -> Option<PathBuf> {
    prescan(args, "--config").map(PathBuf::from)
}

fn prescan(args: &[OsString], flag: &str) -> Option<String> {
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        let a = a.to_string_lossy();
        if a == flag {
            return it.next().map(|v| v.to_string_lossy().into_owned());
        }
        if let Some(v) = a.strip_prefix(&format!("{flag}=")) {
            return Some(v.to_string());
        }
    }
    None
}

/// The help layout with every word of ours localized: clap's own `Usage:`, `Options:`
/// and `[OPTIONS]` are English, so the headings are written here (with the locale's colon)
/// and the usage line comes from Fluent (`usage_key`).
fn template(l: Localizer, commands: bool, positionals: bool) -> String {
    let heading = |key: &str| l.tra("cli-heading", &[("heading", l.tr(key).into())]);
    let mut t = format!(
        "{{before-help}}{{about-with-newline}}\n{}\n\n",
        l.tra(
            "cli-usage-line",
            &[
                ("heading", l.tr("cli-usage-heading").into()),
                ("usage", "{usage}".into()),
            ],
        )
    );
    if positionals {
        t.push_str(&format!(
            "{}\n{{positionals}}\n\n",
            heading("first-run-cli-arguments-heading")
        ));
    }
    if commands {
        t.push_str(&format!(
            "{}\n{{subcommands}}\n\n",
            heading("cli-commands-heading")
        ));
    }
    t.push_str(&format!(
        "{}\n{{options}}{{after-help}}",
        heading("cli-options-heading")
    ));
    t
}

/// `help` followed by the default value in the interface language: clap's own
/// `[default: …]` is English, so it is hidden and said through Fluent instead.
fn with_default(help: String, value: &str, l: Localizer) -> String {
    l.tra(
        "cli-with-default",
        &[("help", help.into()), ("value", value.into())],
    )
}

/// The flags every command takes: `--config` (whose `locale` the help is written in),
/// `--locale` and `--help`.
fn basic_args(cmd: Command, l: Localizer) -> Command {
    cmd.arg(
        Arg::new("config")
            .long("config")
            .value_name("PATH")
            .value_parser(clap::value_parser!(PathBuf))
            .help(l.tr("cli-config")),
    )
    .arg(
        Arg::new("locale")
            .long("locale")
            .value_name("en-US|zh-CN")
            .value_parser(["en-US", "zh-CN", "en", "zh"])
            .hide_possible_values(true)
            .help(l.tr("cli-locale")),
    )
    .arg(
        Arg::new("help")
            .short('h')
            .long("help")
            .action(ArgAction::Help)
            .help(l.tr("cli-help")),
    )
}

/// The flags of the commands that run the agent (the TUI and `exec`); `deepterm sim`
/// shows only [`basic_args`], the ones that do something there.
fn common_args(cmd: Command, l: Localizer) -> Command {
    basic_args(cmd, l)
        .arg(
            Arg::new("model")
                .long("model")
                .value_name("PROVIDER/MODEL")
                .help(l.tr("cli-model")),
        )
        .arg(
            Arg::new("base-url")
                .long("base-url")
                .value_name("URL")
                .help(l.tr("cli-base-url")),
        )
        .arg(
            Arg::new("session-dir")
                .long("session-dir")
                .value_name("DIR")
                .value_parser(clap::value_parser!(PathBuf))
                .help(l.tr("cli-session-dir")),
        )
        .arg(
            Arg::new("resume")
                .long("resume")
                .value_name("ID|last")
                .help(l.tr("cli-resume")),
        )
        .arg(
            Arg::new("fork")
                .long("fork")
                .value_name("ID|last")
                .conflicts_with("resume")
                .help(l.tr("cli-fork")),
        )
        .arg(
            Arg::new("demo")
                .long("demo")
                .action(ArgAction::SetTrue)
                .help(l.tr("cli-demo")),
        )
}

/// The localized clap command tree.
pub fn command(l: Localizer) -> Command {
    let exec = Command::new("exec")
        .about(l.tr("cli-exec-about"))
        .help_template(template(l, false, true))
        .override_usage(l.tr("cli-exec-usage"))
        .disable_help_flag(true)
        .arg(
            Arg::new("prompt")
                .value_name("PROMPT")
                .required_unless_present("script")
                .conflicts_with("script")
                .help(l.tr("first-run-cli-exec-prompt")),
        )
        .arg(
            Arg::new("script")
                .long("script")
                .value_name("FILE")
                .value_parser(clap::value_parser!(PathBuf))
                .help(l.tr("cli-exec-script")),
        )
        .arg(
            Arg::new("no-project-files")
                .long("no-project-files")
                .action(ArgAction::SetTrue)
                .help(l.tr("first-run-cli-no-project-files")),
        )
        .arg(
            Arg::new("approve")
                .long("approve")
                .value_name("all|none")
                .value_parser(["all", "none"])
                .hide_possible_values(true)
                .default_value("none")
                .hide_default_value(true)
                .help(with_default(l.tr("cli-exec-approve"), "none", l)),
        )
        .arg(
            Arg::new("json")
                .long("json")
                .action(ArgAction::SetTrue)
                .help(l.tr("cli-exec-json")),
        );
    let sim = Command::new("sim")
        .about(l.tr("cli-sim-about"))
        .help_template(template(l, false, false))
        .override_usage(l.tr("cli-sim-usage"))
        .disable_help_flag(true)
        .arg(
            Arg::new("addr")
                .long("addr")
                .value_name("ADDR")
                .default_value("127.0.0.1:0")
                .hide_default_value(true)
                .help(with_default(l.tr("cli-sim-addr"), "127.0.0.1:0", l)),
        )
        .arg(
            Arg::new("script")
                .long("script")
                .value_name("FILE")
                .value_parser(clap::value_parser!(PathBuf))
                .help(l.tr("cli-sim-script")),
        )
        .arg(
            Arg::new("cache-unit")
                .long("cache-unit")
                .value_name("TOKENS")
                .value_parser(clap::value_parser!(usize))
                .default_value("64")
                .hide_default_value(true)
                .help(with_default(l.tr("cli-sim-cache-unit"), "64", l)),
        )
        .arg(
            Arg::new("keep-requests")
                .long("keep-requests")
                .value_name("N")
                .value_parser(clap::value_parser!(usize))
                .default_value("1000")
                .hide_default_value(true)
                .help(with_default(l.tr("cli-sim-keep-requests"), "1000", l)),
        );
    let exec = common_args(exec, l);
    let sim = basic_args(sim, l);
    let root = Command::new("deepterm")
        .version(env!("CARGO_PKG_VERSION"))
        .about(l.tr("cli-about"))
        .help_template(template(l, true, true))
        .override_usage(l.tr("cli-root-usage"))
        .disable_help_flag(true)
        .disable_version_flag(true)
        .disable_help_subcommand(true)
        .arg(
            Arg::new("version")
                .short('V')
                .long("version")
                .action(ArgAction::Version)
                .help(l.tr("cli-version")),
        )
        .arg(
            Arg::new("prompt")
                .value_name("PROMPT")
                .help(l.tr("first-run-cli-prompt")),
        )
        .subcommand(exec)
        .subcommand(sim);
    common_args(root, l)
}

/// A localized one-line description of an argument error (clap's own texts are English).
pub fn localize_error(e: &clap::Error, l: Localizer) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let ctx = |kind: ContextKind| match e.get(kind) {
        Some(ContextValue::String(s)) => s.clone(),
        Some(ContextValue::Strings(v)) => v.join(", "),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let line = match e.kind() {
        ErrorKind::MissingRequiredArgument => l.tra(
            "cli-err-missing",
            &[("arg", ctx(ContextKind::InvalidArg).into())],
        ),
        ErrorKind::UnknownArgument | ErrorKind::InvalidSubcommand => l.tra(
            "cli-err-unknown",
            &[("arg", ctx(ContextKind::InvalidArg).into())],
        ),
        ErrorKind::InvalidValue | ErrorKind::ValueValidation => l.tra(
            "cli-err-invalid-value",
            &[
                ("arg", ctx(ContextKind::InvalidArg).into()),
                ("value", ctx(ContextKind::InvalidValue).into()),
                ("valid", ctx(ContextKind::ValidValue).into()),
            ],
        ),
        _ => {
            let raw = e.to_string();
            let first = raw
                .lines()
                .next()
                .unwrap_or("")
                .trim_start_matches("error: ");
            l.tra("cli-err-generic", &[("message", first.to_string().into())])
        }
    };
    format!("{line}\n{}", l.tr("cli-err-hint"))
}

/// Parses `args` (including the program name).
pub fn parse(args: &[OsString], l: Localizer) -> Result<CliArgs, clap::Error> {
    let m = command(l).try_get_matches_from(args)?;
    let get = |name: &str| m.get_one::<String>(name).cloned();
    let (command, sub) = match m.subcommand() {
        Some(("exec", s)) => (
            CliCommand::Exec {
                script: s
                    .get_one::<PathBuf>("script")
                    .cloned()
                    .unwrap_or_else(|| PathBuf::from("-")),
                prompt: s.get_one::<String>("prompt").cloned(),
                no_project_files: s.get_flag("no-project-files"),
                approve_all: s.get_one::<String>("approve").map(String::as_str) == Some("all"),
                json: s.get_flag("json"),
            },
            Some(s),
        ),
        Some(("sim", s)) => (
            CliCommand::Sim {
                addr: s
                    .get_one::<String>("addr")
                    .cloned()
                    .unwrap_or_else(|| "127.0.0.1:0".into()),
                script: s.get_one::<PathBuf>("script").cloned(),
                cache_unit: s.get_one::<usize>("cache-unit").copied().unwrap_or(64),
                keep_requests: s
                    .get_one::<usize>("keep-requests")
                    .copied()
                    .unwrap_or(crate::sim::DEFAULT_KEEP_REQUESTS),
            },
            Some(s),
        ),
        _ => (CliCommand::Tui, None),
    };
    // The shared flags may appear before or after the subcommand (`sim` has fewer).
    let pick = |name: &str| {
        sub.and_then(|s| s.try_get_one::<String>(name).ok().flatten().cloned())
            .or_else(|| get(name))
    };
    let pick_path = |name: &str| {
        sub.and_then(|s| s.try_get_one::<PathBuf>(name).ok().flatten().cloned())
            .or_else(|| m.get_one::<PathBuf>(name).cloned())
    };
    let demo = m.get_flag("demo")
        || sub.is_some_and(|s| s.try_get_one::<bool>("demo").ok().flatten() == Some(&true));
    Ok(CliArgs {
        command,
        config: pick_path("config"),
        model: pick("model"),
        base_url: pick("base-url"),
        session_dir: pick_path("session-dir"),
        resume: pick("resume"),
        fork: pick("fork"),
        locale: pick("locale").and_then(|v| Locale::parse(&v)),
        demo,
        prompt: get("prompt"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn help_is_localized() {
        let en = command(Localizer::new(Locale::EnUs))
            .render_help()
            .to_string();
        let zh = command(Localizer::new(Locale::ZhCn))
            .render_help()
            .to_string();
        assert!(
            en.contains("Usage:") && en.contains("Resume a session"),
            "{en}"
        );
        assert!(zh.contains("用法") && zh.contains("恢复会话"), "{zh}");
        assert!(!zh.contains("Print help"), "{zh}");
    }

    #[test]
    fn subcommand_help_has_localized_headings_and_defaults() {
        for sub in ["exec", "sim"] {
            let zh = command(Localizer::new(Locale::ZhCn))
                .find_subcommand_mut(sub)
                .unwrap()
                .render_help()
                .to_string();
            assert!(
                zh.contains("选项：") && zh.contains("用法：deepterm"),
                "{zh}"
            );
            assert!(!zh.contains("Options") && !zh.contains("OPTIONS"), "{zh}");
            assert!(!zh.contains("[default:"), "{zh}");
            let en = command(Localizer::new(Locale::EnUs))
                .find_subcommand_mut(sub)
                .unwrap()
                .render_help()
                .to_string();
            assert!(en.contains("Options:"), "{en}");
        }
        let zh = command(Localizer::new(Locale::ZhCn))
            .find_subcommand_mut("sim")
            .unwrap()
            .render_help()
            .to_string();
        assert!(zh.contains("（默认：64）"), "{zh}");
        let en = command(Localizer::new(Locale::EnUs))
            .find_subcommand_mut("exec")
            .unwrap()
            .render_help()
            .to_string();
        assert!(en.contains("[default: none]"), "{en}");
    }

    #[test]
    fn exec_with_global_flags_after_subcommand() {
        let a = parse(
            &args(&[
                "deepterm",
                "exec",
                "--script",
                "s.txt",
                "--resume",
                "last",
                "--approve",
                "all",
            ]),
            Localizer::default(),
        )
        .unwrap();
        assert_eq!(
            a.command,
            CliCommand::Exec {
                script: "s.txt".into(),
                prompt: None,
                no_project_files: false,
                approve_all: true,
                json: false,
            }
        );
        assert_eq!(a.resume.as_deref(), Some("last"));
    }

    #[test]
    fn argument_errors_are_localized() {
        let zh = Localizer::new(Locale::ZhCn);
        let e = parse(&args(&["deepterm", "exec"]), zh).unwrap_err();
        let text = localize_error(&e, zh);
        assert!(
            text.contains("缺少必需的参数") && text.contains("PROMPT"),
            "{text}"
        );
        let e = parse(&args(&["deepterm", "--bogus"]), zh).unwrap_err();
        assert!(localize_error(&e, zh).contains("--bogus"));
        let en = Localizer::new(Locale::EnUs);
        let e = parse(
            &args(&["deepterm", "exec", "--script", "x", "--approve", "some"]),
            en,
        )
        .unwrap_err();
        let text = localize_error(&e, en);
        assert!(
            text.contains("--approve") && text.contains("some"),
            "{text}"
        );
    }

    #[test]
    fn prescan_finds_locale_and_config() {
        let a = args(&["deepterm", "--locale=zh-CN", "--config", "/x.toml"]);
        assert_eq!(prescan_locale(&a), Some(Locale::ZhCn));
        assert_eq!(prescan_config(&a), Some(PathBuf::from("/x.toml")));
    }

    #[test]
    fn a_prompt_on_the_command_line_goes_to_the_tui_or_to_exec() {
        let l = Localizer::default();
        let a = parse(&args(&["deepterm", "--demo", "fix the bug"]), l).unwrap();
        assert_eq!(a.command, CliCommand::Tui);
        assert_eq!(a.prompt.as_deref(), Some("fix the bug"));
        assert!(a.demo);
        let a = parse(&args(&["deepterm", "exec", "--demo", "fix the bug"]), l).unwrap();
        assert!(a.demo);
        assert!(matches!(
            a.command,
            CliCommand::Exec { prompt: Some(ref p), no_project_files: false, .. } if p == "fix the bug"
        ));
        let a = parse(&args(&["deepterm", "exec", "--no-project-files", "-"]), l).unwrap();
        assert!(matches!(
            a.command,
            CliCommand::Exec { prompt: Some(ref p), no_project_files: true, .. } if p == "-"
        ));
        let help = command(Localizer::new(Locale::EnUs))
            .find_subcommand_mut("exec")
            .unwrap()
            .render_help()
            .to_string();
        assert!(
            help.contains("Arguments:") && help.contains("[PROMPT]"),
            "{help}"
        );
        // A prompt and a script are one or the other.
        assert!(parse(&args(&["deepterm", "exec", "hi", "--script", "s"]), l).is_err());
    }

    #[test]
    fn a_stray_argument_is_named() {
        let en = Localizer::new(Locale::EnUs);
        for argv in [
            &["deepterm", "fix", "the bug"][..],
            &["deepterm", "exec", "fix", "stray-word"][..],
        ] {
            let e = parse(&args(argv), en).unwrap_err();
            let text = localize_error(&e, en);
            let last = argv.last().unwrap();
            assert!(text.contains(last), "{argv:?}: {text}");
        }
    }

    #[test]
    fn sim_help_lists_only_the_flags_that_apply_there() {
        let help = command(Localizer::new(Locale::EnUs))
            .find_subcommand_mut("sim")
            .unwrap()
            .render_help()
            .to_string();
        for absent in [
            "--resume",
            "--fork",
            "--session-dir",
            "--demo",
            "--model",
            "--base-url",
        ] {
            assert!(!help.contains(absent), "{absent}: {help}");
        }
        for present in ["--addr", "--script", "--locale", "--config"] {
            assert!(help.contains(present), "{present}: {help}");
        }
        // They still work before and after `exec`.
        let a = parse(
            &args(&["deepterm", "exec", "hi", "--resume", "last"]),
            Localizer::default(),
        )
        .unwrap();
        assert_eq!(a.resume.as_deref(), Some("last"));
        assert!(
            parse(
                &args(&["deepterm", "sim", "--resume", "last"]),
                Localizer::default()
            )
            .is_err()
        );
    }
}
