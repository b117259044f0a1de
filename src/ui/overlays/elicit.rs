//! The elicitation overlay (SPEC §15.2, decision 0162): an MCP server's question, asked
//! while it works. Form mode shows a field per property of the requested schema (text,
//! number, yes/no, one or several options), checks each answer before it goes
//! (`tools::mcp::elicit::form`) and shows why a field is not ready under it; URL mode shows
//! the page's address as a link and asks before anything opens it.
//!
//! A form is a small editor of its own, so it reads raw keys (like the request viewer)
//! rather than the keymap's actions; its keys are on its own bottom line. Submit (Enter on
//! the last field or on Submit) accepts, Decline declines, Esc and Ctrl+C cancel. Every
//! answer goes back as `AgentCommand::Elicit`; the overlay closes once it has answered.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use crate::agent::protocol::AgentCommand;
use crate::i18n::{Arg, Localizer, Text};
use crate::tools::mcp::elicit::form::content;
use crate::tools::mcp::elicit::{
    ElicitAnswer, ElicitKind, ElicitationRequest, Entry, Field, Input,
};
use crate::ui::app_event::AppEvent;
use crate::ui::component::{Handled, clear_area, overlay_base};
use crate::ui::model::Model;
use crate::ui::text::{str_width, truncate, wrap_line};
use crate::ui::theme;

/// The widest the overlay grows.
const MAX_WIDTH: u16 = 100;

/// The longest entry a field takes (characters).
const MAX_ENTRY_CHARS: usize = crate::tools::mcp::elicit::schema::MAX_DEFAULT_CHARS;

/// The buttons under the fields, in order.
const BUTTONS: [&str; 3] = ["elicit-submit", "elicit-decline", "elicit-cancel"];

/// One open question.
#[derive(Debug, Clone)]
pub struct ElicitOverlay {
    request: ElicitationRequest,
    /// One entry per field (form mode).
    entries: Vec<Entry>,
    /// Each field's reason it cannot be submitted, after a try.
    errors: Vec<Option<Text>>,
    /// The focused row: a field, then Submit, Decline, Cancel.
    focus: usize,
    /// The highlighted option of each several-options field.
    option: Vec<usize>,
    /// The first row shown.
    scroll: usize,
}

impl ElicitOverlay {
    /// The overlay for `request`, each field at its default.
    pub fn new(request: ElicitationRequest) -> ElicitOverlay {
        let fields = fields(&request);
        let entries: Vec<Entry> = fields.iter().map(Field::initial).collect();
        let n = entries.len();
        ElicitOverlay {
            request,
            entries,
            errors: vec![None; n],
            focus: 0,
            option: vec![0; n],
            scroll: 0,
        }
    }

    /// The request's id.
    pub fn id(&self) -> u64 {
        self.request.id
    }

    /// The server that asks.
    pub fn server(&self) -> &str {
        &self.request.server
    }

    /// What each field holds now (tests, the snapshot).
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    fn fields(&self) -> &[Field] {
        fields(&self.request)
    }

    fn is_url(&self) -> bool {
        matches!(self.request.kind, ElicitKind::Url { .. })
    }

    fn rows_len(&self) -> usize {
        self.entries.len() + BUTTONS.len()
    }

    fn answer(&self, answer: ElicitAnswer, out: &mut Vec<AppEvent>) -> Handled {
        out.push(AppEvent::Agent(AgentCommand::Elicit {
            id: self.request.id,
            answer,
        }));
        Handled::Close
    }

    /// Submits the form when every field is ready; otherwise shows why under each field
    /// that is not and moves to the first of them.
    fn submit(&mut self, out: &mut Vec<AppEvent>) -> Handled {
        let fields = fields(&self.request).to_vec();
        match content(&fields, &self.entries) {
            Ok(map) => self.answer(ElicitAnswer::Accept(map), out),
            Err(errors) => {
                self.errors = vec![None; self.entries.len()];
                if let Some((first, _)) = errors.first() {
                    self.focus = *first;
                }
                for (i, t) in errors {
                    self.errors[i] = Some(t);
                }
                Handled::Consumed
            }
        }
    }

