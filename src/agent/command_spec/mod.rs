//! The slash-command table (SPEC §2) as plain data: names, aliases, argument spec and
//! description keys, and the one parse of a command line into a typed [`Command`]
//! ([`Command::parse`]), shared by the composer, `exec` and the loop. The loop binds a
//! handler to every [`Command`] (`crate::agent::commands`); the composer's popup, `/help`
//! and the key help list [`COMMANDS`]. This module needs only the vocabulary of the
//! arguments (locales, sandbox modes), so the UI can read it without depending on the
//! loop.
//! (Decision note: docs/decisions/0012-command-table-and-typed-output.md.)

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

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
    /// `/review [BASE]`: a read-only review of the workspace's changes (SPEC §15.3).
    Review,
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
    /// An MCP server's prompt, `/NAME:PROMPT` (SPEC §15.2; `crate::tools::mcp::prompts`).
    Prompt,
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

/// One slash command: a built-in entry of [`COMMANDS`] (borrowed texts) or a custom
/// command read at start (owned texts, [`CommandSpec::custom`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandSpec {
    /// Which command.
    pub id: CommandId,
    /// The name including `/`.
    pub name: Cow<'static, str>,
    /// Other names that run the same command (not listed in the popup or `/help`).
    pub aliases: &'static [&'static str],
    /// Its arguments.
    pub args: ArgSpec,
    /// Fluent id of its one-line description (a custom command's own line, as written).
    pub desc_key: Cow<'static, str>,
    /// Whether completing it in the popup (Tab, or Enter on a command that requires
    /// arguments) leaves a space after the name for arguments: true exactly when it takes
    /// any (Enter on the popup runs a command whose arguments are optional or none).
    pub complete_with_args: bool,
    /// Fluent id of its argument synopsis (`enable|disable NAME`), shown after the name in
    /// the popup, `/help` and the parser's usage message; `None` when it takes none.
    pub usage_key: Option<Cow<'static, str>>,
}

impl CommandSpec {
    /// The entry of a custom command (SPEC §14.4) as the popup, key help and `/help` show
    /// it: its `description:` line as written, else a generic one; its `argument-hint:`
    /// line, else a generic synopsis.
    pub fn custom(c: &OfferedCommand) -> CommandSpec {
        CommandSpec {
            id: CommandId::Custom,
            name: Cow::Owned(c.name.clone()),
            aliases: &[],
            args: ArgSpec::Optional,
            desc_key: match &c.description {
                Some(d) => Cow::Owned(d.clone()),
                None => Cow::Borrowed(CUSTOM_NO_DESCRIPTION),
            },
            complete_with_args: true,
            usage_key: Some(match &c.argument_hint {
                Some(h) => Cow::Owned(h.clone()),
                None => Cow::Borrowed("cmd-custom-args"),
            }),
        }
    }
}

impl CommandSpec {
    /// The entry of an MCP server's prompt (SPEC §15.2): its description as the server
    /// wrote it (screened), else a generic one; its arguments as `topic=… [style=…]`,
    /// required when any argument is.
    pub fn prompt(p: &OfferedPrompt) -> CommandSpec {
        CommandSpec {
            id: CommandId::Prompt,
            name: Cow::Owned(p.name.clone()),
            aliases: &[],
            args: match (p.required, p.synopsis.is_empty()) {
                (true, _) => ArgSpec::Required,
                (false, true) => ArgSpec::None,
                (false, false) => ArgSpec::Optional,
            },
            desc_key: match &p.description {
                Some(d) => Cow::Owned(d.clone()),
                None => Cow::Borrowed(PROMPT_NO_DESCRIPTION),
            },
            complete_with_args: !p.synopsis.is_empty(),
            usage_key: (!p.synopsis.is_empty()).then(|| Cow::Owned(p.synopsis.clone())),
        }
    }
}

/// An MCP server's prompt as the loop offers it to the UI (`AgentEvent::McpOffers`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfferedPrompt {
    /// `/NAME:PROMPT`.
    pub name: String,
    /// Its description, screened, if any.
    pub description: Option<String>,
    /// Its arguments, `topic=… [style=…]` (empty: none).
    pub synopsis: String,
    /// Whether any argument is required.
    pub required: bool,
}

/// Fluent id of a prompt's description when its server gives none.
const PROMPT_NO_DESCRIPTION: &str = "cmd-prompt-no-description";

