//! A small markdown renderer: headings, lists, quotes, emphasis, inline code, fenced code
//! with a keyword highlighter, and tables (held back while streaming until complete).
//!
//! Input must already be sanitized. Output lines are unwrapped; cells wrap them per width.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::text::str_width;
use super::theme;

/// Renders markdown source. While `streaming`, a table still being received is held back
/// (each new row can change every column width) and shown as a dim placeholder line.
pub fn render(src: &str, streaming: bool, table_placeholder: &str) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let lines: Vec<&str> = src.split('\n').collect();
    let mut i = 0;
    let mut fence: Option<String> = None;
    while i < lines.len() {
        let raw = lines[i];
        let trimmed = raw.trim_start();
        if let Some(lang) = &fence {
            if trimmed.starts_with("```") {
                fence = None;
            } else {
                out.push(highlight_code(raw, lang));
            }
            i += 1;
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("```") {
            fence = Some(rest.trim().to_string());
            let label = if rest.trim().is_empty() {
                "code"
            } else {
                rest.trim()
            };
            out.push(Line::from(Span::styled(format!("─ {label}"), theme::dim())));
            i += 1;
            continue;
        }
        if trimmed.starts_with('|') {
            let start = i;
            while i < lines.len() && lines[i].trim_start().starts_with('|') {
                i += 1;
            }
            if streaming && i == lines.len() {
                out.push(Line::from(Span::styled(
                    format!("┄ {table_placeholder}"),
                    theme::dim(),
                )));
                return out;
            }
            out.extend(render_table(&lines[start..i]));
            continue;
        }
        out.push(render_block_line(raw));
        i += 1;
    }
    out
}

fn render_block_line(raw: &str) -> Line<'static> {
    let trimmed = raw.trim_start();
    let indent = raw.len() - trimmed.len();
    let hashes = trimmed.chars().take_while(|c| *c == '#').count();
    if (1..=6).contains(&hashes) && trimmed[hashes..].starts_with(' ') {
        let text = trimmed[hashes + 1..].to_string();
        let style = theme::bold().add_modifier(if hashes == 1 {
            Modifier::UNDERLINED
        } else {
            Modifier::empty()
        });
        return Line::from(Span::styled(text, style));
    }
    if let Some(rest) = trimmed.strip_prefix("> ") {
        let mut spans = vec![Span::styled("▎ ", theme::dim())];
        spans.extend(inline(rest, theme::dim()));
        return Line::from(spans);
    }
    for bullet in ["- ", "* ", "+ "] {
        if let Some(rest) = trimmed.strip_prefix(bullet) {
            let mut spans = vec![Span::raw(format!("{}• ", " ".repeat(indent)))];
            spans.extend(inline(rest, Style::default()));
            return Line::from(spans);
        }
    }
    let digits = trimmed.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 && trimmed[digits..].starts_with(". ") {
        let mut spans = vec![Span::raw(format!(
            "{}{} ",
            " ".repeat(indent),
            &trimmed[..digits + 1]
        ))];
        spans.extend(inline(&trimmed[digits + 2..], Style::default()));
        return Line::from(spans);
    }
    if trimmed == "---" || trimmed == "***" {
        return Line::from(Span::styled("────────", theme::dim()));
    }
    Line::from(inline(raw, Style::default()))
}

/// Inline markup: `code`, **bold**, *italic* / _italic_.
pub fn inline(s: &str, base: Style) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let mut buf = String::new();
    let mut bold = false;
    let mut italic = false;
    let chars: Vec<char> = s.chars().collect();
    let style_of = |bold: bool, italic: bool| {
        let mut st = base;
        if bold {
            st = st.add_modifier(Modifier::BOLD);
        }
        if italic {
            st = st.add_modifier(Modifier::ITALIC);
        }
        st
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '`'
            && let Some(end) = chars[i + 1..].iter().position(|&d| d == '`')
        {
            if !buf.is_empty() {
                spans.push(Span::styled(
                    std::mem::take(&mut buf),
                    style_of(bold, italic),
                ));
            }
            let code: String = chars[i + 1..i + 1 + end].iter().collect();
            spans.push(Span::styled(code, theme::code()));
            i += end + 2;
            continue;
        }
        if c == '*' && chars.get(i + 1) == Some(&'*') {
            if !buf.is_empty() {
                spans.push(Span::styled(
                    std::mem::take(&mut buf),
                    style_of(bold, italic),
                ));
            }
            bold = !bold;
            i += 2;
            continue;
        }
        let prev_alnum = i > 0 && chars[i - 1].is_alphanumeric();
        let next_ok = chars.get(i + 1).is_some_and(|n| !n.is_whitespace());
        if (c == '*' || (c == '_' && !prev_alnum)) && (italic || next_ok) {
            if !buf.is_empty() {
                spans.push(Span::styled(
                    std::mem::take(&mut buf),
                    style_of(bold, italic),
                ));
            }
            italic = !italic;
            i += 1;
            continue;
        }
        buf.push(c);
        i += 1;
    }
    if !buf.is_empty() {
        spans.push(Span::styled(buf, style_of(bold, italic)));
    }
    spans
}

