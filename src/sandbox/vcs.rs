//! Version-control directories at any depth inside the writable roots (SPEC §15.5,
//! decision 0110).
//!
//! A nested clone's `.git/hooks/post-checkout` or `.git/config` runs as the user at the
//! next `git checkout` in that clone, outside any sandbox; `.hg/hgrc`, `.svn` and `.jj`
//! hold the same kind of configuration. So every such entry inside a writable root is a
//! protected path, found by a bounded walk before each sandboxed command (a repository the
//! user cloned mid-session is found too):
//! - the walk never follows a symlink (a link to `/` would make it walk the disk, and what
//!   it points to outside the writable roots is not writable anyway);
//! - it does not descend into a version-control directory it found (everything inside is
//!   protected with it);
//! - it reads at most [`WALK_CAP`] directories; past that it stops and says so
//!   ([`Discovery::truncated`]), and the edit tools still refuse by name
//!   ([`is_vcs_name`], checked on every component of a path).
//!
//! A `.git` that is a file (a linked worktree or a submodule) is protected with the
//! directory its `gitdir:` line names and that directory's `commondir` (the main
//! repository's git directory, where the hooks live).

use std::path::{Path, PathBuf};

use crate::fs_guard::canonical_or_lexical;

/// The entry names that make a version-control directory (or, for `.git`, a file).
pub const VCS_NAMES: [&str; 4] = [".git", ".hg", ".svn", ".jj"];

/// The most directories one walk reads.
pub const WALK_CAP: usize = 20_000;

/// Whether `name` names a version-control directory.
pub fn is_vcs_name(name: &std::ffi::OsStr) -> bool {
    VCS_NAMES.iter().any(|n| name == *n)
}

/// What one walk found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Discovery {
    /// Every version-control entry found, and the `gitdir:`/`commondir` targets of `.git`
    /// files (canonical), in walk order, without duplicates.
    pub paths: Vec<PathBuf>,
    /// The walk stopped at [`WALK_CAP`] directories: deeper repositories may be missed.
    pub truncated: bool,
}

/// Walks `roots` (canonical) for version-control entries, reading at most `cap`
/// directories in all, breadth first (shallow repositories are found first).
pub fn discover(roots: &[PathBuf], cap: usize) -> Discovery {
    let mut out = Discovery::default();
    let mut queue: std::collections::VecDeque<PathBuf> = roots.iter().cloned().collect();
    let mut read = 0usize;
    while let Some(dir) = queue.pop_front() {
        if read >= cap {
            out.truncated = true;
            break;
        }
        read += 1;
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(ft) = entry.file_type() else { continue };
            let name = entry.file_name();
            let path = entry.path();
            if is_vcs_name(&name) {
                push_unique(&mut out.paths, path.clone());
                if name == ".git" && ft.is_file() {
                    for t in git_file_targets(&path) {
                        push_unique(&mut out.paths, t);
                    }
                }
                continue;
            }
            // Symlinks are never followed (file_type does not follow them).
            if ft.is_dir() {
                queue.push_back(path);
            }
        }
    }
    out
}

/// The note a sandboxed command's result gets when it made version-control entries that
/// did not exist before it ran (English, stable, §5): they could not be protected in
/// advance, and their hooks and config would run as the user.
pub const CREATED_NOTE: &str = "[warning: this command created version-control directories";

/// [`CREATED_NOTE`] naming `created` (shown relative to `workspace`).
pub fn created_note(workspace: &Path, created: &[PathBuf]) -> String {
    let names: Vec<String> = created
        .iter()
        .map(|p| match p.strip_prefix(workspace) {
            Ok(rel) => rel.display().to_string(),
            Err(_) => p.display().to_string(),
        })
        .collect();
    format!(
        "\n{CREATED_NOTE}, which the sandbox could not protect in advance: {}; their hooks and \
         config run as the user at the next version-control command there]",
        names.join(", ")
    )
}

