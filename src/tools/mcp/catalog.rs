//! What a server offers besides tools: its prompts (the commands `/NAME:PROMPT`,
//! `prompts.rs`) and its resource URIs (what `@NAME:` completes to). Listed at connect and
//! again after `notifications/prompts/list_changed` or `notifications/resources/list_changed`
//! (coalesced and spaced like tool refreshes, decision 0033); each change reaches the loop
//! as one `Background::McpCatalog` (`Server::store_catalog`), which offers the lists to the
//! UI (SPEC §15.2, decision 0168); `offers.rs` answers the loop's questions about them.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::PaginatedRequestParams;
use rmcp::service::{Peer, RoleClient};

use super::listing::quote_chars;
use super::prompts::{self, Catalog};
use super::server::{Inner, Server};
use crate::i18n::{Arg, Text};

/// Most resource URIs offered for completion per server.
pub const MAX_RESOURCE_URIS: usize = 200;
/// Most pages of `resources/list` read for completion.
const MAX_PAGES: usize = 20;
/// Longest URI offered (a longer one is not something to type).
const MAX_URI_CHARS: usize = 400;

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
    inner: &Inner,
    server: &Server,
    peer: &Peer<RoleClient>,
    limit: Duration,
) -> (Catalog, Vec<(String, Text)>) {
    let caps = peer.peer_info().map(|i| i.capabilities.clone());
    let mut out = Catalog::default();
    let mut warnings = Vec::new();
    let name = || Arg::from(server.name.as_str());
    // A server's words lose the session's secrets before they are cut (`Inner::said`).
    let failed = |what: &str, e: String| {
        let e = inner.said(&e);
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

/// Offers `server`'s current lists (after a connect or a `list_changed`) unless the run
/// of `generation` was stopped meanwhile; returns the warnings to show.
pub(super) async fn refresh(
    inner: &Inner,
    server: &Arc<Server>,
    peer: &Peer<RoleClient>,
    limit: Duration,
    generation: u64,
) -> Vec<(String, Text)> {
    let (catalog, warnings) = list(inner, server, peer, limit).await;
    let st = server.lock();
    if st.generation == generation {
        server.store_catalog(&inner.bg, catalog);
    }
    warnings
}
