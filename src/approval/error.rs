//! What can go wrong with a rules file, and what is worth telling the user about one that
//! loaded. Localized at display time, like [`crate::config::ConfigError`].

use std::path::PathBuf;

use crate::fs_guard::SpecialKind;
use crate::i18n::{Arg, Locale, Localizer};

/// A rules file that cannot be used. It names the file and, for a bad value, the dotted
/// key (`rule[2].decision`) and what was expected; nothing in it comes from a secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    /// The file could not be read or written.
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    Io {
        /// The file.
        file: PathBuf,
        /// The OS error text.
        detail: String,
    },
    /// Not a regular file (a FIFO would block the start, a device never ends).
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    NotRegular {
        /// The file.
        file: PathBuf,
        /// What it is instead.
        kind: SpecialKind,
    },
    /// Larger than [`super::rules::MAX_RULES_BYTES`].
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    TooLarge {
        /// The file.
        file: PathBuf,
        /// The cap in bytes.
        limit: u64,
    },
    /// Not UTF-8 or not TOML.
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    Syntax {
        /// The file.
        file: PathBuf,
        /// The parser's message.
        detail: String,
    },
    /// A value of the wrong type or out of range.
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    Invalid {
        /// The file.
        file: PathBuf,
        /// Dotted key, e.g. `rule[0].prefix`.
        key: String,
        /// What was expected.
        expected: Expected,
    },
    /// The rule to revoke is no longer at that place in the file (it was edited since it
    /// was listed): nothing was changed.
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    Changed {
        /// The file.
        file: PathBuf,
        /// The index the rule was listed at.
        index: usize,
    },
}

/// What a rules value must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// `rule` must be an array of tables (`[[rule]]`).
    RuleArray,
    /// `prefix` must be a non-empty array of non-empty strings.
    Prefix,
    /// `decision` must be `allow`, `prompt` or `forbidden`.
    Decision,
    /// The key is required.
    Required,
}

impl Expected {
    fn key(self) -> &'static str {
        match self {
            Expected::RuleArray => "rules-expected-rule-array",
            Expected::Prefix => "rules-expected-prefix",
            Expected::Decision => "rules-expected-decision",
            Expected::Required => "rules-expected-required",
        }
    }
}

/// The config's Fluent id for what a non-regular file is (shared with config errors).
fn kind_key(kind: SpecialKind) -> &'static str {
    match kind {
        SpecialKind::Directory => "config-file-kind-directory",
        SpecialKind::Fifo => "config-file-kind-fifo",
        SpecialKind::Socket => "config-file-kind-socket",
        SpecialKind::BlockDevice => "config-file-kind-block-device",
        SpecialKind::CharDevice => "config-file-kind-char-device",
        SpecialKind::Other => "config-file-kind-special",
    }
}

fn show(p: &std::path::Path) -> String {
    p.display().to_string()
}

impl RulesError {
    /// The localized message.
    pub fn localized(&self, l: Localizer) -> String {
        match self {
            RulesError::Io { file, detail } => l.tra(
                "rules-error-io",
                &[("file", show(file).into()), ("detail", detail.into())],
            ),
            RulesError::NotRegular { file, kind } => l.tra(
                "rules-error-not-regular",
                &[
                    ("file", show(file).into()),
                    ("kind", l.tr(kind_key(*kind)).into()),
                ],
            ),
            RulesError::TooLarge { file, limit } => l.tra(
                "rules-error-too-large",
                &[
                    ("file", show(file).into()),
                    ("kib", Arg::from(*limit / 1024)),
                ],
            ),
            RulesError::Syntax { file, detail } => l.tra(
                "rules-error-syntax",
                &[("file", show(file).into()), ("detail", detail.into())],
            ),
            RulesError::Invalid {
                file,
                key,
                expected,
            } => l.tra(
                "rules-error-invalid",
                &[
                    ("file", show(file).into()),
                    ("key", key.into()),
                    ("expected", l.tr(expected.key()).into()),
                ],
            ),
            RulesError::Changed { file, index } => l.tra(
                "rules-error-changed",
                &[
                    ("file", show(file).into()),
                    ("index", Arg::from(*index + 1)),
                ],
            ),
        }
    }
}

/// Something about a rules file that loaded, worth showing once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RulesWarning {
    /// An `allow` rule in a project's `.deepterm/rules.toml`: a project may only tighten
    /// (§14.2), so it is ignored.
    ProjectAllowIgnored {
        /// The project's rules file.
        file: PathBuf,
        /// The rule's index in it.
        index: usize,
        /// Its prefix.
        prefix: Vec<String>,
    },
    /// A key a rule does not have (`rule[1].prefx`): ignored.
    UnknownKey {
        /// The file.
        file: PathBuf,
        /// Dotted key.
        key: String,
    },
}

impl RulesWarning {
    /// The localized message.
    pub fn localized(&self, l: Localizer) -> String {
        match self {
            RulesWarning::ProjectAllowIgnored {
                file,
                index,
                prefix,
            } => l.tra(
                "rules-warning-project-allow",
                &[
                    ("file", show(file).into()),
                    ("index", Arg::from(*index + 1)),
                    ("prefix", prefix.join(" ").into()),
                ],
            ),
            RulesWarning::UnknownKey { file, key } => l.tra(
                "rules-warning-unknown-key",
                &[("file", show(file).into()), ("key", key.into())],
            ),
        }
    }
}
