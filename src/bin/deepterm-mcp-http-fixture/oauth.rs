//! The fixture's OAuth 2.1 authorization server and the bearer check in front of `/mcp`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::{Form, Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::log_event;

/// An authorization code waiting to be redeemed.
struct Grant {
    client_id: String,
    redirect_uri: String,
    challenge: String,
    method: String,
}

#[derive(Default)]
struct State_ {
    /// Registered clients and their redirect URIs.
    clients: HashMap<String, Vec<String>>,
    codes: HashMap<String, Grant>,
    /// Access token -> (client, expiry).
    access: HashMap<String, (String, Instant)>,
    /// Refresh token -> client.
    refresh: HashMap<String, String>,
}

/// The authorization server and resource-server policy of one fixture.
pub struct AuthServer {
    base: String,
    /// Whether `/mcp` wants a bearer token at all.
    pub required: bool,
    ttl: Duration,
    allow_plain: bool,
    state: Mutex<State_>,
}

impl AuthServer {
    pub fn new(base: &str, required: bool, ttl_secs: u64, allow_plain: bool) -> AuthServer {
        let mut state = State_::default();
        // A client known in advance (the `client_id` of a config), any loopback redirect.
        if let Ok(id) = std::env::var("FIXTURE_CLIENT_ID") {
            state.clients.insert(id, vec![]);
        }
        AuthServer {
            base: base.to_string(),
            required,
            ttl: Duration::from_secs(ttl_secs),
            allow_plain,
            state: Mutex::new(state),
        }
    }

    fn issuer(&self) -> String {
        format!("{}/auth", self.base)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State_> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new access and refresh token for `client`, as a token endpoint answer.
    fn issue(&self, client: &str) -> Response {
        let access = random("fixture-access");
        let refresh = random("fixture-refresh");
        let mut st = self.lock();
        st.access.insert(
            access.clone(),
            (client.to_string(), Instant::now() + self.ttl),
        );
        st.refresh.insert(refresh.clone(), client.to_string());
        (
            [(header::CACHE_CONTROL, "no-store")],
            Json(json!({
                "access_token": access,
                "token_type": "Bearer",
                "expires_in": self.ttl.as_secs(),
                "refresh_token": refresh,
                "scope": "mcp",
            })),
        )
            .into_response()
    }
}

fn random(prefix: &str) -> String {
    format!(
        "{prefix}-{:016x}{:016x}",
        fastrand::u64(..),
        fastrand::u64(..)
    )
}

/// Base64url without padding (RFC 4648 §5), for the S256 challenge.
fn base64url(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(char::from(ABC[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

/// The S256 challenge of `verifier` (RFC 7636 §4.2).
pub fn s256(verifier: &str) -> String {
    base64url(&Sha256::digest(verifier.as_bytes()))
}

fn oauth_error(status: StatusCode, error: &str, why: &str) -> Response {
    log_event(json!({"event": "refused", "error": error, "why": why}));
    (
        status,
        [(header::CACHE_CONTROL, "no-store")],
        Json(json!({"error": error, "error_description": why})),
    )
        .into_response()
}

/// The routes of the authorization server and the resource metadata.
pub fn routes(auth: Arc<AuthServer>) -> axum::Router {
    axum::Router::new()
        .route("/resource-metadata", get(resource_metadata))
        .route(
            "/.well-known/oauth-authorization-server/auth",
            get(server_metadata),
        )
        .route("/auth/register", post(register))
        .route("/auth/authorize", get(authorize))
        .route("/auth/token", post(token))
        .with_state(auth)
}

async fn resource_metadata(State(auth): State<Arc<AuthServer>>) -> Json<Value> {
    log_event(json!({"event": "resource-metadata"}));
    Json(json!({
        "resource": format!("{}/mcp", auth.base),
        "authorization_servers": [auth.issuer()],
        "scopes_supported": ["mcp"],
        "bearer_methods_supported": ["header"],
    }))
}

async fn server_metadata(State(auth): State<Arc<AuthServer>>) -> Json<Value> {
    log_event(json!({"event": "server-metadata"}));
    let issuer = auth.issuer();
    let methods: Vec<&str> = if auth.allow_plain {
        vec!["S256", "plain"]
    } else {
        vec!["S256"]
    };
    Json(json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "registration_endpoint": format!("{issuer}/register"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": methods,
        "token_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": ["mcp"],
        "authorization_response_iss_parameter_supported": true,
    }))
}

/// Whether `uri` is a loopback redirect `http://127.0.0.1:PORT/callback`.
fn loopback_redirect(uri: &str) -> bool {
    uri.strip_prefix("http://127.0.0.1:")
        .and_then(|r| r.split_once('/'))
        .is_some_and(|(port, path)| port.parse::<u16>().is_ok() && path == "callback")
}

async fn register(State(auth): State<Arc<AuthServer>>, Json(body): Json<Value>) -> Response {
    let uris: Vec<String> = body["redirect_uris"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    if uris.is_empty() || !uris.iter().all(|u| loopback_redirect(u)) {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_redirect_uri",
            "redirect URIs must be http://127.0.0.1:PORT/callback",
        );
    }
    let id = random("client");
    auth.lock().clients.insert(id.clone(), uris.clone());
    log_event(json!({
        "event": "register",
        "client_name": body["client_name"],
        "token_endpoint_auth_method": body["token_endpoint_auth_method"],
    }));
    (
        StatusCode::CREATED,
        Json(json!({
            "client_id": id,
            "redirect_uris": uris,
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        })),
    )
        .into_response()
}

async fn authorize(
    State(auth): State<Arc<AuthServer>>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let get = |k: &str| q.get(k).cloned().unwrap_or_default();
    let (client_id, redirect_uri) = (get("client_id"), get("redirect_uri"));
    let method = get("code_challenge_method");
    log_event(json!({
        "event": "authorize",
        "code_challenge_method": method,
        "resource": get("resource"),
        "scope": get("scope"),
    }));
    let known = match auth.lock().clients.get(&client_id) {
        None => false,
        Some(uris) if uris.is_empty() => loopback_redirect(&redirect_uri),
        Some(uris) => uris.contains(&redirect_uri),
    };
    if !known {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_client",
            "unknown client or redirect URI",
        );
    }
    let method_ok = method == "S256" || (auth.allow_plain && method == "plain");
    if get("response_type") != "code" || get("code_challenge").is_empty() || !method_ok {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "response_type=code with a PKCE S256 challenge is required",
        );
    }
    let code = random("code");
    auth.lock().codes.insert(
        code.clone(),
        Grant {
            client_id,
            redirect_uri: redirect_uri.clone(),
            challenge: get("code_challenge"),
            method,
        },
    );
    let mut target = reqwest::Url::parse(&redirect_uri).expect("a checked redirect URI");
    target
        .query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", &get("state"))
        .append_pair("iss", &auth.issuer());
    Redirect::to(target.as_str()).into_response()
}

async fn token(
    State(auth): State<Arc<AuthServer>>,
    Form(f): Form<HashMap<String, String>>,
) -> Response {
    let get = |k: &str| f.get(k).cloned().unwrap_or_default();
    match get("grant_type").as_str() {
        "authorization_code" => {
            let code = get("code");
            let verdict = {
                let st = auth.lock();
                match st.codes.get(&code) {
                    None => Err("unknown or used code"),
                    Some(g) if g.client_id != get("client_id") => Err("another client's code"),
                    Some(g) if g.redirect_uri != get("redirect_uri") => Err("redirect URI differs"),
                    Some(g) => {
                        let verifier = get("code_verifier");
                        let expected = if g.method == "plain" {
                            verifier
                        } else {
                            s256(&verifier)
                        };
                        if expected == g.challenge {
                            Ok(g.client_id.clone())
                        } else {
                            Err("PKCE verifier does not match the challenge")
                        }
                    }
                }
            };
            match verdict {
                Ok(client) => {
                    auth.lock().codes.remove(&code);
                    log_event(json!({"event": "token", "grant": "authorization_code"}));
                    auth.issue(&client)
                }
                Err(why) => oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", why),
            }
        }
        "refresh_token" => {
            let old = get("refresh_token");
            let client = auth.lock().refresh.remove(&old);
            match client {
                Some(c) if c == get("client_id") => {
                    log_event(json!({"event": "token", "grant": "refresh_token"}));
                    auth.issue(&c)
                }
                _ => oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "unknown refresh token",
                ),
            }
        }
        _ => oauth_error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            "authorization_code or refresh_token",
        ),
    }
}

