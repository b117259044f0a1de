//! `@NAME:URI` mentions (SPEC §15.2, decision 0169): on send, each mentioned resource of a
//! configured MCP server is read (`resources/read`) and attached to the user message the
//! way `@path` attaches a file (`crate::agent::mentions`): one more `text` block each,
//! capped at [`MAX_MENTION_BYTES`], binary contents named, not attached, and listed in
//! `source.attachments`, so the log alone rebuilds the request and resume shows it.
//!
//! A word whose part before the colon is no configured server stays plain text (`@a:b`
//! in prose, a file named so): only a server's own name makes it a resource.

use tokio_util::sync::CancellationToken;

use crate::agent::mentions::{Attachment, MAX_MENTION_BYTES, Refusal, fence, mentioned};
use crate::i18n::{Arg, Locale, Localizer, Text};
use crate::session::event::{Block, Message};
use crate::tools::mcp::{McpManager, ResourceRead};

/// Punctuation a sentence may put after a mention (`see @srv:doc://a.`).
const TRAILING: [char; 9] = [',', '.', ';', '!', '?', ')', ']', '"', '\''];

/// Whether `tok` names a resource of a configured server: its server and URI.
fn resource<'a>(mcp: &McpManager, tok: &'a str) -> Option<(&'a str, &'a str)> {
    let (server, uri) = tok.split_once(':')?;
    (mcp.is_configured(server) && !uri.is_empty()).then_some((server, uri))
}

/// Whether `m`'s typed text mentions any resource of a configured server.
pub fn mentions_any(mcp: &McpManager, m: &Message) -> bool {
    match m.content.first() {
        Some(Block::Text { text }) => mentioned(text)
            .into_iter()
            .any(|t| resource(mcp, t).is_some()),
        _ => false,
    }
}

/// Reads one `NAME:URI`, retrying without trailing punctuation when that fails.
async fn read(
    mcp: &McpManager,
    tok: &str,
    cancel: &CancellationToken,
) -> Option<(String, Result<ResourceRead, Text>)> {
    let (server, uri) = resource(mcp, tok)?;
    let got = mcp
        .read_resource(server, uri, MAX_MENTION_BYTES, cancel)
        .await;
    let trimmed = tok.trim_end_matches(TRAILING);
    if got.is_err() && !cancel.is_cancelled() && trimmed != tok && trimmed.len() > server.len() + 1
    {
        let again = mcp
            .read_resource(
                server,
                &trimmed[server.len() + 1..],
                MAX_MENTION_BYTES,
                cancel,
            )
            .await;
        if again.is_ok() {
            return Some((trimmed.to_string(), again));
        }
    }
    Some((tok.to_string(), got))
}

/// One attachment: the block the model reads and its `source.attachments` entry.
fn attachment(tok: String, got: &Result<ResourceRead, Text>) -> (String, Attachment) {
    let mut att = Attachment {
        path: tok.clone(),
        lines: 0,
        bytes: 0,
        truncated: false,
        refused: None,
    };
    let block = match got {
        Ok(ResourceRead::Text {
            text,
            bytes,
            truncated,
        }) => {
            att.lines = text.lines().count();
            att.bytes = *bytes;
            att.truncated = *truncated;
            let f = fence(text);
            let body = text.strip_suffix('\n').unwrap_or(text);
            let mut b = format!("\n\n@{tok} ({} lines):\n{f}\n{body}\n{f}", att.lines);
            if *truncated {
                b.push_str(&format!(
                    "\n[truncated: only the first {} of {bytes} bytes are attached]",
                    text.len()
                ));
            }
            b
        }
        Ok(ResourceRead::Binary { mime, bytes }) => {
            att.bytes = *bytes;
            att.refused = Some(Refusal::Binary);
            format!("\n\n[@{tok} was not attached: it is binary ({mime}, {bytes} bytes)]")
        }
        Err(e) => {
            att.refused = Some(Refusal::Unavailable);
            // The model reads English, as for file mentions.
            let why = Localizer::new(Locale::EnUs).text(e);
            format!("\n\n[@{tok} was not attached: {why}]")
        }
    };
    (block, att)
}

/// Attaches every `@NAME:URI` of `m`'s typed text after its file attachments; returns the
/// failures, for the user to see at once. A server's error text passes `redact` first (it
/// may quote a secret it was given), both in the note to the model and in the warning.
/// Once `cancel` fires, the read under way stops and the rest are not started: each is
/// noted as cancelled.
pub async fn attach(
    mcp: &McpManager,
    m: &mut Message,
    redact: &(dyn Fn(&str) -> String + Sync),
    cancel: &CancellationToken,
) -> Vec<Text> {
    let typed = match m.content.first() {
        Some(Block::Text { text }) => text.clone(),
        _ => return vec![],
    };
    let mut list: Vec<Attachment> = m
        .source
        .extra
        .get("attachments")
        .cloned()
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    let mut failures = Vec::new();
    let mut added = false;
    for tok in mentioned(&typed) {
        let Some((tok, got)) = read(mcp, tok, cancel).await else {
            continue;
        };
        let got = got.map_err(|e| Text {
            key: e.key,
            args: e
                .args
                .into_iter()
                .map(|(k, v)| match v {
                    Arg::Str(s) => (k, Arg::Str(redact(&s))),
                    other => (k, other),
                })
                .collect(),
        });
        if list.iter().any(|a| a.path == tok) {
            continue;
        }
        if let Err(e) = &got {
            failures.push(e.clone());
        }
        let (block, att) = attachment(tok, &got);
        m.content.push(Block::text(block));
        list.push(att);
        added = true;
    }
    if added && let Ok(v) = serde_json::to_value(&list) {
        m.source.extra.insert("attachments".to_string(), v);
    }
    failures
}
