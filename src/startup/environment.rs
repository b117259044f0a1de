//! `AppEnvironment`: the loop's view of its surroundings (routes and keys, sessions, the
//! base prompt with the instruction files, the `/resume` listing), as `agent::Environment`.

use std::path::PathBuf;

use crate::agent::env_error::EnvError;
use crate::agent::environment::Environment;
use crate::agent::protocol::{Notice, NoticeLevel, SessionSummary};
use crate::config::ApiKey;
use crate::config::{Config, ConfigLocation};
use crate::i18n::Locale;
use crate::llm::types::{ProviderKind, Route};
use crate::session::Session;
use crate::session::listing::{self, LogSummary, SessionInfo, SummaryCache};
use crate::session::store::TornTail;

use super::demo_sim::demo_route;
use super::sessions::{fork_env, open_session_typed, summary_of};

/// The most sessions the `/resume` picker lists (newest first).
const SUMMARIES_MAX: usize = 2000;
/// How often the `/resume` picker's list goes to the UI at most while the logs are read.
const SUMMARY_BATCH_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

/// The loop's view of its surroundings.
pub struct AppEnvironment {
    /// Configuration.
    pub config: Config,
    /// Config file location (for `/lang`).
    pub config_location: Option<ConfigLocation>,
    /// Session directory.
    pub session_dir: PathBuf,
    /// `--base-url` and the provider it applies to (the one chosen at start).
    pub base_url_override: Option<(String, String)>,
    /// Simulator base URL in demo mode.
    pub demo_base: Option<String>,
    /// The demo replies' language, switched with the interface's.
    pub demo_locale: crate::sim::DemoLocale,
    /// The `/resume` picker's summaries already read (shared with the jobs that read them).
    pub summaries: std::sync::Arc<SummaryCache>,
    /// The sandbox mode and network setting the session started with: the system prompt
    /// says what the agent can do in them; later switches are appended notes.
    pub sandbox_start: (crate::sandbox::SandboxMode, bool),
    /// Instruction-file problems of the latest read, and whether they changed since the
    /// loop last took them (each distinct set is warned about once, not per request).
    pub instruction_problems: std::sync::Mutex<(Vec<crate::config::InstructionProblem>, bool)>,
    /// The workspace (the start directory): where `AGENTS.md` discovery starts (§14.4).
    pub workspace: PathBuf,
    /// Whether its `AGENTS.md` files are read (SPEC §15.4).
    pub trusted: bool,
}

/// The built-in part of the system prompt.
pub const BASE_PROMPT: &str = "You are deepterm, a coding assistant running in a terminal. \
Use the available tools when they help; never invent tool results. Answer concisely, in the \
language the user writes in.";

impl Environment for AppEnvironment {
    fn resolve_route(&self, spec: &str) -> Result<(Route, Option<ApiKey>), EnvError> {
        let mut route = self.config.resolve_route(Some(spec))?;
        if let Some(base) = &self.demo_base {
            return Ok((demo_route(route, base), Some(ApiKey::new("demo"))));
        }
        // `--base-url` overrides the chosen provider's URL only: another provider's key
        // must never be sent there.
        if let Some((provider, url)) = &self.base_url_override
            && *provider == route.provider
        {
            route = route.with_base_url(url);
        }
        let key = self.config.api_key(&route)?;
        Ok((route, Some(key)))
    }

    fn known_routes(&self) -> Vec<String> {
        self.config.known_routes()
    }

    fn missing_key(&self, spec: &str) -> Option<String> {
        let route = self.config.resolve_route(Some(spec)).ok()?;
        self.config
            .api_key(&route)
            .is_err()
            .then(|| route.api_key_env.clone())
    }

    fn provider_kind(&self, provider: &str) -> Option<ProviderKind> {
        self.config.providers.get(provider).map(|p| p.kind)
    }

    fn save_locale(&self, locale: Locale) -> Result<(), EnvError> {
        // The demo replies follow the switch even when it cannot be saved.
        self.demo_locale.set(locale);
        let path = match &self.config_location {
            Some(loc) => loc.path.clone(),
            None => return Err(EnvError::NoConfigDir),
        };
        Ok(crate::config::save_locale(&path, locale)?)
    }

    fn base_prompt(&self) -> String {
        let mut p = BASE_PROMPT.to_string();
        p.push(' ');
        p.push_str(&crate::agent::mode::capabilities(
            self.sandbox_start.0,
            self.sandbox_start.1,
        ));
        // `[instructions]` plus the discovered `AGENTS.md` files (SPEC §14.4).
        let read = self
            .config
            .read_instructions_for(&self.workspace, self.trusted);
        if let Some(extra) = read.text
            && !extra.trim().is_empty()
        {
            p.push_str("\n\n");
            p.push_str(extra.trim());
        }
        let mut last = self
            .instruction_problems
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if last.0 != read.problems {
            *last = (read.problems, true);
        }
        p
    }