/// The version-control entries in `after` that are not in `before`.
pub fn created(before: &[PathBuf], after: &[PathBuf]) -> Vec<PathBuf> {
    after
        .iter()
        .filter(|p| !before.contains(p) && p.file_name().is_some_and(is_vcs_name))
        .cloned()
        .collect()
}

fn push_unique(v: &mut Vec<PathBuf>, p: PathBuf) {
    if !v.contains(&p) {
        v.push(p);
    }
}

/// The first line of a small regular file (a `.git` file, a `commondir`), trimmed.
fn first_line(path: &Path) -> Option<String> {
    // Such a file holds one short line; a huge or non-regular one is not read whole.
    let file = crate::fs_guard::open_regular(path).ok()?;
    let capped = crate::fs_guard::read_capped(file, 4096).ok()?;
    let text = String::from_utf8(capped.bytes).ok()?;
    Some(text.lines().next()?.trim().to_string())
}

/// The `gitdir: X` target of a `.git` file (relative to the file's directory, as git
/// resolves it), if `git_file` is such a file.
pub fn gitdir_target(git_file: &Path) -> Option<PathBuf> {
    let line = first_line(git_file)?;
    let target = line.strip_prefix("gitdir:")?.trim();
    if target.is_empty() {
        return None;
    }
    Some(canonical_or_lexical(&git_file.parent()?.join(target)))
}

/// The `commondir` a git directory names (a linked worktree's points to the main
/// repository's git directory, relative to `gitdir`).
pub fn commondir_target(gitdir: &Path) -> Option<PathBuf> {
    let line = first_line(&gitdir.join("commondir"))?;
    if line.is_empty() {
        return None;
    }
    Some(canonical_or_lexical(&gitdir.join(line)))
}

/// The `gitdir:` target of a `.git` file and its `commondir`, when they exist.
pub fn git_file_targets(git_file: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    if let Some(g) = gitdir_target(git_file) {
        if let Some(c) = commondir_target(&g) {
            v.push(g);
            v.push(c);
        } else {
            v.push(g);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_repositories_of_every_kind_are_found_without_following_symlinks() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        let ws = root.join("ws");
        for p in [
            "ws/.git/hooks",
            "ws/vendor/lib/.git/hooks",
            "ws/a/b/c/.hg",
            "ws/x/.svn",
            "ws/y/.jj/repo",
            "outside/.git",
            "main.git/worktrees/wt",
        ] {
            std::fs::create_dir_all(root.join(p)).unwrap();
        }
        std::os::unix::fs::symlink(root.join("outside"), ws.join("link")).unwrap();
        std::fs::create_dir_all(ws.join("wt")).unwrap();
        std::fs::write(ws.join("wt/.git"), "gitdir: ../../main.git/worktrees/wt\n").unwrap();
        std::fs::write(root.join("main.git/worktrees/wt/commondir"), "../..\n").unwrap();
        let mut got = discover(std::slice::from_ref(&ws), WALK_CAP);
        got.paths.sort();
        assert!(!got.truncated);
        assert_eq!(
            got.paths,
            vec![
                root.join("main.git"),
                root.join("main.git/worktrees/wt"),
                ws.join(".git"),
                ws.join("a/b/c/.hg"),
                ws.join("vendor/lib/.git"),
                ws.join("wt/.git"),
                ws.join("x/.svn"),
                ws.join("y/.jj"),
            ]
        );
    }

    #[test]
    fn the_walk_stops_at_its_cap_and_says_so() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        for i in 0..10 {
            std::fs::create_dir_all(root.join(format!("d{i}/deeper/.git"))).unwrap();
        }
        let capped = discover(std::slice::from_ref(&root), 5);
        assert!(capped.truncated);
        assert!(capped.paths.is_empty(), "{:?}", capped.paths);
        let full = discover(std::slice::from_ref(&root), 100);
        assert!(!full.truncated);
        assert_eq!(full.paths.len(), 10);
    }
}
