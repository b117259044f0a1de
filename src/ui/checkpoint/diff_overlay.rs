//! The `/diff` overlay: a unified diff, per file, coloured (additions green, removals
//! red, hunk headers accented, file headers bold), scrolled with the arrow keys and
//! PgUp/PgDn. Renders from the diff text alone.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

use crate::ui::theme;

/// What a key did to the overlay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffKey {
    /// Handled (scrolled, or nothing to do).
    Handled,
    /// Close the overlay.
    Close,
}

/// The diff overlay's state: the lines and the scroll offset.
#[derive(Debug, Clone, Default)]
pub struct DiffOverlay {
    title: String,
    lines: Vec<String>,
    scroll: usize,
}

/// The style of one unified-diff line.
pub fn line_style(line: &str) -> Style {
    if line.starts_with("+++") || line.starts_with("---") {
        theme::bold()
    } else if line.starts_with("@@") {
        theme::accent()
    } else if line.starts_with('+') {
        theme::success()
    } else if line.starts_with('-') {
        theme::error()
    } else {
        Style::default()
    }
}

impl DiffOverlay {
    /// An overlay titled `title` over the unified diff `text`.
    pub fn new(title: impl Into<String>, text: &str) -> DiffOverlay {
        DiffOverlay {
            title: title.into(),
            lines: text.lines().map(crate::ui::text::sanitize).collect(),
            scroll: 0,
        }
    }

    /// The first line shown.
    pub fn scroll(&self) -> usize {
        self.scroll
    }

    /// Scrolls by `delta` lines within `[0, lines - page]`.
    pub fn scroll_by(&mut self, delta: isize, page: usize) {
        let max = self.lines.len().saturating_sub(page.max(1));
        let next = (self.scroll as isize + delta).clamp(0, max as isize);
        self.scroll = next as usize;
    }

    /// Handles a key (`page` = the visible height).
    pub fn key(&mut self, code: crossterm::event::KeyCode, page: usize) -> DiffKey {
        use crossterm::event::KeyCode;
        match code {
            KeyCode::Esc | KeyCode::Char('q') => return DiffKey::Close,
            KeyCode::Up | KeyCode::Char('k') => self.scroll_by(-1, page),
            KeyCode::Down | KeyCode::Char('j') => self.scroll_by(1, page),
            KeyCode::PageUp => self.scroll_by(-(page as isize), page),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll_by(page as isize, page),
            KeyCode::Home => self.scroll = 0,
            KeyCode::End => self.scroll_by(isize::MAX / 2, page),
            _ => {}
        }
        DiffKey::Handled
    }

    /// Draws the overlay over `area`.
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        Clear.render(area, buf);
        let block = Block::default()
            .borders(Borders::ALL)
            .title(Span::styled(format!(" {} ", self.title), theme::bold()));
        let inner = block.inner(area);
        block.render(area, buf);
        let lines: Vec<Line> = self
            .lines
            .iter()
            .skip(self.scroll)
            .take(inner.height as usize)
            .map(|l| Line::from(Span::styled(l.clone(), line_style(l))))
            .collect();
        Paragraph::new(lines).render(inner, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    const DIFF: &str = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-alpha\n+ALPHA\n second\n";

    fn draw(o: &DiffOverlay, w: u16, h: u16) -> Buffer {
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| o.render(f.area(), f.buffer_mut())).unwrap();
        t.backend().buffer().clone()
    }

    fn row(b: &Buffer, y: u16) -> String {
        (0..b.area.width)
            .map(|x| b[(x, y)].symbol().to_string())
            .collect()
    }

    #[test]
    fn additions_are_green_removals_red_and_the_title_is_shown_at_80_and_120_columns() {
        for w in [80, 120] {
            let o = DiffOverlay::new("Turn 1 changed 1 file", DIFF);
            let b = draw(&o, w, 10);
            assert!(row(&b, 0).contains("Turn 1 changed 1 file"));
            assert!(row(&b, 4).contains("-alpha"));
            assert_eq!(b[(1, 4)].fg, theme::error().fg.unwrap());
            assert!(row(&b, 5).contains("+ALPHA"));
            assert_eq!(b[(1, 5)].fg, theme::success().fg.unwrap());
        }
    }

    #[test]
    fn it_scrolls_within_the_diff_and_esc_closes() {
        let text: String = (0..50).map(|i| format!("+line {i}\n")).collect();
        let mut o = DiffOverlay::new("t", &text);
        assert_eq!(
            o.key(crossterm::event::KeyCode::PageDown, 10),
            DiffKey::Handled
        );
        assert_eq!(o.scroll(), 10);
        o.key(crossterm::event::KeyCode::End, 10);
        assert_eq!(o.scroll(), 40);
        o.key(crossterm::event::KeyCode::Up, 10);
        assert_eq!(o.scroll(), 39);
        assert_eq!(o.key(crossterm::event::KeyCode::Esc, 10), DiffKey::Close);
    }
}
