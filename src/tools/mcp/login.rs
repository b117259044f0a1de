//! `/mcp login NAME` and `/mcp logout NAME` (SPEC §15.2): OAuth 2.1 with rmcp's `auth`
//! support (decision 0161).
//!
//! The login asks the server unauthenticated and reads its 401's `WWW-Authenticate`, which
//! points at its protected-resource metadata (RFC 9728); that names the authorization
//! server, whose metadata (RFC 8414) gives the endpoints. With no `client_id` configured the
//! client registers itself (RFC 7591). The authorization URL carries a PKCE S256 challenge
//! and a loopback redirect `http://127.0.0.1:PORT/callback`, served by a one-shot listener
//! here; it is shown to the user and opened with `$BROWSER` when that is set. The code that
//! comes back is exchanged for tokens, which rmcp saves through the server's
//! [`TokenFile`](super::token_store::TokenFile).

use std::time::Duration;

use rmcp::transport::auth::{AuthorizationManager, AuthorizationRequest, AuthorizationSession};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::McpReply;
use super::failure::text;
use super::remote;
use super::server::Inner;
use crate::config::RemoteMcpConfig;
use crate::i18n::{Arg, Text};
use crate::session::event::McpState;

/// How long a login waits for the browser to come back.
pub const LOGIN_WAIT: Duration = Duration::from_secs(300);

/// How long one connection to the callback listener may take to send its request.
const CALLBACK_READ: Duration = Duration::from_secs(10);

/// The most of a callback request read (its first line carries everything needed).
const CALLBACK_MAX_BYTES: usize = 16 * 1024;

/// The most of a `WWW-Authenticate` header used.
const CHALLENGE_MAX_BYTES: usize = 8 * 1024;

/// The page the browser shows after the redirect.
const DONE_PAGE: &str = "<!doctype html><meta charset=utf-8><title>deepterm</title>\
<p>deepterm is logged in. You can close this tab.</p><p>deepterm 已登录，可以关闭此标签页。</p>";

/// Runs a login for the remote server `name` with config `remote`: `show` receives the
/// authorization URL once it is known (to print it); `$BROWSER` is started with it when
/// set. Resolves once the tokens are stored, or with the reason it failed.
pub(super) async fn login(
    inner: &Inner,
    name: &str,
    remote: &RemoteMcpConfig,
    show: impl FnOnce(String),
) -> Result<(), Text> {
    let oauth = |e: &dyn std::fmt::Display| text("mcp-err-oauth", vec![("error", e.to_string())]);
    let challenge = challenge(remote).await;
    let mut manager = AuthorizationManager::new(remote.url.as_str())
        .await
        .map_err(|e| oauth(&e))?;
    manager.set_credential_store(remote::token_file(inner, name));
    let resolution = manager
        .resolve_metadata_from_challenge(challenge.as_deref())
        .await
        .map_err(|e| oauth(&e))?;
    manager.set_metadata(resolution.metadata);
    let listener = TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(|e| oauth(&e))?;
    let port = listener.local_addr().map_err(|e| oauth(&e))?.port();
    let redirect = format!("http://127.0.0.1:{port}/callback");
    let mut request = AuthorizationRequest::new(redirect.clone()).with_client_name("deepterm");
    if let Some(id) = &remote.client_id {
        request = request.with_preregistered_client(id.clone());
    }
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| oauth(&e))?;
    let url = session.get_authorization_url().to_string();
    show(url.clone());
    super::browser::open_browser(&url, &inner.options.key_env_vars);
    let callback = tokio::time::timeout(LOGIN_WAIT, wait_for_callback(&listener, port))
        .await
        .map_err(|_| {
            text(
                "mcp-login-timeout",
                vec![("seconds", LOGIN_WAIT.as_secs().to_string())],
            )
        })??;
    session
        .handle_callback_url(&callback)
        .await
        .map_err(|e| oauth(&e))?;
    Ok(())
}

/// The `WWW-Authenticate` of the server's answer to an unauthenticated `initialize`, if
/// it answered 401 with one (the start of RFC 9728 discovery).
async fn challenge(remote: &RemoteMcpConfig) -> Option<String> {
    let client = remote::http_client().ok()?;
    let mut req = client
        .post(remote.url.as_str())
        .header("accept", "application/json, text/event-stream")
        .timeout(Duration::from_secs(30))
        .json(&serde_json::json!({
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "deepterm", "version": env!("CARGO_PKG_VERSION")}
            }
        }));
    for (k, v) in &remote.headers {
        req = req.header(k.as_str(), v.as_str());
    }
    let resp = req.send().await.ok()?;
    if resp.status() != reqwest::StatusCode::UNAUTHORIZED {
        return None;
    }
    let value = resp.headers().get(reqwest::header::WWW_AUTHENTICATE)?;
    (value.len() <= CHALLENGE_MAX_BYTES)
        .then(|| value.to_str().ok().map(str::to_string))
        .flatten()
}