    /// Handles one key; `Close` once the question is answered.
    pub fn key(&mut self, k: &KeyEvent, out: &mut Vec<AppEvent>) -> Handled {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        if k.code == KeyCode::Esc || (ctrl && k.code == KeyCode::Char('c')) {
            return self.answer(ElicitAnswer::Cancel, out);
        }
        if self.is_url() {
            return match k.code {
                KeyCode::Char('y' | 'Y') | KeyCode::Enter => {
                    self.answer(ElicitAnswer::Accept(Default::default()), out)
                }
                KeyCode::Char('n' | 'N') => self.answer(ElicitAnswer::Decline, out),
                _ => Handled::Consumed,
            };
        }
        let rows = self.rows_len();
        match k.code {
            KeyCode::Tab | KeyCode::Down => {
                self.focus = (self.focus + 1) % rows;
                return Handled::Consumed;
            }
            KeyCode::BackTab | KeyCode::Up => {
                self.focus = (self.focus + rows - 1) % rows;
                return Handled::Consumed;
            }
            _ => {}
        }
        let n = self.entries.len();
        if self.focus >= n {
            return match (self.focus - n, k.code) {
                (0, KeyCode::Enter) => self.submit(out),
                (1, KeyCode::Enter) => self.answer(ElicitAnswer::Decline, out),
                (2, KeyCode::Enter) => self.answer(ElicitAnswer::Cancel, out),
                (_, KeyCode::Left) => {
                    self.focus = (self.focus - 1).max(n);
                    Handled::Consumed
                }
                (_, KeyCode::Right) => {
                    self.focus = (self.focus + 1).min(rows - 1);
                    Handled::Consumed
                }
                _ => Handled::Consumed,
            };
        }
        if k.code == KeyCode::Enter {
            // Enter moves on; on the last field it submits.
            return if self.focus + 1 == n {
                self.submit(out)
            } else {
                self.focus += 1;
                Handled::Consumed
            };
        }
        self.edit(k);
        Handled::Consumed
    }

    /// A paste goes into the focused text field (its first line, without control
    /// characters, within the field's cap); anywhere else it is dropped, never passed to the
    /// composer behind the form.
    pub fn paste(&mut self, text: &str) {
        let i = self.focus;
        if let Some(Entry::Text(s)) = self.entries.get_mut(i) {
            let line = text.lines().next().unwrap_or_default();
            let room = MAX_ENTRY_CHARS.saturating_sub(s.chars().count());
            s.extend(line.chars().filter(|c| !c.is_control()).take(room));
            self.errors[i] = None;
        }
    }

    /// Edits the focused field; its shown error goes once it changes.
    fn edit(&mut self, k: &KeyEvent) {
        let i = self.focus;
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        let input = fields(&self.request)[i].input.clone();
        let before = self.entries[i].clone();
        match (&mut self.entries[i], &input) {
            (Entry::Text(s), _) => match k.code {
                KeyCode::Backspace => {
                    s.pop();
                }
                KeyCode::Char('u') if ctrl => s.clear(),
                // An entry is capped like a default text (what the server may send).
                KeyCode::Char(c)
                    if !ctrl
                        && !k.modifiers.contains(KeyModifiers::ALT)
                        && s.chars().count() < MAX_ENTRY_CHARS =>
                {
                    s.push(c)
                }
                _ => {}
            },
            (Entry::Bool(b), _) => {
                if matches!(k.code, KeyCode::Char(' ') | KeyCode::Left | KeyCode::Right) {
                    *b = !*b;
                }
                if let KeyCode::Char(c) = k.code {
                    match c {
                        'y' | 'Y' => *b = true,
                        'n' | 'N' => *b = false,
                        _ => {}
                    }
                }
            }
            (Entry::Choice(c), Input::Choice { options, .. }) => {
                let len = options.len();
                match k.code {
                    KeyCode::Right | KeyCode::Char(' ') => {
                        *c = Some(c.map_or(0, |x| (x + 1) % len));
                    }
                    KeyCode::Left => *c = Some(c.map_or(len - 1, |x| (x + len - 1) % len)),
                    _ => {}
                }
            }
            (Entry::Choices(ticked), _) => {
                let len = ticked.len();
                let at = &mut self.option[i];
                match k.code {
                    KeyCode::Right => *at = (*at + 1) % len,
                    KeyCode::Left => *at = (*at + len - 1) % len,
                    KeyCode::Char(' ') => ticked[*at] = !ticked[*at],
                    _ => {}
                }
            }
            _ => {}
        }
        if self.entries[i] != before {
            self.errors[i] = None;
        }
    }

