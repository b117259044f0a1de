//! Protected paths and the canonical [`WriteScope`] built from them (SPEC §14.2).
//!
//! Protected paths are never writable short of `full-access`: the workspace's `.git` (and
//! the directory a `.git` file's `gitdir:` line points to, and its `commondir`),
//! `.deepterm/`, `.claude/` (another agent's commands and settings, which deepterm loads as
//! well), the config file and the session directory; and every version-control directory
//! at any depth inside a writable root ([`super::vcs`], SPEC §15.5). Paths that do not exist yet are protected too, so neither the edit
//! tools nor a sandboxed command can create them (see the decision note 0040 for how each
//! backend stops their creation).

use std::path::{Path, PathBuf};

use super::{SandboxMode, WriteScope};

pub use crate::fs_guard::canonical_or_lexical;

/// The protected paths of a session (§14.2), canonical where they exist, without duplicates:
/// the workspace's `.git` (a directory; or a `.git` file and the `gitdir:` it points to),
/// `.deepterm/`, the config file (when there is one) and the session directory.
pub fn protected_paths(
    workspace: &Path,
    config_file: Option<&Path>,
    session_dir: &Path,
) -> Vec<PathBuf> {
    let ws = canonical_or_lexical(workspace);
    let mut out: Vec<PathBuf> = Vec::new();
    let git = ws.join(".git");
    match std::fs::symlink_metadata(&git) {
        Ok(m) if m.is_file() => {
            out.push(git.clone());
            out.extend(super::vcs::git_file_targets(&git));
        }
        Ok(m) if m.file_type().is_symlink() => {
            // The link itself (so it cannot be replaced) and what it points to.
            out.push(git.clone());
            out.push(canonical_or_lexical(&git));
        }
        _ => out.push(git),
    }
    out.push(canonical_or_lexical(&ws.join(".deepterm")));
    out.push(canonical_or_lexical(&ws.join(".claude")));
    if let Some(c) = config_file {
        out.push(canonical_or_lexical(c));
    }
    out.push(canonical_or_lexical(session_dir));
    let mut seen = Vec::new();
    out.retain(|p| {
        if seen.contains(p) {
            false
        } else {
            seen.push(p.clone());
            true
        }
    });
    out
}

impl WriteScope {
    /// A scope with every path canonicalized ([`canonical_or_lexical`]): the workspace is
    /// the first writable root, then `writable_roots` (a relative one is taken relative to
    /// the workspace), without duplicates.
    pub fn new(
        mode: SandboxMode,
        workspace: &Path,
        writable_roots: &[PathBuf],
        protected: Vec<PathBuf>,
    ) -> WriteScope {
        let ws = canonical_or_lexical(workspace);
        let mut roots = vec![ws.clone()];
        for r in writable_roots {
            let abs = if r.is_absolute() {
                r.clone()
            } else {
                ws.join(r)
            };
            let c = canonical_or_lexical(&abs);
            if !roots.contains(&c) {
                roots.push(c);
            }
        }
        let mut prot: Vec<PathBuf> = Vec::new();
        for p in protected {
            let c = canonical_or_lexical(&p);
            if !prot.contains(&c) {
                prot.push(c);
            }
        }
        WriteScope {
            mode,
            workspace: ws,
            writable_roots: roots,
            protected: prot,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_git_file_protects_itself_and_its_gitdir_target() {
        let d = tempfile::tempdir().unwrap();
        let ws = d.path().join("ws");
        let real = d.path().join("repo.git/worktrees/ws");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(&real).unwrap();
        std::fs::write(ws.join(".git"), "gitdir: ../repo.git/worktrees/ws\n").unwrap();
        let session = d.path().join("sessions");
        let cfg = d.path().join("config.toml");
        let got = protected_paths(&ws, Some(&cfg), &session);
        let root = std::fs::canonicalize(d.path()).unwrap();
        assert_eq!(
            got,
            vec![
                root.join("ws/.git"),
                root.join("repo.git/worktrees/ws"),
                root.join("ws/.deepterm"),
                root.join("ws/.claude"),
                root.join("config.toml"),
                root.join("sessions"),
            ]
        );
    }

    #[test]
    fn a_git_directory_and_missing_paths_are_protected_canonically() {
        let d = tempfile::tempdir().unwrap();
        let ws = d.path().join("ws");
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        let got = protected_paths(&ws.join("sub/.."), None, &ws.join("s/../sess"));
        let root = std::fs::canonicalize(d.path()).unwrap();
        assert_eq!(
            got,
            vec![
                root.join("ws/.git"),
                root.join("ws/.deepterm"),
                root.join("ws/.claude"),
                root.join("ws/sess")
            ]
        );
    }

    #[test]
    fn scope_new_canonicalizes_and_keeps_the_workspace_first() {
        let d = tempfile::tempdir().unwrap();
        let ws = d.path().join("ws");
        std::fs::create_dir_all(ws.join("out")).unwrap();
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&ws, &link).unwrap();
        let s = WriteScope::new(
            SandboxMode::WorkspaceWrite,
            &link,
            &[PathBuf::from("out"), ws.clone()],
            vec![link.join(".git")],
        );
        let root = std::fs::canonicalize(d.path()).unwrap();
        assert_eq!(s.workspace, root.join("ws"));
        assert_eq!(s.writable_roots, vec![root.join("ws"), root.join("ws/out")]);
        assert_eq!(s.protected, vec![root.join("ws/.git")]);
        assert!(s.check(&root.join("ws/.git/config")).is_err());
        assert!(s.check(&root.join("ws/src/a.rs")).is_ok());
    }
}
