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
    /// `/mode [read-only|workspace-write|full-access]`: the sandbox mode (SPEC §14.2).
    Mode,
    /// `/sandbox`: the mode, backend, writable roots and protected paths.
    Sandbox,
    /// `/permissions [revoke N]`: saved rules and this session's grants.
    Permissions,
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

/// The commands matching `typed` (without the leading `/`), best first: exact name,
/// then prefixes, then fuzzy matches, each in table order.
pub fn ranked(typed: &str) -> Vec<&'static CommandSpec> {
    let mut v: Vec<(u8, usize, &'static CommandSpec)> = COMMANDS
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match_rank(c, typed).map(|r| (r, i, c)))
        .collect();
    v.sort_by_key(|(r, i, _)| (*r, *i));
    v.into_iter().map(|(_, _, c)| c).collect()
}

/// The command named `name` (its name or an alias, including `/`).
pub fn find(name: &str) -> Option<&'static CommandSpec> {
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
            Command::Mode { .. } => CommandId::Mode,
            Command::Sandbox => CommandId::Sandbox,
            Command::Permissions { .. } => CommandId::Permissions,
            Command::Lang { .. } => CommandId::Lang,
            Command::Inspect { .. } => CommandId::Inspect,
            Command::Copy { .. } => CommandId::Copy,
            Command::Clear => CommandId::Clear,
            Command::Status => CommandId::Status,
            Command::Cost => CommandId::Cost,
            Command::New => CommandId::New,
            Command::Resume { .. } => CommandId::Resume,
            Command::Quit => CommandId::Quit,
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

/// A positive decimal number (`/inspect N`, `/copy N`).
fn positive(s: &str) -> Option<usize> {
    s.parse::<usize>().ok().filter(|n| *n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(typed: &str) -> Vec<&'static str> {
        ranked(typed).iter().map(|c| c.name).collect()
    }

    #[test]
    fn exact_name_ranks_first_then_prefixes_then_fuzzy() {
        // `/tools` comes before `/tool` in the table; typing `tool` still puts `/tool` first.
        assert_eq!(names("tool"), vec!["/tool", "/tools"]);
        assert_eq!(names("TOOLS")[0], "/tools");
        // An alias typed exactly offers its command first.
        assert_eq!(names("exit")[0], "/quit");
        // Prefixes before subsequences: `m` starts /model and /mcp, and is inside /compact.
        let m = names("m");
        assert_eq!(&m[..2], &["/model", "/mcp"]);
        assert!(m.contains(&"/compact"));
        assert!(m.iter().position(|n| *n == "/compact") > Some(1));
        assert_eq!(names("").len(), COMMANDS.len());
        assert!(names("zzz").is_empty());
    }

    #[test]
    fn a_command_line_parses_into_its_typed_command() {
        let ok = |l: &str| Command::parse(l).unwrap();
        assert_eq!(
            ok("  /resume  abc  "),
            Command::Resume {
                id: Some("abc".into())
            }
        );
        assert_eq!(ok("/resume"), Command::Resume { id: None });
        assert_eq!(
            ok("/mcp connect github"),
            Command::Mcp {
                action: McpAction::Connect {
                    server: "github".into()
                }
            }
        );
        assert_eq!(ok("/exit now"), Command::Quit);
        assert_eq!(ok("/copy"), Command::Copy { n: 1 });
        assert_eq!(ok("/inspect 3"), Command::Inspect { request: Some(3) });
        assert_eq!(
            ok("/system  be brief "),
            Command::System {
                action: SystemAction::Set {
                    text: "be brief".into()
                }
            }
        );
        assert_eq!(ok("/lang zh").id(), CommandId::Lang);
        assert_eq!(
            Command::parse("/nope x"),
            Err(ParseError::Unknown {
                name: "/nope".into()
            })
        );
        for bad in [
            "/tool enable",
            "/mcp connect",
            "/mcp connect a b",
            "/lang fr",
            "/inspect 0",
            "/copy last",
            "/mode sideways",
            "/permissions revoke x",
        ] {
            assert!(
                matches!(Command::parse(bad), Err(ParseError::BadArgs { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn every_table_entry_parses_to_a_command_of_its_own_id() {
        for c in COMMANDS {
            let line = match c.args {
                ArgSpec::Required if c.id == CommandId::Lang => format!("{} en", c.name),
                ArgSpec::Required => format!("{} enable x", c.name),
                _ => c.name.to_string(),
            };
            assert_eq!(Command::parse(&line).unwrap().id(), c.id, "{line}");
            assert_eq!(c.id.spec().name, c.name);
        }
    }

    #[test]
    fn usage_keys_match_argument_specs() {
        for c in COMMANDS {
            assert_eq!(c.usage_key.is_some(), c.args != ArgSpec::None, "{}", c.name);
            assert_eq!(c.complete_with_args, c.args != ArgSpec::None, "{}", c.name);
        }
    }
}
