//! The slash-command table (SPEC §2) as plain data: names, aliases, argument spec and
//! description keys, and the one parse of a command line into a typed [`Command`]
//! ([`Command::parse`]), shared by the composer, `exec` and the loop. The loop binds a
//! handler to every [`Command`] (`crate::agent::commands`); the composer's popup, `/help`
//! and the key help list [`COMMANDS`]. This module needs only the vocabulary of the
//! arguments (locales, sandbox modes), so the UI can read it without depending on the
//! loop.
//! (Decision note: docs/decisions/0012-command-table-and-typed-output.md.)

use serde::{Deserialize, Serialize};

use crate::i18n::Locale;
use crate::sandbox::SandboxMode;
use crate::session::checkpoint_event::RewindScope;
use crate::session::effort::Effort;

/// Which command an entry is ([`Command::parse`] matches on it exhaustively, so every
/// entry has a typed command and the loop a handler).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandId {
    /// `/help`.
    Help,
    /// `/model [PROVIDER/MODEL]`.
    Model,
    /// `/tools`.
    Tools,
    /// `/tool enable|disable NAME`.
    Tool,
    /// `/mcp [connect|disconnect NAME]`.
    Mcp,
    /// `/system [clear|TEXT]`.
    System,
    /// `/compact`.
    Compact,
    /// `/effort [off|low|high|max]`: the reasoning effort (SPEC §14.4).
    Effort,
    /// `/instructions`: the instruction files in use, with their sizes (SPEC §14.4).
    Instructions,
    /// `/init`: asks the model to write the workspace's `AGENTS.md` (SPEC §14.4).
    Init,
    /// `/mode [read-only|workspace-write|full-access]`: the sandbox mode (SPEC §14.2).
    Mode,
    /// `/sandbox`: the mode, backend, writable roots and protected paths.
    Sandbox,
    /// `/permissions [revoke N]`: saved rules and this session's grants.
    Permissions,
    /// `/diff [N]`: what this session (or turn N) changed in the workspace (SPEC §14.3).
    Diff,
    /// `/undo [--force]`: puts back the files the last turn changed.
    Undo,
    /// `/rewind [N [conversation|code|both]] [--force]`: back to before prompt N.
    Rewind,
    /// `/fork`: a new session continuing from this point.
    Fork,
    /// `/lang en|zh`.
    Lang,
    /// `/inspect [N]`.
    Inspect,
    /// `/copy [N]`: the UI puts a reply on the clipboard (OSC 52); the loop answers that
    /// it needs the TUI (`exec`).
    Copy,
    /// `/clear`: the UI empties Chat's view; the session, its log and the next request
    /// stay as they are (SPEC §14.5).
    Clear,
    /// `/status`: route, workspace, session, usage and MCP servers.
    Status,
    /// `/cost`: the session's tokens and cost, per route.
    Cost,
    /// `/new`.
    New,
    /// `/resume [ID|last]`.
    Resume,
    /// `/quit`.
    Quit,
    /// A custom command from a `*.md` file (SPEC §14.4; `crate::agent::custom_commands`).
    Custom,
}

/// What a command accepts after its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgSpec {
    /// Nothing (anything given is ignored).
    None,
    /// Optional arguments: the command also runs alone.
    Optional,
    /// Required arguments: alone it answers with its usage.
    Required,
}

/// One slash command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandSpec {
    /// Which command.
    pub id: CommandId,
    /// The name including `/`.
    pub name: &'static str,
    /// Other names that run the same command (not listed in the popup or `/help`).
    pub aliases: &'static [&'static str],
    /// Its arguments.
    pub args: ArgSpec,
    /// Fluent id of its one-line description.
    pub desc_key: &'static str,
    /// Whether completing it in the popup (Tab, or Enter on a command that requires
    /// arguments) leaves a space after the name for arguments: true exactly when it takes
    /// any (Enter on the popup runs a command whose arguments are optional or none).
    pub complete_with_args: bool,
    /// Fluent id of its argument synopsis (`enable|disable NAME`), shown after the name in
    /// the popup, `/help` and the parser's usage message; `None` when it takes none.
    pub usage_key: Option<&'static str>,
}

