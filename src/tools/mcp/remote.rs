//! Remote MCP servers over Streamable HTTP (SPEC §15.2), with rmcp's own client transport:
//! it POSTs with `Accept: application/json, text/event-stream`, reads JSON or SSE answers,
//! keeps `Mcp-Session-Id`, opens the GET stream, resumes it with `Last-Event-ID` and starts
//! a new session after a 404 (decision 0160). What this module adds is deepterm's side:
//! the server's `max_message_bytes` as the transport's caps on every answer and event,
//! the static credentials (`headers`, `bearer_token_env`), the OAuth tokens of
//! `/mcp login`, and plain words for what can go wrong over HTTP.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::auth::{AuthClient, AuthError, AuthorizationManager};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransport, StreamableHttpClientTransportConfig, StreamableHttpError,
};
use rmcp::transport::worker::WorkerQuitReason;
use rmcp::{ClientHandler, ServiceExt};

use super::failure::{self, text};
use super::server::{Inner, Server};
use super::token_store::TokenFile;
use crate::config::RemoteMcpConfig;
use crate::i18n::Text;

/// The transport's error type (both the plain and the OAuth client use reqwest).
pub(super) type HttpError = StreamableHttpError<reqwest::Error>;

/// How long opening a TCP (and TLS) connection to the server may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// The most of an HTTP error body kept for the message (the rest is never read).
const ERROR_BODY_PREFIX: usize = 4 * 1024;

/// The Fluent id of "needs login · /mcp login NAME" (also how `/mcp` spots that state).
pub(super) const NEEDS_LOGIN: &str = "mcp-err-needs-login";

/// The token file of server `name`.
pub(super) fn token_file(inner: &Inner, name: &str) -> TokenFile {
    TokenFile::new(&inner.options.auth_dir, name, inner.options.secrets.clone())
}

/// The HTTP client every remote server uses: no overall timeout (the GET stream stays
/// open for as long as the session), a bounded connect.
pub(super) fn http_client() -> Result<reqwest::Client, Text> {
    reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .build()
        .map_err(|e| text("mcp-err-http-client", vec![("error", e.to_string())]))
}

/// The transport settings for `remote` with this server's caps and static credentials.
fn transport_config(
    server: &Server,
    remote: &RemoteMcpConfig,
) -> Result<StreamableHttpClientTransportConfig, Text> {
    let limit = usize::try_from(server.max_message_bytes()).unwrap_or(usize::MAX);
    let mut headers = HashMap::new();
    for (k, v) in &remote.headers {
        // Checked when the config was read; a value that still fails is left out.
        if let (Ok(k), Ok(v)) = (
            HeaderName::from_bytes(k.as_bytes()),
            HeaderValue::from_str(v),
        ) {
            headers.insert(k, v);
        }
    }
    let mut config = StreamableHttpClientTransportConfig::with_uri(remote.url.as_str())
        .max_sse_event_size(limit)
        .max_json_response_size(limit)
        .max_error_response_size(ERROR_BODY_PREFIX)
        .custom_headers(headers)
        .reinit_on_expired_session(true);
    if let Some(var) = &remote.bearer_token_env {
        // Read at each connect and handed to the transport only: never stored or logged.
        let value = std::env::var(var).ok().filter(|v| !v.trim().is_empty());
        let Some(value) = value else {
            return Err(text("mcp-err-bearer-unset", vec![("var", var.clone())]));
        };
        config = config.auth_header(value.trim().to_string());
    }
    Ok(config)
}