/// Serves the loopback redirect until a request for `/callback` arrives; returns its full
/// URL. Other paths (a browser asking for a favicon) get a 404 and the wait goes on.
async fn wait_for_callback(listener: &TcpListener, port: u16) -> Result<String, Text> {
    loop {
        let Ok((mut sock, _)) = listener.accept().await else {
            continue;
        };
        let Ok(Some(target)) = tokio::time::timeout(CALLBACK_READ, read_target(&mut sock))
            .await
            .map(|r| r.ok().flatten())
        else {
            continue;
        };
        if target != "/callback" && !target.starts_with("/callback?") {
            let _ = sock
                .write_all(
                    b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                )
                .await;
            continue;
        }
        let url = format!("http://127.0.0.1:{port}{target}");
        let denied = reqwest::Url::parse(&url).ok().and_then(|u| {
            u.query_pairs()
                .find(|(k, _)| k == "error")
                .map(|(_, v)| v.into_owned())
        });
        let page = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\n\
             connection: close\r\n\r\n{DONE_PAGE}",
            DONE_PAGE.len()
        );
        let _ = sock.write_all(page.as_bytes()).await;
        if let Some(error) = denied {
            let error: String = error.chars().take(200).collect();
            return Err(text(
                "mcp-login-denied",
                vec![("error", crate::safe_text::sanitize(&error))],
            ));
        }
        return Ok(url);
    }
}

/// The request target of an HTTP request's first line (`GET /callback?… HTTP/1.1`).
async fn read_target(sock: &mut tokio::net::TcpStream) -> std::io::Result<Option<String>> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    while !buf.windows(2).any(|w| w == b"\r\n") {
        let n = sock.read(&mut chunk).await?;
        if n == 0 || buf.len() + n > CALLBACK_MAX_BYTES {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let line = String::from_utf8_lossy(&buf);
    let first = line.lines().next().unwrap_or_default();
    let mut parts = first.split(' ');
    match (parts.next(), parts.next()) {
        (Some("GET"), Some(target)) => Ok(Some(target.to_string())),
        _ => Ok(None),
    }
}

impl super::McpManager {
    /// `/mcp login NAME`: runs the login (`show` gets the authorization URL to print), then
    /// connects the server if it is not connected. A connected server needs nothing more:
    /// its transport reads the token file on every request.
    pub async fn login_reply(&self, name: &str, show: impl FnOnce(String)) -> McpReply {
        let Some(server) = self.inner.servers.get(name).cloned() else {
            return McpReply::Warn("mcp-unknown-server", vec![("name", name.into())]);
        };
        let Some(remote) = server.config.remote.clone().filter(|r| r.oauth) else {
            return McpReply::Warn("mcp-login-not-oauth", vec![("name", name.into())]);
        };
        if let Err(e) = login(&self.inner, name, &remote, show).await {
            return McpReply::Warn(
                "mcp-login-failed",
                vec![("name", name.into()), ("error", Arg::from(e))],
            );
        }
        let path = remote::token_file(&self.inner, name)
            .path()
            .display()
            .to_string();
        let connected = server.lock().state == Some(McpState::Connected);
        if !connected {
            // A server that gave up for want of a login starts afresh.
            let _ = self.disconnect(name);
            let _ = self.connect(name).await;
        }
        McpReply::Info(
            "mcp-login-done",
            vec![("name", name.into()), ("path", path.into())],
        )
    }

    /// `/mcp logout NAME`: deletes the stored tokens and stops the server if it runs (it
    /// could only fail from now on).
    pub fn logout_reply(&self, name: &str) -> McpReply {
        let Some(server) = self.inner.servers.get(name) else {
            return McpReply::Warn("mcp-unknown-server", vec![("name", name.into())]);
        };
        if !server.config.remote.as_ref().is_some_and(|r| r.oauth) {
            return McpReply::Warn("mcp-login-not-oauth", vec![("name", name.into())]);
        }
        let _ = self.disconnect(name);
        match remote::token_file(&self.inner, name).remove() {
            Ok(true) => McpReply::Info("mcp-logout-done", vec![("name", name.into())]),
            Ok(false) => McpReply::Info("mcp-logout-none", vec![("name", name.into())]),
            Err(e) => McpReply::Warn(
                "mcp-logout-failed",
                vec![("name", name.into()), ("error", e.to_string().into())],
            ),
        }
    }
}