/// Every slash command, in `/help` and popup order (most used first).
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        id: CommandId::Help,
        name: "/help",
        aliases: &[],
        args: ArgSpec::None,
        desc_key: "cmd-help",
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Model,
        name: "/model",
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: "cmd-model",
        complete_with_args: true,
        usage_key: Some("cmd-model-args"),
    },
    CommandSpec {
        id: CommandId::Effort,
        name: "/effort",
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: "cmd-effort",
        complete_with_args: true,
        usage_key: Some("cmd-effort-args"),
    },
    CommandSpec {
        id: CommandId::Tools,
        name: "/tools",
        aliases: &[],
        args: ArgSpec::None,
        desc_key: "cmd-tools",
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Tool,
        name: "/tool",
        aliases: &[],
        args: ArgSpec::Required,
        desc_key: "cmd-tool",
        complete_with_args: true,
        usage_key: Some("cmd-tool-args"),
    },
    CommandSpec {
        id: CommandId::Mcp,
        name: "/mcp",
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: "cmd-mcp",
        complete_with_args: true,
        usage_key: Some("cmd-mcp-args"),
    },
    CommandSpec {
        id: CommandId::System,
        name: "/system",
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: "cmd-system",
        complete_with_args: true,
        usage_key: Some("cmd-system-args"),
    },
    CommandSpec {
        id: CommandId::Instructions,
        name: "/instructions",
        aliases: &[],
        args: ArgSpec::None,
        desc_key: "cmd-instructions",
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Init,
        name: "/init",
        aliases: &[],
        args: ArgSpec::None,
        desc_key: "cmd-init",
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Mode,
        name: "/mode",
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: "cmd-mode",
        complete_with_args: true,
        usage_key: Some("cmd-mode-args"),
    },
    CommandSpec {
        id: CommandId::Sandbox,
        name: "/sandbox",
        aliases: &[],
        args: ArgSpec::None,
        desc_key: "cmd-sandbox",
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Permissions,
        name: "/permissions",
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: "cmd-permissions",
        complete_with_args: true,
        usage_key: Some("cmd-permissions-args"),
    },
    CommandSpec {
        id: CommandId::Diff,
        name: "/diff",
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: "cmd-diff",
        complete_with_args: true,
        usage_key: Some("cmd-diff-args"),
    },
    CommandSpec {
        id: CommandId::Undo,
        name: "/undo",
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: "cmd-undo",
        complete_with_args: true,
        usage_key: Some("cmd-undo-args"),
    },
    CommandSpec {
        id: CommandId::Rewind,
        name: "/rewind",
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: "cmd-rewind",
        complete_with_args: true,
        usage_key: Some("cmd-rewind-args"),
    },
    CommandSpec {
        id: CommandId::Fork,
        name: "/fork",
        aliases: &[],
        args: ArgSpec::None,
        desc_key: "cmd-fork",
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Compact,
        name: "/compact",
        aliases: &[],
        args: ArgSpec::None,
        desc_key: "cmd-compact",
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Lang,
        name: "/lang",
        aliases: &[],
        args: ArgSpec::Required,
        desc_key: "cmd-lang",
        complete_with_args: true,
        usage_key: Some("cmd-lang-args"),
    },
    CommandSpec {
        id: CommandId::Inspect,
        name: "/inspect",
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: "cmd-inspect",
        complete_with_args: true,
        usage_key: Some("cmd-inspect-args"),
    },
    CommandSpec {
        id: CommandId::Copy,
        name: "/copy",
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: "cmd-copy",
        complete_with_args: true,
        usage_key: Some("cmd-copy-args"),
    },
    CommandSpec {
        id: CommandId::Clear,
        name: "/clear",
        aliases: &[],
        args: ArgSpec::None,
        desc_key: "cmd-clear",
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Status,
        name: "/status",
        aliases: &[],
        args: ArgSpec::None,
        desc_key: "cmd-status",
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Cost,
        name: "/cost",
        aliases: &[],
        args: ArgSpec::None,
        desc_key: "cmd-cost",
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::New,
        name: "/new",
        aliases: &[],
        args: ArgSpec::None,
        desc_key: "cmd-new",
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Resume,
        name: "/resume",
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: "cmd-resume",
        complete_with_args: true,
        usage_key: Some("cmd-resume-args"),
    },
    CommandSpec {
        id: CommandId::Quit,
        name: "/quit",
        aliases: &["/exit"],
        args: ArgSpec::None,
        desc_key: "cmd-quit",
        complete_with_args: false,
        usage_key: None,
    },
];

