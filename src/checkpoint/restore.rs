//! Putting files back as a snapshot has them (SPEC §14.3 `/undo`, rewind of the code).
//!
//! Each path is checked first: a file whose current content is not what deepterm last left
//! there (someone edited it since) is a conflict and is left alone unless the user
//! confirmed (`force`). Writes go through directory handles that follow no symlink and are
//! checked against the write scope, as the edit tools' writes are (decision 0045), so a
//! restore never writes into `.git` or outside the workspace.

use std::ffi::OsStr;
use std::path::Path;

use super::store::{Store, hash_bytes};
use super::walk::{Current, WalkSpec, current};
use super::{CheckpointError, Manifest, is_safe_relative};
use crate::sandbox::{WriteRefusal, WriteScope};
use crate::tools::edit::atomic;

/// Why one file could not be put back (its text is listed in [`RestoreReport::failed`]).
#[derive(Debug, thiserror::Error)]
enum FileFailure {
    /// The checkpoint's copy could not be read from the store.
    #[error("{0}")]
    Store(CheckpointError),
    /// Its directory could not be opened without following a symlink.
    #[error("{0}")]
    Dir(atomic::DirError),
    /// The write scope refuses it.
    #[error("{0}")]
    Refused(WriteRefusal),
    /// Examining, writing or removing it failed.
    #[error("{0}")]
    Io(std::io::Error),
    /// Something other than a regular file took its place.
    #[error("the path is no longer a regular file")]
    NotRegular,
}

/// What a restore did, per path (relative, sorted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RestoreReport {
    /// Put back (rewritten or removed).
    pub restored: Vec<String>,
    /// Changed since by someone else; left alone.
    pub conflicts: Vec<String>,
    /// Over the size cap when the checkpoint was taken: cannot be put back.
    pub not_restorable: Vec<String>,
    /// Could not be written (path and the reason).
    pub failed: Vec<(String, String)>,
}

/// Restores each of `paths` to its state in `target`. `expected` is the state deepterm
/// left them in (the snapshot at the end of the turn): a path that differs from it now is
/// a conflict unless `force`.
pub fn restore(
    spec: &WalkSpec,
    store: &Store,
    scope: &WriteScope,
    paths: &[String],
    target: &Manifest,
    expected: &Manifest,
    force: bool,
) -> RestoreReport {
    let mut r = RestoreReport::default();
    for p in paths {
        if !is_safe_relative(p) {
            r.failed
                .push((p.clone(), "not a path inside the workspace".into()));
            continue;
        }
        if target.is_skipped(p) {
            r.not_restorable.push(p.clone());
            continue;
        }
        // Over the cap now: never equal to a kept state, so a conflict unless forced.
        let now = match current(spec, p) {
            Current::Content(b) => Some(hash_bytes(&b)),
            Current::Missing => None,
            Current::TooLarge => Some(String::new()),
        };
        let want_now = expected.files.get(p).map(|e| e.hash.clone());
        let want = target.files.get(p);
        if now == want.map(|e| e.hash.clone()) {
            // Already as the checkpoint has it.
            r.restored.push(p.clone());
            continue;
        }
        if now != want_now && !force {
            r.conflicts.push(p.clone());
            continue;
        }
        let res = match want {
            Some(e) => store
                .get_object(&e.hash, u64::MAX)
                .map_err(FileFailure::Store)
                .and_then(|bytes| write(spec, scope, p, &bytes, e.mode)),
            None => remove(spec, scope, p),
        };
        match res {
            Ok(()) => r.restored.push(p.clone()),
            Err(e) => r.failed.push((p.clone(), e.to_string())),
        }
    }
    r
}

fn split(spec: &WalkSpec, rel: &str) -> (std::path::PathBuf, String) {
    let full = spec.workspace.join(rel);
    let name = full
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = full.parent().map(Path::to_path_buf).unwrap_or_default();
    (dir, name)
}

fn write(
    spec: &WalkSpec,
    scope: &WriteScope,
    rel: &str,
    bytes: &[u8],
    mode: u32,
) -> Result<(), FileFailure> {
    let (dir, name) = split(spec, rel);
    let mut created = Vec::new();
    let d = atomic::open_dir(&dir, Some(scope), &mut created).map_err(FileFailure::Dir)?;
    let name = OsStr::new(&name);
    d.check(name, scope).map_err(FileFailure::Refused)?;
    match d.entry(name).map_err(FileFailure::Io)? {
        atomic::Entry::Missing | atomic::Entry::Regular { .. } => {}
        // Something else took the file's place: never write through or over it.
        _ => return Err(FileFailure::NotRegular),
    }
    d.write(name, bytes, Some(mode)).map_err(FileFailure::Io)
}

fn remove(spec: &WalkSpec, scope: &WriteScope, rel: &str) -> Result<(), FileFailure> {
    let (dir, name) = split(spec, rel);
    let mut created = Vec::new();
    let d = match atomic::open_dir(&dir, None, &mut created) {
        Ok(d) => d,
        // The directory is gone too: nothing to remove.
        Err(atomic::DirError::Io(_, e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(());
        }
        Err(e) => return Err(FileFailure::Dir(e)),
    };
    let name = OsStr::new(&name);
    d.check(name, scope).map_err(FileFailure::Refused)?;
    match d.entry(name).map_err(FileFailure::Io)? {
        atomic::Entry::Missing => Ok(()),
        atomic::Entry::Regular { .. } => d.remove(name).map_err(FileFailure::Io),
        _ => Err(FileFailure::NotRegular),
    }
}
