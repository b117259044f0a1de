//! The full request viewer (SPEC §14.5): the exact body of one request, either wire
//! protocol, as a sections view (settings, system, tools with their full schemas, every
//! message block in full) or as the raw JSON, both wrapped to the width with their indent
//! kept, scrollable and searchable.
//!
//! A self-contained widget that renders from the body bytes alone and owns its scroll and
//! search state (ARCHITECTURE.md: views own their state, requests go up as outcomes):
//! `y` does not touch the terminal, it returns [`ViewerOutcome::Copy`] and the caller
//! sends the text through OSC 52 (`ui::terminal::osc::osc52`). Rows are cached per width, so a
//! multi-megabyte body is wrapped once, not on every frame.

mod doc;
mod layout;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};
use serde_json::Value;

use crate::i18n::{Arg, Locale, Localizer};
use crate::ui::text::str_width;
use crate::ui::theme;

use doc::{Doc, Tone};
use layout::{Match, Row};

/// Which document is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewMode {
    /// System, tools with schemas, messages block by block.
    Sections,
    /// The body pretty-printed, token for token as sent.
    Raw,
}

impl ViewMode {
    fn index(self) -> usize {
        match self {
            ViewMode::Sections => 0,
            ViewMode::Raw => 1,
        }
    }
}

/// What a key asks of the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewerOutcome {
    /// The viewer handled the key; redraw.
    Consumed,
    /// Copy this text to the clipboard (the shown view's text), e.g. through OSC 52.
    Copy(String),
    /// Close the viewer.
    Close,
    /// Not a viewer key; the caller may handle it.
    Ignored,
}

/// The key help rows: key label (words as `tui-key-…` ids, as `keymap::label_text`
/// reads them) and the Fluent id of the description.
pub const HELP_ROWS: &[(&str, &str)] = &[
    (
        "↑ / ↓ / PgUp / PgDn / Home / End",
        "inspector-view-help-scroll",
    ),
    ("tui-key-viewer-wheel", "inspector-view-help-wheel"),
    ("/", "inspector-view-help-find"),
    ("n / N", "inspector-view-help-next"),
    ("Tab / r", "inspector-view-help-switch"),
    ("y", "inspector-view-help-copy"),
    ("Esc / q", "inspector-view-help-close"),
];

/// [`HELP_ROWS`] with the key words localized, in the key help overlay's row type.
pub fn help_rows(l: Localizer) -> Vec<(String, &'static str)> {
    HELP_ROWS
        .iter()
        .map(|(k, d)| (crate::ui::keymap::label_text(l, k), *d))
        .collect()
}

/// A transient line in the status row, cleared by the next key.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Notice {
    NoMatch(String),
    Copied(ViewMode, usize),
}

/// The search: the prompt being typed, the last query and its matches in the shown view.
#[derive(Debug, Default)]
struct Search {
    prompt: Option<String>,
    query: String,
    matches: Vec<Match>,
    current: Option<usize>,
    /// The view (and locale, for the sections) the matches belong to.
    of: Option<(ViewMode, Locale)>,
}

/// Rows of one view at one width and locale.
type Wrapped = Option<(u16, Locale, Rc<Vec<Row>>)>;

/// The request viewer. See the module docs.
#[derive(Debug)]
pub struct RequestViewer {
    value: Option<Value>,
    error: Option<String>,
    raw: Rc<Doc>,
    sections: RefCell<Option<(Locale, Rc<Doc>)>>,
    wrapped: RefCell<[Wrapped; 2]>,
    view: ViewMode,
    /// Top of each view as (logical line, byte), so a resize keeps the place.
    top: [(usize, usize); 2],
    search: Search,
    notice: Option<Notice>,
    /// Body width, body height and locale of the last frame (keys scroll by its page).
    frame: Cell<(u16, u16, Localizer)>,
}

impl RequestViewer {
    /// A viewer on `body`, the request's bytes as sent. A body that is not JSON shows as
    /// plain text in both views (see [`RequestViewer::parse_error`]); nothing panics.
    pub fn new(body: &str) -> Self {
        let (value, error) = match serde_json::from_str::<Value>(body) {
            Ok(v) => (Some(v), None),
            Err(e) => (None, Some(e.to_string())),
        };
        let raw = Rc::new(doc::raw(body, value.is_some()));
        RequestViewer {
            value,
            error,
            raw,
            sections: RefCell::new(None),
            wrapped: RefCell::new([None, None]),
            view: ViewMode::Sections,
            top: [(0, 0); 2],
            search: Search::default(),
            notice: None,
            frame: Cell::new((80, 22, Localizer::default())),
        }
    }

    /// Why the body is not JSON, if it is not.
    pub fn parse_error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The view shown.
    pub fn view(&self) -> ViewMode {
        self.view
    }