    /// The body's rows and the range of rows of the focused field or button.
    fn rows(&self, l: Localizer, width: usize) -> (Vec<Line<'static>>, (usize, usize)) {
        let mut rows = Vec::new();
        for line in self.request.message.lines() {
            rows.extend(wrap_line(&Line::from(line.to_string()), width, 0));
        }
        rows.push(Line::default());
        let mut focus = (0, 0);
        for (i, (f, e)) in self.fields().iter().zip(&self.entries).enumerate() {
            let on = i == self.focus;
            let start = rows.len();
            let marker = if on { "› " } else { "  " };
            let mut label = vec![Span::styled(
                format!("{marker}{}", f.label),
                if on { theme::bold() } else { Style::default() },
            )];
            if f.required {
                label.push(Span::styled(
                    format!(" · {}", l.tr("elicit-required")),
                    theme::dim(),
                ));
            }
            rows.push(Line::from(label));
            rows.push(value_line(l, f, e, on, self.option[i], width));
            if let Some(err) = &self.errors[i] {
                rows.push(Line::from(Span::styled(
                    truncate(&format!("    {}", l.text(err)), width),
                    theme::error(),
                )));
            }
            if let Some(d) = &f.description {
                for r in wrap_line(
                    &Line::from(Span::styled(d.clone(), theme::dim())),
                    width.saturating_sub(4),
                    0,
                ) {
                    let mut spans = vec![Span::raw("    ")];
                    spans.extend(r.spans);
                    rows.push(Line::from(spans));
                }
            }
            if on {
                focus = (start, rows.len());
            }
        }
        rows.push(Line::default());
        let n = self.entries.len();
        let invalid = self.errors.iter().filter(|e| e.is_some()).count();
        if invalid > 0 {
            rows.push(Line::from(Span::styled(
                l.tra("elicit-form-invalid", &[("count", Arg::from(invalid))]),
                theme::error(),
            )));
        }
        let mut buttons = vec![Span::raw("  ")];
        for (j, key) in BUTTONS.iter().enumerate() {
            let style = if self.focus == n + j {
                theme::selected()
            } else {
                theme::bold()
            };
            buttons.push(Span::styled(format!("[ {} ]", l.tr(key)), style));
            buttons.push(Span::raw("  "));
        }
        if self.focus >= n {
            focus = (rows.len(), rows.len() + 1);
        }
        rows.push(Line::from(buttons));
        (rows, focus)
    }

    /// Draws the URL question: the message, the address (a link) and the question.
    fn render_url(&self, inner: Rect, buf: &mut Buffer, l: Localizer, url: &str) {
        let width = usize::from(inner.width);
        let mut rows: Vec<Line<'static>> = Vec::new();
        for line in self.request.message.lines() {
            rows.extend(wrap_line(&Line::from(line.to_string()), width, 0));
        }
        rows.push(Line::default());
        let url_top = rows.len();
        // The address is printable ASCII: it is cut at the edge, row by row, so its cells
        // are known and become one link.
        let chunks: Vec<&str> = url
            .as_bytes()
            .chunks(width.max(1))
            .map(|c| std::str::from_utf8(c).unwrap_or_default())
            .collect();
        for c in &chunks {
            rows.push(Line::from(Span::styled(c.to_string(), theme::link())));
        }
        rows.push(Line::default());
        rows.push(Line::from(Span::styled(
            l.tr("elicit-url-question"),
            theme::bold(),
        )));
        let mut cells = Vec::new();
        for (y, line) in rows.iter().take(usize::from(inner.height)).enumerate() {
            buf.set_line(inner.x, inner.y + y as u16, line, inner.width);
            if (url_top..url_top + chunks.len()).contains(&y) {
                let len = chunks[y - url_top].len() as u16;
                cells.extend((0..len).map(|x| (inner.x + x, inner.y + y as u16)));
            }
        }
        crate::ui::terminal::hyperlink::mark_cells(buf, url, cells);
    }