/// A custom command as the loop offers it to the UI (`AgentEvent::CustomCommands`): what
/// the popup, key help and `/help` show; the loop keeps the text it expands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfferedCommand {
    /// The name including `/`.
    pub name: String,
    /// Its `description:` line, if any.
    pub description: Option<String>,
    /// Its `argument-hint:` line, if any.
    pub argument_hint: Option<String>,
}

/// Fluent id of a custom command's description when its file has none.
const CUSTOM_NO_DESCRIPTION: &str = "cmd-custom-no-description";

/// Every slash command, in `/help` and popup order (most used first).
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        id: CommandId::Help,
        name: Cow::Borrowed("/help"),
        aliases: &[],
        args: ArgSpec::None,
        desc_key: Cow::Borrowed("cmd-help"),
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Model,
        name: Cow::Borrowed("/model"),
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: Cow::Borrowed("cmd-model"),
        complete_with_args: true,
        usage_key: Some(Cow::Borrowed("cmd-model-args")),
    },
    CommandSpec {
        id: CommandId::Effort,
        name: Cow::Borrowed("/effort"),
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: Cow::Borrowed("cmd-effort"),
        complete_with_args: true,
        usage_key: Some(Cow::Borrowed("cmd-effort-args")),
    },
    CommandSpec {
        id: CommandId::Tools,
        name: Cow::Borrowed("/tools"),
        aliases: &[],
        args: ArgSpec::None,
        desc_key: Cow::Borrowed("cmd-tools"),
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Tool,
        name: Cow::Borrowed("/tool"),
        aliases: &[],
        args: ArgSpec::Required,
        desc_key: Cow::Borrowed("cmd-tool"),
        complete_with_args: true,
        usage_key: Some(Cow::Borrowed("cmd-tool-args")),
    },
    CommandSpec {
        id: CommandId::Mcp,
        name: Cow::Borrowed("/mcp"),
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: Cow::Borrowed("cmd-mcp"),
        complete_with_args: true,
        usage_key: Some(Cow::Borrowed("cmd-mcp-args")),
    },
    CommandSpec {
        id: CommandId::System,
        name: Cow::Borrowed("/system"),
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: Cow::Borrowed("cmd-system"),
        complete_with_args: true,
        usage_key: Some(Cow::Borrowed("cmd-system-args")),
    },
    CommandSpec {
        id: CommandId::Instructions,
        name: Cow::Borrowed("/instructions"),
        aliases: &[],
        args: ArgSpec::None,
        desc_key: Cow::Borrowed("cmd-instructions"),
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Init,
        name: Cow::Borrowed("/init"),
        aliases: &[],
        args: ArgSpec::None,
        desc_key: Cow::Borrowed("cmd-init"),
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Mode,
        name: Cow::Borrowed("/mode"),
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: Cow::Borrowed("cmd-mode"),
        complete_with_args: true,
        usage_key: Some(Cow::Borrowed("cmd-mode-args")),
    },
    CommandSpec {
        id: CommandId::Sandbox,
        name: Cow::Borrowed("/sandbox"),
        aliases: &[],
        args: ArgSpec::None,
        desc_key: Cow::Borrowed("cmd-sandbox"),
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Permissions,
        name: Cow::Borrowed("/permissions"),
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: Cow::Borrowed("cmd-permissions"),
        complete_with_args: true,
        usage_key: Some(Cow::Borrowed("cmd-permissions-args")),
    },
    CommandSpec {
        id: CommandId::Diff,
        name: Cow::Borrowed("/diff"),
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: Cow::Borrowed("cmd-diff"),
        complete_with_args: true,
        usage_key: Some(Cow::Borrowed("cmd-diff-args")),
    },
    CommandSpec {
        id: CommandId::Undo,
        name: Cow::Borrowed("/undo"),
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: Cow::Borrowed("cmd-undo"),
        complete_with_args: true,
        usage_key: Some(Cow::Borrowed("cmd-undo-args")),
    },
    CommandSpec {
        id: CommandId::Rewind,
        name: Cow::Borrowed("/rewind"),
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: Cow::Borrowed("cmd-rewind"),
        complete_with_args: true,
        usage_key: Some(Cow::Borrowed("cmd-rewind-args")),
    },
    CommandSpec {
        id: CommandId::Fork,
        name: Cow::Borrowed("/fork"),
        aliases: &[],
        args: ArgSpec::None,
        desc_key: Cow::Borrowed("cmd-fork"),
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Compact,
        name: Cow::Borrowed("/compact"),
        aliases: &[],
        args: ArgSpec::None,
        desc_key: Cow::Borrowed("cmd-compact"),
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Lang,
        name: Cow::Borrowed("/lang"),
        aliases: &[],
        args: ArgSpec::Required,
        desc_key: Cow::Borrowed("cmd-lang"),
        complete_with_args: true,
        usage_key: Some(Cow::Borrowed("cmd-lang-args")),
    },
    CommandSpec {
        id: CommandId::Inspect,
        name: Cow::Borrowed("/inspect"),
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: Cow::Borrowed("cmd-inspect"),
        complete_with_args: true,
        usage_key: Some(Cow::Borrowed("cmd-inspect-args")),
    },
    CommandSpec {
        id: CommandId::Review,
        name: Cow::Borrowed("/review"),
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: Cow::Borrowed("cmd-review"),
        complete_with_args: true,
        usage_key: Some(Cow::Borrowed("cmd-review-args")),
    },
    CommandSpec {
        id: CommandId::Copy,
        name: Cow::Borrowed("/copy"),
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: Cow::Borrowed("cmd-copy"),
        complete_with_args: true,
        usage_key: Some(Cow::Borrowed("cmd-copy-args")),
    },
    CommandSpec {
        id: CommandId::Clear,
        name: Cow::Borrowed("/clear"),
        aliases: &[],
        args: ArgSpec::None,
        desc_key: Cow::Borrowed("cmd-clear"),
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Status,
        name: Cow::Borrowed("/status"),
        aliases: &[],
        args: ArgSpec::None,
        desc_key: Cow::Borrowed("cmd-status"),
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Cost,
        name: Cow::Borrowed("/cost"),
        aliases: &[],
        args: ArgSpec::None,
        desc_key: Cow::Borrowed("cmd-cost"),
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::New,
        name: Cow::Borrowed("/new"),
        aliases: &[],
        args: ArgSpec::None,
        desc_key: Cow::Borrowed("cmd-new"),
        complete_with_args: false,
        usage_key: None,
    },
    CommandSpec {
        id: CommandId::Resume,
        name: Cow::Borrowed("/resume"),
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: Cow::Borrowed("cmd-resume"),
        complete_with_args: true,
        usage_key: Some(Cow::Borrowed("cmd-resume-args")),
    },
    CommandSpec {
        id: CommandId::Quit,
        name: Cow::Borrowed("/quit"),
        aliases: &["/exit"],
        args: ArgSpec::None,
        desc_key: Cow::Borrowed("cmd-quit"),
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

/// A command's one-line description: the Fluent text of `desc_key` through `tr`, or, for
/// a custom command with a `description:` line, that line as written.
pub fn describe(c: &CommandSpec, tr: impl Fn(&str) -> String) -> String {
    match c.id {
        CommandId::Custom if c.desc_key != CUSTOM_NO_DESCRIPTION => c.desc_key.to_string(),
        CommandId::Prompt if c.desc_key != PROMPT_NO_DESCRIPTION => c.desc_key.to_string(),
        _ => tr(&c.desc_key),
    }
}

/// The commands matching `typed` (without the leading `/`), best first: exact name,
/// then prefixes, then fuzzy matches, each in table order (the `custom` commands after
/// the built-in ones).
pub fn ranked<'a>(typed: &str, custom: &'a [CommandSpec]) -> Vec<&'a CommandSpec> {
    let mut v: Vec<(u8, usize, &'a CommandSpec)> = COMMANDS
        .iter()
        .chain(custom)
        .enumerate()
        .filter_map(|(i, c)| match_rank(c, typed).map(|r| (r, i, c)))
        .collect();
    v.sort_by_key(|(r, i, _)| (*r, *i));
    v.into_iter().map(|(_, _, c)| c).collect()
}

/// The command named `name` (its name or an alias, including `/`): a built-in one, else
/// one of the `custom` commands.
pub fn find<'a>(name: &str, custom: &'a [CommandSpec]) -> Option<&'a CommandSpec> {
    find_builtin(name).or_else(|| custom.iter().find(|c| c.name == name))
}

/// The built-in command named `name` (name or alias), never a custom one.
pub fn find_builtin(name: &str) -> Option<&'static CommandSpec> {
    COMMANDS
        .iter()
        .find(|c| c.name == name || c.aliases.contains(&name))
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

mod parse;
pub use parse::{Command, McpAction, ParseError, SystemAction};

#[cfg(test)]
mod tests;
