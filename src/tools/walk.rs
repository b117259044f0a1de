//! The workspace walk shared by `grep` and the composer's `@` file popup: the `ignore`
//! crate's walker (the one ripgrep uses), so `.gitignore`, `.ignore` and git's exclude
//! files are respected, symlinks are not followed and `.git` is never entered
//! (docs/decisions/0024-ignore-walker.md).

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;

/// Directories never entered, ignored or not.
pub const SKIP_DIRS: [&str; 3] = [".git", "target", "node_modules"];

/// Files the `@` popup offers at most.
pub const MAX_MENTION_FILES: usize = 20_000;

/// A sorted, gitignore-aware walker rooted at `root`. `hidden` also skips dot files and
/// dot directories. `.gitignore` applies whether or not `root` is inside a git repository.
pub fn walker(root: &Path, hidden: bool) -> ignore::Walk {
    WalkBuilder::new(root)
        .hidden(hidden)
        .follow_links(false)
        .require_git(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|e| {
            !(e.depth() > 0
                && e.file_type().is_some_and(|t| t.is_dir())
                && SKIP_DIRS.contains(&e.file_name().to_string_lossy().as_ref()))
        })
        .build()
}

/// Regular files under `root` (not ignored, not hidden), as root-relative paths with
/// forward slashes, in walk order, at most `cap`.
pub fn workspace_files(root: &Path, cap: usize) -> Vec<String> {
    let mut out = Vec::new();
    for e in walker(root, true).filter_map(Result::ok) {
        if out.len() >= cap {
            break;
        }
        if !e.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rel) = e.path().strip_prefix(root) else {
            continue;
        };
        let s = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        if !s.is_empty() {
            out.push(s);
        }
    }
    out
}

/// The workspace root the UI and the loop use: the current directory.
pub fn current_root() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_walk_respects_gitignore_ignore_and_hidden() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        std::fs::create_dir_all(r.join("src")).unwrap();
        std::fs::create_dir_all(r.join("build")).unwrap();
        std::fs::create_dir_all(r.join("node_modules/x")).unwrap();
        std::fs::write(r.join(".gitignore"), "build/\n*.log\n").unwrap();
        std::fs::write(r.join(".ignore"), "secret.txt\n").unwrap();
        for f in [
            "src/main.rs",
            "README.md",
            "build/out.txt",
            "app.log",
            "secret.txt",
            ".env",
            "node_modules/x/i.js",
        ] {
            std::fs::write(r.join(f), "x").unwrap();
        }
        assert_eq!(workspace_files(r, 100), vec!["README.md", "src/main.rs"]);
        assert_eq!(workspace_files(r, 1), vec!["README.md"]);
    }
}
