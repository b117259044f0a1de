//! Custom slash commands (SPEC §14.4, decision 0089): every `*.md` file in the workspace's
//! `.deepterm/commands/` and `.claude/commands/` and in the user config directory's
//! `commands/` is a command named after the file. Its text, with `$ARGUMENTS` replaced, is
//! sent as the user message; a `description:` front-matter line feeds the popup and
//! `/help`, and `argument-hint:` its argument synopsis.
//!
//! The files are someone else's: each is read through `fs_guard::read_confined` (regular
//! files only, never through a symlink out of its directory's root, at most
//! [`MAX_COMMAND_BYTES`]), and anything wrong with one is a warning that names it, never a
//! failure of the start.

use std::path::{Path, PathBuf};

use crate::agent::command_spec::OfferedCommand;
use crate::fs_guard::{self, Refusal};
use crate::i18n::{Arg, Text};

/// Bytes of one command file read at most; a larger file is refused.
pub const MAX_COMMAND_BYTES: u64 = 64 * 1024;
/// Files looked at in one directory at most.
pub const MAX_COMMANDS_PER_DIR: usize = 200;
/// Characters of a description or argument hint kept (one line in the popup).
const MAX_DESCRIPTION_CHARS: usize = 200;

/// One custom command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomCommand {
    /// The name including `/`.
    pub name: String,
    /// The `description:` line, if any (control characters removed).
    pub description: Option<String>,
    /// The `argument-hint:` line, if any.
    pub argument_hint: Option<String>,
    /// The text sent, before `$ARGUMENTS` is replaced.
    pub template: String,
    /// The file it came from.
    pub path: PathBuf,
}

impl CustomCommand {
    /// The message sent for `/name ARGS`: the template with every `$ARGUMENTS` replaced
    /// by `args`; arguments given to a template without the placeholder are appended
    /// (`ARGUMENTS: …`), so they are never lost silently.
    pub fn expand(&self, args: &str) -> String {
        let args = args.trim();
        let body = self.template.trim();
        if body.contains("$ARGUMENTS") {
            body.replace("$ARGUMENTS", args)
        } else if args.is_empty() {
            body.to_string()
        } else {
            format!("{body}\n\nARGUMENTS: {args}")
        }
    }

    /// What the popup, key help and `/help` show of it.
    pub fn offered(&self) -> OfferedCommand {
        OfferedCommand {
            name: self.name.clone(),
            description: self.description.clone(),
            argument_hint: self.argument_hint.clone(),
        }
    }

    /// Its `/help` line.
    pub fn help_line(&self) -> Text {
        let description = match &self.description {
            Some(d) => Arg::from(d.as_str()),
            None => Arg::from(Text::new("cmd-custom-no-description", vec![])),
        };
        let args = match &self.argument_hint {
            Some(h) => Arg::from(h.as_str()),
            None => Arg::from(Text::new("cmd-custom-args", vec![])),
        };
        let left = Text::new(
            "cmd-help-synopsis",
            vec![("name", Arg::from(self.name.as_str())), ("args", args)],
        );
        crate::agent::protocol::output_row(Arg::from(left), description)
    }
}

/// Something wrong with a command file, told to the user as a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandProblem {
    /// The file was not read, and why.
    Refused {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: Refusal,
    },
    /// The file is larger than [`MAX_COMMAND_BYTES`].
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// The file name is not a command name (`[A-Za-z0-9_-]{1,64}.md`).
    BadName {
        /// The file.
        path: PathBuf,
    },
    /// A built-in command has the name: the built-in is kept.
    Clash {
        /// The name including `/`.
        name: String,
        /// The file.
        path: PathBuf,
    },
    /// An earlier directory already has a command of this name; it is kept.
    Shadowed {
        /// The name including `/`.
        name: String,
        /// The file ignored.
        path: PathBuf,
        /// The file kept.
        kept: PathBuf,
    },
}

