//! One markdown block (or a run of blocks) rendered with pulldown-cmark to rows of at most
//! `width` columns. Every row goes through [`text::wrap_prefixed`] with the gutters of the
//! containers it sits in (quote bars, list indents, the code gutter), so wrapped rows keep them.

use pulldown_cmark::{Alignment, CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::highlight::CodeHighlighter;
use crate::ui::text::{self, char_width, str_width};
use crate::ui::theme;

/// The parser options: CommonMark plus tables, strikethrough and task lists.
pub(crate) fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Longest horizontal rule, so a rule on a wide terminal stays a separator, not a wall.
const RULE_MAX: usize = 80;

/// The gutter before every row of a code block.
const CODE_GUTTER: &str = "  ";

/// The language a fence's info string names: its first word (`rust,ignore` → `rust`).
pub(crate) fn fence_lang(info: &str) -> &str {
    info.split(|c: char| c.is_whitespace() || c == ',' || c == '{')
        .next()
        .unwrap_or_default()
}

/// The dim label row above a fenced code block (`─ rust`, or `─ code` with no language).
pub(crate) fn code_label(lang: &str) -> Line<'static> {
    let label = if lang.is_empty() { "code" } else { lang };
    Line::from(Span::styled(format!("─ {label}"), theme::markup()))
}

/// The rows of one (already highlighted) code line under the outer prefixes, with the code
/// gutter on every wrapped row.
pub(crate) fn code_rows(
    body: &Line<'static>,
    width: usize,
    first: &[Span<'static>],
    rest: &[Span<'static>],
) -> Vec<Line<'static>> {
    let mut f = first.to_vec();
    f.push(Span::raw(CODE_GUTTER));
    let mut r = rest.to_vec();
    r.push(Span::raw(CODE_GUTTER));
    prefixed(body, width, &f, &r)
}

/// `wrap_prefixed`, but never zero rows (an empty body still takes its row).
fn prefixed(
    body: &Line<'static>,
    width: usize,
    first: &[Span<'static>],
    rest: &[Span<'static>],
) -> Vec<Line<'static>> {
    let rows = text::wrap_prefixed(body, width, first, rest);
    if rows.is_empty() {
        vec![Line::from(first.to_vec())]
    } else {
        rows
    }
}

/// The dim row standing for a table that is still arriving.
pub(crate) fn placeholder_row(placeholder: &str) -> Line<'static> {
    Line::from(Span::styled(format!("┄ {placeholder}"), theme::markup()))
}

/// Renders `src` to rows of at most `width` columns. With `hold_table`, a table that is the
/// last block (still arriving while streaming) is replaced by a dim `┄ {hold_table}` row.
pub(crate) fn render_blocks(
    src: &str,
    width: usize,
    hold_table: Option<&str>,
) -> Vec<Line<'static>> {
    let mut r = Renderer::new(width.max(1));
    for event in Parser::new_ext(src, options()) {
        r.event(event);
    }
    r.flush_inline();
    if let (Some(placeholder), Some((start, prefix))) = (hold_table, r.held_table.take()) {
        r.out.truncate(start);
        let mut spans = prefix;
        spans.extend(placeholder_row(placeholder).spans);
        r.out.push(Line::from(spans));
    }
    r.out
}

enum Container {
    Quote,
    List {
        next: Option<u64>,
    },
    Item {
        first: Vec<Span<'static>>,
        rest: Vec<Span<'static>>,
        pending: bool,
    },
}

struct CodeBlock {
    lang: Option<String>,
    text: String,
}

struct Table {
    aligns: Vec<Alignment>,
    rows: Vec<Vec<Vec<Span<'static>>>>,
    header_rows: usize,
}

struct Renderer {
    width: usize,
    out: Vec<Line<'static>>,
    stack: Vec<Container>,
    styles: Vec<Style>,
    cur: Vec<Span<'static>>,
    need_blank: bool,
    code: Option<CodeBlock>,
    table: Option<Table>,
    links: Vec<(String, usize)>,
    held_table: Option<(usize, Vec<Span<'static>>)>,
}

impl Renderer {
    fn new(width: usize) -> Self {
        Renderer {
            width,
            out: Vec::new(),
            stack: Vec::new(),
            styles: Vec::new(),
            cur: Vec::new(),
            need_blank: false,
            code: None,
            table: None,
            links: Vec::new(),
            held_table: None,
        }
    }

    fn style(&self) -> Style {
        self.styles
            .iter()
            .fold(Style::default(), |acc, st| acc.patch(*st))
    }

    fn push_text(&mut self, text: &str, style: Style) {
        if text.is_empty() {
            return;
        }
        match self.cur.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(text),
            _ => self.cur.push(Span::styled(text.to_string(), style)),
        }
    }

