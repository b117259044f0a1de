//! `/mcp resources [NAME]`: the resources and resource templates of the connected servers
//! (SPEC §15.2).
//!
//! A server's listing is its own words: every field is cut to a line's worth, at most
//! [`MAX_PAGES`] pages are read and at most [`MAX_SHOWN`] entries shown per server, and the
//! whole listing has the connect timeout, so a hostile server cannot make it endless
//! (decision 0167).

use rmcp::model::PaginatedRequestParams;
use rmcp::service::{Peer, RoleClient};

use super::McpManager;
use super::command::McpReply;
use super::listing::quote_chars;
use super::server::{Inner, Server};
use crate::i18n::{Arg, Text};

/// Most pages of one listing read.
const MAX_PAGES: usize = 20;

/// Most entries shown per server (resources and templates together).
pub const MAX_SHOWN: usize = 200;

/// Longest field (URI, name, MIME type) quoted.
const MAX_FIELD_CHARS: usize = 200;

/// One line of a listing.
struct Entry {
    key: &'static str,
    uri: String,
    name: String,
    mime: String,
}

fn field(s: &str) -> String {
    quote_chars(&s.replace(['\n', '\r'], " "), MAX_FIELD_CHARS)
}

/// Every page of `resources/list` then `resources/templates/list`, within the caps.
async fn entries(peer: &Peer<RoleClient>) -> Result<(Vec<Entry>, bool), String> {
    let mut out = Vec::new();
    let mut cursor = None;
    for _ in 0..MAX_PAGES {
        let page = peer
            .list_resources(Some(PaginatedRequestParams::default().with_cursor(cursor)))
            .await
            .map_err(|e| e.to_string())?;
        out.extend(page.resources.iter().map(|r| Entry {
            key: "mcp-resource-line",
            uri: field(&r.uri),
            name: field(&r.name),
            mime: field(r.mime_type.as_deref().unwrap_or("")),
        }));
        cursor = page.next_cursor;
        if cursor.is_none() || out.len() > MAX_SHOWN {
            break;
        }
    }
    let mut cursor = None;
    for _ in 0..MAX_PAGES {
        if out.len() > MAX_SHOWN {
            break;
        }
        // A server with resources but no templates may not know the method: no templates.
        let Ok(page) = peer
            .list_resource_templates(Some(PaginatedRequestParams::default().with_cursor(cursor)))
            .await
        else {
            break;
        };
        out.extend(page.resource_templates.iter().map(|r| Entry {
            key: "mcp-resource-template-line",
            uri: field(&r.uri_template),
            name: field(&r.name),
            mime: field(r.mime_type.as_deref().unwrap_or("")),
        }));
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    let more = out.len() > MAX_SHOWN;
    out.truncate(MAX_SHOWN);
    Ok((out, more))
}

/// One server's part of the listing.
async fn server_lines(inner: &Inner, server: &Server, limit: std::time::Duration) -> Vec<Text> {
    let name = || Arg::from(server.name.as_str());
    let peer = server.lock().peer.clone();
    let Some(peer) = peer.filter(|p| !p.is_transport_closed()) else {
        return vec![Text::new(
            "mcp-resources-not-connected",
            vec![("name", name())],
        )];
    };
    if peer
        .peer_info()
        .is_some_and(|i| i.capabilities.resources.is_none())
    {
        return vec![Text::new("mcp-resources-none", vec![("name", name())])];
    }
    let listed = tokio::time::timeout(limit, entries(&peer)).await;
    let (list, more) = match listed {
        Ok(Ok(l)) => l,
        Ok(Err(e)) => {
            return vec![Text::new(
                "mcp-resources-failed",
                vec![
                    ("name", name()),
                    (
                        "error",
                        Arg::from(quote_chars(&inner.said(&e), MAX_FIELD_CHARS)),
                    ),
                ],
            )];
        }
        Err(_) => {
            return vec![Text::new(
                "mcp-resources-timeout",
                vec![("name", name()), ("seconds", Arg::from(limit.as_secs()))],
            )];
        }
    };
    if list.is_empty() {
        return vec![Text::new("mcp-resources-none", vec![("name", name())])];
    }
    let mut out = vec![Text::new(
        "mcp-resources-header",
        vec![("name", name()), ("count", Arg::from(list.len()))],
    )];
    for e in list {
        out.push(Text::new(
            e.key,
            vec![
                ("uri", Arg::from(e.uri)),
                ("name", Arg::from(e.name)),
                (
                    "mime",
                    Arg::from(if e.mime.is_empty() {
                        "-".to_string()
                    } else {
                        e.mime
                    }),
                ),
            ],
        ));
    }
    if more {
        out.push(Text::new(
            "mcp-resources-more",
            vec![("limit", Arg::from(MAX_SHOWN))],
        ));
    }
    out
}

impl McpManager {
    /// `/mcp resources [NAME]`: the named server's resources and templates, or every
    /// connected server's.
    pub async fn resources_reply(&self, name: Option<&str>) -> McpReply {
        let limit = self.inner.options.connect_timeout;
        let servers: Vec<_> = match name {
            Some(n) => match self.inner.servers.get(n) {
                Some(s) => vec![s.clone()],
                None => return McpReply::Warn("mcp-unknown-server", vec![("name", n.into())]),
            },
            None => self
                .inner
                .servers
                .values()
                .filter(|s| s.lock().peer.is_some())
                .cloned()
                .collect(),
        };
        if servers.is_empty() {
            return McpReply::Output(vec![Text::new("mcp-resources-no-server", vec![])]);
        }
        let mut out = Vec::new();
        for s in servers {
            out.extend(server_lines(&self.inner, &s, limit).await);
        }
        McpReply::Output(out)
    }
}

/// What reading one resource gave (`@NAME:URI`, SPEC §15.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceRead {
    /// Its text contents joined, cut to the cap; the full size and whether it was cut.
    Text {
        /// The text attached.
        text: String,
        /// Bytes of text the server sent.
        bytes: u64,
        /// Only the first `max` bytes are in `text`.
        truncated: bool,
    },
    /// Binary contents (a blob): its MIME type and about how many bytes, not attached.
    Binary {
        /// The MIME type the server gave.
        mime: String,
        /// Decoded size, about.
        bytes: u64,
    },
}

