//! What the environment makes of the session store: a fork (`/fork`, `--fork`; SPEC
//! §14.3) and the `/resume` picker's summary of a listed session.

use std::path::{Path, PathBuf};

use crate::agent::env_error::EnvError;
use crate::agent::protocol::SessionSummary;
use crate::session::Session;
use crate::session::listing::{LogSummary, SessionInfo};

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
