//! Project instructions without configuration (SPEC §14.4): the `AGENTS.md` files from the
//! repository root down to the workspace (nearest last) and the one in the user config
//! directory, read with the confined reader of decision 0031 after `instructions.files`.
//!
//! Discovery runs on every request, like the re-read of the files themselves, so an
//! `AGENTS.md` created or edited mid-session (by `/init`, say) reaches the next request
//! through the L-10 reconciliation: an in-history prompt update on capable routes.

use std::path::{Path, PathBuf};

use super::instructions::{self, InstructionsRead, instruction_roots, read_instructions};
use crate::fs_guard;

/// The file name discovery looks for.
pub const AGENTS_FILE: &str = "AGENTS.md";

/// The repository holding `workspace`: the nearest directory, the workspace included,
/// with a `.git` entry (a directory, or the file of a worktree or submodule). `None`
/// outside a repository.
pub fn repository_root(workspace: &Path) -> Option<PathBuf> {
    workspace
        .ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
        .map(Path::to_path_buf)
}

/// The directories whose `AGENTS.md` applies, most general first: the repository root
/// down to the workspace, or the workspace alone outside a repository.
pub fn project_dirs(workspace: &Path) -> Vec<PathBuf> {
    let Some(root) = repository_root(workspace) else {
        return vec![workspace.to_path_buf()];
    };
    let mut dirs: Vec<PathBuf> = workspace
        .ancestors()
        .take_while(|d| d.starts_with(&root))
        .map(Path::to_path_buf)
        .collect();
    dirs.reverse();
    dirs
}

/// The `AGENTS.md` files that exist (as a directory entry: a symlink is listed, and the
/// confined read then decides), in prompt order: the user config directory's, then the
/// repository root's down to the workspace's. A missing file is simply not listed.
pub fn discover(workspace: &Path, user_dir: Option<&Path>) -> Vec<PathBuf> {
    user_dir
        .into_iter()
        .map(Path::to_path_buf)
        .chain(project_dirs(workspace))
        .map(|d| d.join(AGENTS_FILE))
        .filter(|f| std::fs::symlink_metadata(f).is_ok_and(|m| !m.is_dir()))
        .collect()
}

/// Whether two paths name the same file (canonically when both resolve, else as written
/// after lexical normalization).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => fs_guard::normalize_lexically(a) == fs_guard::normalize_lexically(b),
    }
}

/// Where the instructions come from, for one read.
#[derive(Debug, Clone)]
pub struct InstructionSources<'a> {
    /// `[instructions] text`.
    pub text: Option<&'a str>,
    /// `[instructions] files`, resolved.
    pub files: &'a [PathBuf],
    /// The workspace (the start directory).
    pub workspace: &'a Path,
    /// The config file, when there is one (its directory is a root).
    pub config_file: Option<&'a Path>,
    /// The user config directory (`None` when there is no home).
    pub user_dir: Option<&'a Path>,
}

/// Reads the instructions: the configured text and files, then every discovered
/// `AGENTS.md` not already named by `files`. Discovered files are confined to the instruction
/// roots (the workspace, the config file's directory) plus the repository root, whose `AGENTS.md` lies above a workspace that is
/// a subdirectory of it; a symlink out of them, a FIFO or a file that is not text is
/// refused with the same warnings as a configured file, and a huge one is cut.
pub fn read_project_instructions(src: &InstructionSources<'_>) -> InstructionsRead {
    let mut roots = instruction_roots(src.workspace, src.config_file);
    let extra: Vec<PathBuf> = repository_root(src.workspace)
        .into_iter()
        .chain(src.user_dir.map(Path::to_path_buf))
        .collect();
    roots.extend(fs_guard::canonical_roots(&extra));
    roots.sort();
    roots.dedup();
    let mut files: Vec<PathBuf> = src.files.to_vec();
    for f in discover(src.workspace, src.user_dir) {
        if !files.iter().any(|c| same_file(c, &f)) {
            files.push(f);
        }
    }
    read_instructions(src.text, &files, &roots)
}

/// The user config directory as discovery uses it.
pub fn user_dir() -> Option<PathBuf> {
    instructions::user_config_dir()
}

#[cfg(test)]
mod tests;

impl super::Config {
    /// The instructions for a session in `workspace`: the configured text and files, then
    /// the discovered `AGENTS.md` files (see [`read_project_instructions`]), re-read now.
    pub fn read_project_instructions(&self, workspace: &Path) -> InstructionsRead {
        let user = user_dir();
        read_project_instructions(&InstructionSources {
            text: self.instructions.text.as_deref(),
            files: &self.instructions.files,
            workspace,
            config_file: self.path.as_deref(),
            user_dir: user.as_deref(),
        })
    }
}
