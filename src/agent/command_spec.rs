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
    fn usage_keys_match_argument_specs() {
        for c in COMMANDS {
            assert_eq!(c.usage_key.is_some(), c.args != ArgSpec::None, "{}", c.name);
            assert_eq!(c.complete_with_args, c.args != ArgSpec::None, "{}", c.name);
        }
    }
}
