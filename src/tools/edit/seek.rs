//! Applying an update's chunks to a file's text (SPEC §14.1, decision 0045).
//!
//! Context is found in three passes, each over the whole search range before the next is
//! tried: exactly, then ignoring trailing whitespace, then ignoring all surrounding
//! whitespace. Chunks are found in order, each after the previous one, so a patch can never
//! rewrite a region twice. A file with CRLF line ends is matched line by line without the
//! `\r` and written back with CRLF; whether the file ends with a newline is kept.

use super::patch::Chunk;

/// A chunk whose lines were not found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The first line of the chunk that could not be found where it should be (the
    /// `@@` context line, or the first expected line that breaks the match).
    pub line: String,
    /// Patch line of the chunk.
    pub chunk_line: usize,
}

/// How strictly two lines are compared, in the order the passes run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    Exact,
    TrimEnd,
    Trim,
}

const PASSES: [Pass; 3] = [Pass::Exact, Pass::TrimEnd, Pass::Trim];

fn same(pass: Pass, a: &str, b: &str) -> bool {
    match pass {
        Pass::Exact => a == b,
        Pass::TrimEnd => a.trim_end() == b.trim_end(),
        Pass::Trim => a.trim() == b.trim(),
    }
}

fn matches_at(lines: &[String], pattern: &[String], at: usize, pass: Pass) -> bool {
    lines[at..at + pattern.len()]
        .iter()
        .zip(pattern)
        .all(|(l, p)| same(pass, l, p))
}

/// Where `pattern` starts in `lines` at or after `start`, trying each pass over the whole
/// range before the next. With `eof`, a match that ends the file is preferred (the chunk
/// said `*** End of File`); elsewhere is accepted only when there is none at the end.
pub fn seek(lines: &[String], pattern: &[String], start: usize, eof: bool) -> Option<usize> {
    if pattern.is_empty() {
        return Some(start.min(lines.len()));
    }
    if pattern.len() > lines.len() {
        return None;
    }
    let last = lines.len() - pattern.len();
    if eof && last >= start {
        for pass in PASSES {
            if matches_at(lines, pattern, last, pass) {
                return Some(last);
            }
        }
    }
    for pass in PASSES {
        if let Some(i) = (start..=last).find(|&i| matches_at(lines, pattern, i, pass)) {
            return Some(i);
        }
    }
    None
}

/// A file's text split into lines, with how to put it back together.
struct Lines {
    lines: Vec<String>,
    crlf: bool,
    final_newline: bool,
}

impl Lines {
    fn split(text: &str) -> Lines {
        let newlines = text.matches('\n').count();
        let crlf = newlines > 0 && text.matches("\r\n").count() == newlines;
        let final_newline = text.ends_with('\n');
        let body = text.strip_suffix('\n').unwrap_or(text);
        let lines = if text.is_empty() {
            Vec::new()
        } else {
            body.split('\n')
                .map(|l| {
                    if crlf {
                        l.strip_suffix('\r').unwrap_or(l).to_string()
                    } else {
                        l.to_string()
                    }
                })
                .collect()
        };
        Lines {
            lines,
            crlf,
            final_newline,
        }
    }

    fn join(&self, lines: &[String]) -> String {
        if lines.is_empty() {
            return String::new();
        }
        let eol = if self.crlf { "\r\n" } else { "\n" };
        let mut out = lines.join(eol);
        // An empty file had no newline to keep; text added to it ends with one.
        if self.final_newline || self.lines.is_empty() {
            out.push_str(eol);
        }
        out
    }
}

/// One resolved chunk: replace `len` lines at `at` with `with`.
struct Replacement {
    at: usize,
    len: usize,
    with: Vec<String>,
}

/// `original` with every chunk applied, or the first chunk that does not match.
pub fn apply_chunks(original: &str, chunks: &[Chunk]) -> Result<String, Mismatch> {
    let file = Lines::split(original);
    let lines = &file.lines;
    let mut reps: Vec<Replacement> = Vec::new();
    let mut next = 0usize;
    for chunk in chunks {
        if let Some(ctx) = &chunk.context {
            let Some(i) = seek(lines, std::slice::from_ref(ctx), next, false) else {
                return Err(Mismatch {
                    line: ctx.clone(),
                    chunk_line: chunk.line,
                });
            };
            next = i + 1;
        }
        if chunk.old.is_empty() {
            // Pure addition: after the `@@` context line when there is one, else at the end.
            let at = if chunk.context.is_some() && !chunk.eof {
                next
            } else {
                lines.len()
            };
            reps.push(Replacement {
                at,
                len: 0,
                with: chunk.new.clone(),
            });
            next = at;
            continue;
        }
        let mut old: &[String] = &chunk.old;
        let mut new: &[String] = &chunk.new;
        let mut found = seek(lines, old, next, chunk.eof);
        // A last empty "line" often stands for the file's final newline.
        if found.is_none() && old.last().is_some_and(String::is_empty) {
            old = &old[..old.len() - 1];
            if new.last().is_some_and(String::is_empty) {
                new = &new[..new.len() - 1];
            }
            found = if old.is_empty() {
                None
            } else {
                seek(lines, old, next, chunk.eof)
            };
        }
        let Some(at) = found else {
            return Err(Mismatch {
                line: first_missing(lines, &chunk.chunk_old_trimmed(), next),
                chunk_line: chunk.line,
            });
        };
        reps.push(Replacement {
            at,
            len: old.len(),
            with: new.to_vec(),
        });
        next = at + old.len();
    }
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut cursor = 0;
    for r in reps {
        out.extend(lines[cursor..r.at].iter().cloned());
        out.extend(r.with);
        cursor = r.at + r.len;
    }
    out.extend(lines[cursor..].iter().cloned());
    Ok(file.join(&out))
}

impl Chunk {
    /// The expected lines without a last empty one (see [`apply_chunks`]).
    fn chunk_old_trimmed(&self) -> Vec<String> {
        let mut old = self.old.clone();
        if old.len() > 1 && old.last().is_some_and(String::is_empty) {
            old.pop();
        }
        old
    }
}

/// The first expected line at which no match is possible any more: the longest prefix of
/// `old` that still occurs (binary search: a prefix that occurs implies its own prefixes
/// do) is followed by the line to name.
fn first_missing(lines: &[String], old: &[String], start: usize) -> String {
    let (mut lo, mut hi) = (0usize, old.len());
    // Invariant: old[..lo] occurs (trivially for 0); old[..hi + 1] does not, or hi = len.
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if seek(lines, &old[..mid], start, false).is_some() {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    old.get(lo).or(old.last()).cloned().unwrap_or_default()
}