    /// Draws the overlay over `area`.
    pub fn render(&mut self, area: Rect, buf: &mut Buffer, m: &Model) {
        let l = m.l;
        let w = area
            .width
            .saturating_sub(4)
            .clamp(area.width.min(20), MAX_WIDTH);
        let h = area.height.saturating_sub(2).clamp(area.height.min(6), 40);
        let rect = Rect::new(
            area.x + (area.width - w) / 2,
            area.y + (area.height - h) / 2,
            w,
            h,
        );
        clear_area(rect, buf, overlay_base());
        let name = Arg::from(self.request.server.clone());
        let (title, keys) = if self.is_url() {
            (
                l.tra("elicit-url-title", &[("name", name)]),
                l.tr("elicit-url-keys"),
            )
        } else {
            (
                l.tra("elicit-form-title", &[("name", name)]),
                l.tr("elicit-form-keys"),
            )
        };
        let keys = truncate(&format!(" {keys} "), usize::from(w.saturating_sub(2)));
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme::accent())
            .title(Span::styled(
                truncate(&format!(" {title} "), usize::from(w.saturating_sub(2))),
                theme::bold(),
            ))
            .title_bottom(Line::from(keys).right_aligned());
        let inner = block.inner(rect);
        block.render(rect, buf);
        if inner.height == 0 || inner.width == 0 {
            return;
        }
        if let ElicitKind::Url { url } = &self.request.kind {
            let url = url.clone();
            self.render_url(inner, buf, l, &url);
            return;
        }
        let width = usize::from(inner.width);
        let (rows, (top, end)) = self.rows(l, width);
        let page = usize::from(inner.height);
        // The focused field (its label, value, error and description) stays in view.
        if top < self.scroll {
            self.scroll = top;
        } else if end > self.scroll + page {
            self.scroll = end.saturating_sub(page).min(top);
        }
        for (y, line) in rows.iter().skip(self.scroll).take(page).enumerate() {
            buf.set_line(inner.x, inner.y + y as u16, line, inner.width);
        }
    }
}

fn fields(r: &ElicitationRequest) -> &[Field] {
    match &r.kind {
        ElicitKind::Form { fields } => fields,
        ElicitKind::Url { .. } => &[],
    }
}

/// The row showing a field's entry: a text box, yes/no, the chosen option, or the options
/// with their ticks.
fn value_line(
    l: Localizer,
    f: &Field,
    e: &Entry,
    on: bool,
    at: usize,
    width: usize,
) -> Line<'static> {
    let inner = width.saturating_sub(6).max(4);
    let field_style = if on { theme::selected() } else { theme::code() };
    match (e, &f.input) {
        (Entry::Text(s), _) => {
            // Underlined: an empty box is still seen as one.
            let field_style = if on {
                field_style
            } else {
                field_style.add_modifier(ratatui::style::Modifier::UNDERLINED)
            };
            // The end of a long entry stays visible, where typing goes on.
            let mut shown = s.clone();
            while str_width(&shown) > inner.saturating_sub(1) {
                shown.remove(0);
            }
            let caret = if on { "▏" } else { "" };
            let pad = inner.saturating_sub(str_width(&shown) + str_width(caret));
            Line::from(vec![
                Span::raw("    "),
                Span::styled(format!("{shown}{caret}{}", " ".repeat(pad)), field_style),
            ])
        }
        (Entry::Bool(b), _) => {
            let (mark, word) = if *b {
                ("[x]", l.tr("elicit-yes"))
            } else {
                ("[ ]", l.tr("elicit-no"))
            };
            Line::from(vec![
                Span::raw("    "),
                Span::styled(format!("{mark} {word}"), field_style),
            ])
        }
        (Entry::Choice(c), Input::Choice { options, .. }) => {
            let label = c
                .and_then(|i| options.get(i))
                .map(|o| o.label.clone())
                .unwrap_or_else(|| l.tr("elicit-none-chosen"));
            let text = truncate(&format!("‹ {label} ›"), inner);
            Line::from(vec![Span::raw("    "), Span::styled(text, field_style)])
        }
        (Entry::Choices(ticked), Input::Choices { options, .. }) => {
            let items: Vec<String> = options
                .iter()
                .zip(ticked)
                .map(|(o, t)| format!("[{}] {}", if *t { "x" } else { " " }, o.label))
                .collect();
            // The options shown start early enough that the highlighted one is in view.
            let room = width.saturating_sub(6);
            let mut start = at.min(items.len().saturating_sub(1));
            let mut used = str_width(&items[start]) + 2;
            while start > 0 && used + str_width(&items[start - 1]) + 2 <= room {
                start -= 1;
                used += str_width(&items[start]) + 2;
            }
            let mut spans = vec![Span::raw("    ")];
            let mut used = 4;
            if start > 0 {
                spans.push(Span::styled("… ", theme::dim()));
                used += 2;
            }
            for (j, item) in items.iter().enumerate().skip(start) {
                let w = str_width(item) + 2;
                if used + w > width {
                    spans.push(Span::styled("…", theme::dim()));
                    break;
                }
                used += w;
                let style = if on && j == at {
                    theme::selected()
                } else {
                    Style::default()
                };
                spans.push(Span::styled(item.clone(), style));
                spans.push(Span::raw("  "));
            }
            Line::from(spans)
        }
        _ => Line::default(),
    }
}

#[cfg(test)]
#[path = "elicit_tests.rs"]
mod tests;
