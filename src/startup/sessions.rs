//! The session a start opens (`--resume`, `--fork` or a new log; the loop's `/new` and
//! `/resume` open theirs the same way), a fork (`/fork`, `--fork`; SPEC §14.3), the
//! `/resume` picker's summary of a listed session, and the empty log removed on exit.

use std::path::{Path, PathBuf};

use crate::agent::env_error::EnvError;
use crate::agent::protocol::SessionSummary;
use crate::cli::CliArgs;
use crate::i18n::Localizer;
use crate::session::Session;
use crate::session::listing::{self, LogSummary, SessionInfo};
use crate::session::store::{self, Store, TornTail};

use super::setup::StartupError;

/// [`crate::session::fork::fork`] with the environment's error.
pub(super) fn fork_env(dir: &Path, parent: &Session) -> Result<(Session, PathBuf), EnvError> {
    crate::session::fork::fork(dir, parent).map_err(|e| match e {
        crate::session::fork::ForkError::Store(e) => EnvError::Store(e),
        crate::session::fork::ForkError::Session { path, error } => {
            EnvError::SessionInvalid { path, error }
        }
    })
}

/// What the `/resume` picker shows of a listed session: its first prompt and message
/// count from one pass over the log ([`crate::session::listing::summarize_log`]), its
/// size and time.
pub(super) fn summary_of((s, sum): (SessionInfo, LogSummary)) -> SessionSummary {
    let modified = s
        .modified
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    SessionSummary {
        id: s.id,
        modified,
        first_prompt: sum.first_prompt,
        messages: sum.messages,
        bytes: s.bytes,
        workspace: sum.workspace,
        forked_from: sum.forked_from,
        messages_partial: sum.messages_partial,
    }
}

/// Removes a session log that never got a message; true when it did. Called on exit, for
/// the log this process created (not a `--resume`d one), after the agent released its lock:
/// a file that is not a regular file, cannot be read, is open in another process (its lock
/// is taken: `--resume` elsewhere) or holds any message, stays.
pub fn remove_if_empty(path: &Path) -> bool {
    let regular = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file());
    if !regular {
        return false;
    }
    // Held until the file is gone: nobody opens it in between.
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    if file.try_lock().is_err() || listing::summarize_log(path).messages > 0 {
        return false;
    }
    match std::fs::remove_file(path) {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!("could not remove the empty session log: {e}");
            false
        }
    }
}

/// Opens the session: `--resume` or a new one. Returns it, its path, and a torn tail to report.
pub fn open_session(
    dir: &Path,
    resume: Option<&str>,
    l: Localizer,
) -> Result<(Session, PathBuf, Option<TornTail>), StartupError> {
    open_session_typed(dir, resume).map_err(|e| StartupError(e.localized(l)))
}

/// [`open_session`] with a typed error (the loop's `/new` and `/resume` use it).
pub(super) fn open_session_typed(
    dir: &Path,
    resume: Option<&str>,
) -> Result<(Session, PathBuf, Option<TornTail>), EnvError> {
    match resume {
        Some(q) => {
            let path = listing::resolve_resume(dir, q)?;
            let loaded = Store::open(&path)?;
            let mut session = loaded.session;
            session.set_sink(Box::new(loaded.store));
            Ok((session, path, loaded.torn))
        }
        None => {
            let (id, st) = Store::create_unique(dir, store::new_session_id)?;
            let path = st.path().to_path_buf();
            let cwd = std::env::current_dir()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            let session = Session::create(id, cwd, Box::new(st)).map_err(|error| {
                EnvError::SessionInvalid {
                    path: path.clone(),
                    error,
                }
            })?;
            Ok((session, path, None))
        }
    }
}

/// The session a start opens: `--fork` (a new fork), `--resume` or a new one.
pub fn open_start_session(
    dir: &Path,
    args: &CliArgs,
    l: Localizer,
) -> Result<(Session, PathBuf, Option<TornTail>), StartupError> {
    match &args.fork {
        Some(q) => fork_at_start(dir, q, l),
        None => open_session(dir, args.resume.as_deref(), l),
    }
}

/// `--fork ID|last`: opens the parent like `--resume` (so it must not be in use), forks it
/// and returns the fork, open.
pub fn fork_at_start(
    dir: &Path,
    query: &str,
    l: Localizer,
) -> Result<(Session, PathBuf, Option<TornTail>), StartupError> {
    let (parent, _, torn) = open_session(dir, Some(query), l)?;
    let (fork, path) = fork_env(dir, &parent).map_err(|e| StartupError(e.localized(l)))?;
    Ok((fork, path, torn))
}

#[cfg(test)]
#[path = "session_open_tests.rs"]
mod session_open_tests;
