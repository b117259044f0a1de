//! Instruction files (`[instructions] files`, and the `AGENTS.md` files a later discovery
//! adds): read only when, after resolving symlinks, they are regular text files inside
//! the workspace, the config file's directory or the user config directory, and at most
//! [`MAX_INSTRUCTION_BYTES`] of each. See `docs/decisions/0031-confined-instruction-files.md`.
//!
//! A repository controls its files: an `AGENTS.md` that is a symlink to
//! `/proc/self/environ` or `../outside_secret` would otherwise put the environment (the API
//! key) or any readable file into the system prompt, which is logged and sent.

use std::path::{Path, PathBuf};

use crate::fs_guard::{self, ConfinedText, Refusal};
use crate::i18n::{Arg, Localizer, Text};

/// Bytes of one instruction file used at most; the rest is cut with a note to the model
/// and a warning to the user.
pub const MAX_INSTRUCTION_BYTES: u64 = 256 * 1024;

/// The user config directory: `$XDG_CONFIG_HOME/deepterm`, default `~/.config/deepterm`
/// (SPEC §14), whichever file `--config` names.
pub fn user_config_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "deepterm").map(|d| d.config_dir().to_path_buf())
}

/// The directories instruction files may live in, canonical: the workspace, the config
/// file's directory (and, for a symlinked config, its target's directory: a dotfiles
/// checkout keeps its instruction files next to the real config) and the user config
/// directory. Directories that do not exist are left out.
pub fn instruction_roots(workspace: &Path, config_file: Option<&Path>) -> Vec<PathBuf> {
    let mut roots = vec![workspace.to_path_buf()];
    if let Some(file) = config_file {
        match file.parent() {
            Some(d) if !d.as_os_str().is_empty() => roots.push(d.to_path_buf()),
            _ => roots.push(PathBuf::from(".")),
        }
        if let Some(d) = std::fs::canonicalize(file)
            .ok()
            .and_then(|c| c.parent().map(Path::to_path_buf))
        {
            roots.push(d);
        }
    }
    roots.extend(user_config_dir());
    fs_guard::canonical_roots(&roots)
}

/// Reads one instruction file confined to `roots` (see [`instruction_roots`]), at most
/// [`MAX_INSTRUCTION_BYTES`]. The helper the `AGENTS.md` discovery uses too.
pub fn read_confined(path: &Path, roots: &[PathBuf]) -> Result<ConfinedText, Refusal> {
    fs_guard::read_confined(path, roots, MAX_INSTRUCTION_BYTES)
}

/// Something wrong with an instruction file, told to the user as a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstructionProblem {
    /// The file was not read, and why.
    Refused {
        /// The file as configured (resolved against the workspace or config directory).
        path: PathBuf,
        /// Why.
        reason: Refusal,
    },
    /// Only the first `limit` bytes of the file were used.
    Truncated {
        /// The file.
        path: PathBuf,
        /// Its size in bytes.
        size: u64,
        /// The cap.
        limit: u64,
    },
}

impl InstructionProblem {
    /// The Fluent id and arguments of the warning (a notice that re-renders on `/lang`).
    pub fn message(&self) -> (&'static str, Vec<(&'static str, Arg)>) {
        let shown = |p: &Path| Arg::from(p.display().to_string());
        match self {
            InstructionProblem::Truncated { path, size, limit } => (
                "config-instructions-truncated",
                vec![
                    ("path", shown(path)),
                    ("size", Arg::from(*size)),
                    ("limit", Arg::from(*limit)),
                    ("kib", Arg::from(*limit / 1024)),
                ],
            ),
            InstructionProblem::Refused { path, reason } => match reason {
                Refusal::Missing => ("config-instructions-missing", vec![("path", shown(path))]),
                Refusal::Outside { target } => (
                    "config-instructions-outside",
                    vec![("path", shown(path)), ("target", shown(target))],
                ),
                Refusal::NotRegular(kind) => (
                    "config-instructions-not-regular",
                    vec![
                        ("path", shown(path)),
                        (
                            "kind",
                            Arg::from(Text::new(&super::error::kind_key(*kind), vec![])),
                        ),
                    ],
                ),
                Refusal::NotText => ("config-instructions-not-text", vec![("path", shown(path))]),
                Refusal::Unreadable { detail } => (
                    "config-instructions-unreadable",
                    vec![
                        ("path", shown(path)),
                        ("detail", Arg::from(detail.as_str())),
                    ],
                ),
            },
        }
    }

    /// The localized one-line warning.
    pub fn localized(&self, l: Localizer) -> String {
        let (id, args) = self.message();
        l.tra(id, &args)
    }
}

