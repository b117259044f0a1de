//! What two snapshots disagree on, and the unified diff of one file (SPEC §14.3 `/diff`).

use super::Manifest;

/// The paths `a` and `b` disagree on (added, removed or changed), sorted. A file over the
/// cap in either is compared by size only: it is listed when the size changed.
pub fn changed_paths(a: &Manifest, b: &Manifest) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (p, ea) in &a.files {
        match b.files.get(p) {
            Some(eb) if eb.hash == ea.hash => {}
            _ => out.push(p.clone()),
        }
    }
    for p in b.files.keys() {
        if !a.files.contains_key(p) {
            out.push(p.clone());
        }
    }
    for s in &b.skipped {
        let before = a.skipped.iter().find(|x| x.path == s.path);
        if before.is_none_or(|x| x.size != s.size) && !out.contains(&s.path) {
            out.push(s.path.clone());
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Lines added and removed between two texts.
pub fn counts(before: &str, after: &str) -> (usize, usize) {
    let d = similar::TextDiff::from_lines(before, after);
    let mut add = 0;
    let mut del = 0;
    for c in d.iter_all_changes() {
        match c.tag() {
            similar::ChangeTag::Insert => add += 1,
            similar::ChangeTag::Delete => del += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    (add, del)
}

/// One file's change as a plain unified diff (`--- a/P`, `+++ b/P`, hunks with three lines
/// of context); `/dev/null` stands for a side without the file. `None` for a side that is
/// binary or unknown: the caller says so instead.
pub fn unified(path: &str, before: Option<&str>, after: Option<&str>) -> String {
    let old_name = match before {
        Some(_) => format!("a/{path}"),
        None => "/dev/null".to_string(),
    };
    let new_name = match after {
        Some(_) => format!("b/{path}"),
        None => "/dev/null".to_string(),
    };
    let d = similar::TextDiff::from_lines(before.unwrap_or(""), after.unwrap_or(""));
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    for hunk in d.unified_diff().context_radius(3).iter_hunks() {
        let h = hunk.to_string();
        out.push_str(&h);
        if !h.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}
