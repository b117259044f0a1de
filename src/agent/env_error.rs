//! Typed failures of the loop's [`Environment`](crate::agent::environment::Environment) hooks and of
//! a route switch. Each variant says what failed; [`EnvError::localized`] gives the one line
//! users see (the same text the hooks returned as strings before), `Display` the English one.

use std::path::PathBuf;

use crate::config::ConfigError;
use crate::i18n::{Arg, Locale, Localizer};
use crate::llm::types::LlmError;
use crate::session::SessionError;
use crate::session::store::StoreError;

/// Why an `Environment` hook failed.
#[derive(Debug, thiserror::Error)]
pub enum EnvError {
    /// The configuration refused: unknown route, missing API key, or the config file could
    /// not be written (`/lang`).
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    Config(#[from] ConfigError),
    /// No config file location is known, so a setting cannot be saved.
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    NoConfigDir,
    /// The session store failed: listing, resolving, opening, locking or creating a log.
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    Store(#[from] StoreError),
    /// A freshly created session log refused its first event.
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    SessionInvalid {
        /// The log file.
        path: PathBuf,
        /// What the session refused.
        error: SessionError,
    },
    /// `/resume last` found no saved session other than the open one.
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    NoOtherSession,
    /// `/resume ID` named the session that is open now.
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    SessionAlreadyOpen,
    /// This environment does not offer the hook (an embedding without sessions or config).
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    Unsupported,
}

impl EnvError {
    /// The localized one-line message.
    pub fn localized(&self, l: Localizer) -> String {
        match self {
            EnvError::Config(e) => e.localized(l),
            EnvError::NoConfigDir => l.tr("app-no-config-dir"),
            EnvError::Store(e) => e.localized(l),
            EnvError::SessionInvalid { path, error } => l.tra(
                "app-session-invalid",
                &[
                    ("path", Arg::from(path.display().to_string())),
                    ("error", Arg::from(error.to_string())),
                ],
            ),
            EnvError::NoOtherSession => l.tr("app-no-other-session"),
            EnvError::SessionAlreadyOpen => l.tr("app-session-already-open"),
            EnvError::Unsupported => l.tr("app-env-unsupported"),
        }
    }
}

/// Why `/model` could not switch the route.
#[derive(Debug, thiserror::Error)]
pub enum RouteSwitchError {
    /// The route or its key could not be resolved.
    #[error(transparent)]
    Resolve(#[from] EnvError),
    /// The HTTP client for the new route could not be built (untranslated, as on the wire).
    #[error("{}", .0.message)]
    Client(LlmError),
}

impl RouteSwitchError {
    /// The localized one-line message (a client error's text stays as it is).
    pub fn localized(&self, l: Localizer) -> String {
        match self {
            RouteSwitchError::Resolve(e) => e.localized(l),
            RouteSwitchError::Client(e) => e.message.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_errors_keep_the_texts_users_saw_in_both_locales() {
        for loc in Locale::ALL {
            let l = Localizer::new(loc);
            assert_eq!(
                EnvError::NoConfigDir.localized(l),
                l.tr("app-no-config-dir")
            );
            assert_eq!(
                EnvError::NoOtherSession.localized(l),
                l.tr("app-no-other-session")
            );
            assert_eq!(
                EnvError::SessionAlreadyOpen.localized(l),
                l.tr("app-session-already-open")
            );
            assert!(l.has("app-env-unsupported"));
            let missing = ConfigError::MissingKey {
                provider: "ds".into(),
                var: "DS_KEY".into(),
            };
            assert_eq!(
                EnvError::from(missing.clone()).localized(l),
                missing.localized(l)
            );
        }
        let en = Localizer::new(Locale::EnUs);
        assert_eq!(
            EnvError::NoOtherSession.to_string(),
            en.tr("app-no-other-session")
        );
        let zh = Localizer::new(Locale::ZhCn);
        assert_ne!(
            EnvError::NoOtherSession.localized(zh),
            EnvError::NoOtherSession.localized(en),
            "the zh-CN text is not the English one"
        );
    }

    #[test]
    fn a_client_error_of_a_route_switch_stays_untranslated() {
        let e = RouteSwitchError::Client(LlmError::new(
            crate::llm::types::ErrorCode::Transport,
            "cannot build HTTP client: x",
        ));
        let zh = Localizer::new(Locale::ZhCn);
        assert_eq!(e.localized(zh), "cannot build HTTP client: x");
        assert_eq!(e.to_string(), "cannot build HTTP client: x");
    }
}