    /// The prefixes for the next row (consuming a pending list bullet) and its continuations.
    fn prefixes(&mut self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let mut first = Vec::new();
        let mut rest = Vec::new();
        for c in &mut self.stack {
            match c {
                Container::Quote => {
                    let bar = Span::styled("▎ ", theme::markup());
                    first.push(bar.clone());
                    rest.push(bar);
                }
                Container::List { .. } => {}
                Container::Item {
                    first: f,
                    rest: r,
                    pending,
                } => {
                    if *pending {
                        first.extend(f.iter().cloned());
                        *pending = false;
                    } else {
                        first.extend(r.iter().cloned());
                    }
                    rest.extend(r.iter().cloned());
                }
            }
        }
        (first, rest)
    }

    fn push_rows(&mut self, rows: Vec<Line<'static>>) {
        self.held_table = None;
        self.out.extend(rows);
    }

    fn emit(&mut self, body: Line<'static>) {
        let (first, rest) = self.prefixes();
        let rows = prefixed(&body, self.width, &first, &rest);
        self.push_rows(rows);
    }

    fn blank(&mut self) {
        let mut spans: Vec<Span<'static>> = Vec::new();
        for c in &self.stack {
            if let Container::Quote = c {
                spans.push(Span::styled("▎ ", theme::markup()));
            }
        }
        if let Some(last) = spans.last_mut() {
            *last = Span::styled("▎", theme::markup());
        }
        self.push_rows(vec![Line::from(spans)]);
    }

    fn flush_inline(&mut self) {
        if !self.cur.is_empty() {
            let body = Line::from(std::mem::take(&mut self.cur));
            self.emit(body);
        }
    }

    fn start_block(&mut self) {
        self.flush_inline();
        if self.need_blank {
            self.blank();
            self.need_blank = false;
        }
    }

