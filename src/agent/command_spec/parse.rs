//! A slash command typed: [`Command`], what the one parse of a line makes of it (shared by
//! the composer, `exec` and the loop) and what the UI sends for an intent of its own.

use serde::{Deserialize, Serialize};

use super::{CommandId, CommandSpec, find};
use crate::i18n::Locale;
use crate::sandbox::AgentMode;
use crate::session::checkpoint_event::RewindScope;
use crate::session::effort::Effort;

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
        mode: Option<AgentMode>,
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
    /// `/review [BASE]`: a read-only review of the changes against `HEAD` or `BASE`.
    Review {
        /// The revision to compare with (git only).
        base: Option<String>,
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
    /// An MCP server's prompt (SPEC §15.2) with its `ARG=VALUE` words as typed.
    Prompt {
        /// `/NAME:PROMPT`.
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
    /// `/mcp resources [NAME]`: resources and templates (SPEC §15.2).
    Resources {
        /// One server, or every connected one.
        server: Option<String>,
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
        Command::parse_among(line, &[])
    }

    /// [`Command::parse`] that also knows the `custom` commands the UI offers: one of
    /// them becomes [`Command::Custom`] with its arguments.
    pub fn parse_among(line: &str, custom: &[CommandSpec]) -> Result<Command, ParseError> {
        let line = line.trim();
        let (name, rest) = match line.split_once(char::is_whitespace) {
            Some((c, r)) => (c, r.trim()),
            None => (line, ""),
        };
        let Some(spec) = find(name, custom) else {
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
                    (Some("resources"), server, None) => McpAction::Resources {
                        server: server.map(str::to_string),
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
                    m => Some(AgentMode::parse(m).ok_or_else(bad)?),
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
            CommandId::Review => Command::Review {
                base: match rest {
                    "" => None,
                    b if crate::agent::review::valid_base(b) => Some(b.to_string()),
                    _ => return Err(bad()),
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
            CommandId::Prompt => Command::Prompt {
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
            Command::Review { .. } => CommandId::Review,
            Command::Clear => CommandId::Clear,
            Command::Status => CommandId::Status,
            Command::Cost => CommandId::Cost,
            Command::New => CommandId::New,
            Command::Resume { .. } => CommandId::Resume,
            Command::Quit => CommandId::Quit,
            Command::Custom { .. } => CommandId::Custom,
            Command::Prompt { .. } => CommandId::Prompt,
        }
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
