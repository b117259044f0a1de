//! The `apply_patch` envelope grammar (SPEC §14.1, decision 0045):
//!
//! ```text
//! patch   := "*** Begin Patch" NL op+ "*** End Patch" NL?
//! op      := add | delete | update
//! add     := "*** Add File: " PATH NL ("+" LINE NL)*
//! delete  := "*** Delete File: " PATH NL
//! update  := "*** Update File: " PATH NL ("*** Move to: " PATH NL)? chunk*
//! chunk   := ("@@" | "@@ " CONTEXT) NL (" " LINE | "-" LINE | "+" LINE | "" ) NL)+
//!            ("*** End of File" NL)?
//! ```
//!
//! The first chunk of an update may leave out its `@@` line. Marker lines may carry
//! surrounding whitespace, a unified-diff range header (`@@ -3,4 +3,5 @@ fn f()`) counts as
//! `@@` with the text after its second `@@` as context, and an empty line inside a chunk
//! stands for an empty context line (models drop the lone space). An update needs at least
//! one chunk or a `*** Move to:`. Errors name the 1-based line of the patch text.

/// A parsed patch: its operations in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// The operations, in patch order.
    pub ops: Vec<Op>,
}

/// One file operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// `*** Add File:` with its content (each `+` line plus a newline).
    Add {
        /// The path as written.
        path: String,
        /// The new file's content.
        content: String,
        /// Patch line of the header.
        line: usize,
    },
    /// `*** Delete File:`.
    Delete {
        /// The path as written.
        path: String,
        /// Patch line of the header.
        line: usize,
    },
    /// `*** Update File:` with an optional move and its chunks.
    Update {
        /// The path as written.
        path: String,
        /// `*** Move to:` path, if any.
        move_to: Option<String>,
        /// The chunks, in file order.
        chunks: Vec<Chunk>,
        /// Patch line of the header.
        line: usize,
    },
}

/// One `@@` chunk of an update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The `@@ CONTEXT` line: the chunk's lines come after the first line matching it.
    pub context: Option<String>,
    /// The lines the chunk expects (context and removed lines), in order.
    pub old: Vec<String>,
    /// The lines that replace them (context and added lines), in order.
    pub new: Vec<String>,
    /// `*** End of File`: `old` is expected at the end of the file.
    pub eof: bool,
    /// Patch line where the chunk starts (its `@@` line, or its first line).
    pub line: usize,
}

/// A patch that does not follow the grammar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line of the patch text.
    pub line: usize,
    /// What is wrong (English, stable: the model reads it).
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid patch: line {}: {}", self.line, self.message)
    }
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File:";
const DELETE: &str = "*** Delete File:";
const UPDATE: &str = "*** Update File:";
const MOVE: &str = "*** Move to:";
const EOF: &str = "*** End of File";

/// The path after a header marker, or an error naming the line when it is empty.
fn header_path(rest: &str, line: usize, what: &str) -> Result<String, ParseError> {
    let p = rest.trim();
    if p.is_empty() {
        return Err(ParseError {
            line,
            message: format!("'{what}' needs a path"),
        });
    }
    Ok(p.to_string())
}

/// `Some(context)` when `line` is a chunk header: `@@`, `@@ CONTEXT`, or a unified-diff
/// range header `@@ -a,b +c,d @@ CONTEXT`. The inner `Option` is the context.
fn chunk_header(line: &str) -> Option<Option<String>> {
    // No leading whitespace is stripped: ` @@` is a context line that starts with `@@`.
    let t = line.trim_end();
    let rest = t.strip_prefix("@@")?;
    let rest = rest.trim();
    // `@@ -3,4 +3,5 @@ fn f()`: the range is ignored (it is a guess the model may get
    // wrong); what follows the closing `@@` is context, as `git diff` prints it.
    if rest.starts_with('-')
        && let Some(end) = rest.find("@@")
        && rest[..end].split_whitespace().all(|r| {
            r.trim_start_matches(['-', '+'])
                .split(',')
                .all(|n| n.parse::<u64>().is_ok())
        })
    {
        let ctx = rest[end + 2..].trim();
        return Some((!ctx.is_empty()).then(|| ctx.to_string()));
    }
    Some((!rest.is_empty()).then(|| rest.to_string()))
}

/// Whether `line` starts another operation or ends the patch. Leading whitespace is not
/// stripped, so a context line (` *** Add File: x` in a file about patches) stays context.
fn is_op_header(line: &str) -> bool {
    let t = line.trim_end();
    t.starts_with(ADD) || t.starts_with(DELETE) || t.starts_with(UPDATE) || t == END
}

/// Parses a whole patch. Blank lines before `*** Begin Patch` and after `*** End Patch`
/// are ignored; line numbers count them.
pub fn parse(text: &str) -> Result<Patch, ParseError> {
    let lines: Vec<&str> = text.lines().collect();
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let Some(first) = first else {
        return Err(ParseError {
            line: 1,
            message: format!("the patch is empty; it must start with '{BEGIN}'"),
        });
    };
    if lines[first].trim() != BEGIN {
        return Err(ParseError {
            line: first + 1,
            message: format!("the patch must start with '{BEGIN}'"),
        });
    }
    let last = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .unwrap_or(first);
    if last == first || lines[last].trim() != END {
        return Err(ParseError {
            line: last + 1,
            message: format!("the patch must end with '{END}'"),
        });
    }
    let mut p = Parser {
        lines: &lines[..last],
        at: first + 1,
    };
    let mut ops = Vec::new();
    while p.at < p.lines.len() {
        let line = p.lines[p.at];
        if line.trim().is_empty() {
            p.at += 1;
            continue;
        }
        ops.push(p.op()?);
    }
    if ops.is_empty() {
        return Err(ParseError {
            line: last + 1,
            message: "the patch has no operations (Add File, Delete File or Update File)"
                .to_string(),
        });
    }
    Ok(Patch { ops })
}

