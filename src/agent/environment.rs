//! What the loop needs from its surroundings (route resolution, config persistence,
//! session switching), implemented by the app (`crate::startup::AppEnvironment`) and by tests.

use std::path::PathBuf;

use crate::agent::env_error::EnvError;
use crate::agent::protocol::Notice;
use crate::config::ApiKey;
use crate::llm::types::Route;
use crate::session::Session;

/// Lists the saved sessions for the `/resume` picker, newest first, handing them to its
/// sink in batches as it reads the logs; blocking. It stops reading when the
/// sink breaks (a newer listing superseded this one).
pub type SummaryJob = Box<
    dyn FnOnce(
            &mut dyn FnMut(Vec<crate::agent::protocol::SessionSummary>) -> std::ops::ControlFlow<()>,
        ) + Send,
>;

/// Hooks the loop needs from its surroundings (route resolution, config persistence,
/// session switching). Implemented in `crate::startup`.
pub trait Environment: Send {
    /// Resolves `provider/model` (with any base URL override) to a route and its key.
    fn resolve_route(&self, spec: &str) -> Result<(Route, Option<ApiKey>), EnvError>;
    /// Every `provider/model` the catalog and config know (for `/model`).
    fn known_routes(&self) -> Vec<String> {
        vec![]
    }
    /// The environment variable a route's key is read from, when it is not set (`/model`
    /// says which routes need one); `None` when the key is there or not needed.
    fn missing_key(&self, _route: &str) -> Option<String> {
        None
    }
    /// Persists the interface language.
    fn save_locale(&self, locale: crate::i18n::Locale) -> Result<(), EnvError>;
    /// Rendered base system prompt (instructions from config).
    fn base_prompt(&self) -> String;
    /// The effort the config sets for `route` (its model entry's `effort`, else the
    /// top-level one); `None` = the provider's default (SPEC §14.4).
    fn configured_effort(&self, _route: &Route) -> Option<crate::session::effort::Effort> {
        None
    }
    /// The effort of the next request: the session's `/effort` (`chosen`), else the
    /// config's for `route`, else none (the provider's default; no thinking field is sent).
    fn effort(
        &self,
        chosen: Option<crate::session::effort::Effort>,
        route: &Route,
    ) -> Option<crate::session::effort::Effort> {
        chosen.or_else(|| self.configured_effort(route))
    }
    /// The instruction files as read now: which are in use (with sizes) and which were
    /// refused or cut (`/instructions`).
    fn instructions_in_use(&self) -> crate::config::InstructionsRead {
        crate::config::InstructionsRead::default()
    }
    /// Warnings about the instruction files (refused, cut) found by [`Environment::base_prompt`]
    /// since the last call, once per change.
    fn take_prompt_notices(&self) -> Vec<Notice> {
        vec![]
    }
    /// Opens a fresh session (for `/new`).
    fn new_session(&self) -> Result<(Session, PathBuf), EnvError>;
    /// Opens an existing session by id or `last` (for `/resume ID`); `current_id` is the
    /// session open now (`last` means the newest other one). Also returns a torn tail
    /// that was cut on load, to report.
    fn open_session(
        &self,
        query: &str,
        current_id: &str,
    ) -> Result<(Session, PathBuf, Option<crate::session::store::TornTail>), EnvError>;
    /// Lines describing saved sessions (for `/resume` alone in `exec`): the ones the TUI's
    /// picker would offer, so neither `current_id` nor a session without messages.
    fn list_sessions(&self, current_id: &str) -> Vec<String>;
    /// The work that lists the saved sessions, newest first, for the TUI's `/resume`
    /// picker. It reads the logs, so the loop runs it off its task.
    fn session_summaries(&self) -> SummaryJob {
        Box::new(|_| {})
    }
    /// Forks `parent` into a new session that continues from its current point (`/fork`,
    /// SPEC §14.3).
    fn fork_session(&self, _parent: &Session) -> Result<(Session, PathBuf), EnvError> {
        Err(EnvError::Unsupported)
    }
    /// The protocol a configured provider speaks (for rebuilding past requests).
    fn provider_kind(&self, _provider: &str) -> Option<crate::llm::types::ProviderKind> {
        None
    }
}

/// The rendered system prompt: the configured base plus the session's `/system` text.
pub fn render_prompt(env: &dyn Environment, extra: Option<&str>) -> String {
    let mut p = env.base_prompt();
    if let Some(extra) = extra {
        if !p.is_empty() {
            p.push_str("\n\n");
        }
        p.push_str(extra);
    }
    p
}

/// Tells the UI about instruction files refused or cut since the last call.
pub fn report_prompt_notices(env: &dyn Environment, events: &crate::agent::emitter::Emitter) {
    for n in env.take_prompt_notices() {
        events.emit(crate::agent::protocol::AgentEvent::Notice(n));
    }
}
