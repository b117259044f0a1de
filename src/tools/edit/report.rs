//! What an edit says it did (SPEC §14.1, §5): the result text the model gets and the log
//! keeps, and the parser that recovers the per-file cards from a logged result, so a
//! resumed session shows the same `▸ Edited PATH · +A −R` cards.
//!
//! The text is English and stable:
//!
//! ```text
//! Changed 2 files:
//! updated src/lib.rs (+1 -1)
//! moved src/a.rs -> src/b.rs (+0 -0)
//!
//! diff --git a/src/lib.rs b/src/lib.rs
//! --- a/src/lib.rs
//! +++ b/src/lib.rs
//! @@ -1,3 +1,3 @@
//! ...
//! ```
//!
//! Every diff starts with a `diff --git` line, which no diff body line can look like (body
//! lines start with ` `, `+`, `-`, `@` or `\`), so the diffs split back exactly; they are
//! matched to the summary lines by order. The diffs in the result are capped at
//! [`MAX_RESULT_DIFF_BYTES`]; the approval card gets the whole diff from the plan.

use std::time::Duration;

use similar::{ChangeTag, TextDiff};

/// Most bytes of diff text a result carries; the rest is cut with a note.
pub const MAX_RESULT_DIFF_BYTES: usize = 64 * 1024;

/// Longest a diff may take to compute before a coarser (still correct) one is used.
const DIFF_DEADLINE: Duration = Duration::from_secs(2);

/// One file change as the approval card and the Chat card show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Path shown (relative to the workspace with `/`, or absolute).
    pub display: String,
    /// For a move, the path it moved from.
    pub from: Option<String>,
    /// What happens to the file.
    pub kind: ChangeKind,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// The unified diff (`diff --git` header, `---`/`+++`, hunks).
    pub diff: String,
}

/// What happened to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// Created.
    Add,
    /// Changed in place.
    Update,
    /// Deleted.
    Delete,
    /// Moved (and possibly changed).
    Move,
}

impl ChangeKind {
    /// The verb of the summary line.
    pub fn verb(self) -> &'static str {
        match self {
            ChangeKind::Add => "added",
            ChangeKind::Update => "updated",
            ChangeKind::Delete => "deleted",
            ChangeKind::Move => "moved",
        }
    }

    fn from_verb(v: &str) -> Option<ChangeKind> {
        Some(match v {
            "added" => ChangeKind::Add,
            "updated" => ChangeKind::Update,
            "deleted" => ChangeKind::Delete,
            "moved" => ChangeKind::Move,
            _ => return None,
        })
    }
}

