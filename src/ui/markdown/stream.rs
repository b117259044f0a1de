//! The newline-gated streaming collector.
//!
//! Source is cut into chunks at block boundaries that later text cannot move: a blank line
//! followed by a line starting in column 0, and the fences of a code block that starts in
//! column 0. A closed chunk is rendered once per width and its rows cached; a top-level
//! code block is committed line by line as each line's newline arrives, highlighted with
//! the grammar state carried over from the line before. Only the open chunk (or, inside a
//! code block, the open line) is rendered again for each delta, so a delta costs the same at
//! the end of a long reply as at its start. [`super::render_width`] renders a whole document
//! through the same chunks, so a finished stream shows exactly what a stored message shows.

use ratatui::text::{Line, Span};

use super::highlight::CodeHighlighter;
use super::render::{code_label, code_rows, fence_lang, placeholder_row, render_blocks};
use crate::ui::{text, theme};

/// One closed (or, for a code block, growing) run of source rendered on its own.
#[derive(Debug, Clone)]
enum Chunk {
    /// Markdown blocks in `source[start..end]`.
    Markdown { start: usize, end: usize },
    /// A top-level fenced code block: its highlighted lines so far.
    Fence {
        lang: String,
        lines: Vec<Line<'static>>,
        closed: bool,
    },
}

/// What the complete lines so far have left open.
#[derive(Debug, Clone)]
enum Open {
    None,
    Markdown {
        start: usize,
        end: usize,
        blank_after: bool,
    },
    /// The fence is `chunks.last()`.
    Fence {
        marker: char,
        len: usize,
        hl: Box<CodeHighlighter>,
    },
}

/// Rows of the committed chunks at one width.
#[derive(Debug, Clone, Default)]
struct RowCache {
    width: usize,
    rows: Vec<Line<'static>>,
    next_chunk: usize,
    /// Lines of the open code block already in `rows` (its label is in once this is set).
    fence_lines: Option<usize>,
}

/// A newline-gated markdown stream: completed blocks (and completed lines of a code block)
/// are rendered once and cached per width; only the open block or line is re-rendered per
/// delta. After [`StreamCollector::finish`] everything is committed and the rows equal
/// [`super::render_width`] of the whole source.
///
/// The collector keeps the reply's source exactly as received ([`StreamCollector::source`],
/// what `/copy` copies) and renders a sanitized copy of it (control characters escaped, a
/// tab as four spaces, CR dropped, `ui::text::sanitize`). The received text is held
/// separately only once it differs from the sanitized one, so a reply without control
/// characters is stored once.
#[derive(Debug, Clone)]
pub struct StreamCollector {
    /// What is rendered: the sanitized source.
    source: String,
    /// The source as received, when it differs from `source`.
    received: Option<String>,
    finished: bool,
    /// Bytes of `source` consumed as complete lines.
    scanned: usize,
    chunks: Vec<Chunk>,
    open: Open,
    cache: Option<RowCache>,
}

impl Default for StreamCollector {
    fn default() -> Self {
        StreamCollector {
            source: String::new(),
            received: None,
            finished: false,
            scanned: 0,
            chunks: Vec::new(),
            open: Open::None,
            cache: None,
        }
    }
}

/// A fence opener in column 0: its marker, length and language.
fn fence_open(line: &str) -> Option<(char, usize, &str)> {
    let marker = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = line.chars().take_while(|c| *c == marker).count();
    if len < 3 {
        return None;
    }
    let info = &line[len..];
    if marker == '`' && info.contains('`') {
        return None;
    }
    Some((marker, len, fence_lang(info.trim())))
}

/// Whether `line` closes a fence of `len` × `marker` (up to three spaces of indent).
fn fence_close(line: &str, marker: char, len: usize) -> bool {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return false;
    }
    let n = t.chars().take_while(|c| *c == marker).count();
    n >= len && t[n..].trim().is_empty()
}