/// Connects to a remote server and runs the MCP handshake with `handler`.
pub(super) async fn serve<H: ClientHandler>(
    inner: &Inner,
    server: &Arc<Server>,
    remote: &RemoteMcpConfig,
    handler: H,
) -> Result<RunningService<RoleClient, H>, Text> {
    let config = transport_config(server, remote)?;
    let client = http_client()?;
    let served = if remote.oauth {
        let tokens = token_file(inner, &server.name);
        // No stored login: say so at once, without asking the server.
        if !tokens.has_login() {
            return Err(needs_login(&server.name));
        }
        let mut manager = AuthorizationManager::new(remote.url.as_str())
            .await
            .map_err(|e| oauth_failed(&server.name, &e))?;
        manager.set_credential_store(tokens);
        match manager.initialize_from_store().await {
            Ok(true) => {}
            Ok(false) => return Err(needs_login(&server.name)),
            Err(e) => return Err(oauth_failed(&server.name, &e)),
        }
        let transport =
            StreamableHttpClientTransport::with_client(AuthClient::new(client, manager), config);
        handler.serve(transport).await
    } else {
        handler
            .serve(StreamableHttpClientTransport::with_client(client, config))
            .await
    };
    served.map_err(|e| {
        let why = match &e {
            rmcp::service::ClientInitializeError::TransportError { error, .. } => {
                explain(server, error.error.as_ref())
            }
            _ => None,
        };
        why.unwrap_or_else(|| failure::handshake(&e))
    })
}

/// "needs login · /mcp login NAME".
pub(super) fn needs_login(name: &str) -> Text {
    text(NEEDS_LOGIN, vec![("name", name.to_string())])
}

fn oauth_failed(name: &str, e: &AuthError) -> Text {
    match e {
        AuthError::AuthorizationRequired | AuthError::TokenRefreshRejected(_) => needs_login(name),
        _ => text("mcp-err-oauth", vec![("error", e.to_string())]),
    }
}

/// Plain words for an HTTP transport failure anywhere in `e`'s chain, if it is one.
pub(super) fn explain(server: &Server, e: &(dyn std::error::Error + 'static)) -> Option<Text> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(WorkerQuitReason::Fatal { error, .. }) =
            err.downcast_ref::<WorkerQuitReason<HttpError>>()
        {
            return Some(explain_http(server, error));
        }
        if let Some(h) = err.downcast_ref::<HttpError>() {
            return Some(explain_http(server, h));
        }
        if let Some(a) = err.downcast_ref::<AuthError>() {
            return Some(unauthorized_or(server, a));
        }
        if let Some(r) = err.downcast_ref::<reqwest::Error>() {
            return Some(explain_reqwest(server, r));
        }
        cur = err.source();
    }
    None
}

fn url(server: &Server) -> String {
    server
        .config
        .remote
        .as_ref()
        .map(|r| r.url.clone())
        .unwrap_or_default()
}

/// A 401: "needs login" for an OAuth server, otherwise how to give it credentials.
fn unauthorized(server: &Server) -> Text {
    let oauth = server.config.remote.as_ref().is_some_and(|r| r.oauth);
    if oauth {
        needs_login(&server.name)
    } else {
        text("mcp-err-http-401", vec![("name", server.name.clone())])
    }
}

fn unauthorized_or(server: &Server, a: &AuthError) -> Text {
    match a {
        AuthError::AuthorizationRequired | AuthError::TokenRefreshRejected(_) => {
            unauthorized(server)
        }
        other => text("mcp-err-oauth", vec![("error", other.to_string())]),
    }
}

fn explain_http(server: &Server, e: &HttpError) -> Text {
    match e {
        StreamableHttpError::AuthRequired(_) => unauthorized(server),
        StreamableHttpError::Auth(a) => unauthorized_or(server, a),
        StreamableHttpError::InsufficientScope(_) => {
            text("mcp-err-http-403", vec![("name", server.name.clone())])
        }
        StreamableHttpError::Client(r) => explain_reqwest(server, r),
        StreamableHttpError::HttpStatus(s) => text(
            "mcp-err-http-status",
            vec![("status", s.status.to_string())],
        ),
        StreamableHttpError::UnexpectedContentType(ct) => not_mcp(ct.as_deref().unwrap_or("")),
        StreamableHttpError::ResponseBodyTooLarge { max_size } => text(
            "mcp-err-oversize",
            vec![
                ("name", server.name.clone()),
                ("bytes", format!("> {max_size}")),
                ("limit", max_size.to_string()),
            ],
        ),
        StreamableHttpError::UnexpectedServerResponse(body) => unexpected_answer(server, body),
        other => text("mcp-err-http-other", vec![("error", other.to_string())]),
    }
}

