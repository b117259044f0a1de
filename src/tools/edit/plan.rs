//! Planning an edit: every new file content computed in memory and every target checked
//! before anything is written (SPEC §14.1 "all or nothing", decision 0045). The plan is
//! what the approval card shows ([`EditPlan::files`]) and what [`super::apply`] writes.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::EditError;
use super::patch::{self, Op};
use super::paths::{self, Resolved};
use super::report::{self, ChangeKind, FileChange};
use super::seek;
use crate::fs_guard::{self, OpenError, SpecialKind};
use crate::sandbox::{SandboxMode, WriteScope};

/// Largest file the edit tools read or write: 4 MiB. Larger files are refused (their diff
/// alone would swamp the model's context).
pub const MAX_EDIT_BYTES: u64 = 4 * 1024 * 1024;

/// What one path looks like before and after the whole edit.
#[derive(Debug, Clone)]
pub(crate) struct Write {
    /// Resolved target.
    pub path: PathBuf,
    /// Display form, for errors.
    pub display: String,
    /// The bytes and mode it had when planned (`None`: it did not exist).
    pub before: Option<(Vec<u8>, u32)>,
    /// What it becomes (`None`: deleted).
    pub after: Option<Vec<u8>>,
    /// Permission bits it gets: its own, or a moved file's; `None` for a new file (the
    /// process umask applies, as for any new file).
    pub mode: Option<u32>,
}

/// Everything an edit will do, computed and checked, nothing written yet.
#[derive(Debug, Clone)]
pub struct EditPlan {
    /// The tool (`apply_patch`, `edit_file`, `write_file`).
    pub tool: String,
    /// The changes, in the order the call made them.
    pub files: Vec<FileChange>,
    /// A note for the result header (`3 replacements`).
    pub note: Option<String>,
    /// The final state of every path touched, in a stable order.
    pub(crate) writes: Vec<Write>,
}

impl EditPlan {
    /// The result text the model gets once the plan is applied (English, stable).
    pub fn result_text(&self) -> String {
        report::result_text(&self.files, self.note.as_deref())
    }
}

/// A file as the overlay holds it.
#[derive(Debug, Clone)]
struct Slot {
    display: String,
    before: Option<(Vec<u8>, u32)>,
    /// Current text (`None`: does not exist now).
    now: Option<String>,
    /// Permission bits it will have (see [`Write::mode`]).
    mode: Option<u32>,
}

/// The files an edit has read, with the changes made so far, in memory only.
struct Overlay<'a> {
    scope: &'a WriteScope,
    slots: BTreeMap<PathBuf, Slot>,
}

/// How a file that exists is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Text {
    /// UTF-8 text without NUL bytes, or an error.
    Strict,
    /// Anything: shown lossily in the diff (write_file replacing a binary file).
    Lossy,
}

impl<'a> Overlay<'a> {
    fn new(scope: &'a WriteScope) -> Self {
        Overlay {
            scope,
            slots: BTreeMap::new(),
        }
    }

    fn resolve(&self, given: &str) -> Result<Resolved, EditError> {
        paths::resolve(self.scope, given)
    }

    /// The slot of `r`, read from disk the first time.
    fn slot(&mut self, r: &Resolved, text: Text) -> Result<&mut Slot, EditError> {
        if !self.slots.contains_key(&r.path) {
            let before = read_existing(r)?;
            let now = match &before {
                None => None,
                Some((bytes, _)) => Some(match text {
                    Text::Lossy => String::from_utf8_lossy(bytes).into_owned(),
                    Text::Strict => {
                        if bytes.contains(&0) {
                            return Err(EditError::Binary(r.display.clone()));
                        }
                        String::from_utf8(bytes.clone())
                            .map_err(|_| EditError::NotUtf8(r.display.clone()))?
                    }
                }),
            };
            self.slots.insert(
                r.path.clone(),
                Slot {
                    display: r.display.clone(),
                    mode: before.as_ref().map(|(_, m)| *m),
                    before,
                    now,
                },
            );
        }
        Ok(self.slots.get_mut(&r.path).expect("inserted above"))
    }

    /// The final state of every path whose content or existence changed.
    fn writes(self) -> Vec<Write> {
        self.slots
            .into_iter()
            .filter_map(|(path, s)| {
                let after = s.now.map(String::into_bytes);
                let unchanged = match (&s.before, &after) {
                    (None, None) => true,
                    (Some((b, _)), Some(a)) => b == a,
                    _ => false,
                };
                (!unchanged).then_some(Write {
                    path,
                    display: s.display,
                    before: s.before,
                    after,
                    mode: s.mode,
                })
            })
            .collect()
    }
}

