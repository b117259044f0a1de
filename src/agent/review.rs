//! `/review [BASE]` (SPEC §15.3, decision 0178): the changes a review reads, and the
//! prompt that asks for it.
//!
//! In a git repository the changes are `git diff` against `HEAD` (or `BASE`). A repository
//! is someone else's input: its config and attributes can name programs git would run
//! while diffing (`core.fsmonitor`, `diff.external`, a `diff.DRIVER.textconv` or
//! `.command`, a `filter.DRIVER.clean`/`process` the worktree's files are cleaned through,
//! a pager). So git runs with a cleared environment (no key reaches it, no `GIT_*`
//! variable redirects it), no system or global config, `--no-pager`, `--no-ext-diff`,
//! `--no-textconv`, `core.fsmonitor=false`, hooks at `/dev/null`, and every filter driver
//! the repository's config names emptied (an empty command is no filter). Outside git,
//! the changes are this session's checkpoint diff.

use std::path::Path;
use std::process::{Command, Stdio};

/// Bytes of diff a review attaches at most; the rest is cut with a note.
pub const MAX_REVIEW_BYTES: usize = 96 * 1024;

/// Why the git diff could not be read.
#[derive(Debug, thiserror::Error)]
pub enum GitDiffError {
    /// git could not be started.
    #[error("git could not be started: {0}")]
    Spawn(std::io::Error),
    /// git refused (an unknown BASE, a broken repository): its message.
    #[error("{0}")]
    Failed(String),
}

/// A base a user may name: a revision, never an option (`--output=…` would write a file).
pub fn valid_base(base: &str) -> bool {
    !base.is_empty()
        && !base.starts_with('-')
        && base
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._/~^@{}-:".contains(c))
}

/// git, hardened against the repository it reads (see the module doc).
fn git(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .args([
            "--no-pager",
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.pager=cat",
            "-c",
            "diff.external=",
        ]);
    c
}

/// Whether `dir` is inside a git work tree (git answers without running anything).
pub fn in_git_repo(dir: &Path) -> bool {
    git(dir)
        .args(["rev-parse", "--is-inside-work-tree"])
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success() && o.stdout.starts_with(b"true"))
}

/// The filter drivers the repository's config names (`filter.NAME.*`).
fn filter_drivers(dir: &Path) -> Vec<String> {
    let Ok(out) = git(dir)
        .args([
            "config",
            "--null",
            "--name-only",
            "--get-regexp",
            r"^filter\.",
        ])
        .stderr(Stdio::null())
        .output()
    else {
        return Vec::new();
    };
    let mut names: Vec<String> = out
        .stdout
        .split(|b| *b == 0)
        .filter_map(|k| std::str::from_utf8(k).ok())
        .filter_map(|k| {
            let rest = k.strip_prefix("filter.")?;
            let (name, _) = rest.rsplit_once('.')?;
            Some(name.to_string())
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// `git diff` of the work tree against `base` (`HEAD` by default), hardened; the text
/// and whether it was cut at [`MAX_REVIEW_BYTES`].
pub fn git_diff(dir: &Path, base: Option<&str>) -> Result<(String, bool), GitDiffError> {
    let mut c = git(dir);
    for name in filter_drivers(dir) {
        for key in ["clean", "smudge", "process"] {
            c.args(["-c", &format!("filter.{name}.{key}=")]);
        }
        c.args(["-c", &format!("filter.{name}.required=false")]);
    }
    c.args([
        "diff",
        "--no-ext-diff",
        "--no-textconv",
        "--no-color",
        base.unwrap_or("HEAD"),
        "--",
    ]);
    let out = c.output().map_err(GitDiffError::Spawn)?;
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stderr);
        return Err(GitDiffError::Failed(msg.trim().to_string()));
    }
    Ok(cap(String::from_utf8_lossy(&out.stdout).into_owned()))
}

/// Cuts `text` at [`MAX_REVIEW_BYTES`] on a line boundary.
pub fn cap(mut text: String) -> (String, bool) {
    if text.len() <= MAX_REVIEW_BYTES {
        return (text, false);
    }
    let mut end = MAX_REVIEW_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let end = text[..end].rfind('\n').map_or(end, |i| i + 1);
    text.truncate(end);
    (text, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_that_looks_like_an_option_is_refused() {
        assert!(valid_base("main"));
        assert!(valid_base("HEAD~3"));
        assert!(valid_base("origin/main"));
        assert!(!valid_base("--output=/tmp/x"));
        assert!(!valid_base("-p"));
        assert!(!valid_base("a b"));
        assert!(!valid_base(""));
    }

    #[test]
    fn a_long_diff_is_cut_on_a_line_boundary() {
        let line = "+ some added line of text\n";
        let big = line.repeat(MAX_REVIEW_BYTES / line.len() + 10);
        let (t, cut) = cap(big);
        assert!(cut);
        assert!(t.len() <= MAX_REVIEW_BYTES);
        assert!(t.ends_with('\n'));
        assert_eq!(cap("small\n".into()), ("small\n".to_string(), false));
    }
}