/// Where `typed` (without the leading `/`) matches a command name: 0 for the exact name or
/// an alias, 1 for a prefix, 2 for a fuzzy (subsequence, case-insensitive) match; `None`
/// when it does not match. The popup orders by this rank, then by table order, so an
/// exact name always comes first (`/tool` before `/tools`).
pub fn match_rank(c: &CommandSpec, typed: &str) -> Option<u8> {
    let typed = typed.to_lowercase();
    let name = c.name.trim_start_matches('/');
    if name == typed || c.aliases.iter().any(|a| a.trim_start_matches('/') == typed) {
        Some(0)
    } else if name.starts_with(&typed) {
        Some(1)
    } else if is_subsequence(name, &typed) {
        Some(2)
    } else {
        None
    }
}

fn is_subsequence(hay: &str, needle: &str) -> bool {
    let mut it = hay.chars();
    needle.chars().all(|n| it.any(|h| h == n))
}

/// The custom commands the popup and key help offer after the built-in table (SPEC §14.4):
/// set once by the TUI at start from the files the loop read. The loop dispatches from
/// its own list, so this is only what the UI shows.
static CUSTOM: std::sync::RwLock<Vec<&'static CommandSpec>> = std::sync::RwLock::new(Vec::new());

/// Replaces the custom commands the UI offers (their specs live as long as the process).
pub fn set_custom(specs: Vec<CommandSpec>) {
    let leaked: Vec<&'static CommandSpec> = specs
        .into_iter()
        .map(|s| &*Box::leak(Box::new(s)))
        .collect();
    *CUSTOM.write().unwrap_or_else(|e| e.into_inner()) = leaked;
}

/// The custom commands the UI offers, in their order.
pub fn custom() -> Vec<&'static CommandSpec> {
    CUSTOM.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// A command's one-line description: the Fluent text of `desc_key` through `tr`, or, for
/// a custom command with a `description:` line, that line as written.
pub fn describe(c: &CommandSpec, tr: impl Fn(&str) -> String) -> String {
    match c.id {
        CommandId::Custom if c.desc_key != "cmd-custom-no-description" => c.desc_key.to_string(),
        _ => tr(c.desc_key),
    }
}

/// The commands matching `typed` (without the leading `/`), best first: exact name,
/// then prefixes, then fuzzy matches, each in table order (custom commands after the
/// built-in ones).
pub fn ranked(typed: &str) -> Vec<&'static CommandSpec> {
    let mut v: Vec<(u8, usize, &'static CommandSpec)> = COMMANDS
        .iter()
        .chain(custom())
        .enumerate()
        .filter_map(|(i, c)| match_rank(c, typed).map(|r| (r, i, c)))
        .collect();
    v.sort_by_key(|(r, i, _)| (*r, *i));
    v.into_iter().map(|(_, _, c)| c).collect()
}

/// The command named `name` (its name or an alias, including `/`): a built-in one, else a
/// custom one the UI offers.
pub fn find(name: &str) -> Option<&'static CommandSpec> {
    COMMANDS
        .iter()
        .find(|c| c.name == name || c.aliases.contains(&name))
        .or_else(|| custom().into_iter().find(|c| c.name == name))
}

