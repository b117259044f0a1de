//! The reasoning cell (SPEC §14.4): the model's thinking streams dim above the reply; when
//! the reply starts the cell collapses to one line, `▸ Thought for 12 s`; Enter on it shows
//! it in full. Render is a function of plain data and width, so it can be wired into Chat
//! without the cell knowing about the rest of the UI.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::text::wrap_prefixed;
use super::theme;
use crate::i18n::{Arg, Localizer};

/// Where the reasoning is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReasoningPhase {
    /// Still streaming: the reply has not started.
    Streaming,
    /// Done: the reply started (or the turn ended) after `secs` seconds of thinking.
    Done {
        /// Seconds spent thinking, rounded down (at least 1 once any text arrived).
        secs: u64,
    },
}

/// What the cell shows: the text, its phase, and whether the user opened it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReasoningCell {
    /// The reasoning text as streamed.
    pub text: String,
    /// Streaming or done.
    pub phase: ReasoningPhase,
    /// Opened by the user (Enter); a streaming cell is always shown open.
    pub expanded: bool,
}

impl ReasoningCell {
    /// A cell that has just started streaming.
    pub fn streaming() -> Self {
        ReasoningCell {
            text: String::new(),
            phase: ReasoningPhase::Streaming,
            expanded: false,
        }
    }

    /// Appends streamed reasoning.
    pub fn push(&mut self, delta: &str) {
        self.text.push_str(delta);
    }

    /// The reply started after `secs` seconds: the cell collapses.
    pub fn finish(&mut self, secs: u64) {
        self.phase = ReasoningPhase::Done { secs: secs.max(1) };
        self.expanded = false;
    }

    /// Enter on the cell: open or close it (a streaming cell stays open).
    pub fn toggle(&mut self) {
        if matches!(self.phase, ReasoningPhase::Done { .. }) {
            self.expanded = !self.expanded;
        }
    }

    /// The rows at `width` columns: a dim title, then (streaming or opened) the text,
    /// dim and indented, wrapped with its indent kept.
    pub fn lines(&self, l: Localizer, width: usize) -> Vec<Line<'static>> {
        let (title, open) = match self.phase {
            ReasoningPhase::Streaming => (l.tr("tui-reasoning-streaming"), true),
            ReasoningPhase::Done { secs } => {
                let key = if self.expanded {
                    "tui-reasoning-expanded"
                } else {
                    "tui-reasoning-collapsed"
                };
                (l.tra(key, &[("secs", Arg::from(secs))]), self.expanded)
            }
        };
        let mut out = wrap_prefixed(
            &Line::from(Span::styled(title, theme::dim())),
            width,
            &[],
            &[],
        );
        if open {
            let pre = [Span::styled("  ", theme::dim())];
            for row in self.text.trim_end().split('\n') {
                let safe = crate::safe_text::sanitize(row);
                out.extend(wrap_prefixed(
                    &Line::from(Span::styled(safe, theme::dim())),
                    width,
                    &pre,
                    &pre,
                ));
            }
        }
        out
    }

    /// Rows needed at `width` (for layout).
    pub fn height(&self, l: Localizer, width: usize) -> usize {
        self.lines(l, width).len()
    }
}

/// The cell drawn with a localizer, as a ratatui widget.
pub struct ReasoningWidget<'a> {
    /// The cell.
    pub cell: &'a ReasoningCell,
    /// The interface language.
    pub l: Localizer,
}

impl Widget for ReasoningWidget<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let lines = self.cell.lines(self.l, usize::from(area.width));
        for (i, line) in lines.iter().take(usize::from(area.height)).enumerate() {
            buf.set_line(area.x, area.y + i as u16, line, area.width);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Locale;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    fn screen(cell: &ReasoningCell, loc: Locale, w: u16, h: u16) -> Vec<String> {
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| {
            f.render_widget(
                ReasoningWidget {
                    cell,
                    l: Localizer::new(loc),
                },
                f.area(),
            )
        })
        .unwrap();
        let buf = t.backend().buffer().clone();
        (0..h)
            .map(|y| {
                // A wide glyph covers the next cell too: that cell is not a character.
                let mut row = String::new();
                let mut x = 0;
                while x < w {
                    let sym = buf[(x, y)].symbol();
                    row.push_str(sym);
                    x += super::super::text::str_width(sym).max(1) as u16;
                }
                row.trim_end().to_string()
            })
            .collect()
    }

    fn thought() -> ReasoningCell {
        let mut c = ReasoningCell::streaming();
        c.push("The user wants the manifest.\nI will read Cargo.toml first, then answer.");
        c
    }

    #[test]
    fn streaming_reasoning_shows_dim_and_in_full_above_the_reply() {
        let c = thought();
        let rows = screen(&c, Locale::EnUs, 80, 4);
        assert_eq!(rows[0], "Thinking…");
        assert_eq!(rows[1], "  The user wants the manifest.");
        assert_eq!(rows[2], "  I will read Cargo.toml first, then answer.");
        let lines = c.lines(Localizer::new(Locale::EnUs), 80);
        assert!(
            lines
                .iter()
                .flat_map(|l| &l.spans)
                .all(|s| s.style == theme::dim()),
            "every span is dim"
        );
    }

    #[test]
    fn the_cell_collapses_to_one_line_when_the_reply_starts_and_enter_opens_it() {
        let mut c = thought();
        c.finish(12);
        assert_eq!(screen(&c, Locale::EnUs, 80, 2), ["▸ Thought for 12 s", ""]);
        assert_eq!(c.height(Localizer::new(Locale::EnUs), 80), 1);
        c.toggle();
        let rows = screen(&c, Locale::EnUs, 80, 3);
        assert_eq!(rows[0], "▾ Thought for 12 s");
        assert_eq!(rows[1], "  The user wants the manifest.");
        c.toggle();
        assert_eq!(c.height(Localizer::new(Locale::EnUs), 80), 1);
    }

    #[test]
    fn a_streaming_cell_cannot_be_closed_and_a_fast_thought_says_one_second() {
        let mut c = thought();
        c.toggle();
        assert_eq!(c.phase, ReasoningPhase::Streaming);
        c.finish(0);
        assert_eq!(screen(&c, Locale::EnUs, 40, 1), ["▸ Thought for 1 s"]);
    }

    #[test]
    fn the_cell_fits_from_40_to_120_columns_in_both_locales_keeping_its_indent() {
        let mut c = ReasoningCell::streaming();
        c.push(&"long reasoning words ".repeat(12));
        for loc in [Locale::EnUs, Locale::ZhCn] {
            for w in [40u16, 80, 120] {
                let h = c.height(Localizer::new(loc), usize::from(w)) as u16;
                let rows = screen(&c, loc, w, h);
                for r in &rows[1..] {
                    assert!(r.starts_with("  "), "{loc:?} {w}: {r:?}");
                    assert!(super::super::text::str_width(r) <= usize::from(w));
                }
            }
        }
        let mut done = thought();
        done.finish(3);
        assert_eq!(screen(&done, Locale::ZhCn, 40, 1), ["▸ 思考了 3 秒"]);
    }

    #[test]
    fn control_characters_in_reasoning_are_escaped_not_drawn() {
        let mut c = ReasoningCell::streaming();
        c.push("evil \u{1b}[2J clear");
        let rows = screen(&c, Locale::EnUs, 80, 2);
        assert!(!rows[1].contains('\u{1b}'), "{:?}", rows[1]);
    }
}
