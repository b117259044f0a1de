//! Forks (SPEC §14.3 `/fork`, `--fork`): a new log holding the parent's events as they
//! are (same seqs, so every reference in them still holds) under a `session/start` of its
//! own that names the parent. The fork folds to the parent's history and its first
//! request repeats the parent's prefix, so the provider's cache serves it.

use std::path::{Path, PathBuf};

use super::checkpoint_event::ForkOrigin;
use super::event::{Event, EventKind};
use super::store::{Store, StoreError, new_session_id};
use super::{Session, SessionError};

/// Why a fork could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ForkError {
    /// The new log could not be created or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The copied events did not load (never for a parent that loaded).
    #[error("{path}: {error}")]
    Session {
        /// The new log.
        path: PathBuf,
        /// What was refused.
        error: SessionError,
    },
}

/// Writes a fork of `parent` into `dir` and opens it (locked, as a resumed session).
pub fn fork(dir: &Path, parent: &Session) -> Result<(Session, PathBuf), ForkError> {
    let (id, mut store) = Store::create_unique(dir, new_session_id)?;
    let path = store.path().to_path_buf();
    let mut events: Vec<Event> = parent.events().iter().map(|e| (**e).clone()).collect();
    let last = events.last().map_or(0, |e| e.seq);
    if let Some(EventKind::SessionStart(start)) = events.first_mut().map(|e| &mut e.kind) {
        start.forked_from = Some(ForkOrigin {
            id: start.id.clone(),
            seq: last,
        });
        start.id = id.clone();
    }
    for ev in &events {
        store.append(ev)?;
    }
    store.sync()?;
    let mut session = Session::from_events(events).map_err(|error| ForkError::Session {
        path: path.clone(),
        error,
    })?;
    // `Store` is an `EventSink` (crate::startup), as for every opened log.
    session.set_sink(Box::new(store));
    Ok((session, path))
}
