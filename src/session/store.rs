//! JSONL session store: append + flush per event, fsync on demand, exclusive lock,
//! torn-tail recovery, listing. (API placeholder; implementation on main.)

use std::path::{Path, PathBuf};

use crate::session::event::Event;

/// Errors of the session store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// I/O failure on the log file.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// Another process holds the session.
    #[error("{path}: session is open in another process")]
    Locked {
        /// File.
        path: PathBuf,
    },
    /// A line that is not a valid event (not the torn final line).
    #[error("{path}:{line}: {message}")]
    Corrupt {
        /// File.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// An open, locked session log.
#[derive(Debug)]
pub struct Store {
    path: PathBuf,
}

impl Store {
    /// Path of the log file.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// Appends one event as one line and flushes it.
    pub fn append(&mut self, _event: &Event) -> Result<(), StoreError> {
        Ok(())
    }
    /// fsyncs the file.
    pub fn sync(&mut self) -> Result<(), StoreError> {
        Ok(())
    }
}