/// In front of `/mcp`: logs the request and, when tokens are required, answers one
/// without a valid token 401 with the RFC 9728 challenge.
pub async fn guard(
    State(auth): State<Arc<AuthServer>>,
    headers: HeaderMap,
    req: Request,
    next: Next,
) -> Response {
    log_event(json!({
        "event": "mcp",
        "method": req.method().as_str(),
        "session": headers.contains_key("mcp-session-id"),
        "lastEventId": headers.get("last-event-id").and_then(|v| v.to_str().ok()),
    }));
    if let Ok(expected) = std::env::var("FIXTURE_BEARER") {
        let sent = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok());
        if sent != Some(format!("Bearer {expected}").as_str()) {
            log_event(json!({"event": "unauthorized", "presented": sent.is_some()}));
            return (
                StatusCode::UNAUTHORIZED,
                "a static bearer token is required",
            )
                .into_response();
        }
    } else if auth.required {
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::to_string);
        let valid = presented.as_ref().is_some_and(|t| {
            auth.lock()
                .access
                .get(t)
                .is_some_and(|(_, until)| Instant::now() < *until)
        });
        if !valid {
            let mut challenge = format!(
                "Bearer resource_metadata=\"{}/resource-metadata\", scope=\"mcp\"",
                auth.base
            );
            if presented.is_some() {
                challenge.push_str(", error=\"invalid_token\"");
            }
            log_event(json!({"event": "unauthorized", "presented": presented.is_some()}));
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, challenge)],
                "unauthorized",
            )
                .into_response();
        }
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_s256_challenge_is_the_base64url_sha256_of_the_verifier() {
        assert_eq!(
            super::s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }
}