/// The built-in command named `name` (name or alias), never a custom one.
pub fn find_builtin(name: &str) -> Option<&'static CommandSpec> {
    COMMANDS
        .iter()
        .find(|c| c.name == name || c.aliases.contains(&name))
}

/// A slash command with its arguments, typed: what [`Command::parse`] makes of a line,
/// and what the UI sends for an intent of its own (the resume picker's choice), so no
/// command travels as text to be parsed again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Command {
    /// `/help`.
    Help,
    /// `/model` lists the routes; `/model PROVIDER/MODEL` switches.
    Model {
        /// The route to switch to.
        route: Option<String>,
    },
    /// `/tools`.
    Tools,
    /// `/tool enable|disable NAME`.
    Tool {
        /// `enable` (else `disable`).
        enable: bool,
        /// The tool.
        name: String,
    },
    /// `/mcp [connect|disconnect NAME]`.
    Mcp {
        /// What to do.
        action: McpAction,
    },
    /// `/system [clear|TEXT]`.
    System {
        /// What to do.
        action: SystemAction,
    },
    /// `/compact`.
    Compact,
    /// `/effort` shows the reasoning effort in use; `/effort LEVEL` sets it (SPEC §14.4).
    Effort {
        /// The effort to set.
        effort: Option<Effort>,
    },
    /// `/instructions`.
    Instructions,
    /// `/init`.
    Init,
    /// `/mode [MODE]`: shows the mode, or switches to it.
    Mode {
        /// The mode to switch to.
        mode: Option<SandboxMode>,
    },
    /// `/sandbox`.
    Sandbox,
    /// `/permissions [revoke N]`.
    Permissions {
        /// The entry to revoke (1-based, as listed).
        revoke: Option<usize>,
    },
    /// `/diff`: what this session changed; `/diff N`: what turn N changed (SPEC §14.3).
    Diff {
        /// The turn (1-based, as `/rewind` lists them).
        turn: Option<usize>,
    },
    /// `/undo [--force]`.
    Undo {
        /// Put back files changed since, too (`--force`).
        force: bool,
    },
    /// `/rewind` lists the prompts; `/rewind N [conversation|code|both] [--force]` goes
    /// back to before prompt N.
    Rewind {
        /// The prompt (1-based); `None` lists them.
        to: Option<usize>,
        /// What goes back (both unless given).
        scope: RewindScope,
        /// Put back files changed since, too (`--force`).
        force: bool,
    },
    /// `/fork`.
    Fork,
    /// `/lang en|zh`.
    Lang {
        /// The language.
        locale: Locale,
    },
    /// `/inspect [N]`.
    Inspect {
        /// The request (1-based); `None` = the next one.
        request: Option<usize>,
    },
    /// `/copy [N]`: the `n`th last reply (1 = the last).
    Copy {
        /// Which reply.
        n: usize,
    },
    /// `/clear`.
    Clear,
    /// `/status`.
    Status,
    /// `/cost`.
    Cost,
    /// `/new`.
    New,
    /// `/resume [ID|last]`: the picker (TUI) or the list (`exec`) without an id.
    Resume {
        /// The session id or `last`.
        id: Option<String>,
    },
    /// `/quit`.
    Quit,
    /// A custom command (SPEC §14.4) with its arguments as typed.
    Custom {
        /// Its name, including `/`.
        name: String,
        /// The arguments (trimmed).
        args: String,
    },
}

/// `/mcp`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum McpAction {
    /// `/mcp`: the servers and their states.
    Status,
    /// `/mcp connect NAME`.
    Connect {
        /// The configured server.
        server: String,
    },
    /// `/mcp disconnect NAME`.
    Disconnect {
        /// The configured server.
        server: String,
    },
    /// `/mcp login NAME`: OAuth for a remote server (SPEC §15.2).
    Login {
        /// The configured server.
        server: String,
    },
    /// `/mcp logout NAME`: deletes its stored tokens.
    Logout {
        /// The configured server.
        server: String,
    },
}

