//! The loop's questions about what the servers offer besides tools (SPEC §15.2, decision
//! 0168): their prompts and resource URIs as listed (`catalog.rs`), and running a prompt,
//! a wait the user can cancel (decision 0180).

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::McpManager;
use super::call::{Waited, answer};
use super::options::DEFAULT_CALL_TIMEOUT_SECS;
use super::prompts::{self, ServerPrompt};
use crate::i18n::{Arg, Text};

impl McpManager {
    /// Every prompt of every server, in config order then the server's order.
    pub fn prompts(&self) -> Vec<ServerPrompt> {
        self.inner
            .servers
            .values()
            .flat_map(|s| s.catalog().prompts.clone())
            .collect()
    }

    /// `NAME:URI` of every resource a server listed, for `@` completion.
    pub fn resource_mentions(&self) -> Vec<String> {
        self.inner
            .servers
            .iter()
            .flat_map(|(n, s)| {
                s.catalog()
                    .resources
                    .iter()
                    .map(|u| format!("{n}:{u}"))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// The configured server a `/NAME:PROMPT` command names, if any.
    pub fn prompt_server<'a>(&self, command: &'a str) -> Option<&'a str> {
        let (server, _) = command.strip_prefix('/')?.split_once(':')?;
        self.is_configured(server).then_some(server)
    }

    /// The text `/NAME:PROMPT ARGS` sends as the user's message: the arguments checked
    /// against the prompt, `prompts/get` within the server's call timeout or until
    /// `cancel` (the server is told either way), its messages as text. Every failure is a
    /// sentence that names the command.
    pub async fn prompt_message(
        &self,
        command: &str,
        typed: &str,
        cancel: &CancellationToken,
    ) -> Result<String, Text> {
        let cmd = || Arg::from(command);
        let Some(server) = self
            .prompt_server(command)
            .and_then(|n| self.inner.servers.get(n).cloned())
        else {
            return Err(Text::new("cmd-unknown", vec![("command", cmd())]));
        };
        let peer = server.lock().peer.clone();
        let Some(peer) = peer.filter(|p| !p.is_transport_closed()) else {
            return Err(Text::new(
                "mcp-prompt-not-connected",
                vec![
                    ("command", cmd()),
                    ("name", Arg::from(server.name.as_str())),
                ],
            ));
        };
        let prompt = server
            .catalog()
            .prompts
            .iter()
            .find(|p| p.command() == command)
            .cloned();
        let Some(prompt) = prompt else {
            return Err(Text::new("cmd-unknown", vec![("command", cmd())]));
        };
        let args = prompts::parse_args(&prompt, typed)?;
        let limit = Duration::from_secs(
            server
                .config
                .timeout_secs
                .unwrap_or(DEFAULT_CALL_TIMEOUT_SECS),
        );
        let got = server
            .or_oversize(async {
                match answer(&server, prompts::get(&peer, &prompt, args), limit, cancel).await {
                    Waited::Answered(Ok(r)) => Ok(r),
                    Waited::Answered(Err(e)) => Err(Text::new(
                        "mcp-prompt-failed",
                        vec![
                            ("command", cmd()),
                            (
                                "error",
                                Arg::from(prompts::one_line(&self.inner.said(&e), 300)),
                            ),
                        ],
                    )),
                    Waited::TimedOut => Err(Text::new(
                        "mcp-prompt-timeout",
                        vec![("command", cmd()), ("seconds", Arg::from(limit.as_secs()))],
                    )),
                    Waited::Cancelled => {
                        Err(Text::new("mcp-prompt-cancelled", vec![("command", cmd())]))
                    }
                }
            })
            .await?;
        let text = prompts::message_text(&got);
        if text.trim().is_empty() {
            return Err(Text::new("mcp-prompt-empty", vec![("command", cmd())]));
        }
        Ok(text)
    }
}
