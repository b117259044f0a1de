//! Checkpoints of the workspace (SPEC §14.3, decision 0080): a content-addressed store of
//! deepterm's own under its data directory, never the user's `.git`.
//!
//! A snapshot walks the workspace with the `ignore` walker (`.gitignore` respected, in a
//! git repository or not), keeps every regular file up to a size cap as an object named by
//! its SHA-256, and records the files per directory as tree objects, so a turn that changes
//! ten files of twenty thousand stores ten objects, the trees on their paths and one small
//! snapshot record. A file whose size and modification time are those of the previous
//! snapshot, and that was not modified within the racy window before it, keeps its hash
//! without being read again.
//!
//! - [`store`]: objects, trees and snapshot records on disk;
//! - [`walk`]: one snapshot of the workspace, incremental over the previous one;
//! - [`diff`]: the files two snapshots (or a snapshot and the workspace) disagree on, and
//!   their unified diffs;
//! - [`restore`]: putting files back as a snapshot has them, with conflicts.

pub mod checkpointer;
pub mod diff;
pub mod restore;
pub mod store;
pub mod walk;

pub use checkpointer::Checkpointer;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The default cap on a file kept in a checkpoint (SPEC §14.3): 16 MiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = crate::config::DEFAULT_CHECKPOINT_MAX_FILE_BYTES;

/// One regular file of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// SHA-256 of the content, lower-case hex (the object's name).
    pub hash: String,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch (for the incremental scan).
    pub mtime_ns: i128,
    /// Permission bits.
    pub mode: u32,
}

/// A file a snapshot lists but cannot restore (over the size cap).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// Path relative to the workspace, `/`-separated.
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
}

/// The state of the workspace at one moment: every kept file by relative path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    /// Kept files, by path relative to the workspace (`/`-separated).
    pub files: BTreeMap<String, FileEntry>,
    /// Files over the size cap: listed, not restorable.
    pub skipped: Vec<Skipped>,
    /// When the walk started, nanoseconds since the Unix epoch (the racy-window reference).
    pub started_ns: i128,
}

impl Manifest {
    /// Whether `path` was over the cap in this snapshot.
    pub fn is_skipped(&self, path: &str) -> bool {
        self.skipped.iter().any(|s| s.path == path)
    }
}

/// Why a checkpoint operation failed (the text names the path and the system's error).
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading or writing the store failed.
    #[error("checkpoint store {path}: {error}")]
    Store {
        /// The store file or directory.
        path: String,
        /// The system's error.
        error: String,
    },
    /// A stored record is not what deepterm writes (damaged or foreign).
    #[error("checkpoint store {path}: unreadable record ({error})")]
    Corrupt {
        /// The record.
        path: String,
        /// What is wrong.
        error: String,
    },
    /// Walking the workspace failed.
    #[error("workspace {path}: {error}")]
    Walk {
        /// Where.
        path: String,
        /// The system's error.
        error: String,
    },
}

impl CheckpointError {
    /// The error as a message in the interface language, the system's own text only as a
    /// quoted detail.
    pub fn text(&self) -> crate::i18n::Text {
        use crate::i18n::{Arg, Text};
        let (key, path, error) = match self {
            CheckpointError::Store { path, error } => ("checkpoint-why-store", path, error),
            CheckpointError::Corrupt { path, error } => ("checkpoint-why-corrupt", path, error),
            CheckpointError::Walk { path, error } => ("checkpoint-why-walk", path, error),
        };
        Text::new(
            key,
            vec![
                ("path", Arg::from(path.as_str())),
                ("error", Arg::from(error.as_str())),
            ],
        )
    }
}

/// A checkpoint id (the snapshot record's name): 16 hex digits of the record's hash.
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether `path` (from a record) is a plain relative path inside the workspace: no
/// root, no `..`, no empty or `.` component. Records are read from disk, so checked.
pub fn is_safe_relative(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && !path.contains('\0')
        && path
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
}

#[cfg(test)]
mod tests;