/// `/system`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum SystemAction {
    /// `/system`: shows the extra instructions.
    Show,
    /// `/system clear`.
    Clear,
    /// `/system TEXT`: replaces them.
    Set {
        /// The instructions.
        text: String,
    },
}

/// Why a line is no command the table can run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "error", rename_all = "snake_case")]
pub enum ParseError {
    /// No command has this name (or the line does not start with `/`).
    #[error("unknown command {name}")]
    Unknown {
        /// The name as typed.
        name: String,
    },
    /// The command exists but its arguments do not fit (answered with its usage).
    #[error("bad arguments for {id:?}: {given}")]
    BadArgs {
        /// Which command.
        id: CommandId,
        /// The arguments as typed (trimmed).
        given: String,
    },
}

impl Command {
    /// Parses a command line: the name or an alias from the table, then its arguments
    /// (surrounding whitespace ignored). A command that takes no arguments ignores any.
    pub fn parse(line: &str) -> Result<Command, ParseError> {
        let line = line.trim();
        let (name, rest) = match line.split_once(char::is_whitespace) {
            Some((c, r)) => (c, r.trim()),
            None => (line, ""),
        };
        let Some(spec) = find(name) else {
            return Err(ParseError::Unknown {
                name: name.to_string(),
            });
        };
        let bad = || ParseError::BadArgs {
            id: spec.id,
            given: rest.to_string(),
        };
        let opt = || (!rest.is_empty()).then(|| rest.to_string());
        Ok(match spec.id {
            CommandId::Help => Command::Help,
            CommandId::Model => Command::Model { route: opt() },
            CommandId::Tools => Command::Tools,
            CommandId::Tool => {
                let mut parts = rest.split_whitespace();
                match (parts.next(), parts.next()) {
                    (Some(action @ ("enable" | "disable")), Some(n)) => Command::Tool {
                        enable: action == "enable",
                        name: n.to_string(),
                    },
                    _ => return Err(bad()),
                }
            }
            CommandId::Mcp => {
                let mut parts = rest.split_whitespace();
                let action = match (parts.next(), parts.next(), parts.next()) {
                    (None, _, _) => McpAction::Status,
                    (Some("connect"), Some(server), None) => McpAction::Connect {
                        server: server.to_string(),
                    },
                    (Some("disconnect"), Some(server), None) => McpAction::Disconnect {
                        server: server.to_string(),
                    },
                    (Some("login"), Some(server), None) => McpAction::Login {
                        server: server.to_string(),
                    },
                    (Some("logout"), Some(server), None) => McpAction::Logout {
                        server: server.to_string(),
                    },
                    _ => return Err(bad()),
                };
                Command::Mcp { action }
            }
            CommandId::System => Command::System {
                action: match rest {
                    "" => SystemAction::Show,
                    "clear" => SystemAction::Clear,
                    text => SystemAction::Set {
                        text: text.to_string(),
                    },
                },
            },
            CommandId::Compact => Command::Compact,
            CommandId::Effort => Command::Effort {
                effort: match rest {
                    "" => None,
                    e => Some(Effort::parse(e).ok_or_else(bad)?),
                },
            },
            CommandId::Instructions => Command::Instructions,
            CommandId::Init => Command::Init,
            CommandId::Mode => Command::Mode {
                mode: match rest {
                    "" => None,
                    m => Some(SandboxMode::parse(m).ok_or_else(bad)?),
                },
            },
            CommandId::Sandbox => Command::Sandbox,
            CommandId::Permissions => Command::Permissions {
                revoke: match rest.strip_prefix("revoke").map(str::trim) {
                    None => None,
                    Some(n) => Some(n.parse::<usize>().map_err(|_| bad())?),
                },
            },
            CommandId::Diff => Command::Diff {
                turn: match rest {
                    "" => None,
                    n => Some(n.parse::<usize>().map_err(|_| bad())?),
                },
            },
            CommandId::Undo => {
                let (words, force) = take_force(rest);
                if !words.is_empty() {
                    return Err(bad());
                }
                Command::Undo { force }
            }
            CommandId::Rewind => {
                let (words, force) = take_force(rest);
                let scope = match words.get(1) {
                    None => RewindScope::Both,
                    Some(w) if words.len() == 2 => RewindScope::parse(w).ok_or_else(bad)?,
                    Some(_) => return Err(bad()),
                };
                let to = match words.first() {
                    None => None,
                    Some(n) => Some(n.parse::<usize>().map_err(|_| bad())?),
                };
                Command::Rewind { to, scope, force }
            }
            CommandId::Fork => Command::Fork,
            CommandId::Lang => Command::Lang {
                locale: Locale::parse(rest).ok_or_else(bad)?,
            },
            CommandId::Inspect => Command::Inspect {
                request: match rest {
                    "" => None,
                    n => Some(positive(n).ok_or_else(bad)?),
                },
            },
            CommandId::Copy => Command::Copy {
                n: match rest {
                    "" => 1,
                    n => positive(n).ok_or_else(bad)?,
                },
            },
            CommandId::Clear => Command::Clear,
            CommandId::Status => Command::Status,
            CommandId::Cost => Command::Cost,
            CommandId::New => Command::New,
            CommandId::Resume => Command::Resume { id: opt() },
            CommandId::Quit => Command::Quit,
            CommandId::Custom => Command::Custom {
                name: spec.name.to_string(),
                args: rest.to_string(),
            },
        })
    }