/// The instructions as read now: the text for the system prompt and what went wrong.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InstructionsRead {
    /// `[instructions] text` then each file's text, separated by blank lines; `None` when
    /// there is nothing.
    pub text: Option<String>,
    /// Files refused or cut, in configuration order.
    pub problems: Vec<InstructionProblem>,
    /// The files whose text is in use, in order, with their sizes in bytes (`/instructions`).
    pub used: Vec<(PathBuf, u64)>,
    /// Project files left out because the folder is not trusted (SPEC §15.4).
    pub skipped: Vec<PathBuf>,
}

/// Reads the configured instructions: `text`, then each of `files` confined to `roots`.
/// A refused file is skipped; a file over the cap contributes its first
/// [`MAX_INSTRUCTION_BYTES`] followed by a one-line note to the model.
pub fn read_instructions(
    text: Option<&str>,
    files: &[PathBuf],
    roots: &[PathBuf],
) -> InstructionsRead {
    let mut parts: Vec<String> = vec![];
    let mut problems = vec![];
    let mut used = vec![];
    if let Some(t) = text.filter(|t| !t.trim().is_empty()) {
        parts.push(t.trim_end().to_string());
    }
    for f in files {
        match read_confined(f, roots) {
            Ok(c) => {
                let mut t = c.text.trim_end().to_string();
                if c.truncated {
                    problems.push(InstructionProblem::Truncated {
                        path: f.clone(),
                        size: c.size,
                        limit: MAX_INSTRUCTION_BYTES,
                    });
                    // Model-facing, so English (like tool results).
                    t.push_str(&format!(
                        "\n\n[truncated: only the first {MAX_INSTRUCTION_BYTES} of {} bytes of {} are included]",
                        c.size,
                        f.file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_default()
                    ));
                }
                if !c.text.trim().is_empty() {
                    parts.push(t);
                    used.push((f.clone(), c.size));
                }
            }
            Err(reason) => problems.push(InstructionProblem::Refused {
                path: f.clone(),
                reason,
            }),
        }
    }
    InstructionsRead {
        text: (!parts.is_empty()).then(|| parts.join("\n\n")),
        problems,
        used,
        skipped: vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn an_instruction_file_symlinked_to_the_environment_is_refused_and_named() {
        let outer = tempfile::tempdir().unwrap();
        let ws = outer.path().join("ws");
        std::fs::create_dir(&ws).unwrap();
        std::fs::write(ws.join("RULES.md"), "use tabs").unwrap();
        std::os::unix::fs::symlink("/proc/self/environ", ws.join("AGENTS.md")).unwrap();
        std::fs::write(outer.path().join("outside_secret"), "outside words").unwrap();
        std::os::unix::fs::symlink("../outside_secret", ws.join("OTHER.md")).unwrap();
        let roots = fs_guard::canonical_roots(std::slice::from_ref(&ws));
        let files = [
            ws.join("RULES.md"),
            ws.join("AGENTS.md"),
            ws.join("OTHER.md"),
        ];
        let read = read_instructions(Some("base"), &files, &roots);
        assert_eq!(read.text.as_deref(), Some("base\n\nuse tabs"));
        assert_eq!(read.problems.len(), 2, "{:?}", read.problems);
        let l = Localizer::new(crate::i18n::Locale::EnUs);
        let first = read.problems[0].localized(l);
        assert!(first.contains("AGENTS.md"), "{first}");
        assert!(first.contains("environ"), "{first}");
        assert!(read.problems[1].localized(l).contains("outside_secret"));
    }

    #[test]
    fn an_instruction_file_over_the_cap_is_cut_with_a_note_and_a_warning() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("AGENTS.md");
        let f = std::fs::File::create(&p).unwrap();
        // 200 MB, sparse: no disk is used and nothing like it may be read.
        f.set_len(200 * 1024 * 1024).unwrap();
        drop(f);
        // A sparse file reads as NUL bytes; give it a text head instead.
        {
            use std::io::{Seek, Write};
            let mut f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
            f.seek(std::io::SeekFrom::Start(0)).unwrap();
            f.write_all(&vec![b'x'; MAX_INSTRUCTION_BYTES as usize + 10])
                .unwrap();
        }
        let roots = fs_guard::canonical_roots(&[d.path().to_path_buf()]);
        let read = read_instructions(None, std::slice::from_ref(&p), &roots);
        let text = read.text.unwrap();
        assert!(
            text.len() < MAX_INSTRUCTION_BYTES as usize + 200,
            "{}",
            text.len()
        );
        assert!(
            text.ends_with("of 209715200 bytes of AGENTS.md are included]"),
            "{}",
            &text[text.len() - 100..]
        );
        assert_eq!(
            read.problems,
            vec![InstructionProblem::Truncated {
                path: p,
                size: 200 * 1024 * 1024,
                limit: MAX_INSTRUCTION_BYTES
            }]
        );
    }

    #[test]
    fn the_roots_hold_the_workspace_the_config_directory_and_its_target() {
        let d = tempfile::tempdir().unwrap();
        let ws = d.path().join("ws");
        let cfg_dir = d.path().join("cfg");
        let dotfiles = d.path().join("dotfiles");
        for p in [&ws, &cfg_dir, &dotfiles] {
            std::fs::create_dir(p).unwrap();
        }
        std::fs::write(dotfiles.join("config.toml"), "").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dotfiles.join("config.toml"), cfg_dir.join("config.toml"))
            .unwrap();
        let roots = instruction_roots(&ws, Some(&cfg_dir.join("config.toml")));
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap();
        assert!(roots.contains(&canon(&ws)));
        assert!(roots.contains(&canon(&cfg_dir)));
        #[cfg(unix)]
        assert!(roots.contains(&canon(&dotfiles)));
        assert!(!roots.contains(&canon(d.path())));
    }

    #[cfg(unix)]
    #[test]
    fn an_instruction_file_swapped_for_a_fifo_after_loading_is_refused_instead_of_hanging() {
        let ws = tempfile::tempdir().unwrap();
        let agents = ws.path().join("AGENTS.md");
        std::fs::write(&agents, "rules").unwrap();
        let cfg = crate::config::Config::parse_in(
            "[instructions]\nfiles = [\"AGENTS.md\"]",
            None,
            ws.path(),
        )
        .unwrap();
        assert_eq!(cfg.read_instructions().text.as_deref(), Some("rules"));
        // Files are re-read on every request: swap in a FIFO with no writer.
        std::fs::remove_file(&agents).unwrap();
        let c = std::ffi::CString::new(agents.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(cfg.read_instructions());
        });
        let read = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("reading the instructions returned instead of hanging");
        assert_eq!(read.text, None);
        assert!(
            matches!(
                &read.problems[..],
                [InstructionProblem::Refused {
                    reason: Refusal::NotRegular(crate::fs_guard::SpecialKind::Fifo),
                    ..
                }]
            ),
            "{:?}",
            read.problems
        );
    }
}
