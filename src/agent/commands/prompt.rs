//! MCP prompts as commands in the loop (SPEC §15.2, decision 0168): `/NAME:PROMPT
//! [ARG=VALUE…]` gets the prompt from the server (`crate::tools::mcp::McpManager::
//! prompt_message`) and sends its messages' text as the user message, through the
//! `user_prompt_submit` hooks like any prompt; `/help` lists them under "Server prompts".

use crate::agent::command_spec::OfferedPrompt;
use crate::agent::commands::CommandContext;
use crate::agent::protocol::{AgentEvent, OutputLine, TurnPhase, output_row};
use crate::agent::turn::LineOutcome;
use crate::i18n::{Arg, Text};
use crate::tools::mcp::McpManager;

/// What the servers offer now, for the UI (`AgentEvent::McpOffers`).
pub fn mcp_offers(mcp: &McpManager) -> AgentEvent {
    let prompts = mcp
        .prompts()
        .iter()
        .map(|p| OfferedPrompt {
            name: p.command(),
            description: p.description.clone(),
            synopsis: p.synopsis(),
            required: p.args.iter().any(|a| a.required),
        })
        .collect();
    AgentEvent::McpOffers {
        prompts,
        resources: mcp.resource_mentions(),
    }
}

impl CommandContext<'_> {
    /// `/help`'s lines for the servers' prompts: a heading, then one line each.
    pub(crate) fn prompt_help_lines(&self) -> Vec<OutputLine> {
        let prompts = self.mcp().map(|m| m.prompts()).unwrap_or_default();
        if prompts.is_empty() {
            return vec![];
        }
        let mut out = vec![Text::new("cmd-prompts-help-title", vec![])];
        for p in prompts {
            let left = match p.synopsis() {
                s if s.is_empty() => Arg::from(p.command()),
                s => Arg::from(Text::new(
                    "cmd-help-synopsis",
                    vec![("name", Arg::from(p.command())), ("args", Arg::from(s))],
                )),
            };
            let description = match p.description {
                Some(d) => Arg::from(d),
                None => Arg::from(Text::new("cmd-prompt-no-description", vec![])),
            };
            out.push(output_row(left, description));
        }
        out
    }

    /// Whether `name` (with `/`) is `/NAME:…` for a configured MCP server.
    pub(crate) fn is_prompt_command(&self, name: &str) -> bool {
        self.mcp().is_some_and(|m| m.prompt_server(name).is_some())
    }

    /// Runs `/NAME:PROMPT ARGS`: the prompt's text is the user message.
    pub(crate) async fn prompt_command(&mut self, name: &str, args: &str) -> LineOutcome {
        let Some(mcp) = self.mcp() else {
            return self.warn("cmd-unknown", vec![("command", Arg::from(name))]);
        };
        // The UI is busy while the server prepares the prompt, so Esc cancels the wait
        // (the server is told); the timeout is the server's call timeout.
        let cancel = self.fresh_cancel();
        self.events.emit(AgentEvent::Phase(TurnPhase::AskingServer));
        let got = self
            .inbox
            .during(mcp.prompt_message(name, args, &cancel))
            .await;
        self.events.emit(AgentEvent::Phase(TurnPhase::Idle));
        match got {
            Ok(text) => self.runner().send_prompt(text).await,
            Err(t) => {
                // A server's error text may quote a secret it was given (as a status error).
                let args: Vec<(&str, Arg)> = t
                    .args
                    .iter()
                    .map(|(k, v)| match v {
                        Arg::Str(s) => (k.as_str(), Arg::Str(self.tools.redact(s))),
                        other => (k.as_str(), other.clone()),
                    })
                    .collect();
                self.warn(&t.key, args)
            }
        }
    }
}