impl McpManager {
    /// Reads `uri` from `server` (`resources/read`) within its call timeout or until
    /// `cancel` (the server is told either way), keeping at most `max` bytes of text; a
    /// failure is a sentence in the interface language.
    pub async fn read_resource(
        &self,
        server: &str,
        uri: &str,
        max: usize,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<ResourceRead, Text> {
        use super::call::{Waited, answer};
        let name = || Arg::from(server);
        let Some(s) = self.inner.servers.get(server).cloned() else {
            return Err(Text::new("mcp-unknown-server", vec![("name", name())]));
        };
        let peer = s.lock().peer.clone();
        let Some(peer) = peer.filter(|p| !p.is_transport_closed()) else {
            return Err(Text::new(
                "mcp-resources-not-connected",
                vec![("name", name())],
            ));
        };
        let limit = std::time::Duration::from_secs(
            s.config
                .timeout_secs
                .unwrap_or(super::options::DEFAULT_CALL_TIMEOUT_SECS),
        );
        let read = s
            .or_oversize(async {
                let params = rmcp::model::ReadResourceRequestParams::new(uri);
                match answer(&s, peer.read_resource(params), limit, cancel).await {
                    Waited::Answered(Ok(r)) => Ok(r),
                    Waited::Answered(Err(e)) => Err(Text::new(
                        "mcp-resource-read-failed",
                        vec![
                            ("name", name()),
                            ("uri", Arg::from(field(uri))),
                            ("error", Arg::from(field(&self.inner.said(&e)))),
                        ],
                    )),
                    Waited::TimedOut => Err(Text::new(
                        "mcp-resource-read-timeout",
                        vec![
                            ("name", name()),
                            ("uri", Arg::from(field(uri))),
                            ("seconds", Arg::from(limit.as_secs())),
                        ],
                    )),
                    Waited::Cancelled => Err(Text::new(
                        "mcp-resource-read-cancelled",
                        vec![("name", name()), ("uri", Arg::from(field(uri)))],
                    )),
                }
            })
            .await?;
        Ok(contents(read.contents, max))
    }
}

/// The contents of a read: text joined (cut at `max` bytes), else the first blob named.
fn contents(list: Vec<rmcp::model::ResourceContents>, max: usize) -> ResourceRead {
    use rmcp::model::ResourceContents as C;
    let mut text = String::new();
    let mut blob = None;
    for c in list {
        match c {
            C::TextResourceContents { text: t, .. } => {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&t);
            }
            C::BlobResourceContents {
                mime_type, blob: b, ..
            } => {
                blob.get_or_insert((
                    mime_type.unwrap_or_else(|| "application/octet-stream".into()),
                    (b.trim_end_matches('=').len() * 3 / 4) as u64,
                ));
            }
            _ => {}
        }
    }
    match blob {
        Some((mime, bytes)) if text.is_empty() => ResourceRead::Binary {
            mime: field(&mime),
            bytes,
        },
        _ => {
            let bytes = text.len() as u64;
            let truncated = crate::tools::truncate_utf8(&mut text, max);
            ResourceRead::Text {
                text,
                bytes,
                truncated,
            }
        }
    }
}
