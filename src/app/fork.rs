//! Forking a session (`/fork`, `--fork`; SPEC §14.3) and the session a start opens.

use std::path::{Path, PathBuf};

use super::{StartupError, open_session};
use crate::agent::env_error::EnvError;
use crate::cli::CliArgs;
use crate::i18n::Localizer;
use crate::session::Session;
use crate::session::store::TornTail;

/// [`crate::session::fork::fork`] with the environment's error.
pub(super) fn fork_env(dir: &Path, parent: &Session) -> Result<(Session, PathBuf), EnvError> {
    crate::session::fork::fork(dir, parent).map_err(|e| match e {
        crate::session::fork::ForkError::Store(e) => EnvError::Store(e),
        crate::session::fork::ForkError::Session { path, error } => {
            EnvError::SessionInvalid { path, error }
        }
    })
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
