//! The reasoning effort of a request (SPEC §14.4): plain data, recorded in
//! `request/context` so a past request can be rebuilt with the effort it was sent with.

use serde::{Deserialize, Serialize};

/// How hard the model thinks: `off` disables thinking; the others enable it with the
/// route's effort field (the DeepSeek wire reference §1.3: `low`, `high`, `max`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    /// Thinking disabled.
    Off,
    /// Thinking enabled, effort `low`.
    Low,
    /// Thinking enabled, effort `high` (DeepSeek's default).
    High,
    /// Thinking enabled, effort `max`.
    Max,
}

impl Effort {
    /// Every level, in the order `/effort` lists them.
    pub const ALL: [Effort; 4] = [Effort::Off, Effort::Low, Effort::High, Effort::Max];

    /// The name the user types and the log records.
    pub fn as_str(self) -> &'static str {
        match self {
            Effort::Off => "off",
            Effort::Low => "low",
            Effort::High => "high",
            Effort::Max => "max",
        }
    }

    /// Parses a level name (exact, lower case, as the config and `/effort` take it).
    pub fn parse(s: &str) -> Option<Effort> {
        Effort::ALL.into_iter().find(|e| e.as_str() == s)
    }

    /// The effort value the wire carries, `None` for `off` (thinking disabled, no effort
    /// field: what DeepSeek's own adapter sends for its `off`).
    pub fn wire_effort(self) -> Option<&'static str> {
        match self {
            Effort::Off => None,
            other => Some(other.as_str()),
        }
    }

    /// `"off|low|high|max"`, for usage messages and config errors.
    pub fn choices() -> String {
        Effort::ALL.map(Effort::as_str).join("|")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_parses_from_its_own_name_and_nothing_else_does() {
        for e in Effort::ALL {
            assert_eq!(Effort::parse(e.as_str()), Some(e));
            assert_eq!(
                serde_json::to_value(e).unwrap(),
                serde_json::json!(e.as_str())
            );
        }
        for bad in ["", "medium", "HIGH", "minimal", " low"] {
            assert_eq!(Effort::parse(bad), None, "{bad:?}");
        }
        assert_eq!(Effort::Off.wire_effort(), None);
        assert_eq!(Effort::Max.wire_effort(), Some("max"));
    }
}
