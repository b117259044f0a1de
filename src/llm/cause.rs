//! The short cause of a failed request, in plain words, and a hint where one fits
//! (§14.5: a retry is one transient status line, `reconnecting 2/4 · connection refused`,
//! not the transport's whole error chain).

use serde::{Deserialize, Serialize};

use super::types::{ErrorCode, LlmError};

/// Why a request failed, as the status line and the final error say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// Nothing accepted the connection.
    ConnectionRefused,
    /// The connection or the reply timed out.
    TimedOut,
    /// The host name did not resolve.
    Dns,
    /// The connection was reset or closed mid-way.
    Reset,
    /// TLS failed (certificate, handshake).
    Tls,
    /// The provider answered 429.
    RateLimited,
    /// The provider answered 5xx.
    ServerError,
    /// Anything else.
    Other,
}

impl Cause {
    /// Classifies `e` (its code, status and the transport's message).
    pub fn of(e: &LlmError) -> Cause {
        match e.code {
            ErrorCode::RateLimit => return Cause::RateLimited,
            ErrorCode::Server => return Cause::ServerError,
            _ => {}
        }
        let m = e.message.to_ascii_lowercase();
        if m.contains("connection refused") {
            Cause::ConnectionRefused
        } else if m.contains("dns error") || m.contains("failed to lookup") {
            Cause::Dns
        } else if m.contains("timed out") || m.contains("timeout") {
            Cause::TimedOut
        } else if m.contains("certificate") || m.contains("tls") || m.contains("ssl") {
            Cause::Tls
        } else if m.contains("connection reset")
            || m.contains("connection closed")
            || m.contains("broken pipe")
            || m.contains("unexpected eof")
        {
            Cause::Reset
        } else {
            Cause::Other
        }
    }

    /// Fluent id of the short label.
    pub fn key(self) -> &'static str {
        match self {
            Cause::ConnectionRefused => "llm-cause-refused",
            Cause::TimedOut => "llm-cause-timed-out",
            Cause::Dns => "llm-cause-dns",
            Cause::Reset => "llm-cause-reset",
            Cause::Tls => "llm-cause-tls",
            Cause::RateLimited => "llm-cause-rate-limited",
            Cause::ServerError => "llm-cause-server",
            Cause::Other => "llm-cause-other",
        }
    }

    /// Fluent id of the hint for a request to `base_url`, where one fits.
    pub fn hint_key(self) -> Option<&'static str> {
        match self {
            Cause::ConnectionRefused => Some("llm-hint-refused"),
            Cause::Dns => Some("llm-hint-dns"),
            Cause::Tls => Some("llm-hint-tls"),
            _ => None,
        }
    }
}

/// `scheme://host:port` of a base URL, for the hint (no path, no credentials).
pub fn origin(base_url: &str) -> String {
    let (scheme, rest) = base_url.split_once("://").unwrap_or(("", base_url));
    let authority = rest.split('/').next().unwrap_or(rest);
    let host = authority.rsplit('@').next().unwrap_or(authority);
    if scheme.is_empty() {
        host.to_string()
    } else {
        format!("{scheme}://{host}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transport(m: &str) -> LlmError {
        LlmError::new(ErrorCode::Transport, m)
    }

    #[test]
    fn transport_chains_become_a_short_cause() {
        let refused = "error sending request for url (http://127.0.0.1:9/anthropic/v1/messages): \
                       client error (Connect): tcp connect error: Connection refused (os error 111)";
        assert_eq!(Cause::of(&transport(refused)), Cause::ConnectionRefused);
        assert_eq!(
            Cause::of(&transport(
                "dns error: failed to lookup address information"
            )),
            Cause::Dns
        );
        assert_eq!(
            Cause::of(&transport("operation timed out")),
            Cause::TimedOut
        );
        assert_eq!(
            Cause::of(&transport("connection reset by peer")),
            Cause::Reset
        );
        assert_eq!(Cause::of(&transport("something new")), Cause::Other);
        assert_eq!(
            Cause::of(&LlmError::new(ErrorCode::RateLimit, "slow down")),
            Cause::RateLimited
        );
    }

    #[test]
    fn the_hint_names_the_origin_and_never_credentials_or_paths() {
        assert_eq!(origin("http://127.0.0.1:9/anthropic"), "http://127.0.0.1:9");
        assert_eq!(
            origin("https://user:secret@api.example.com/v1"),
            "https://api.example.com"
        );
        assert_eq!(origin("localhost:8080/x"), "localhost:8080");
    }
}