/// An answer that is no MCP message: named as HTML when it is a web page (the usual
/// sign of a wrong URL or a login portal), otherwise quoted briefly.
fn unexpected_answer(server: &Server, body: &str) -> Text {
    // rmcp says "HTTP 404 Not Found: <body>" for an error status.
    let (status, rest) = match body.strip_prefix("HTTP ") {
        Some(r) => match r.split_once(": ") {
            Some((s, rest)) => (Some(s.to_string()), rest),
            None => (None, body),
        },
        None => (None, body),
    };
    if status.as_deref().is_some_and(|s| s.starts_with("401")) {
        return unauthorized(server);
    }
    let lower = rest.trim_start().to_ascii_lowercase();
    if lower.starts_with("<!doctype html") || lower.starts_with("<html") || lower.contains("<body")
    {
        return text(
            "mcp-err-http-html",
            vec![
                ("status", status.unwrap_or_else(|| "200".into())),
                ("url", url(server)),
            ],
        );
    }
    text(
        "mcp-err-http-answer",
        vec![
            ("status", status.unwrap_or_default()),
            (
                "detail",
                crate::safe_text::sanitize(&short(rest)).replace('\n', " "),
            ),
        ],
    )
}

fn not_mcp(content_type: &str) -> Text {
    let ct = if content_type.is_empty() {
        "no content type".to_string()
    } else {
        short(content_type)
    };
    if ct.to_ascii_lowercase().contains("html") {
        text("mcp-err-http-html-type", vec![("type", ct)])
    } else {
        text("mcp-err-http-type", vec![("type", ct)])
    }
}

/// The first 200 characters of `s`.
fn short(s: &str) -> String {
    let mut out: String = s.chars().take(200).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

fn explain_reqwest(server: &Server, r: &reqwest::Error) -> Text {
    let chain = chain_text(r);
    if is_tls_failure(&chain) {
        return text(
            "mcp-err-tls",
            vec![("url", url(server)), ("error", short(&chain))],
        );
    }
    if r.is_connect() {
        return text(
            "mcp-err-unreachable",
            vec![("url", url(server)), ("error", short(&chain))],
        );
    }
    if r.is_timeout() {
        return text("mcp-err-http-timeout", vec![("url", url(server))]);
    }
    text("mcp-err-http-other", vec![("error", short(&chain))])
}

/// Whether a request's error chain is a failed TLS handshake. rustls (reqwest's TLS) names
/// most failures without saying "TLS" — a plain-HTTP server at an `https` URL is "received
/// corrupt message of type InvalidContentType" — so its own wordings are matched too.
fn is_tls_failure(chain: &str) -> bool {
    let lower = chain.to_ascii_lowercase();
    [
        "certificate",
        "tls",
        "ssl",
        "handshake",
        "corrupt message",
        "peer is incompatible",
        "peer misbehaved",
        "fatal alert",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

/// `e` and its sources, joined (reqwest's own text is only "error sending request").
fn chain_text(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut cur = e.source();
    while let Some(s) = cur {
        let t = s.to_string();
        if !parts.iter().any(|p| p.contains(&t)) {
            parts.push(t);
        }
        cur = s.source();
    }
    parts.join(": ")
}

/// Whether `t` (a server's last error) says it needs a login.
pub(super) fn is_needs_login(t: &Text) -> bool {
    t.key == NEEDS_LOGIN
}

/// Plain words for a failed request after the handshake, when the transport failed.
pub(super) fn explain_service(server: &Server, e: &rmcp::service::ServiceError) -> Option<Text> {
    match e {
        rmcp::service::ServiceError::TransportSend(d) => explain(server, d.error.as_ref()),
        _ => None,
    }
}