/// Whether an unfinished line may still become a closing fence (it is kept back).
fn may_close(partial: &str, marker: char) -> bool {
    let t = partial.trim_start_matches(' ');
    partial.len() - t.len() <= 3 && !t.is_empty() && t.chars().all(|c| c == marker)
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

impl StreamCollector {
    /// An empty stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// A finished stream holding a whole document (a committed message).
    pub fn complete(src: &str) -> Self {
        let mut c = Self::new();
        c.push(src);
        c.finish();
        c
    }

    /// Appends a delta as received (it is sanitized for display here) and commits every
    /// line it completes. Ignored once finished.
    pub fn push(&mut self, delta: &str) {
        if self.finished || delta.is_empty() {
            return;
        }
        let shown = text::sanitized(delta);
        if self.received.is_some() || matches!(shown, std::borrow::Cow::Owned(_)) {
            self.received
                .get_or_insert_with(|| self.source.clone())
                .push_str(delta);
        }
        let from = self.source.len();
        self.source.push_str(&shown);
        let mut search = from;
        while let Some(rel) = self.source[search..].find('\n') {
            let nl = search + rel;
            self.line(self.scanned, nl);
            self.scanned = nl + 1;
            search = nl + 1;
        }
    }

    /// Ends the stream: the open line and block are committed.
    pub fn finish(&mut self) {
        if self.finished {
            return;
        }
        if self.scanned < self.source.len() {
            self.line(self.scanned, self.source.len());
            self.scanned = self.source.len();
        }
        self.close_open();
        self.finished = true;
    }

    /// Whether [`StreamCollector::finish`] was called.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The source received so far, byte for byte (control characters included).
    pub fn source(&self) -> &str {
        self.received.as_deref().unwrap_or(&self.source)
    }

    /// Whether nothing would be shown (no source, or only characters display drops).
    pub fn is_empty(&self) -> bool {
        self.source.is_empty()
    }

    /// Consumes the complete line `source[start..end]`.
    fn line(&mut self, start: usize, end: usize) {
        let line = &self.source[start..end];
        enum Step {
            Code,
            CloseFence,
            Blank,
            Extend,
            Split,
            Open,
            Skip,
        }
        let step = match &self.open {
            Open::Fence { marker, len, .. } if fence_close(line, *marker, *len) => Step::CloseFence,
            Open::Fence { .. } => Step::Code,
            Open::Markdown { .. } if is_blank(line) => Step::Blank,
            Open::Markdown { blank_after, .. } => {
                if fence_open(line).is_some() || (*blank_after && !line.starts_with(' ')) {
                    Step::Split
                } else {
                    Step::Extend
                }
            }
            Open::None if is_blank(line) => Step::Skip,
            Open::None => Step::Open,
        };
        match step {
            Step::Code => {
                if let Open::Fence { hl, .. } = &mut self.open {
                    let row = hl.line(line);
                    if let Some(Chunk::Fence { lines, .. }) = self.chunks.last_mut() {
                        lines.push(row);
                    }
                }
            }
            Step::CloseFence => self.close_open(),
            Step::Blank => {
                if let Open::Markdown { blank_after, .. } = &mut self.open {
                    *blank_after = true;
                }
            }
            Step::Extend => {
                if let Open::Markdown {
                    end: md_end,
                    blank_after,
                    ..
                } = &mut self.open
                {
                    *md_end = end;
                    *blank_after = false;
                }
            }
            Step::Split => {
                self.close_open();
                self.open_line(start, end);
            }
            Step::Open => self.open_line(start, end),
            Step::Skip => {}
        }
    }

    /// Opens a chunk with the non-blank line `source[start..end]`.
    fn open_line(&mut self, start: usize, end: usize) {
        let line = &self.source[start..end];
        self.open = match fence_open(line) {
            Some((marker, len, lang)) => {
                self.chunks.push(Chunk::Fence {
                    lang: lang.to_string(),
                    lines: Vec::new(),
                    closed: false,
                });
                Open::Fence {
                    marker,
                    len,
                    hl: Box::new(CodeHighlighter::new(lang)),
                }
            }
            None => Open::Markdown {
                start,
                end,
                blank_after: false,
            },
        };
    }

    fn close_open(&mut self) {
        match std::mem::replace(&mut self.open, Open::None) {
            Open::None => {}
            Open::Markdown { start, end, .. } => self.chunks.push(Chunk::Markdown { start, end }),
            Open::Fence { .. } => {
                if let Some(Chunk::Fence { closed, .. }) = self.chunks.last_mut() {
                    *closed = true;
                }
            }
        }
    }

    /// The committed rows at `width`, borrowed from the cache (extended with anything
    /// committed since the last call; rebuilt when the width changes).
    pub fn committed_ref(&mut self, width: usize) -> &[Line<'static>] {
        let width = width.max(1);
        let cache = match self.cache.take() {
            Some(c) if c.width == width => c,
            _ => RowCache {
                width,
                ..RowCache::default()
            },
        };
        let cache = self.extend(cache);
        &self.cache.insert(cache).rows
    }

    /// The committed rows at `width` (cached; stable while only the tail changes).
    pub fn committed(&mut self, width: usize) -> Vec<Line<'static>> {
        self.committed_ref(width).to_vec()
    }

    /// How many committed rows there are at `width`.
    pub fn committed_len(&mut self, width: usize) -> usize {
        self.committed_ref(width).len()
    }

    fn extend(&self, mut cache: RowCache) -> RowCache {
        let width = cache.width;
        while let Some(chunk) = self.chunks.get(cache.next_chunk) {
            match chunk {
                Chunk::Markdown { start, end } => {
                    let rows = render_blocks(&self.source[*start..*end], width, None);
                    if !rows.is_empty() && !cache.rows.is_empty() {
                        cache.rows.push(Line::default());
                    }
                    cache.rows.extend(rows);
                    cache.next_chunk += 1;
                }
                Chunk::Fence {
                    lang,
                    lines,
                    closed,
                } => {
                    let done = match cache.fence_lines {
                        Some(n) => n,
                        None => {
                            if !cache.rows.is_empty() {
                                cache.rows.push(Line::default());
                            }
                            cache.rows.extend(text::wrap_prefixed(
                                &code_label(lang),
                                width,
                                &[],
                                &[],
                            ));
                            0
                        }
                    };
                    for line in lines.get(done..).unwrap_or_default() {
                        cache.rows.extend(code_rows(line, width, &[], &[]));
                    }
                    if *closed {
                        cache.next_chunk += 1;
                        cache.fence_lines = None;
                    } else {
                        cache.fence_lines = Some(lines.len());
                        break;
                    }
                }
            }
        }
        cache
    }

    /// The open tail's rows at `width`; `table_placeholder` stands for a table still
    /// arriving. Empty once finished.
    pub fn tail(&self, width: usize, table_placeholder: &str) -> Vec<Line<'static>> {
        if self.finished {
            return Vec::new();
        }
        let width = width.max(1);
        let partial = &self.source[self.scanned..];
        let mut rows = Vec::new();
        match &self.open {
            Open::Fence { marker, .. } => {
                // The open line is plain code: it is highlighted once, when its newline
                // arrives (grammars are slow enough that re-highlighting it per delta
                // would dominate a delta's cost).
                if !partial.is_empty() && !may_close(partial, *marker) {
                    let body = Line::from(Span::styled(partial.to_string(), theme::code()));
                    rows.extend(code_rows(&body, width, &[], &[]));
                }
                return rows;
            }
            Open::Markdown {
                start, blank_after, ..
            } => {
                let new_block = *blank_after && !is_blank(partial) && !partial.starts_with(' ');
                if new_block {
                    rows = render_blocks(&self.source[*start..self.scanned], width, None);
                    let next = render_open(partial, width, table_placeholder);
                    if !rows.is_empty() && !next.is_empty() {
                        rows.push(Line::default());
                    }
                    rows.extend(next);
                } else {
                    rows = render_open(&self.source[*start..], width, table_placeholder);
                }
            }
            Open::None => {
                if !is_blank(partial) {
                    rows = render_open(partial, width, table_placeholder);
                }
            }
        }
        if !rows.is_empty() && !self.chunks.is_empty() {
            rows.insert(0, Line::default());
        }
        rows
    }
}

/// Rows of the open block. Trailing lines starting with `|` may be a table whose delimiter
/// row has not arrived: they are held back with the table placeholder, like a table that has.
fn render_open(region: &str, width: usize, placeholder: &str) -> Vec<Line<'static>> {
    let body = region.strip_suffix('\n').unwrap_or(region);
    let mut run_start = None;
    let mut end = body.len();
    loop {
        let line_start = body[..end].rfind('\n').map_or(0, |i| i + 1);
        if !body[line_start..end].trim_start().starts_with('|') {
            break;
        }
        run_start = Some(line_start);
        if line_start == 0 {
            break;
        }
        end = line_start - 1;
    }
    let Some(run_start) = run_start else {
        return render_blocks(region, width, Some(placeholder));
    };
    let mut rows = render_blocks(&region[..run_start], width, Some(placeholder));
    if !rows.is_empty() {
        rows.push(Line::default());
    }
    rows.extend(text::wrap_prefixed(
        &placeholder_row(placeholder),
        width,
        &[],
        &[],
    ));
    rows
}

/// Rows of a whole document: the chunks a finished stream of it commits.
pub(crate) fn render_document(src: &str, width: usize) -> Vec<Line<'static>> {
    StreamCollector::complete(src).committed(width)
}