    /// The last search's matches and the current one (0-based), for the caller's status.
    pub fn matches(&self) -> (usize, Option<usize>) {
        (self.search.matches.len(), self.search.current)
    }

    /// The text `y` copies: the raw JSON in the raw view, the sections' text (in the
    /// locale last drawn) in the sections view.
    pub fn copy_text(&self) -> String {
        self.doc(self.view, self.frame.get().2).text()
    }

    fn doc(&self, view: ViewMode, l: Localizer) -> Rc<Doc> {
        match (view, &self.value) {
            (ViewMode::Sections, Some(v)) => {
                let mut cache = self.sections.borrow_mut();
                match &*cache {
                    Some((loc, d)) if *loc == l.locale => d.clone(),
                    _ => {
                        let d = Rc::new(doc::sections(v, l));
                        *cache = Some((l.locale, d.clone()));
                        d
                    }
                }
            }
            _ => self.raw.clone(),
        }
    }

    fn rows(&self, view: ViewMode, width: u16, l: Localizer) -> Rc<Vec<Row>> {
        let mut cache = self.wrapped.borrow_mut();
        let slot = &mut cache[view.index()];
        if let Some((w, loc, rows)) = slot
            && *w == width
            && *loc == l.locale
        {
            return rows.clone();
        }
        let rows = Rc::new(layout::rows(&self.doc(view, l), width as usize));
        *slot = Some((width, l.locale, rows.clone()));
        rows
    }

    /// The first shown row of the current view, clamped so the last page is full.
    fn top_row(&self, rows: &[Row], page: usize) -> usize {
        let (line, at) = self.top[self.view.index()];
        layout::row_of(rows, line, at).min(rows.len().saturating_sub(page))
    }

    fn scroll_to_row(&mut self, row: usize) {
        let (w, h, l) = self.frame.get();
        let rows = self.rows(self.view, w, l);
        let max = rows.len().saturating_sub(h as usize);
        self.top[self.view.index()] = rows
            .get(row.min(max))
            .map_or((0, 0), |r| (r.line as usize, r.start as usize));
    }

    fn scroll_by(&mut self, delta: isize) {
        let (w, h, l) = self.frame.get();
        let rows = self.rows(self.view, w, l);
        let top = self.top_row(&rows, h as usize);
        self.scroll_to_row(top.saturating_add_signed(delta));
    }

    /// Runs the search for `query` in the current view.
    fn run_search(&mut self) {
        let l = self.frame.get().2;
        let d = self.doc(self.view, l);
        self.search.matches = layout::find_all(&d, &self.search.query);
        self.search.of = Some((self.view, l.locale));
        self.search.current = None;
    }

    /// Makes match `i` current and scrolls it into view, a third down the page.
    fn show_match(&mut self, i: usize) {
        let Some(m) = self.search.matches.get(i).cloned() else {
            return;
        };
        self.search.current = Some(i);
        let (w, h, l) = self.frame.get();
        let rows = self.rows(self.view, w, l);
        let row = layout::row_of(&rows, m.line, m.range.start);
        self.scroll_to_row(row.saturating_sub(h as usize / 3));
    }

    /// Steps to the next (`forward`) or previous match, wrapping around.
    fn step(&mut self, forward: bool) {
        if self.search.query.is_empty() {
            return;
        }
        let l = self.frame.get().2;
        if self.search.of != Some((self.view, l.locale)) {
            self.run_search();
        }
        let n = self.search.matches.len();
        if n == 0 {
            self.notice = Some(Notice::NoMatch(self.search.query.clone()));
            return;
        }
        let next = match (self.search.current, forward) {
            (None, _) => 0,
            (Some(c), true) => (c + 1) % n,
            (Some(c), false) => (c + n - 1) % n,
        };
        self.show_match(next);
    }

