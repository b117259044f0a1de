//! The transcript (Ctrl+T, SPEC §14.4): the whole Chat with every detail shown in full —
//! each reply's reasoning, every tool card's arguments and output, every node expanded — in
//! a scrollable overlay that opens at its end, where the latest reply is. Chat itself keeps
//! its own disclosure states; the overlay draws copies of its cells.
//! ↑/↓, PgUp/PgDn, Home/End scroll; Esc, `q` or Ctrl+T close.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use crate::ui::app_event::AppEvent;
use crate::ui::chat::cells::Cell;
use crate::ui::component::{Component, Handled, clear_area, overlay_base, overlay_frame};
use crate::ui::keymap::Action;
use crate::ui::model::Model;
use crate::ui::model::{RenderCtx, ToolCardMode};
use crate::ui::scroll::Scroll;
use crate::ui::theme;

/// The transcript overlay's state: copies of Chat's cells, all expanded, and their rows at
/// the last width drawn.
#[derive(Debug)]
pub struct TranscriptOverlay {
    cells: Vec<Cell>,
    rows: Vec<Line<'static>>,
    /// (width, locale generation) the rows were laid out for.
    laid_out: Option<(u16, u64, crate::i18n::Locale)>,
    /// Follows the end until the user scrolls up (it opens at the latest reply).
    scroll: Scroll,
    /// Rows the last frame had room for (the page step).
    page: usize,
}

impl TranscriptOverlay {
    /// A transcript of `cells` (Chat's), each shown in full.
    pub fn new(cells: &[Cell]) -> TranscriptOverlay {
        let cells = cells
            .iter()
            .cloned()
            .map(|mut c| {
                c.expanded = true;
                c.touch();
                c
            })
            .collect();
        TranscriptOverlay {
            cells,
            rows: Vec::new(),
            laid_out: None,
            scroll: Scroll::default(),
            page: 1,
        }
    }

    /// The first row shown.
    pub fn scroll(&self) -> usize {
        self.scroll.resolve(self.rows.len(), self.page)
    }

    /// Every row at the last width drawn.
    pub fn rows(&self) -> &[Line<'static>] {
        &self.rows
    }

    fn lay_out(&mut self, width: u16, m: &Model) {
        let key = (width, m.generation, m.l.locale);
        if self.laid_out == Some(key) {
            return;
        }
        // Tool cards in full, whatever Chat's card mode (Ctrl+O) is.
        let ctx = RenderCtx {
            l: m.l,
            cards: ToolCardMode::Expanded,
            generation: m.generation,
        };
        self.rows.clear();
        for c in &mut self.cells {
            self.rows.extend(c.rows(width, &ctx).iter().cloned());
        }
        self.laid_out = Some(key);
    }

    fn scroll_by(&mut self, delta: isize) {
        self.scroll.by(delta, self.rows.len(), self.page.max(1));
    }
}

impl Component for TranscriptOverlay {
    fn render(&mut self, area: Rect, buf: &mut Buffer, m: &Model) {
        let l = m.l;
        let rect = overlay_frame(area);
        clear_area(rect, buf, overlay_base());
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme::accent())
            .title(Span::styled(
                format!(" {} ", l.tr("tui-transcript-title")),
                theme::bold(),
            ))
            .title_bottom(Line::from(format!(" {} ", l.tr("tui-transcript-keys"))).right_aligned());
        let inner = block.inner(rect);
        block.render(rect, buf);
        self.lay_out(inner.width, m);
        self.page = usize::from(inner.height).max(1);
        let top = self.scroll();
        for (y, row) in self
            .rows
            .iter()
            .skip(top)
            .take(usize::from(inner.height))
            .enumerate()
        {
            buf.set_line(inner.x, inner.y + y as u16, row, inner.width);
        }
    }

    fn handle(&mut self, action: Action, _m: &Model, _out: &mut Vec<AppEvent>) -> Handled {
        let page = self.page.max(1) as isize;
        match action {
            Action::LineUp => self.scroll_by(-1),
            Action::LineDown => self.scroll_by(1),
            Action::PageUp => self.scroll_by(-page),
            Action::PageDown => self.scroll_by(page),
            Action::ScrollTop => self.scroll.top = Some(0),
            Action::ScrollBottom => self.scroll_by(isize::MAX / 2),
            Action::Close | Action::Transcript => return Handled::Close,
            _ => {}
        }
        Handled::Consumed
    }
}

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