const KEYWORDS: &[&str] = &[
    "fn", "let", "mut", "pub", "use", "struct", "enum", "impl", "match", "if", "else", "for",
    "while", "loop", "return", "def", "class", "import", "from", "const", "var", "function",
    "async", "await", "in", "mod", "trait", "self", "true", "false", "None", "null", "echo",
];

/// A simple highlighter: keywords, string literals and `//`/`#` comments.
pub fn highlight_code(line: &str, _lang: &str) -> Line<'static> {
    let mut spans = vec![Span::styled("  ", Style::default())];
    let comment_at = line.find("//").or_else(|| {
        line.trim_start()
            .starts_with('#')
            .then(|| line.find('#').unwrap_or(0))
    });
    let (code, comment) = match comment_at {
        Some(p) => (&line[..p], Some(&line[p..])),
        None => (line, None),
    };
    let mut word = String::new();
    let mut in_str: Option<char> = None;
    let mut strbuf = String::new();
    let flush_word = |word: &mut String, spans: &mut Vec<Span<'static>>| {
        if !word.is_empty() {
            let st = if KEYWORDS.contains(&word.as_str()) {
                theme::keyword()
            } else {
                theme::code()
            };
            spans.push(Span::styled(std::mem::take(word), st));
        }
    };
    for c in code.chars() {
        if let Some(q) = in_str {
            strbuf.push(c);
            if c == q {
                spans.push(Span::styled(std::mem::take(&mut strbuf), theme::string()));
                in_str = None;
            }
            continue;
        }
        if c == '"' || c == '\'' {
            flush_word(&mut word, &mut spans);
            in_str = Some(c);
            strbuf.push(c);
        } else if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush_word(&mut word, &mut spans);
            spans.push(Span::styled(c.to_string(), theme::code()));
        }
    }
    flush_word(&mut word, &mut spans);
    if !strbuf.is_empty() {
        spans.push(Span::styled(strbuf, theme::string()));
    }
    if let Some(c) = comment {
        spans.push(Span::styled(c.to_string(), theme::dim()));
    }
    Line::from(spans)
}

fn render_table(rows: &[&str]) -> Vec<Line<'static>> {
    let parsed: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            r.trim()
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect();
    let is_sep = |r: &Vec<String>| {
        r.iter()
            .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
    };
    let cols = parsed.iter().map(|r| r.len()).max().unwrap_or(0);
    let mut widths = vec![0usize; cols];
    for r in parsed.iter().filter(|r| !is_sep(r)) {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(str_width(c));
        }
    }
    let mut out = Vec::new();
    for (ri, r) in parsed.iter().enumerate() {
        if is_sep(r) {
            let s: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
            out.push(Line::from(Span::styled(s.join("─┼─"), theme::dim())));
            continue;
        }
        let mut spans = Vec::new();
        for (i, w) in widths.iter().enumerate() {
            let cell = r.get(i).cloned().unwrap_or_default();
            let pad = w.saturating_sub(str_width(&cell));
            let st = if ri == 0 {
                theme::bold()
            } else {
                Style::default()
            };
            spans.push(Span::styled(format!("{cell}{}", " ".repeat(pad)), st));
            if i + 1 < cols {
                spans.push(Span::styled(" │ ", theme::dim()));
            }
        }
        out.push(Line::from(spans));
    }
    out
}

/// Renders a complete markdown document to rows of at most `width` columns.
pub fn render_width(src: &str, width: usize) -> Vec<Line<'static>> {
    render(src, false, "")
        .iter()
        .flat_map(|l| super::text::wrap_line(l, width, 0))
        .collect()
}

/// A newline-gated markdown stream: completed lines are rendered once and cached per
/// width; only the open tail (text after the last newline, or a table still arriving) is
/// re-rendered per delta. After [`StreamCollector::finish`] everything is committed.
#[derive(Debug, Clone, Default)]
pub struct StreamCollector {
    source: String,
    finished: bool,
    cache: CommittedCache,
}

/// Rows of the committed source at one width: `frozen` covers `source[..restart]` (ending at
/// a blank line outside a code fence, where the renderer's state is neutral) and is never
/// re-rendered; `open` covers `source[restart..split]` and is re-rendered when it grows.
#[derive(Debug, Clone, Default)]
struct CommittedCache {
    width: usize,
    restart: usize,
    frozen_rows: usize,
    split: usize,
    rows: Vec<Line<'static>>,
    valid: bool,
}