    /// Handles a key. Keys the viewer does not use come back as [`ViewerOutcome::Ignored`].
    pub fn handle_key(&mut self, k: &KeyEvent) -> ViewerOutcome {
        if k.kind == KeyEventKind::Release {
            return ViewerOutcome::Ignored;
        }
        self.notice = None;
        if let Some(p) = self.search.prompt.as_mut() {
            match k.code {
                KeyCode::Esc => self.search.prompt = None,
                KeyCode::Enter => {
                    self.search.query = self.search.prompt.take().unwrap_or_default();
                    self.run_search();
                    if self.search.matches.is_empty() {
                        if !self.search.query.is_empty() {
                            self.notice = Some(Notice::NoMatch(self.search.query.clone()));
                        }
                    } else {
                        self.show_match(0);
                    }
                }
                // Backspace on an empty prompt closes it, as in less.
                KeyCode::Backspace if p.pop().is_none() => self.search.prompt = None,
                KeyCode::Char(c)
                    if !k
                        .modifiers
                        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
                {
                    p.push(c);
                }
                _ => {}
            }
            // The prompt is modal: no key reaches the panes behind it.
            return ViewerOutcome::Consumed;
        }
        let (_, h, _) = self.frame.get();
        let page = (h as isize - 1).max(1);
        let plain = !k
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        match k.code {
            KeyCode::Up => self.scroll_by(-1),
            KeyCode::Down => self.scroll_by(1),
            KeyCode::PageUp => self.scroll_by(-page),
            KeyCode::PageDown => self.scroll_by(page),
            KeyCode::Home => self.scroll_to_row(0),
            KeyCode::End => self.scroll_to_row(usize::MAX),
            KeyCode::Tab | KeyCode::BackTab => self.toggle(),
            KeyCode::Esc => return ViewerOutcome::Close,
            KeyCode::Char(c) if plain => match c {
                'q' => return ViewerOutcome::Close,
                'r' => self.toggle(),
                '/' => self.search.prompt = Some(String::new()),
                'n' => self.step(true),
                'N' => self.step(false),
                'y' => {
                    let text = self.copy_text();
                    self.notice = Some(Notice::Copied(self.view, text.lines().count()));
                    return ViewerOutcome::Copy(text);
                }
                _ => return ViewerOutcome::Ignored,
            },
            _ => return ViewerOutcome::Ignored,
        }
        ViewerOutcome::Consumed
    }

    /// Handles a mouse event: the wheel scrolls three rows.
    pub fn handle_mouse(&mut self, m: &MouseEvent) -> ViewerOutcome {
        match m.kind {
            MouseEventKind::ScrollUp => self.scroll_by(-3),
            MouseEventKind::ScrollDown => self.scroll_by(3),
            _ => return ViewerOutcome::Ignored,
        }
        ViewerOutcome::Consumed
    }

    /// Switches between the sections and the raw view; the search follows, showing its
    /// first match in the other view.
    fn toggle(&mut self) {
        self.view = match self.view {
            ViewMode::Sections => ViewMode::Raw,
            ViewMode::Raw => ViewMode::Sections,
        };
        if !self.search.query.is_empty() {
            self.run_search();
            self.show_match(0);
        }
    }

    /// Draws the viewer over `area`: a title row, the body, a status row.
    pub fn render(&self, area: Rect, buf: &mut Buffer, l: &Localizer) {
        let l = *l;
        let area = area.intersection(buf.area);
        // A wide character just left of the area whose right half lies inside it would
        // be drawn by the terminal over the first column: blank it (as the panes' overlays do).
        if area.x > buf.area.x {
            for y in area.top()..area.bottom() {
                let left = &mut buf[(area.x - 1, y)];
                if str_width(left.symbol()) > 1 {
                    left.set_symbol(" ");
                }
            }
        }
        Clear.render(area, buf);
        if area.width == 0 || area.height == 0 {
            return;
        }
        let width = area.width;
        let body_h = area.height.saturating_sub(2);
        self.frame.set((width, body_h.max(1), l));
        let rows = self.rows(self.view, width, l);
        let d = self.doc(self.view, l);
        let page = body_h as usize;
        let top = self.top_row(&rows, page);
        let shown = rows.len().saturating_sub(top).min(page);
        self.title(area, buf, l, top, shown, rows.len());
        if area.height < 2 {
            return;
        }
        let matches: &[Match] = match self.search.of {
            Some((v, loc)) if v == self.view && loc == l.locale => &self.search.matches,
            _ => &[],
        };
        for (i, r) in rows.iter().skip(top).take(page).enumerate() {
            let line = Line::from(self.row_spans(&d, r, width as usize, matches));
            buf.set_line(area.x, area.y + 1 + i as u16, &line, width);
        }
        let status = Line::from(self.status(l));
        buf.set_line(area.x, area.y + area.height - 1, &status, width);
    }

