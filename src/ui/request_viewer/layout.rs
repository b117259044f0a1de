//! A document cut into display rows at one width, and the search over its lines.
//!
//! A row is a byte range of one logical line, so a 4 MB body is wrapped once per width
//! (the viewer caches the rows) and each frame only draws the rows it shows. Matches are
//! byte ranges of logical lines too, so a match that a row break splits is still found
//! and is highlighted on both rows.

use std::ops::Range;

use super::doc::Doc;
use crate::ui::text::wrap_ranges;

/// One display row: a byte range of one logical line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// The logical line.
    pub line: u32,
    /// Start byte in the line's text.
    pub start: u32,
    /// End byte in the line's text.
    pub end: u32,
}

/// The indent a line keeps at `width` columns: never more than half the width, so
/// deeply nested JSON still shows its text.
pub fn indent_at(indent: u16, width: usize) -> usize {
    (indent as usize).min(width / 2)
}

/// `doc`'s rows at `width` columns: each line wraps at UAX #14 break opportunities with
/// the same breaks as the chat's wrapping (`ui::text`), continuation rows keeping the
/// line's indent.
pub fn rows(doc: &Doc, width: usize) -> Vec<Row> {
    let width = width.max(1);
    let mut out = Vec::with_capacity(doc.lines.len());
    for (i, l) in doc.lines.iter().enumerate() {
        let avail = width.saturating_sub(indent_at(l.indent, width)).max(1);
        if l.text.is_empty() {
            out.push(Row {
                line: i as u32,
                start: 0,
                end: 0,
            });
            continue;
        }
        for r in wrap_ranges(&l.text, avail) {
            out.push(Row {
                line: i as u32,
                start: r.start as u32,
                end: r.end as u32,
            });
        }
    }
    out
}

/// The index of the row that holds byte `at` of line `line`.
pub fn row_of(rows: &[Row], line: usize, at: usize) -> usize {
    let key = (line as u32, at as u32);
    rows.partition_point(|r| (r.line, r.start) <= key)
        .saturating_sub(1)
}

/// One match: a byte range of one logical line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// The logical line.
    pub line: usize,
    /// Bytes of the line's text.
    pub range: Range<usize>,
}

/// Every occurrence of `query` in `doc`'s lines, in order. Smart case: a query with no
/// capital letter ignores ASCII case. Matches do not overlap.
pub fn find_all(doc: &Doc, query: &str) -> Vec<Match> {
    if query.is_empty() {
        return Vec::new();
    }
    let fold = !query.chars().any(char::is_uppercase);
    let needle: Vec<u8> = if fold {
        query.to_ascii_lowercase().into_bytes()
    } else {
        query.as_bytes().to_vec()
    };
    let mut out = Vec::new();
    for (i, l) in doc.lines.iter().enumerate() {
        let hay = l.text.as_bytes();
        if hay.len() < needle.len() {
            continue;
        }
        let mut at = 0;
        while at + needle.len() <= hay.len() {
            let w = &hay[at..at + needle.len()];
            let hit = if fold {
                w.eq_ignore_ascii_case(&needle)
            } else {
                w == needle.as_slice()
            };
            // UTF-8 is self-synchronizing: a match of a whole UTF-8 needle starts and
            // ends on character boundaries.
            if hit {
                out.push(Match {
                    line: i,
                    range: at..at + needle.len(),
                });
                at += needle.len();
            } else {
                at += 1;
            }
        }
    }
    out
}