/// The byte offset just after the last blank line of `seg` that lies outside a code fence
/// (fence state is neutral at the start of `seg`), or `None`.
fn last_neutral_boundary(seg: &str) -> Option<usize> {
    let mut in_fence = false;
    let mut at = 0;
    let mut found = None;
    for line in seg.split_inclusive('\n') {
        at += line.len();
        let t = line.trim();
        if t.starts_with("```") {
            in_fence = !in_fence;
        } else if !in_fence && t.is_empty() && line.ends_with('\n') {
            found = Some(at);
        }
    }
    found
}

impl StreamCollector {
    /// An empty stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// A finished stream holding a whole document (a committed message).
    pub fn complete(src: &str) -> Self {
        StreamCollector {
            source: src.to_string(),
            finished: true,
            cache: CommittedCache::default(),
        }
    }

    /// Appends a (sanitized) delta.
    pub fn push(&mut self, delta: &str) {
        self.source.push_str(delta);
    }

    /// Ends the stream: the tail is committed.
    pub fn finish(&mut self) {
        self.finished = true;
    }

    /// Whether [`StreamCollector::finish`] was called.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The source received so far.
    pub fn source(&self) -> &str {
        &self.source
    }

    fn split(&self) -> usize {
        if self.finished {
            self.source.len()
        } else {
            self.source.rfind('\n').map_or(0, |i| i + 1)
        }
    }

    /// The committed rows at `width` (cached; stable while only the tail changes).
    pub fn committed(&mut self, width: usize) -> Vec<Line<'static>> {
        self.committed_ref(width).to_vec()
    }

    /// The committed rows at `width`, borrowed from the cache. When only the open tail
    /// changed this costs nothing; when lines were committed, only the source since the
    /// last blank line outside a code fence is rendered again.
    pub fn committed_ref(&mut self, width: usize) -> &[Line<'static>] {
        // The committed source excludes the newline that ends it, so committed rows plus
        // tail rows are exactly the rows of the whole source.
        let end = match (self.finished, self.split()) {
            (true, n) => Some(n),
            (false, 0) => None,
            (false, n) => Some(n - 1),
        };
        let c = &mut self.cache;
        if !c.valid || c.width != width || end.is_some_and(|e| e < c.restart) {
            *c = CommittedCache {
                width,
                valid: true,
                split: usize::MAX,
                ..CommittedCache::default()
            };
        }
        let Some(end) = end else {
            c.rows.clear();
            c.split = usize::MAX;
            return &self.cache.rows;
        };
        if c.split != end {
            c.rows.truncate(c.frozen_rows);
            let seg = &self.source[c.restart..end];
            let open_from = match last_neutral_boundary(seg) {
                Some(b) => {
                    // `seg[..b]` ends with "\n"; rendering it without that newline gives
                    // exactly its rows in the whole document (`split('\n')` is additive).
                    c.rows.extend(render_width(&seg[..b - 1], width));
                    c.frozen_rows = c.rows.len();
                    c.restart += b;
                    b
                }
                None => 0,
            };
            c.rows.extend(render_width(&seg[open_from..], width));
            c.split = end;
        }
        &self.cache.rows
    }

    /// The open tail's rows at `width`; `table_placeholder` stands for a table still
    /// arriving. Empty once finished.
    pub fn tail(&self, width: usize, table_placeholder: &str) -> Vec<Line<'static>> {
        if self.finished {
            return Vec::new();
        }
        render(&self.source[self.split()..], true, table_placeholder)
            .iter()
            .flat_map(|l| super::text::wrap_line(l, width, 0))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(l: &Line<'static>) -> String {
        l.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn headings_lists_and_inline_code() {
        let lines = render("# Title\n- item `x`\n1. one **b**", false, "");
        assert_eq!(plain(&lines[0]), "Title");
        assert_eq!(plain(&lines[1]), "• item x");
        assert_eq!(lines[1].spans[2].style, theme::code());
        assert_eq!(plain(&lines[2]), "1. one b");
    }

    #[test]
    fn table_is_held_back_while_streaming_then_aligned() {
        let src = "| a | bb |\n|---|---|\n| 中文 | c |";
        let held = render(src, true, "table …");
        assert_eq!(held.len(), 1);
        assert!(plain(&held[0]).contains("table"));
        let done = render(src, false, "");
        assert_eq!(plain(&done[0]), "a    │ bb");
        assert_eq!(plain(&done[2]), "中文 │ c ");
    }

    #[test]
    fn fenced_code_is_highlighted() {
        let lines = render("```rust\nfn main() {}\n```", false, "");
        assert_eq!(plain(&lines[0]), "─ rust");
        assert_eq!(lines[1].spans[1].style, theme::keyword());
    }
}