/// The bytes and mode of the file at `r`, `None` when nothing is there. Only regular files
/// are read, without blocking ([`fs_guard::open_regular`]), and at most [`MAX_EDIT_BYTES`].
fn read_existing(r: &Resolved) -> Result<Option<(Vec<u8>, u32)>, EditError> {
    let shown = &r.display;
    let read = |error| EditError::Read {
        shown: shown.clone(),
        error,
    };
    match std::fs::symlink_metadata(&r.path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(read(e)),
        Ok(m) if m.file_type().is_symlink() => {
            // Resolution followed every link; one here appeared since.
            return Err(EditError::ChangedWhileRead(shown.clone()));
        }
        Ok(m) if !m.is_file() => return Err(not_regular(shown, SpecialKind::of(m.file_type()))),
        Ok(m) if m.len() > MAX_EDIT_BYTES => return Err(too_large(shown, m.len())),
        Ok(_) => {}
    }
    let file = fs_guard::open_regular(&r.path).map_err(|e| match e {
        OpenError::NotRegular(k) => not_regular(shown, k),
        OpenError::Io(e) => read(e),
    })?;
    use std::os::unix::fs::PermissionsExt;
    let mode = file.metadata().map_err(read)?.permissions().mode() & 0o777;
    let capped = fs_guard::read_capped(file, MAX_EDIT_BYTES).map_err(read)?;
    if capped.truncated {
        return Err(too_large(shown, capped.size.max(MAX_EDIT_BYTES + 1)));
    }
    Ok(Some((capped.bytes, mode)))
}

fn not_regular(shown: &str, kind: SpecialKind) -> EditError {
    EditError::NotRegular {
        shown: shown.to_string(),
        kind,
    }
}

fn too_large(shown: &str, size: u64) -> EditError {
    EditError::TooLarge {
        shown: shown.to_string(),
        size,
        limit: MAX_EDIT_BYTES,
    }
}

fn str_arg<'v>(args: &'v Value, key: &str) -> Result<&'v str, EditError> {
    match args.get(key) {
        Some(Value::String(s)) => Ok(s),
        None | Some(Value::Null) => Err(EditError::MissingArgument(key.to_string())),
        Some(_) => Err(EditError::NotAString(key.to_string())),
    }
}

fn bool_arg(args: &Value, key: &str) -> Result<bool, EditError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(EditError::NotABoolean(key.to_string())),
    }
}

fn check_size(what: &str, len: usize) -> Result<(), EditError> {
    if len as u64 > MAX_EDIT_BYTES {
        return Err(EditError::ArgumentTooLarge {
            what: what.to_string(),
            len,
            limit: MAX_EDIT_BYTES,
        });
    }
    Ok(())
}

/// Computes the plan of a call of `tool` with `args` under `scope`: every path resolved
/// and checked, every new content computed; nothing is written. The error is the tool
/// error the model gets.
pub fn preview(tool: &str, args: &Value, scope: &WriteScope) -> Result<EditPlan, EditError> {
    if scope.mode == SandboxMode::ReadOnly {
        return Err(EditError::ReadOnly(tool.to_string()));
    }
    let mut ov = Overlay::new(scope);
    let (files, note) = match tool {
        "apply_patch" => (plan_patch(&mut ov, args)?, None),
        "edit_file" => plan_edit(&mut ov, args)?,
        "write_file" => (plan_write(&mut ov, args)?, None),
        other => return Err(EditError::UnknownTool(other.to_string())),
    };
    Ok(EditPlan {
        tool: tool.to_string(),
        files,
        note,
        writes: ov.writes(),
    })
}