    fn configured_effort(&self, route: &Route) -> Option<crate::session::effort::Effort> {
        self.config.effort_for(&route.provider, &route.model)
    }

    fn instructions_in_use(&self) -> crate::config::InstructionsRead {
        self.config
            .read_instructions_for(&self.workspace, self.trusted)
    }

    fn take_prompt_notices(&self) -> Vec<Notice> {
        let mut last = self
            .instruction_problems
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if !std::mem::take(&mut last.1) {
            return vec![];
        }
        last.0
            .iter()
            .map(|p| {
                let (id, args) = p.message();
                Notice::new(NoticeLevel::Warn, id, args)
            })
            .collect()
    }

    fn new_session(&self) -> Result<(Session, PathBuf), EnvError> {
        open_session_typed(&self.session_dir, None).map(|(s, p, _)| (s, p))
    }

    fn open_session(
        &self,
        query: &str,
        current_id: &str,
    ) -> Result<(Session, PathBuf, Option<TornTail>), EnvError> {
        let query = if query == "last" {
            // The newest session other than the one open now.
            let sessions = listing::list_sessions(&self.session_dir)?;
            match sessions.into_iter().find(|s| s.id != current_id) {
                Some(s) => s.id,
                None => return Err(EnvError::NoOtherSession),
            }
        } else {
            query.to_string()
        };
        if query == current_id {
            return Err(EnvError::SessionAlreadyOpen);
        }
        open_session_typed(&self.session_dir, Some(&query))
    }

    fn fork_session(&self, parent: &Session) -> Result<(Session, PathBuf), EnvError> {
        fork_env(&self.session_dir, parent)
    }

    fn session_summaries(&self) -> crate::agent::environment::SummaryJob {
        let dir = self.session_dir.clone();
        let cache = std::sync::Arc::clone(&self.summaries);
        let workspace = self.workspace.clone();
        Box::new(move |sink| {
            let mut sessions = listing::list_sessions(&dir).unwrap_or_default();
            sessions.truncate(SUMMARIES_MAX);
            // Each log is read within its first bytes (`summarize_log`); the picker gets a
            // batch at least every SUMMARY_BATCH_EVERY, so it fills in.
            let mut out: Vec<SessionSummary> = Vec::new();
            let mut sent = std::time::Instant::now();
            let n = sessions.len();
            for (i, s) in sessions.iter().enumerate() {
                out.push(summary_of((s.clone(), cache.summary(s))));
                if i + 1 == n || sent.elapsed() >= SUMMARY_BATCH_EVERY {
                    // SPEC §14.4: this workspace's sessions first.
                    crate::session::workspace::this_workspace_first(&mut out, &workspace, |s| {
                        s.workspace.as_deref()
                    });
                    if sink(std::mem::take(&mut out)).is_break() {
                        // A newer listing superseded this one: nobody shows the rest.
                        break;
                    }
                    sent = std::time::Instant::now();
                }
            }
            cache.retain(&sessions);
        })
    }

    fn list_sessions(&self, current_id: &str) -> Vec<String> {
        let mut sessions = listing::list_sessions(&self.session_dir).unwrap_or_default();
        sessions.retain(|s| s.id != current_id);
        sessions.truncate(SUMMARIES_MAX);
        // The picker's rule (resume_picker.rs): nothing to resume in a session without
        // messages. Twenty rows of those that have some.
        let mut rows: Vec<(LogSummary, SessionInfo)> = self
            .summaries
            .summaries(&sessions)
            .into_iter()
            .zip(sessions)
            .filter(|(sum, _)| sum.messages > 0)
            .collect();
        // SPEC §14.4: this workspace's sessions first, each row naming its workspace.
        crate::session::workspace::this_workspace_first(&mut rows, &self.workspace, |r| {
            r.0.workspace.as_deref()
        });
        rows.into_iter()
            .take(20)
            .map(|(sum, s)| {
                let title: String = sum
                    .first_prompt
                    .unwrap_or_default()
                    .chars()
                    .take(60)
                    .collect();
                let ws = sum.workspace.as_deref().unwrap_or("-");
                // A fork names its parent (SPEC §14.3).
                match sum.forked_from {
                    Some(parent) => format!("  {}  {title}  ({ws})  ← {parent}", s.id),
                    None => format!("  {}  {title}  ({ws})", s.id),
                }
            })
            .collect()
    }
}

#[cfg(test)]
#[path = "summary_tests.rs"]
mod summary_tests;