    fn event(&mut self, event: Event<'_>) {
        if let Some(code) = self.code.as_mut() {
            match event {
                Event::Text(t) => {
                    code.text.push_str(&t);
                    return;
                }
                Event::End(TagEnd::CodeBlock) => {
                    self.end_code();
                    return;
                }
                _ => {}
            }
        }
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => {
                let st = self.style();
                self.push_text(&t, st);
            }
            Event::Code(t) => {
                let st = self.style().patch(theme::code());
                self.push_text(&t, st);
            }
            Event::InlineHtml(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                let st = self.style();
                self.push_text(&t, st);
            }
            Event::Html(t) => {
                // Raw HTML is shown as written, one row per source line.
                for (i, line) in t.trim_end_matches('\n').split('\n').enumerate() {
                    if i > 0 {
                        self.flush_inline();
                    }
                    let st = self.style();
                    self.push_text(line, st);
                }
                self.flush_inline();
            }
            Event::FootnoteReference(t) => {
                let st = self.style();
                self.push_text(&format!("[^{t}]"), st);
            }
            Event::SoftBreak | Event::HardBreak => {
                // Rows follow the author's lines: a reply's single newlines are meant.
                let body = Line::from(std::mem::take(&mut self.cur));
                self.emit(body);
            }
            Event::Rule => {
                self.start_block();
                let (first, rest) = self.prefixes();
                let pw = first.iter().map(|s| str_width(&s.content)).sum::<usize>();
                let len = self.width.saturating_sub(pw).clamp(1, RULE_MAX);
                let body = Line::from(Span::styled("─".repeat(len), theme::markup()));
                let rows = prefixed(&body, self.width, &first, &rest);
                self.push_rows(rows);
                self.need_blank = true;
            }
            Event::TaskListMarker(checked) => {
                let (mark, st) = if checked {
                    ("☑ ", theme::success())
                } else {
                    ("☐ ", Style::default())
                };
                if let Some(Container::Item { first, rest, .. }) = self
                    .stack
                    .iter_mut()
                    .rev()
                    .find(|c| matches!(c, Container::Item { .. }))
                {
                    first.push(Span::styled(mark, st));
                    rest.push(Span::raw("  "));
                }
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::HtmlBlock => self.start_block(),
            Tag::Heading { level, .. } => {
                self.start_block();
                self.styles.push(theme::heading(level as u8));
            }
            Tag::BlockQuote(_) => {
                self.start_block();
                self.stack.push(Container::Quote);
                self.styles.push(theme::dim());
            }
            Tag::CodeBlock(kind) => {
                self.start_block();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => Some(fence_lang(&info).to_string()),
                    CodeBlockKind::Indented => None,
                };
                self.code = Some(CodeBlock {
                    lang,
                    text: String::new(),
                });
            }
            Tag::List(start) => {
                self.start_block();
                self.stack.push(Container::List { next: start });
            }
            Tag::Item => {
                self.flush_inline();
                let depth = self
                    .stack
                    .iter()
                    .filter(|c| matches!(c, Container::List { .. }))
                    .count();
                let bullet = match self.stack.last_mut() {
                    Some(Container::List { next: Some(n) }) => {
                        let b = format!("{n}. ");
                        *n += 1;
                        b
                    }
                    _ => match depth {
                        0 | 1 => "• ".to_string(),
                        2 => "◦ ".to_string(),
                        _ => "▪ ".to_string(),
                    },
                };
                let w = str_width(&bullet);
                self.stack.push(Container::Item {
                    first: vec![Span::raw(bullet)],
                    rest: vec![Span::raw(" ".repeat(w))],
                    pending: true,
                });
            }
            Tag::Table(aligns) => {
                self.start_block();
                self.table = Some(Table {
                    aligns,
                    rows: Vec::new(),
                    header_rows: 0,
                });
            }
            Tag::TableHead => {
                self.styles.push(theme::bold());
                if let Some(t) = self.table.as_mut() {
                    t.rows.push(Vec::new());
                }
            }
            Tag::TableRow => {
                if let Some(t) = self.table.as_mut() {
                    t.rows.push(Vec::new());
                }
            }
            Tag::TableCell => self.cur.clear(),
            Tag::Emphasis => self
                .styles
                .push(Style::default().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.styles.push(theme::bold()),
            Tag::Strikethrough => self
                .styles
                .push(Style::default().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                self.styles.push(theme::link());
                self.links.push((dest_url.to_string(), self.cur.len()));
            }
            Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::Superscript
            | Tag::Subscript
            | Tag::MetadataBlock(_) => self.start_block(),
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => {
                self.flush_inline();
                self.need_blank = true;
            }
            TagEnd::Heading(_) => {
                self.flush_inline();
                self.styles.pop();
                self.need_blank = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush_inline();
                self.stack.pop();
                self.styles.pop();
                self.need_blank = true;
            }
            TagEnd::CodeBlock => self.end_code(),
            TagEnd::List(_) => {
                self.flush_inline();
                self.stack.pop();
                // A list nested in an item flows on with its parent's next item.
                self.need_blank = !matches!(self.stack.last(), Some(Container::Item { .. }));
            }
            TagEnd::Item => {
                self.flush_inline();
                if let Some(Container::Item { pending: true, .. }) = self.stack.last() {
                    self.emit(Line::default());
                }
                self.stack.pop();
            }
            TagEnd::Table => self.end_table(),
            TagEnd::TableHead => {
                self.styles.pop();
                self.end_cell_row();
                if let Some(t) = self.table.as_mut() {
                    t.header_rows = t.rows.len();
                }
            }
            TagEnd::TableRow => self.end_cell_row(),
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.cur);
                if let Some(row) = self.table.as_mut().and_then(|t| t.rows.last_mut()) {
                    row.push(cell);
                }
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Link | TagEnd::Image => {
                self.styles.pop();
                if let Some((dest, at)) = self.links.pop() {
                    let text: String = self
                        .cur
                        .get(at..)
                        .unwrap_or_default()
                        .iter()
                        .map(|s| s.content.as_ref())
                        .collect();
                    let same = dest == text
                        || dest.strip_prefix("mailto:") == Some(text.as_str())
                        || dest.is_empty();
                    if !same {
                        self.cur
                            .push(Span::styled(format!(" ({dest})"), theme::link_target()));
                    }
                }
            }
            TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::MetadataBlock(_) => {
                self.flush_inline();
                self.need_blank = true;
            }
        }
    }

    fn end_cell_row(&mut self) {
        self.cur.clear();
    }

    fn end_code(&mut self) {
        let Some(code) = self.code.take() else {
            return;
        };
        if let Some(lang) = &code.lang {
            self.emit(code_label(lang));
        }
        let mut hl = CodeHighlighter::new(code.lang.as_deref().unwrap_or_default());
        let body = code.text.strip_suffix('\n').unwrap_or(&code.text);
        if !code.text.is_empty() {
            for line in body.split('\n') {
                let (first, rest) = self.prefixes();
                let rows = code_rows(&hl.line(line), self.width, &first, &rest);
                self.push_rows(rows);
            }
        }
        self.need_blank = true;
    }

    fn end_table(&mut self) {
        let Some(table) = self.table.take() else {
            return;
        };
        let start = self.out.len();
        let cols = table
            .rows
            .iter()
            .map(Vec::len)
            .max()
            .unwrap_or(0)
            .max(table.aligns.len());
        if cols == 0 {
            return;
        }
        let natural: Vec<usize> = (0..cols)
            .map(|c| {
                table
                    .rows
                    .iter()
                    .filter_map(|r| r.get(c))
                    .map(|cell| spans_width(cell))
                    .max()
                    .unwrap_or(0)
                    .max(1)
            })
            .collect();
        let prefix_w = {
            let mut w = 0;
            for c in &self.stack {
                w += match c {
                    Container::Quote => 2,
                    Container::List { .. } => 0,
                    Container::Item { first, rest, .. } => {
                        spans_width(first).max(spans_width(rest))
                    }
                };
            }
            w
        };
        let budget = self
            .width
            .saturating_sub(prefix_w)
            .saturating_sub(3 * (cols - 1));
        let widths = fit_columns(&natural, budget);
        let sep = Span::styled(" │ ", theme::markup());
        let mut rest_prefix = Vec::new();
        for (ri, row) in table.rows.iter().enumerate() {
            let mut spans: Vec<Span<'static>> = Vec::new();
            for (c, w) in widths.iter().enumerate() {
                if c > 0 {
                    spans.push(sep.clone());
                }
                let cell = row.get(c).cloned().unwrap_or_default();
                let cell = truncate_spans(cell, *w);
                let pad = w.saturating_sub(spans_width(&cell));
                let align = table.aligns.get(c).copied().unwrap_or(Alignment::None);
                let last = c + 1 == cols;
                let (left, right) = match align {
                    Alignment::Right => (pad, 0),
                    Alignment::Center => (pad / 2, pad - pad / 2),
                    Alignment::Left | Alignment::None => (0, pad),
                };
                if left > 0 {
                    spans.push(Span::raw(" ".repeat(left)));
                }
                spans.extend(cell);
                if right > 0 && !last {
                    spans.push(Span::raw(" ".repeat(right)));
                }
            }
            // Narrower than one column per cell plus borders: cut the row, never wrap it.
            let spans = truncate_spans(spans, self.width.saturating_sub(prefix_w).max(1));
            let (first, rest) = self.prefixes();
            rest_prefix = rest.clone();
            let rows = prefixed(&Line::from(spans), self.width, &first, &rest);
            self.out.extend(rows);
            if ri + 1 == table.header_rows {
                let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                let rule = text::truncate(
                    &rule.join("─┼─"),
                    self.width.saturating_sub(prefix_w).max(1),
                );
                let body = Line::from(Span::styled(rule, theme::markup()));
                let (first, rest) = self.prefixes();
                let rows = prefixed(&body, self.width, &first, &rest);
                self.out.extend(rows);
            }
        }
        self.held_table = Some((start, rest_prefix));
        self.need_blank = true;
    }
}

fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|s| str_width(&s.content)).sum()
}

/// Column widths that fit `budget`: narrow columns keep their natural width, the wide ones
/// share what is left equally (each at least one column).
fn fit_columns(natural: &[usize], budget: usize) -> Vec<usize> {
    if natural.iter().sum::<usize>() <= budget {
        return natural.to_vec();
    }
    let mut widths = natural.to_vec();
    let mut open: Vec<usize> = (0..natural.len()).collect();
    let mut remaining = budget;
    loop {
        if open.is_empty() {
            break;
        }
        let share = remaining / open.len();
        let fits: Vec<usize> = open
            .iter()
            .copied()
            .filter(|c| natural[*c] <= share)
            .collect();
        if fits.is_empty() {
            let extra = remaining - share * open.len();
            for (i, c) in open.iter().enumerate() {
                widths[*c] = (share + usize::from(i < extra)).max(1);
            }
            break;
        }
        for c in &fits {
            remaining -= natural[*c];
        }
        open.retain(|c| !fits.contains(c));
    }
    widths
}

/// Cuts styled text to `width` columns, ending with `…` (in the cut text's style) when cut.
fn truncate_spans(spans: Vec<Span<'static>>, width: usize) -> Vec<Span<'static>> {
    if spans_width(&spans) <= width {
        return spans;
    }
    let mut out: Vec<Span<'static>> = Vec::new();
    if width == 0 {
        return out;
    }
    let mut used = 0;
    let mut last_style = Style::default();
    'outer: for span in spans {
        last_style = span.style;
        let mut kept = String::new();
        for c in span.content.chars() {
            let cw = char_width(c);
            if used + cw + 1 > width {
                if !kept.is_empty() {
                    out.push(Span::styled(kept, span.style));
                }
                break 'outer;
            }
            kept.push(c);
            used += cw;
        }
        if !kept.is_empty() {
            out.push(Span::styled(kept, span.style));
        }
    }
    out.push(Span::styled("…", last_style));
    out
}