fn plan_patch(ov: &mut Overlay<'_>, args: &Value) -> Result<Vec<FileChange>, EditError> {
    let text = str_arg(args, "patch")?;
    check_size("patch", text.len())?;
    let patch = patch::parse(text).map_err(EditError::BadPatch)?;
    let mut files = Vec::new();
    let failed = |what: EditError| EditError::Patch(Box::new(what));
    for op in &patch.ops {
        match op {
            Op::Add { path, content, .. } => {
                let r = ov.resolve(path).map_err(failed)?;
                let slot = ov.slot(&r, Text::Strict).map_err(failed)?;
                if slot.now.is_some() {
                    return Err(failed(EditError::AddExisting(r.display)));
                }
                slot.now = Some(content.clone());
                files.push(report::change(
                    ChangeKind::Add,
                    &r.display,
                    None,
                    "",
                    content,
                ));
            }
            Op::Delete { path, .. } => {
                let r = ov.resolve(path).map_err(failed)?;
                let slot = ov.slot(&r, Text::Strict).map_err(failed)?;
                let Some(old) = slot.now.take() else {
                    return Err(failed(EditError::DeleteMissing(r.display)));
                };
                files.push(report::change(
                    ChangeKind::Delete,
                    &r.display,
                    None,
                    &old,
                    "",
                ));
            }
            Op::Update {
                path,
                move_to,
                chunks,
                ..
            } => {
                let r = ov.resolve(path).map_err(failed)?;
                let slot = ov.slot(&r, Text::Strict).map_err(failed)?;
                let Some(old) = slot.now.clone() else {
                    return Err(failed(EditError::UpdateMissing(r.display)));
                };
                let new = seek::apply_chunks(&old, chunks).map_err(|m| {
                    failed(EditError::HunkMismatch {
                        chunk_line: m.chunk_line,
                        shown: r.display.clone(),
                        line: m.line,
                    })
                })?;
                let dest = match move_to {
                    Some(to) => Some(ov.resolve(to).map_err(failed)?),
                    None => None,
                };
                match dest.filter(|d| d.path != r.path) {
                    None => {
                        ov.slot(&r, Text::Strict).map_err(failed)?.now = Some(new.clone());
                        files.push(report::change(
                            ChangeKind::Update,
                            &r.display,
                            None,
                            &old,
                            &new,
                        ));
                    }
                    Some(d) => {
                        let target = ov.slot(&d, Text::Strict).map_err(failed)?;
                        if target.now.is_some() {
                            return Err(failed(EditError::MoveOntoExisting {
                                from: r.display,
                                to: d.display,
                            }));
                        }
                        target.now = Some(new.clone());
                        let source = ov.slot(&r, Text::Strict).map_err(failed)?;
                        source.now = None;
                        let mode = source.mode;
                        ov.slot(&d, Text::Strict).map_err(failed)?.mode = mode;
                        files.push(report::change(
                            ChangeKind::Move,
                            &d.display,
                            Some(&r.display),
                            &old,
                            &new,
                        ));
                    }
                }
            }
        }
    }
    Ok(files)
}

fn plan_edit(
    ov: &mut Overlay<'_>,
    args: &Value,
) -> Result<(Vec<FileChange>, Option<String>), EditError> {
    let given = str_arg(args, "path")?;
    let old_string = str_arg(args, "old_string")?;
    let new_string = str_arg(args, "new_string")?;
    let replace_all = bool_arg(args, "replace_all")?;
    check_size("new_string", new_string.len())?;
    if old_string.is_empty() {
        return Err(EditError::EmptyOldString);
    }
    if old_string == new_string {
        return Err(EditError::NothingToChange);
    }
    let r = ov.resolve(given)?;
    let slot = ov.slot(&r, Text::Strict)?;
    let Some(old) = slot.now.clone() else {
        return Err(EditError::EditMissing(r.display));
    };
    let count = old.matches(old_string).count();
    if count == 0 {
        return Err(EditError::NoMatch(r.display));
    }
    if count > 1 && !replace_all {
        return Err(EditError::NotUnique {
            count,
            shown: r.display,
        });
    }
    let new = if replace_all {
        old.replace(old_string, new_string)
    } else {
        old.replacen(old_string, new_string, 1)
    };
    check_size("the edited file", new.len())?;
    slot.now = Some(new.clone());
    let note = (count > 1).then(|| format!("{count} replacements"));
    Ok((
        vec![report::change(
            ChangeKind::Update,
            &r.display,
            None,
            &old,
            &new,
        )],
        note,
    ))
}

fn plan_write(ov: &mut Overlay<'_>, args: &Value) -> Result<Vec<FileChange>, EditError> {
    let given = str_arg(args, "path")?;
    let content = str_arg(args, "content")?;
    check_size("content", content.len())?;
    let r = ov.resolve(given)?;
    let slot = ov.slot(&r, Text::Lossy)?;
    let old = slot.now.replace(content.to_string());
    let kind = if old.is_some() {
        ChangeKind::Update
    } else {
        ChangeKind::Add
    };
    Ok(vec![report::change(
        kind,
        &r.display,
        None,
        old.as_deref().unwrap_or(""),
        content,
    )])
}