    fn title(
        &self,
        area: Rect,
        buf: &mut Buffer,
        l: Localizer,
        top: usize,
        n: usize,
        total: usize,
    ) {
        let tab = |view: ViewMode, key: &str| {
            let st = if self.view == view {
                theme::banner().add_modifier(Modifier::REVERSED)
            } else {
                theme::banner()
            };
            Span::styled(format!(" {} ", l.tr(key)), st)
        };
        let pos = l.tra(
            "inspector-view-position",
            &[
                ("first", Arg::from(if n == 0 { 0 } else { top + 1 })),
                ("last", Arg::from(top + n)),
                ("total", Arg::from(total)),
            ],
        );
        let head = format!(" {} ", l.tr("inspector-view-title"));
        let used = str_width(&head)
            + str_width(&l.tr("inspector-view-tab-sections"))
            + str_width(&l.tr("inspector-view-tab-raw"))
            + 4;
        let rest = (area.width as usize).saturating_sub(used);
        // The position is chrome: dropped whole when it does not fit, never cut.
        let pos = format!(" · {pos}");
        let pos = if str_width(&pos) <= rest {
            pos
        } else {
            String::new()
        };
        let pad = rest.saturating_sub(str_width(&pos));
        let line = Line::from(vec![
            Span::styled(head, theme::banner()),
            tab(ViewMode::Sections, "inspector-view-tab-sections"),
            tab(ViewMode::Raw, "inspector-view-tab-raw"),
            Span::styled(format!("{pos}{}", " ".repeat(pad)), theme::banner()),
        ]);
        buf.set_line(area.x, area.y, &line, area.width);
    }

    /// One row: the line's indent, then its text with the matches highlighted.
    fn row_spans(&self, d: &Doc, r: &Row, width: usize, matches: &[Match]) -> Vec<Span<'static>> {
        let Some(dl) = d.lines.get(r.line as usize) else {
            return Vec::new();
        };
        let style = match dl.tone {
            Tone::Plain => Style::default(),
            Tone::Heading => theme::accent().patch(theme::bold()),
            Tone::Item => theme::bold(),
            Tone::Label => theme::accent(),
            Tone::Dim => theme::dim(),
        };
        let (start, end) = (r.start as usize, r.end as usize);
        let text = dl.text.get(start..end).unwrap_or("");
        let mut spans = vec![Span::raw(" ".repeat(layout::indent_at(dl.indent, width)))];
        let line = r.line as usize;
        let first = matches.partition_point(|m| (m.line, m.range.end) <= (line, start));
        let mut at = start;
        for (k, m) in matches.iter().enumerate().skip(first) {
            if m.line != line || m.range.start >= end {
                break;
            }
            let (a, b) = (m.range.start.max(start), m.range.end.min(end));
            if a > at {
                spans.push(Span::styled(dl.text[at..a].to_string(), style));
            }
            let hl = if self.search.current == Some(k) {
                theme::banner()
            } else {
                theme::selected()
            };
            spans.push(Span::styled(dl.text[a..b].to_string(), hl));
            at = b;
        }
        if at < end {
            spans.push(Span::styled(dl.text[at..end].to_string(), style));
        } else if text.is_empty() {
            spans.push(Span::raw(String::new()));
        }
        spans
    }

    /// The status row: the search prompt, a notice, the match count or the key hint.
    fn status(&self, l: Localizer) -> Vec<Span<'static>> {
        if let Some(p) = &self.search.prompt {
            return vec![
                Span::styled(format!("/{p}"), theme::bold()),
                Span::styled("▏".to_string(), theme::accent()),
                Span::styled(
                    format!("  {}", l.tr("inspector-view-prompt-hint")),
                    theme::dim(),
                ),
            ];
        }
        let notice = match &self.notice {
            Some(Notice::NoMatch(q)) => Some((
                l.tra(
                    "inspector-view-no-match",
                    &[("query", Arg::from(q.clone()))],
                ),
                theme::warn(),
            )),
            Some(Notice::Copied(v, lines)) => {
                let key = match v {
                    ViewMode::Sections => "inspector-view-copied-sections",
                    ViewMode::Raw => "inspector-view-copied-raw",
                };
                Some((
                    l.tra(key, &[("lines", Arg::from(*lines))]),
                    theme::success(),
                ))
            }
            None => None,
        };
        if let Some((text, st)) = notice {
            return vec![Span::styled(crate::ui::text::sanitize(&text), st)];
        }
        let mut spans = Vec::new();
        if let (Some(c), n) = (self.search.current, self.search.matches.len())
            && n > 0
        {
            spans.push(Span::styled(
                l.tra(
                    "inspector-view-match",
                    &[
                        ("n", Arg::from(c + 1)),
                        ("total", Arg::from(n)),
                        (
                            "query",
                            Arg::from(crate::ui::text::sanitize(&self.search.query)),
                        ),
                    ],
                ),
                theme::accent(),
            ));
            spans.push(Span::styled(" · ".to_string(), theme::dim()));
        }
        if let Some(e) = &self.error {
            spans.push(Span::styled(
                l.tra(
                    "inspector-view-not-json",
                    &[("error", Arg::from(e.clone()))],
                ),
                theme::warn(),
            ));
            spans.push(Span::styled(" · ".to_string(), theme::dim()));
        }
        spans.push(Span::styled(l.tr("inspector-view-hint"), theme::dim()));
        spans
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod wire_tests;
