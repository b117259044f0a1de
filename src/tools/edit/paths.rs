//! Where a model-given path really leads (SPEC §14.1, decision 0045): relative to the
//! workspace or absolute, `.` and `..` applied to the text (as the read tools do), then
//! every symlink of the part that exists resolved, the final component included. What is
//! checked against the [`WriteScope`] is that resolved path; the write later walks the
//! same resolved path without following any symlink ([`super::atomic`]), so what was
//! checked is what is written.

use std::fs;
use std::path::{Path, PathBuf};

use super::EditError;
use crate::sandbox::WriteScope;

/// A model-given path resolved for writing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Canonical where it exists (symlinks resolved), with the missing tail appended.
    pub path: PathBuf,
    /// How results and cards name it: relative to the workspace with `/`, or absolute.
    pub display: String,
}

/// `given` against `workspace`, with `.`/`..` removed from the text.
pub fn lexical(workspace: &Path, given: &str) -> PathBuf {
    crate::fs_guard::join_lexically(workspace, given)
}

/// How `path` is shown: relative to the workspace when inside it, else absolute.
pub fn display(workspace: &Path, path: &Path) -> String {
    match path.strip_prefix(workspace) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => path.display().to_string(),
    }
}

/// Resolves `given` (relative to `scope.workspace`, or absolute) to the path a write would
/// change, and checks it against `scope`. A final symlink is followed (the file it points to
/// is edited, the link stays); a dangling one is refused, since following it would create a
/// file wherever it points.
pub fn resolve(scope: &WriteScope, given: &str) -> Result<Resolved, EditError> {
    if given.trim().is_empty() {
        return Err(EditError::EmptyPath);
    }
    // A control character (a newline, NUL) in a path is never what the model meant, and
    // would break the one-line-per-file result text.
    if given.chars().any(char::is_control) {
        return Err(EditError::ControlCharacter(given.to_string()));
    }
    let abs = lexical(&scope.workspace, given);
    // The longest prefix that exists (as an entry: a dangling symlink exists).
    let mut existing = abs.clone();
    let mut tail: Vec<std::ffi::OsString> = Vec::new();
    while fs::symlink_metadata(&existing).is_err() {
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => return Err(EditError::Unresolvable(given.to_string())),
        }
    }
    let mut path = match fs::canonicalize(&existing) {
        Ok(p) => p,
        Err(e) => {
            let is_link = fs::symlink_metadata(&existing).is_ok_and(|m| m.file_type().is_symlink());
            let shown = display(&scope.workspace, &existing);
            return Err(if is_link {
                EditError::BrokenLink { shown, error: e }
            } else {
                EditError::Resolve { shown, error: e }
            });
        }
    };
    if !tail.is_empty() && !path.is_dir() {
        return Err(EditError::NotADirectory(display(&scope.workspace, &path)));
    }
    for name in tail.iter().rev() {
        path.push(name);
    }
    scope.check(&path).map_err(EditError::Refused)?;
    Ok(Resolved {
        display: display(&scope.workspace, &path),
        path,
    })
}