impl CommandProblem {
    /// The Fluent id and arguments of the warning (re-rendered on `/lang`).
    pub fn message(&self) -> (&'static str, Vec<(&'static str, Arg)>) {
        let p = |p: &Path| Arg::from(p.display().to_string());
        match self {
            CommandProblem::Refused { path, reason } => {
                let why = match reason {
                    Refusal::Missing => Text::new("cmd-custom-why-missing", vec![]),
                    Refusal::Outside { target } => {
                        Text::new("cmd-custom-why-outside", vec![("target", p(target))])
                    }
                    Refusal::NotRegular(kind) => Text::new(
                        "cmd-custom-why-not-regular",
                        vec![(
                            "kind",
                            Arg::from(Text::new(&crate::config::kind_key(*kind), vec![])),
                        )],
                    ),
                    Refusal::NotText => Text::new("cmd-custom-why-not-text", vec![]),
                    Refusal::Unreadable { detail } => Text::new(
                        "cmd-custom-why-unreadable",
                        vec![("detail", Arg::from(detail.as_str()))],
                    ),
                };
                (
                    "cmd-custom-refused",
                    vec![("path", p(path)), ("reason", Arg::from(why))],
                )
            }
            CommandProblem::TooLarge { path } => (
                "cmd-custom-too-large",
                vec![
                    ("path", p(path)),
                    ("kib", Arg::from(MAX_COMMAND_BYTES / 1024)),
                ],
            ),
            CommandProblem::BadName { path } => ("cmd-custom-bad-name", vec![("path", p(path))]),
            CommandProblem::Clash { name, path } => (
                "cmd-custom-clash",
                vec![("name", Arg::from(name.as_str())), ("path", p(path))],
            ),
            CommandProblem::Shadowed { name, path, kept } => (
                "cmd-custom-shadowed",
                vec![
                    ("name", Arg::from(name.as_str())),
                    ("path", p(path)),
                    ("kept", p(kept)),
                ],
            ),
        }
    }
}

/// The commands found and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LoadedCommands {
    /// Usable commands, in directory order then by name.
    pub commands: Vec<CustomCommand>,
    /// Files skipped, and why.
    pub problems: Vec<CommandProblem>,
}

/// The directories read, in precedence order, each with the root its files must stay in.
pub fn command_dirs(workspace: &Path, user_config_dir: Option<&Path>) -> Vec<(PathBuf, PathBuf)> {
    let mut dirs = vec![
        (
            workspace.join(".deepterm/commands"),
            workspace.to_path_buf(),
        ),
        (workspace.join(".claude/commands"), workspace.to_path_buf()),
    ];
    if let Some(u) = user_config_dir {
        dirs.push((u.join("commands"), u.to_path_buf()));
    }
    dirs
}

/// Reads every command of `dirs` (see [`command_dirs`]); `is_builtin` says whether a
/// name (with `/`) belongs to a built-in command or alias.
pub fn load(dirs: &[(PathBuf, PathBuf)], is_builtin: impl Fn(&str) -> bool) -> LoadedCommands {
    let mut out = LoadedCommands::default();
    for (dir, root) in dirs {
        let roots = fs_guard::canonical_roots(std::slice::from_ref(root));
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.extension().is_some_and(|e| e == "md")
                    && !p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .take(MAX_COMMANDS_PER_DIR * 4)
            .collect();
        paths.sort();
        paths.truncate(MAX_COMMANDS_PER_DIR);
        for path in paths {
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !valid_name(&stem) {
                out.problems.push(CommandProblem::BadName { path });
                continue;
            }
            let name = format!("/{stem}");
            if is_builtin(&name) {
                out.problems.push(CommandProblem::Clash { name, path });
                continue;
            }
            if let Some(kept) = out.commands.iter().find(|c| c.name == name) {
                out.problems.push(CommandProblem::Shadowed {
                    name,
                    kept: kept.path.clone(),
                    path,
                });
                continue;
            }
            match fs_guard::read_confined(&path, &roots, MAX_COMMAND_BYTES) {
                Ok(t) if t.truncated => out.problems.push(CommandProblem::TooLarge { path }),
                Ok(t) => {
                    let (front, body) = split_front_matter(&t.text);
                    out.commands.push(CustomCommand {
                        name,
                        description: front_value(front, "description"),
                        argument_hint: front_value(front, "argument-hint"),
                        template: body.to_string(),
                        path,
                    });
                }
                Err(reason) => out.problems.push(CommandProblem::Refused { path, reason }),
            }
        }
    }
    out
}

/// A command name: 1–64 letters, digits, `_` or `-`.
fn valid_name(s: &str) -> bool {
    (1..=64).contains(&s.len())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The front matter (between a first line `---` and the next `---` line) and the body.
/// Without front matter the whole text is the body.
fn split_front_matter(text: &str) -> (&str, &str) {
    let t = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = t
        .strip_prefix("---\n")
        .or_else(|| t.strip_prefix("---\r\n"))
    else {
        return ("", t);
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return (&rest[..offset], &rest[offset + line.len()..]);
        }
        offset += line.len();
    }
    ("", t)
}