struct Parser<'a> {
    /// Every line up to, not including, `*** End Patch`.
    lines: &'a [&'a str],
    /// Index of the next line.
    at: usize,
}

impl Parser<'_> {
    /// 1-based number of the line at `i`.
    fn no(i: usize) -> usize {
        i + 1
    }

    fn op(&mut self) -> Result<Op, ParseError> {
        let i = self.at;
        let t = self.lines[i].trim();
        let line = Self::no(i);
        self.at += 1;
        if let Some(rest) = t.strip_prefix(ADD) {
            let path = header_path(rest, line, ADD)?;
            let mut content = String::new();
            while let Some(l) = self.lines.get(self.at) {
                let Some(text) = l.strip_prefix('+') else {
                    break;
                };
                content.push_str(text);
                content.push('\n');
                self.at += 1;
            }
            return Ok(Op::Add {
                path,
                content,
                line,
            });
        }
        if let Some(rest) = t.strip_prefix(DELETE) {
            return Ok(Op::Delete {
                path: header_path(rest, line, DELETE)?,
                line,
            });
        }
        if let Some(rest) = t.strip_prefix(UPDATE) {
            let path = header_path(rest, line, UPDATE)?;
            let mut move_to = None;
            if let Some(rest) = self
                .lines
                .get(self.at)
                .and_then(|l| l.trim().strip_prefix(MOVE))
            {
                move_to = Some(header_path(rest, Self::no(self.at), MOVE)?);
                self.at += 1;
            }
            let mut chunks = Vec::new();
            loop {
                // Blank lines between chunks separate them.
                while self.lines.get(self.at).is_some_and(|l| l.trim().is_empty()) {
                    self.at += 1;
                }
                match self.lines.get(self.at) {
                    None => break,
                    Some(l) if is_op_header(l) => break,
                    Some(_) => chunks.push(self.chunk(chunks.is_empty())?),
                }
            }
            if chunks.is_empty() && move_to.is_none() {
                return Err(ParseError {
                    line,
                    message: format!(
                        "'{UPDATE} {path}' has no @@ hunk and no '{MOVE}'; nothing to change"
                    ),
                });
            }
            return Ok(Op::Update {
                path,
                move_to,
                chunks,
                line,
            });
        }
        Err(ParseError {
            line,
            message: format!(
                "'{}' is not an operation header; expected '{ADD} PATH', '{DELETE} PATH' or \
                 '{UPDATE} PATH'",
                clip(t)
            ),
        })
    }

    /// One chunk starting at `self.at`; the first chunk of an update may have no `@@`.
    fn chunk(&mut self, first: bool) -> Result<Chunk, ParseError> {
        let start = self.at;
        let header = chunk_header(self.lines[start]);
        let context = match header {
            Some(ctx) => {
                self.at += 1;
                ctx
            }
            None if first => None,
            None => {
                return Err(ParseError {
                    line: Self::no(start),
                    message: format!(
                        "expected an '@@' hunk header or an operation header, found '{}'",
                        clip(self.lines[start])
                    ),
                });
            }
        };
        let mut chunk = Chunk {
            context,
            old: Vec::new(),
            new: Vec::new(),
            eof: false,
            line: Self::no(start),
        };
        let mut body = 0usize;
        let mut trailing_blank = 0usize;
        while let Some(&l) = self.lines.get(self.at) {
            if l.trim() == EOF {
                if body == 0 {
                    break;
                }
                chunk.eof = true;
                self.at += 1;
                break;
            }
            if is_op_header(l) || (body > 0 && chunk_header(l).is_some()) {
                break;
            }
            trailing_blank = if l.is_empty() { trailing_blank + 1 } else { 0 };
            match l.chars().next() {
                None => {
                    chunk.old.push(String::new());
                    chunk.new.push(String::new());
                }
                Some(' ') => {
                    chunk.old.push(l[1..].to_string());
                    chunk.new.push(l[1..].to_string());
                }
                Some('-') => chunk.old.push(l[1..].to_string()),
                Some('+') => chunk.new.push(l[1..].to_string()),
                Some(_) => {
                    return Err(ParseError {
                        line: Self::no(self.at),
                        message: format!(
                            "'{}' in a hunk must start with ' ' (context), '-' (removed) or \
                             '+' (added)",
                            clip(l)
                        ),
                    });
                }
            }
            body += 1;
            self.at += 1;
        }
        if body == 0 {
            return Err(ParseError {
                line: Self::no(start),
                message: "the hunk has no lines".to_string(),
            });
        }
        // Blank lines at the end of a chunk are usually the separator before the next
        // header, not empty lines the file must have. Trailing context is the same on both
        // sides, so dropping it changes only how the chunk is anchored, never what it does.
        let keep = body - trailing_blank.min(body);
        if keep > 0 {
            for _ in 0..trailing_blank {
                chunk.old.pop();
                chunk.new.pop();
            }
        }
        Ok(chunk)
    }
}

/// A line shortened for an error message.
fn clip(s: &str) -> String {
    const MAX: usize = 120;
    if s.chars().count() <= MAX {
        return s.to_string();
    }
    let mut out: String = s.chars().take(MAX).collect();
    out.push('…');
    out
}
