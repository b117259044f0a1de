//! A remote MCP server over Streamable HTTP for deepterm's tests, with an OAuth 2.1
//! authorization server of its own; loopback only.
//!
//! `deepterm-mcp-http-fixture serve` binds `127.0.0.1` (port `FIXTURE_PORT`, default any),
//! prints `listening http://127.0.0.1:PORT/mcp` on stdout and serves until killed:
//! - `/mcp`: rmcp's own Streamable HTTP server (sessions with `Mcp-Session-Id`, JSON or SSE
//!   answers, the GET stream) with the tools `echo {text}`, answering `Echo: TEXT`, and
//!   `whoami {}`, answering `You sent: ` and the request's `Authorization` header.
//! - With `FIXTURE_BEARER=VALUE` the endpoint wants exactly `Authorization: Bearer VALUE`.
//! - With `FIXTURE_OAUTH=1` the endpoint wants `Authorization: Bearer TOKEN` and answers a
//!   request without a valid one 401 with a `WWW-Authenticate` pointing at its
//!   protected-resource metadata (RFC 9728), which lives at `/resource-metadata` — not the
//!   well-known path, so a client only finds it by reading the challenge. The authorization
//!   server is `http://127.0.0.1:PORT/auth` with metadata (RFC 8414) at
//!   `/.well-known/oauth-authorization-server/auth`, dynamic registration (RFC 7591),
//!   an authorization endpoint that approves at once (a 302 to the loopback redirect),
//!   PKCE S256 checked at the token endpoint, access tokens living `FIXTURE_TOKEN_TTL_SECS`
//!   (default 3600) and rotating refresh tokens. `FIXTURE_PKCE_PLAIN=1` accepts the `plain`
//!   method too (to show what S256 protects against).
//! - `FIXTURE_LEAKY=1`: also the prompt `leaky` and the resource `fixture://leaky`, whose
//!   errors quote the `Authorization` header (`mcp.rs`).
//! - `POST /fixture/expire-sessions` ends every MCP session, so the next request with an
//!   old `Mcp-Session-Id` gets a 404 (`deepterm-mcp-http-fixture expire BASE` sends it).
//! - `FIXTURE_DROP_STREAM=1`: the first `slow_echo` call's SSE answer is cut after its
//!   progress event, so the client must resume it with `Last-Event-ID` (`resume.rs`, whose
//!   in-memory event store the server then keeps); the SSE retry interval is then 100 ms
//!   instead of rmcp's 3 s.
//! - `FIXTURE_LOG=PATH`: one JSON line per event (registration, authorization, token grant
//!   or refusal, new MCP session, each `/mcp` request with whether it carried a session id).
//!   Tokens are never written there.
//!
//! `deepterm-mcp-http-fixture browse URL` is the headless browser for `$BROWSER`: it GETs
//! the URL and follows redirects (to the loopback callback). With `FIXTURE_BROWSE_LOG=PATH`
//! it appends the URL it was given; with `FIXTURE_BROWSE_STEAL=PATH` it plays an attacker
//! who intercepts the redirect: before following it, it tries to redeem the code itself
//! with the challenge from the URL as verifier (what works when the method is `plain`) and
//! appends the token endpoint's HTTP status to that file.

mod browse;
mod mcp;
mod oauth;
mod resume;

use std::io::Write;
use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

/// Appends one JSON line to `FIXTURE_LOG` when it is set.
pub(crate) fn log_event(event: serde_json::Value) {
    let Ok(path) = std::env::var("FIXTURE_LOG") else {
        return;
    };
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{event}");
    }
}

fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v == "1")
}

async fn serve() {
    let port: u16 = std::env::var("FIXTURE_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("local address").port();
    let base = format!("http://127.0.0.1:{port}");
    let sessions = Arc::new(if env_flag("FIXTURE_DROP_STREAM") {
        LocalSessionManager::default().with_event_store(Arc::new(resume::MemoryEvents::default()))
    } else {
        LocalSessionManager::default()
    });
    let auth = Arc::new(oauth::AuthServer::new(
        &base,
        env_flag("FIXTURE_OAUTH"),
        std::env::var("FIXTURE_TOKEN_TTL_SECS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(3600),
        env_flag("FIXTURE_PKCE_PLAIN"),
    ));
    let service = StreamableHttpService::new(
        || {
            log_event(serde_json::json!({"event": "session"}));
            Ok(mcp::Tools)
        },
        sessions.clone(),
        StreamableHttpServerConfig::default()
            .with_sse_keep_alive(None)
            .with_sse_retry(if env_flag("FIXTURE_DROP_STREAM") {
                Some(std::time::Duration::from_millis(100))
            } else {
                Some(std::time::Duration::from_secs(3))
            }),
    );
    let mcp = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(resume::drop_first_stream))
        .layer(axum::middleware::from_fn_with_state(
            auth.clone(),
            oauth::guard,
        ));
    let app = oauth::routes(auth).merge(mcp).route(
        "/fixture/expire-sessions",
        axum::routing::post(move || expire(sessions.clone())),
    );
    println!("listening {base}/mcp");
    let _ = std::io::stdout().flush();
    axum::serve(listener, app).await.expect("serve");
}

/// Ends every MCP session (their ids then get 404).
async fn expire(sessions: Arc<LocalSessionManager>) -> &'static str {
    let ids: Vec<_> = sessions.sessions.read().await.keys().cloned().collect();
    for id in &ids {
        use rmcp::transport::streamable_http_server::SessionManager;
        let _ = sessions.close_session(id).await;
    }
    log_event(serde_json::json!({"event": "expired", "sessions": ids.len()}));
    "expired"
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("serve") | None => serve().await,
        Some("browse") => {
            let Some(url) = args.get(1) else {
                eprintln!("usage: deepterm-mcp-http-fixture browse URL");
                std::process::exit(2);
            };
            if let Err(e) = browse::browse(url).await {
                eprintln!("browse: {e}");
                std::process::exit(1);
            }
        }
        Some("expire") => {
            // `expire BASE`: what `POST BASE/fixture/expire-sessions` does, as a command.
            let base = args.get(1).map(String::as_str).unwrap_or_default();
            let sent = reqwest::Client::new()
                .post(format!("{base}/fixture/expire-sessions"))
                .send()
                .await;
            match sent {
                Ok(r) if r.status().is_success() => println!("sessions expired"),
                Ok(r) => {
                    eprintln!("expire: {}", r.status());
                    std::process::exit(1);
                }
                Err(e) => {
                    eprintln!("expire: {e}");
                    std::process::exit(1);
                }
            }
        }
        Some(other) => {
            eprintln!("unknown mode {other}: serve | browse URL | expire BASE");
            std::process::exit(2);
        }
    }
}