/// The value of `key: value` in front matter, unquoted, one line without control
/// characters, cut to a popup line.
fn front_value(front: &str, key: &str) -> Option<String> {
    let v = front.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.trim())
    })?;
    let v = v
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .or_else(|| v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
        .unwrap_or(v);
    let clean: String = v
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_DESCRIPTION_CHARS)
        .collect();
    let clean = clean.trim().to_string();
    (!clean.is_empty()).then_some(clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs(ws: &Path, user: &Path) -> Vec<(PathBuf, PathBuf)> {
        command_dirs(ws, Some(user))
    }

    fn builtin(n: &str) -> bool {
        crate::agent::command_spec::find_builtin(n).is_some()
    }

    #[test]
    fn commands_come_from_every_directory_with_front_matter_and_arguments() {
        let ws = tempfile::tempdir().unwrap();
        let user = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(ws.path().join(".deepterm/commands")).unwrap();
        std::fs::create_dir_all(ws.path().join(".claude/commands")).unwrap();
        std::fs::create_dir_all(user.path().join("commands")).unwrap();
        std::fs::write(
            ws.path().join(".deepterm/commands/audit.md"),
            "---\ndescription: \"Audit a file\"\nargument-hint: FILE\n---\nAudit $ARGUMENTS carefully.\n",
        )
        .unwrap();
        std::fs::write(ws.path().join(".claude/commands/fix.md"), "Fix the bug.\n").unwrap();
        std::fs::write(user.path().join("commands/audit.md"), "mine\n").unwrap();
        std::fs::write(user.path().join("commands/notes.txt"), "not a command").unwrap();
        let got = load(&dirs(ws.path(), user.path()), builtin);
        let names: Vec<&str> = got.commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["/audit", "/fix"]);
        let audit = &got.commands[0];
        assert_eq!(audit.description.as_deref(), Some("Audit a file"));
        assert_eq!(audit.argument_hint.as_deref(), Some("FILE"));
        assert_eq!(audit.expand(" src/a.rs "), "Audit src/a.rs carefully.");
        assert_eq!(got.commands[1].expand(""), "Fix the bug.");
        assert_eq!(
            got.commands[1].expand("fast"),
            "Fix the bug.\n\nARGUMENTS: fast"
        );
        // The user's `/audit` is shadowed by the workspace's, and says so.
        assert!(
            matches!(&got.problems[..], [CommandProblem::Shadowed { name, .. }] if name == "/audit")
        );
    }

    #[test]
    fn a_builtin_name_wins_and_bad_names_are_warnings() {
        let ws = tempfile::tempdir().unwrap();
        let d = ws.path().join(".deepterm/commands");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("help.md"), "not the help").unwrap();
        std::fs::write(d.join("exit.md"), "an alias too").unwrap();
        std::fs::write(d.join("two words.md"), "x").unwrap();
        let got = load(&command_dirs(ws.path(), None), builtin);
        assert!(got.commands.is_empty(), "{:?}", got.commands);
        let clashes = got
            .problems
            .iter()
            .filter(|p| matches!(p, CommandProblem::Clash { .. }))
            .count();
        assert_eq!(clashes, 2);
        assert!(
            got.problems
                .iter()
                .any(|p| matches!(p, CommandProblem::BadName { .. }))
        );
    }

    #[test]
    fn hostile_files_are_refused_not_read() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret.md");
        std::fs::write(&secret, "the secret").unwrap();
        let d = ws.path().join(".deepterm/commands");
        std::fs::create_dir_all(&d).unwrap();
        std::os::unix::fs::symlink(&secret, d.join("leak.md")).unwrap();
        std::fs::write(d.join("big.md"), "x".repeat(MAX_COMMAND_BYTES as usize + 1)).unwrap();
        std::fs::write(d.join("bin.md"), b"a\0b").unwrap();
        let fifo = d.join("pipe.md");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo only creates a file system entry from a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // Without the confinement the symlink would be read: it points at a real file.
        assert_eq!(
            std::fs::read_to_string(d.join("leak.md")).unwrap(),
            "the secret"
        );
        let got = load(&command_dirs(ws.path(), None), builtin);
        assert!(got.commands.is_empty(), "{:?}", got.commands);
        assert_eq!(got.problems.len(), 4, "{:?}", got.problems);
        for p in &got.problems {
            let (key, _) = p.message();
            assert!(key.starts_with("cmd-custom-"), "{key}");
        }
        assert!(got.problems.iter().any(|p| matches!(
            p,
            CommandProblem::Refused {
                reason: Refusal::Outside { .. },
                ..
            }
        )));
        assert!(
            got.problems
                .iter()
                .any(|p| matches!(p, CommandProblem::TooLarge { .. }))
        );
    }

    #[test]
    fn front_matter_values_are_one_clean_line() {
        let (front, body) = split_front_matter("---\ndescription: a\u{1b}[31mb\n---\nbody");
        assert_eq!(body, "body");
        assert_eq!(front_value(front, "description").as_deref(), Some("a[31mb"));
        assert_eq!(split_front_matter("no front\n---\n").0, "");
        assert_eq!(split_front_matter("---\nunclosed").1, "---\nunclosed");
    }
}
