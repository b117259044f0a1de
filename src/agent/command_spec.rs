//! The slash-command table (SPEC §2) as plain data: names, aliases, argument spec and
//! description keys. The loop binds a handler to every [`CommandId`]
//! (`crate::agent::commands`); the composer's popup, `/help` and the key help list
//! [`COMMANDS`]. This module imports nothing, so the UI can read it without depending on
//! the loop.
//! (Decision note: docs/decisions/0012-command-table-and-typed-output.md.)

/// Which command an entry is (the loop matches on it exhaustively, so every entry has a
/// handler).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
    /// `/system [TEXT]`.
    System,
    /// `/compact`.
    Compact,
    /// `/lang en|zh`.
    Lang,
    /// `/inspect [N]`.
    Inspect,
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
    /// Whether completing it in the popup leaves the composer open for arguments
    /// (otherwise Enter on the popup sends it at once).
    pub complete_with_args: bool,
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
    },
    CommandSpec {
        id: CommandId::Model,
        name: "/model",
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: "cmd-model",
        complete_with_args: true,
    },
    CommandSpec {
        id: CommandId::Tools,
        name: "/tools",
        aliases: &[],
        args: ArgSpec::None,
        desc_key: "cmd-tools",
        complete_with_args: false,
    },
    CommandSpec {
        id: CommandId::Tool,
        name: "/tool",
        aliases: &[],
        args: ArgSpec::Required,
        desc_key: "cmd-tool",
        complete_with_args: true,
    },
    CommandSpec {
        id: CommandId::Mcp,
        name: "/mcp",
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: "cmd-mcp",
        complete_with_args: true,
    },
    CommandSpec {
        id: CommandId::System,
        name: "/system",
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: "cmd-system",
        complete_with_args: true,
    },
    CommandSpec {
        id: CommandId::Compact,
        name: "/compact",
        aliases: &[],
        args: ArgSpec::None,
        desc_key: "cmd-compact",
        complete_with_args: false,
    },
    CommandSpec {
        id: CommandId::Lang,
        name: "/lang",
        aliases: &[],
        args: ArgSpec::Required,
        desc_key: "cmd-lang",
        complete_with_args: true,
    },
    CommandSpec {
        id: CommandId::Inspect,
        name: "/inspect",
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: "cmd-inspect",
        complete_with_args: false,
    },
    CommandSpec {
        id: CommandId::New,
        name: "/new",
        aliases: &[],
        args: ArgSpec::None,
        desc_key: "cmd-new",
        complete_with_args: false,
    },
    CommandSpec {
        id: CommandId::Resume,
        name: "/resume",
        aliases: &[],
        args: ArgSpec::Optional,
        desc_key: "cmd-resume",
        complete_with_args: true,
    },
    CommandSpec {
        id: CommandId::Quit,
        name: "/quit",
        aliases: &["/exit"],
        args: ArgSpec::None,
        desc_key: "cmd-quit",
        complete_with_args: false,
    },
];

/// The command named `name` (its name or an alias, including `/`).
pub fn find(name: &str) -> Option<&'static CommandSpec> {
    COMMANDS
        .iter()
        .find(|c| c.name == name || c.aliases.contains(&name))
}
