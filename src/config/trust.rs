//! Folder trust (SPEC §15.4, decision 0127): the files a workspace holds that deepterm
//! would load from it (`AGENTS.md`, `.deepterm/commands/`, `.claude/commands/`,
//! `.deepterm/rules.toml`) become instructions, commands and approval rules, so they are
//! loaded only from a folder the user trusts. The answers are kept in `trusted.toml` in
//! the user config directory, one per folder (its canonical path).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::agents_md::{AGENTS_FILE, project_dirs};
use super::instructions::{InstructionsRead, instruction_roots, read_instructions};

/// The trust file's name in the user config directory.
pub const TRUST_FILE: &str = "trusted.toml";

/// The project files `workspace` holds that deepterm would load, in a fixed order (the
/// `AGENTS.md` files from the repository root down to the workspace first).
pub fn project_files(workspace: &Path) -> Vec<PathBuf> {
    let exists = |p: &Path| std::fs::symlink_metadata(p).is_ok();
    let mut out: Vec<PathBuf> = project_dirs(workspace)
        .into_iter()
        .map(|d| d.join(AGENTS_FILE))
        .filter(|f| exists(f))
        .collect();
    for rel in [
        ".deepterm/commands",
        ".claude/commands",
        ".deepterm/rules.toml",
    ] {
        let p = workspace.join(rel);
        if exists(&p) {
            out.push(p);
        }
    }
    out
}

/// The remembered answers, by folder.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct TrustFile {
    #[serde(default)]
    folders: BTreeMap<String, bool>,
}

/// `trusted.toml`: which folders the user trusts (or said not to).
#[derive(Debug, Clone)]
pub struct TrustStore {
    path: PathBuf,
}

fn key(folder: &Path) -> String {
    folder
        .canonicalize()
        .unwrap_or_else(|_| folder.to_path_buf())
        .display()
        .to_string()
}

impl TrustStore {
    /// The store in the user config directory; `None` without a home.
    pub fn in_user_config() -> Option<TrustStore> {
        super::instructions::user_config_dir().map(|d| TrustStore::at(d.join(TRUST_FILE)))
    }

    /// The store at `path`.
    pub fn at(path: PathBuf) -> TrustStore {
        TrustStore { path }
    }

    /// Its file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> TrustFile {
        // A file that is missing, unreadable or malformed remembers nothing: the folder is
        // asked about again, which fails safe (nothing is loaded without a yes).
        std::fs::read_to_string(&self.path)
            .ok()
            .and_then(|t| toml::from_str(&t).ok())
            .unwrap_or_default()
    }

    /// The remembered answer for `folder`, if any.
    pub fn get(&self, folder: &Path) -> Option<bool> {
        self.read().folders.get(&key(folder)).copied()
    }

    /// Remembers `trusted` for `folder` (the file is replaced atomically: a crash leaves the
    /// old answers or the new ones, never a torn file).
    pub fn set(&self, folder: &Path, trusted: bool) -> std::io::Result<()> {
        let mut f = self.read();
        f.folders.insert(key(folder), trusted);
        let text = format!(
            "# Folders whose AGENTS.md, commands and rules deepterm loads (true) or not (false).\n{}",
            toml::to_string(&f).map_err(std::io::Error::other)?
        );
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        super::file::replace_file(&self.path, text.as_bytes())
    }
}

impl super::Config {
    /// The instructions for `workspace`, as [`super::Config::read_project_instructions`]
    /// reads them when `trusted`; otherwise the configured text and files and the user
    /// directory's `AGENTS.md` only, the project's files listed as skipped.
    pub fn read_instructions_for(&self, workspace: &Path, trusted: bool) -> InstructionsRead {
        if trusted {
            return self.read_project_instructions(workspace);
        }
        let user = super::agents_md::user_dir();
        let mut files = self.instructions.files.clone();
        let mut roots = instruction_roots(workspace, self.path.as_deref());
        if let Some(u) = &user {
            let f = u.join(AGENTS_FILE);
            if std::fs::symlink_metadata(&f).is_ok_and(|m| !m.is_dir()) {
                files.push(f);
            }
            roots.extend(crate::fs_guard::canonical_roots(std::slice::from_ref(u)));
        }
        let mut read = read_instructions(self.instructions.text.as_deref(), &files, &roots);
        // Every project file left out, commands and rules too (`/instructions` lists them).
        read.skipped = project_files(workspace)
            .into_iter()
            .filter(|p| !self.instructions.files.iter().any(|c| c == p))
            .collect();
        read
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_with_none_of_the_files_has_nothing_to_trust() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("README.md"), "hi").unwrap();
        assert!(project_files(d.path()).is_empty());
        std::fs::write(d.path().join(AGENTS_FILE), "be nice").unwrap();
        std::fs::create_dir_all(d.path().join(".claude/commands")).unwrap();
        std::fs::create_dir_all(d.path().join(".deepterm")).unwrap();
        std::fs::write(d.path().join(".deepterm/rules.toml"), "").unwrap();
        let names: Vec<String> = project_files(d.path())
            .iter()
            .map(|p| p.strip_prefix(d.path()).unwrap().display().to_string())
            .collect();
        assert_eq!(
            names,
            [AGENTS_FILE, ".claude/commands", ".deepterm/rules.toml"]
        );
    }

    #[test]
    fn answers_are_remembered_per_folder_and_a_broken_file_remembers_nothing() {
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (d.path().join("a"), d.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let store = TrustStore::at(d.path().join("c/trusted.toml"));
        assert_eq!(store.get(&a), None);
        store.set(&a, true).unwrap();
        store.set(&b, false).unwrap();
        let again = TrustStore::at(store.path().to_path_buf());
        assert_eq!(again.get(&a), Some(true));
        assert_eq!(again.get(&b), Some(false));
        std::fs::write(store.path(), "folders = [not toml").unwrap();
        assert_eq!(again.get(&a), None);
    }
}
