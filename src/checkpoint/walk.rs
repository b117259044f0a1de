//! One snapshot of the workspace (decision 0080): the `ignore` walker (`.gitignore`,
//! `.git/info/exclude` and the global excludes respected, inside a git repository or not),
//! never entering `.git` or the directories deepterm keeps its own files in, never
//! following a symlink.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use super::store::{Store, hash_bytes};
use super::{CheckpointError, FileEntry, Manifest, Skipped};

/// A file modified this close before the previous snapshot began is read again even when
/// its size and time match: the clock's granularity could hide a second change
/// ("racy git").
const RACY_NS: i128 = 2_000_000_000;

/// What a snapshot walks and keeps.
#[derive(Debug, Clone)]
pub struct WalkSpec {
    /// The workspace root.
    pub workspace: PathBuf,
    /// Directories never walked (the session directory, the store), absolute.
    pub exclude: Vec<PathBuf>,
    /// Files larger than this are listed as not restorable.
    pub max_file_bytes: u64,
}

fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// Nanoseconds since the epoch of a file's modification time (0 when unknown).
pub fn mtime_ns(meta: &std::fs::Metadata) -> i128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128)
}

#[cfg(unix)]
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o777
}

#[cfg(not(unix))]
fn mode_of(_meta: &std::fs::Metadata) -> u32 {
    0o644
}

/// The walker `snapshot` uses (also what `/diff` compares against the workspace).
fn walker(spec: &WalkSpec) -> ignore::Walk {
    let exclude = spec.exclude.clone();
    ignore::WalkBuilder::new(&spec.workspace)
        .hidden(false)
        .follow_links(false)
        .require_git(false)
        .filter_entry(move |e| {
            if e.file_name() == ".git" {
                return false;
            }
            !exclude.iter().any(|x| e.path().starts_with(x))
        })
        .build()
}

/// Snapshots the workspace into `store`, reusing `prev`'s hashes for files whose size
/// and modification time did not change (outside the racy window).
pub fn snapshot(
    spec: &WalkSpec,
    store: &Store,
    prev: Option<&Manifest>,
) -> Result<Manifest, CheckpointError> {
    let mut m = Manifest {
        started_ns: now_ns(),
        ..Manifest::default()
    };
    for entry in walker(spec) {
        let entry = match entry {
            Ok(e) => e,
            // An unreadable directory or a racing removal: that part is not kept.
            Err(_) => continue,
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(&spec.workspace) else {
            continue;
        };
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        let size = meta.len();
        let Some(rel) = rel.to_str().map(str::to_string) else {
            // A name that is not UTF-8 cannot be named in a record: listed, not kept.
            m.skipped.push(Skipped {
                path: rel.to_string_lossy().into_owned(),
                size,
            });
            continue;
        };
        let mtime = mtime_ns(&meta);
        let mode = mode_of(&meta);
        if let Some(old) = prev.and_then(|p| p.files.get(&rel))
            && old.size == size
            && old.mtime_ns == mtime
            && mtime < prev.map_or(0, |p| p.started_ns) - RACY_NS
        {
            m.files.insert(
                rel,
                FileEntry {
                    mode,
                    ..old.clone()
                },
            );
            continue;
        }
        if size > spec.max_file_bytes {
            m.skipped.push(Skipped { path: rel, size });
            continue;
        }
        let Some(bytes) = read_file(entry.path(), spec.max_file_bytes) else {
            continue;
        };
        let hash = hash_bytes(&bytes);
        store.put_read(&hash, &bytes)?;
        m.files.insert(
            rel,
            FileEntry {
                hash,
                size: bytes.len() as u64,
                mtime_ns: mtime,
                mode,
            },
        );
    }
    Ok(m)
}

/// A regular file's bytes, at most `max` (`None` when it vanished, is not regular now,
/// or grew past the cap).
pub fn read_file(path: &Path, max: u64) -> Option<Vec<u8>> {
    let f = crate::fs_guard::open_regular(path).ok()?;
    let capped = crate::fs_guard::read_capped(f, max).ok()?;
    (!capped.truncated).then_some(capped.bytes)
}

/// What is at a path of the workspace now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Current {
    /// No regular file (nothing, a directory, a symlink).
    Missing,
    /// A regular file over the cap.
    TooLarge,
    /// A regular file's bytes.
    Content(Vec<u8>),
}

/// The current state of `rel` in the workspace.
pub fn current(spec: &WalkSpec, rel: &str) -> Current {
    let path = spec.workspace.join(rel);
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_file() => {
            if m.len() > spec.max_file_bytes {
                return Current::TooLarge;
            }
            match read_file(&path, spec.max_file_bytes) {
                Some(b) => Current::Content(b),
                None => Current::Missing,
            }
        }
        _ => Current::Missing,
    }
}
