//! Applying a plan all or nothing (SPEC §14.1, decision 0045).
//!
//! First every target is checked again at the moment of writing, through directory handles
//! opened without following symlinks ([`atomic::open_dir`]): the scope (the mode may have
//! changed since the plan, and the handle's real path is what counts), the entry type
//! (never a symlink, FIFO or device), and the content (a file changed since it was read is
//! not overwritten). Only then is anything written, one atomic rename per file, each
//! recorded with how to undo it; if one fails, the ones already made are undone in reverse
//! order from the originals kept in memory, so no file changes.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::EditError;
use super::atomic::{self, Dir, Entry};
use super::plan::{EditPlan, MAX_EDIT_BYTES, Write};
use crate::sandbox::{SandboxMode, WriteScope};

/// How to take back one write.
enum Undo<'d> {
    /// Put the original bytes and mode back.
    Restore {
        dir: &'d Dir,
        name: OsString,
        bytes: Vec<u8>,
        mode: u32,
        display: String,
    },
    /// Remove a file the edit created.
    Unlink {
        dir: &'d Dir,
        name: OsString,
        display: String,
    },
    /// Remove a directory the edit created (if it is still empty).
    Rmdir { path: PathBuf },
}

/// One write with the handle of its directory (`None`: the directory is still to be made).
struct Prepared<'p> {
    write: &'p Write,
    name: OsString,
    dir: Option<Dir>,
}

fn split(path: &Path) -> Result<(&Path, OsString), EditError> {
    match (path.parent(), path.file_name()) {
        (Some(p), Some(n)) => Ok((p, n.to_os_string())),
        _ => Err(EditError::NoFileName(path.to_path_buf())),
    }
}

/// Checks one target at the moment of writing; returns its directory handle.
fn prepare<'p>(w: &'p Write, scope: &WriteScope) -> Result<Prepared<'p>, EditError> {
    let (parent, name) = split(&w.path)?;
    let shown = &w.display;
    let dir = match atomic::open_dir(parent, None, &mut Vec::new()) {
        Ok(d) => d,
        // A new file in a directory the edit will create.
        Err(atomic::DirError::Io(_, e))
            if e.kind() == std::io::ErrorKind::NotFound
                && w.before.is_none()
                && w.after.is_some() =>
        {
            scope.check(&w.path).map_err(EditError::Refused)?;
            return Ok(Prepared {
                write: w,
                name,
                dir: None,
            });
        }
        Err(e) => return Err(EditError::Dir(e)),
    };
    dir.check(&name, scope).map_err(EditError::Refused)?;
    let entry = dir.entry(&name).map_err(|error| EditError::Examine {
        shown: shown.clone(),
        error,
    })?;
    let changed = || EditError::ChangedSincePlanned(shown.clone());
    match (&w.before, entry) {
        (_, Entry::Special(kind)) => {
            return Err(EditError::NotRegular {
                shown: shown.clone(),
                kind,
            });
        }
        (_, Entry::Symlink) => return Err(EditError::NowSymlink(shown.clone())),
        (None, Entry::Missing) => {}
        (None, Entry::Regular { .. }) => return Err(EditError::Appeared(shown.clone())),
        (Some(_), Entry::Missing) => return Err(changed()),
        (Some((bytes, _)), Entry::Regular { .. }) => {
            let now = dir
                .read(&name, MAX_EDIT_BYTES)
                .map_err(|error| EditError::Read {
                    shown: shown.clone(),
                    error,
                })?;
            if &now != bytes {
                return Err(changed());
            }
        }
    }
    Ok(Prepared {
        write: w,
        name,
        dir: Some(dir),
    })
}

/// Writes `plan` under `scope` (read at the moment of the call), all or nothing. Returns
/// the result text, or the tool error (which says that nothing changed, or, if a rollback
/// itself failed, which files could not be restored).
pub fn apply(plan: &EditPlan, scope: &WriteScope) -> Result<String, EditError> {
    let tool = &plan.tool;
    if scope.mode == SandboxMode::ReadOnly {
        return Err(EditError::ReadOnly(tool.clone()));
    }
    let mut prepared = Vec::with_capacity(plan.writes.len());
    for w in &plan.writes {
        prepared.push(prepare(w, scope).map_err(|e| EditError::NotWritten {
            tool: tool.clone(),
            error: Box::new(e),
        })?);
    }
    // Directories made for new files get handles that live as long as the undo log.
    let mut made: Vec<(usize, Dir)> = Vec::new();
    let mut created_dirs: Vec<PathBuf> = Vec::new();
    let mut failure: Option<EditError> = None;
    for (i, p) in prepared.iter().enumerate() {
        if p.dir.is_none() {
            let parent = p.write.path.parent().expect("split checked it");
            match atomic::open_dir(parent, Some(scope), &mut created_dirs) {
                Ok(d) => match d.check(&p.name, scope) {
                    Ok(()) => made.push((i, d)),
                    Err(e) => {
                        failure = Some(EditError::Refused(e));
                        break;
                    }
                },
                Err(e) => {
                    failure = Some(EditError::Dir(e));
                    break;
                }
            }
        }
    }
    let mut undo: Vec<Undo<'_>> = created_dirs
        .iter()
        .map(|p| Undo::Rmdir { path: p.clone() })
        .collect();
    if failure.is_none() {
        for (i, p) in prepared.iter().enumerate() {
            let dir = match &p.dir {
                Some(d) => d,
                None => &made.iter().find(|(j, _)| *j == i).expect("made above").1,
            };
            let w = p.write;
            let result = match &w.after {
                Some(bytes) => dir.write(&p.name, bytes, w.mode),
                None => dir.remove(&p.name),
            };
            if let Err(error) = result {
                failure = Some(EditError::Write {
                    shown: w.display.clone(),
                    error,
                });
                break;
            }
            undo.push(match &w.before {
                Some((bytes, mode)) => Undo::Restore {
                    dir,
                    name: p.name.clone(),
                    bytes: bytes.clone(),
                    mode: *mode,
                    display: w.display.clone(),
                },
                None => Undo::Unlink {
                    dir,
                    name: p.name.clone(),
                    display: w.display.clone(),
                },
            });
        }
    }
    let Some(failure) = failure else {
        return Ok(plan.result_text());
    };
    let lost = rollback(undo);
    let (tool, error) = (tool.clone(), Box::new(failure));
    Err(if lost.is_empty() {
        EditError::Undone { tool, error }
    } else {
        EditError::UndoFailed { tool, error, lost }
    })
}

/// Undoes in reverse order; returns what could not be undone.
fn rollback(undo: Vec<Undo<'_>>) -> Vec<String> {
    let mut lost = Vec::new();
    for u in undo.into_iter().rev() {
        match u {
            Undo::Restore {
                dir,
                name,
                bytes,
                mode,
                display,
            } => {
                if let Err(e) = dir.write(&name, &bytes, Some(mode)) {
                    lost.push(format!("\"{display}\" ({e})"));
                }
            }
            Undo::Unlink { dir, name, display } => {
                if let Err(e) = dir.remove(&name) {
                    lost.push(format!("\"{display}\" ({e})"));
                }
            }
            Undo::Rmdir { path } => {
                // Only directories this edit made, and only while empty.
                let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
                    continue;
                };
                if let Ok(d) = atomic::open_dir(parent, None, &mut Vec::new()) {
                    let _ = d.remove_dir(name);
                }
            }
        }
    }
    lost
}