/// The change of one file from `old` to `new`, with its unified diff and line counts.
pub fn change(
    kind: ChangeKind,
    display: &str,
    from: Option<&str>,
    old: &str,
    new: &str,
) -> FileChange {
    let diff = TextDiff::configure()
        .timeout(DIFF_DEADLINE)
        .diff_lines(old, new);
    let (mut added, mut removed) = (0, 0);
    for c in diff.iter_all_changes() {
        match c.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    let a = from.unwrap_or(display);
    let old_name = if kind == ChangeKind::Add {
        "/dev/null".to_string()
    } else {
        format!("a/{a}")
    };
    let new_name = if kind == ChangeKind::Delete {
        "/dev/null".to_string()
    } else {
        format!("b/{display}")
    };
    let mut text = format!("diff --git a/{a} b/{display}\n");
    if let Some(from) = from {
        text.push_str(&format!("rename from {from}\nrename to {display}\n"));
    }
    let body = diff
        .unified_diff()
        .context_radius(3)
        .header(&old_name, &new_name)
        .to_string();
    if body.is_empty() && kind != ChangeKind::Move {
        // An empty file added or deleted, or no change: the headers still say which.
        text.push_str(&format!("--- {old_name}\n+++ {new_name}\n"));
    }
    text.push_str(&body);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    FileChange {
        display: display.to_string(),
        from: from.map(str::to_string),
        kind,
        added,
        removed,
        diff: text,
    }
}

/// The summary line of one change (without newline).
fn summary_line(f: &FileChange) -> String {
    let path = match &f.from {
        Some(from) => format!("{from} -> {}", f.display),
        None => f.display.clone(),
    };
    format!("{} {path} (+{} -{})", f.kind.verb(), f.added, f.removed)
}

/// The result text of an applied edit.
pub fn result_text(files: &[FileChange], note: Option<&str>) -> String {
    let n = files.len();
    let mut out = format!("Changed {n} file{}", if n == 1 { "" } else { "s" });
    if let Some(note) = note {
        out.push_str(&format!(" ({note})"));
    }
    out.push_str(":\n");
    for f in files {
        out.push_str(&summary_line(f));
        out.push('\n');
    }
    let diffs: String = files.iter().map(|f| f.diff.as_str()).collect();
    if !diffs.is_empty() {
        out.push('\n');
        if diffs.len() <= MAX_RESULT_DIFF_BYTES {
            out.push_str(&diffs);
        } else {
            // At the last whole line within the cap ('\n' is a character boundary; the cap
            // itself may fall inside a character, so it is moved to one first).
            let mut cap = MAX_RESULT_DIFF_BYTES;
            while !diffs.is_char_boundary(cap) {
                cap -= 1;
            }
            let cut = diffs[..cap].rfind('\n').map_or(0, |i| i + 1);
            out.push_str(&diffs[..cut]);
            out.push_str(&format!(
                "{CUT_NOTE_START}{cut} of {} bytes of diff shown; the files were changed in full]\n",
                diffs.len()
            ));
        }
    }
    out
}

const CUT_NOTE_START: &str = "[diff cut: ";

/// One file of a logged edit result, as the Chat card shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditedFile {
    /// What happened.
    pub kind: ChangeKind,
    /// The path (for a move, the destination).
    pub path: String,
    /// For a move, the source.
    pub from: Option<String>,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// Its unified diff (empty when the result's diffs were cut before it).
    pub diff: String,
}

/// A logged edit result taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditSummary {
    /// The files, in result order.
    pub files: Vec<EditedFile>,
    /// The diffs were cut (the last diff is partial, later ones are empty).
    pub diff_cut: bool,
}

/// `(+A -R)` at the end of a summary line (`−` accepted for `-`).
fn counts(line: &str) -> Option<(&str, usize, usize)> {
    let open = line.rfind(" (+")?;
    let inner = line[open + 3..].strip_suffix(')')?;
    let (a, r) = inner.split_once(" -").or_else(|| inner.split_once(" −"))?;
    Some((&line[..open], a.parse().ok()?, r.parse().ok()?))
}

/// Recovers the files of an edit result written by [`result_text`]; `None` for any other
/// text (an error, another tool's output).
pub fn parse_result(text: &str) -> Option<EditSummary> {
    let mut lines = text.split_inclusive('\n');
    let header = lines.next()?.trim_end_matches('\n');
    if !header.starts_with("Changed ") || !header.ends_with(':') {
        return None;
    }
    let mut files = Vec::new();
    let mut rest = String::new();
    for line in lines.by_ref() {
        let l = line.trim_end_matches('\n');
        if l.is_empty() {
            break;
        }
        let (head, added, removed) = counts(l)?;
        let (verb, path) = head.split_once(' ')?;
        let kind = ChangeKind::from_verb(verb)?;
        let (from, path) = match (kind, path.split_once(" -> ")) {
            (ChangeKind::Move, Some((a, b))) => (Some(a.to_string()), b.to_string()),
            _ => (None, path.to_string()),
        };
        files.push(EditedFile {
            kind,
            path,
            from,
            added,
            removed,
            diff: String::new(),
        });
    }
    for line in lines {
        rest.push_str(line);
    }
    let mut diff_cut = false;
    if let Some(i) = rest.rfind(CUT_NOTE_START)
        && (i == 0 || rest.as_bytes()[i - 1] == b'\n')
    {
        rest.truncate(i);
        diff_cut = true;
    }
    let mut diffs: Vec<String> = Vec::new();
    for line in rest.split_inclusive('\n') {
        if line.starts_with("diff --git ") || diffs.is_empty() {
            diffs.push(String::new());
        }
        diffs.last_mut().expect("pushed above").push_str(line);
    }
    for (f, d) in files.iter_mut().zip(diffs) {
        f.diff = d;
    }
    Some(EditSummary { files, diff_cut })
}
