//! Custom commands in the loop (SPEC §14.4, decision 0089): given to the agent's builder from
//! the files `crate::agent::custom_commands` read, listed by `/help`, and run by sending
//! their expanded text as the user message (through the `user_prompt_submit` hooks, like
//! any prompt).

use crate::agent::commands::CommandContext;
use crate::agent::custom_commands::CustomCommand;
use crate::agent::protocol::{AgentEvent, NoticeLevel, OutputLine};
use crate::agent::turn::LineOutcome;
use crate::i18n::{Arg, Text};

impl CommandContext<'_> {
    /// Offers the custom commands to the UI (its popup and key help) and warns (again)
    /// about every command file skipped: the TUI calls it after the session is announced,
    /// which starts Chat afresh.
    pub fn announce_custom_commands(&self) {
        let offered = self
            .custom_commands
            .commands
            .iter()
            .map(CustomCommand::offered)
            .collect();
        self.events.emit(AgentEvent::CustomCommands(offered));
        if let Some(m) = self.mcp() {
            self.events.emit(super::mcp_offers(&m));
        }
        self.warn_custom_command_problems();
    }

    /// Warns about every command file skipped (a clash with a built-in keeps the
    /// built-in).
    pub(crate) fn warn_custom_command_problems(&self) {
        for p in &self.custom_commands.problems {
            let (key, args) = p.message();
            self.events.emit(crate::agent::protocol::Notice::new(
                NoticeLevel::Warn,
                key,
                args,
            ));
        }
    }

    /// `/help`'s lines for the custom commands: a heading, then one line each.
    pub(crate) fn custom_help_lines(&self) -> Vec<OutputLine> {
        if self.custom_commands.commands.is_empty() {
            return vec![];
        }
        let mut out = vec![Text::new("cmd-custom-help-title", vec![])];
        out.extend(
            self.custom_commands
                .commands
                .iter()
                .map(CustomCommand::help_line),
        );
        out
    }

    /// Whether `name` (with `/`) is an installed custom command.
    pub(crate) fn has_custom_command(&self, name: &str) -> bool {
        self.custom_commands.commands.iter().any(|c| c.name == name)
    }

    /// Runs custom command `name` with `args`: its expanded text is the prompt.
    pub(crate) async fn custom_command(&mut self, name: &str, args: &str) -> LineOutcome {
        let Some(text) = self
            .custom_commands
            .commands
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.expand(args))
        else {
            return self.warn("cmd-unknown", vec![("command", Arg::from(name))]);
        };
        if text.trim().is_empty() {
            return self.warn("cmd-custom-empty", vec![("name", Arg::from(name))]);
        }
        self.runner().send_prompt(text).await
    }
}
