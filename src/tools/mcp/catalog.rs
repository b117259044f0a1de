//! What a server offers besides tools: its prompts (the commands `/NAME:PROMPT`,
//! `prompts.rs`) and its resource URIs (what `@NAME:` completes to). Listed at connect and
//! again after `notifications/prompts/list_changed` or `notifications/resources/list_changed`
//! (coalesced and spaced like tool refreshes, decision 0033); each change reaches the loop
//! as one [`Background::McpCatalog`], which offers the lists to the UI (SPEC §15.2,
//! decision 0168).

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::PaginatedRequestParams;
use rmcp::service::{Peer, RoleClient};

use super::McpManager;
use super::listing::quote_chars;
use super::options::DEFAULT_CALL_TIMEOUT_SECS;
use super::prompts::{self, ServerPrompt};
use super::server::{Inner, Server};
use crate::i18n::{Arg, Text};
use crate::tools::source::Background;

/// Most resource URIs offered for completion per server.
pub const MAX_RESOURCE_URIS: usize = 200;
/// Most pages of `resources/list` read for completion.
const MAX_PAGES: usize = 20;
/// Longest URI offered (a longer one is not something to type).
const MAX_URI_CHARS: usize = 400;

/// A server's prompts and resource URIs as last listed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Catalog {
    pub(super) prompts: Vec<ServerPrompt>,
    pub(super) resources: Vec<String>,
}

/// Whether `uri` can follow `@NAME:` in a message: one word of printable characters.
fn typable(uri: &str) -> bool {
    !uri.is_empty()
        && uri.chars().count() <= MAX_URI_CHARS
        && !uri.chars().any(|c| c.is_whitespace() || c.is_control())
}

async fn resource_uris(peer: &Peer<RoleClient>) -> Result<Vec<String>, rmcp::ServiceError> {
    let mut out = Vec::new();
    let mut cursor = None;
    for _ in 0..MAX_PAGES {
        let page = peer
            .list_resources(Some(PaginatedRequestParams::default().with_cursor(cursor)))
            .await?;
        out.extend(
            page.resources
                .iter()
                .map(|r| r.uri.clone())
                .filter(|u| typable(u)),
        );
        cursor = page.next_cursor;
        if cursor.is_none() || out.len() >= MAX_RESOURCE_URIS {
            break;
        }
    }
    out.truncate(MAX_RESOURCE_URIS);
    Ok(out)
}

/// Lists what `peer` offers (only what its capabilities announce), each list within
/// `limit`; a failed list is empty and told in the returned warnings, keyed for
/// `warn_once`.
pub(super) async fn list(
    server: &Server,
    peer: &Peer<RoleClient>,
    limit: Duration,
) -> (Catalog, Vec<(String, Text)>) {
    let caps = peer.peer_info().map(|i| i.capabilities.clone());
    let mut out = Catalog::default();
    let mut warnings = Vec::new();
    let name = || Arg::from(server.name.as_str());
    let failed = |what: &str, e: String| {
        (
            format!("catalog\u{0}{what}\u{0}{e}"),
            Text::new(
                "mcp-catalog-failed",
                vec![
                    ("name", name()),
                    ("what", Arg::from(what)),
                    ("error", Arg::from(quote_chars(&e, 200))),
                ],
            ),
        )
    };
    if caps.as_ref().is_some_and(|c| c.prompts.is_some()) {
        let listed = tokio::time::timeout(limit, prompts::list(peer)).await;
        match listed {
            Ok(Ok(p)) => {
                let (kept, skipped) = prompts::screen(&server.name, p);
                out.prompts = kept;
                if !skipped.is_empty() {
                    let key = format!("prompts-skipped\u{0}{}", skipped.join("\u{0}"));
                    let text = Text::new(
                        "mcp-prompts-skipped",
                        vec![
                            ("name", name()),
                            ("count", Arg::from(skipped.len())),
                            ("prompts", Arg::List(skipped.into_iter().take(5).collect())),
                            ("limit", Arg::from(prompts::MAX_NAME_CHARS)),
                        ],
                    );
                    warnings.push((key, text));
                }
            }
            Ok(Err(e)) => warnings.push(failed("prompts/list", e.to_string())),
            Err(_) => warnings.push(failed("prompts/list", format!("no answer in {limit:?}"))),
        }
    }
    if caps.as_ref().is_some_and(|c| c.resources.is_some()) {
        match tokio::time::timeout(limit, resource_uris(peer)).await {
            Ok(Ok(r)) => out.resources = r,
            Ok(Err(e)) => warnings.push(failed("resources/list", e.to_string())),
            Err(_) => warnings.push(failed("resources/list", format!("no answer in {limit:?}"))),
        }
    }
    (out, warnings)
}

/// Keeps `catalog` as the server's and tells the loop when it changed.
pub(super) fn store(inner: &Inner, server: &Server, catalog: Catalog) {
    let mut c = server.catalog();
    if *c != catalog {
        *c = catalog;
        drop(c);
        let _ = inner.bg.send(Background::McpCatalog);
    }
}

/// Forgets what the server offered (it was stopped or given up).
pub(super) fn clear(inner: &Inner, server: &Server) {
    store(inner, server, Catalog::default());
}

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
    /// against the prompt, `prompts/get` within the server's call timeout, its messages as
    /// text. Every failure is a sentence that names the command.
    pub async fn prompt_message(&self, command: &str, typed: &str) -> Result<String, Text> {
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
                match tokio::time::timeout(limit, prompts::get(&peer, &prompt, args)).await {
                    Ok(Ok(r)) => Ok(r),
                    Ok(Err(e)) => Err(Text::new(
                        "mcp-prompt-failed",
                        vec![
                            ("command", cmd()),
                            ("error", Arg::from(prompts::one_line(&e.to_string(), 300))),
                        ],
                    )),
                    Err(_) => Err(Text::new(
                        "mcp-prompt-timeout",
                        vec![("command", cmd()), ("seconds", Arg::from(limit.as_secs()))],
                    )),
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

/// Offers `server`'s current lists (after a connect or a `list_changed`) unless the run
/// of `generation` was stopped meanwhile; returns the warnings to show.
pub(super) async fn refresh(
    inner: &Inner,
    server: &Arc<Server>,
    peer: &Peer<RoleClient>,
    limit: Duration,
    generation: u64,
) -> Vec<(String, Text)> {
    let (catalog, warnings) = list(server, peer, limit).await;
    let st = server.lock();
    if st.generation == generation {
        store(inner, server, catalog);
    }
    warnings
}