    /// Which table entry the command is.
    pub fn id(&self) -> CommandId {
        match self {
            Command::Help => CommandId::Help,
            Command::Model { .. } => CommandId::Model,
            Command::Tools => CommandId::Tools,
            Command::Tool { .. } => CommandId::Tool,
            Command::Mcp { .. } => CommandId::Mcp,
            Command::System { .. } => CommandId::System,
            Command::Compact => CommandId::Compact,
            Command::Effort { .. } => CommandId::Effort,
            Command::Instructions => CommandId::Instructions,
            Command::Init => CommandId::Init,
            Command::Mode { .. } => CommandId::Mode,
            Command::Sandbox => CommandId::Sandbox,
            Command::Permissions { .. } => CommandId::Permissions,
            Command::Diff { .. } => CommandId::Diff,
            Command::Undo { .. } => CommandId::Undo,
            Command::Rewind { .. } => CommandId::Rewind,
            Command::Fork => CommandId::Fork,
            Command::Lang { .. } => CommandId::Lang,
            Command::Inspect { .. } => CommandId::Inspect,
            Command::Copy { .. } => CommandId::Copy,
            Command::Clear => CommandId::Clear,
            Command::Status => CommandId::Status,
            Command::Cost => CommandId::Cost,
            Command::New => CommandId::New,
            Command::Resume { .. } => CommandId::Resume,
            Command::Quit => CommandId::Quit,
            Command::Custom { .. } => CommandId::Custom,
        }
    }
}

impl CommandId {
    /// This command's table entry.
    pub fn spec(self) -> &'static CommandSpec {
        COMMANDS
            .iter()
            .find(|c| c.id == self)
            .unwrap_or(&COMMANDS[0])
    }
}

/// Splits `--force` (or `-f`) off the arguments (`/undo`, `/rewind`).
fn take_force(rest: &str) -> (Vec<&str>, bool) {
    let mut force = false;
    let words = rest
        .split_whitespace()
        .filter(|w| {
            let f = *w == "--force" || *w == "-f";
            force |= f;
            !f
        })
        .collect();
    (words, force)
}

/// A positive decimal number (`/inspect N`, `/copy N`).
fn positive(s: &str) -> Option<usize> {
    s.parse::<usize>().ok().filter(|n| *n > 0)
}

#[cfg(test)]
mod tests;
