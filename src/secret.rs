//! The API key type. It depends on nothing else in the crate, so `config` (which reads
//! keys from the environment) and `llm` (which sends them) can both use it without a
//! module cycle.

use std::fmt;

/// The text shown wherever a key would otherwise be printed.
pub const REDACTED: &str = "<redacted>";

/// An API key read from the environment. Neither `Debug` nor `Display` shows the value;
/// only [`ApiKey::expose`] does, for the request header.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    /// The key itself, for the `x-api-key` / `Authorization` header only.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key replaced by `<redacted>`.
    pub fn scrub(&self, text: &str) -> String {
        if self.0.is_empty() {
            text.to_string()
        } else {
            text.replace(&self.0, REDACTED)
        }
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey({REDACTED})")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_display_never_show_the_key() {
        let k = ApiKey::new("sk-secret-123");
        for shown in [
            format!("{k:?}"),
            format!("{k:#?}"),
            format!("{k}"),
            format!("{k:>40}"),
            k.to_string(),
            format!("{:?}", Some(k.clone())),
            format!("{:?}", vec![k.clone()]),
        ] {
            assert!(!shown.contains("sk-secret"), "{shown}");
            assert!(shown.contains(REDACTED), "{shown}");
        }
        assert_eq!(k.expose(), "sk-secret-123");
    }

    #[test]
    fn scrub_removes_every_occurrence_and_an_empty_key_changes_nothing() {
        let k = ApiKey::new("sk-secret-123");
        assert_eq!(
            k.scrub("bad key sk-secret-123! (sk-secret-123)"),
            "bad key <redacted>! (<redacted>)"
        );
        assert_eq!(ApiKey::new("").scrub("text"), "text");
    }
}
