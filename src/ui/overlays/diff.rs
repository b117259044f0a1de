//! The `/diff` overlay: what this session (or one turn) changed, per file, as a unified
//! diff coloured line by line (additions green, removals red, hunk headers accented, file
//! headers bold), scrolled with ↑/↓, PgUp/PgDn, Home/End; Esc or `q` closes. It renders
//! from the agent's [`DiffView`] alone.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use crate::agent::protocol::{DiffFile, DiffView};
use crate::i18n::{Arg, Text};
use crate::ui::app_event::AppEvent;
use crate::ui::component::{Component, Handled, clear_area, overlay_base, overlay_frame};
use crate::ui::keymap::Action;
use crate::ui::model::Model;
use crate::ui::text::{sanitize, truncate};
use crate::ui::theme;

/// One row of the overlay: a diff line as it is, or a note localized when drawn.
#[derive(Debug, Clone, PartialEq)]
enum DiffRow {
    Diff(String),
    Note(Text),
    Blank,
}

/// The diff overlay's state: the rows and the scroll offset.
#[derive(Debug, Clone)]
pub struct DiffOverlay {
    title: Text,
    rows: Vec<DiffRow>,
    scroll: usize,
    /// Rows the last frame had room for (the page step).
    page: usize,
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
    /// An overlay over the agent's diff: each file's lines, a blank row between files.
    pub fn new(view: DiffView) -> DiffOverlay {
        let mut rows = Vec::new();
        for f in view.files {
            if !rows.is_empty() {
                rows.push(DiffRow::Blank);
            }
            match f {
                DiffFile::Text { diff, .. } => {
                    rows.extend(diff.lines().map(|l| DiffRow::Diff(sanitize(l))));
                }
                DiffFile::Binary { path } => rows.push(DiffRow::Note(Text::new(
                    "diff-binary",
                    vec![("path", Arg::from(sanitize(&path)))],
                ))),
                DiffFile::NotKept { path } => rows.push(DiffRow::Note(Text::new(
                    "diff-not-kept",
                    vec![("path", Arg::from(sanitize(&path)))],
                ))),
            }
        }
        DiffOverlay {
            title: view.title,
            rows,
            scroll: 0,
            page: 1,
        }
    }

    /// The first row shown.
    pub fn scroll(&self) -> usize {
        self.scroll
    }

    /// Scrolls by `delta` rows within `[0, rows - page]`.
    fn scroll_by(&mut self, delta: isize) {
        let max = self.rows.len().saturating_sub(self.page.max(1));
        let next = (self.scroll as isize)
            .saturating_add(delta)
            .clamp(0, max as isize);
        self.scroll = next as usize;
    }
}

impl Component for DiffOverlay {
    fn render(&mut self, area: Rect, buf: &mut Buffer, m: &Model) {
        let l = m.l;
        let rect = overlay_frame(area);
        clear_area(rect, buf, overlay_base());
        let title = sanitize(l.text(&self.title).trim_end_matches([':', '：']));
        let keys = l.tr("tui-diff-keys");
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme::accent())
            .title(Span::styled(format!(" {title} "), theme::bold()))
            .title_bottom(Line::from(format!(" {keys} ")).right_aligned());
        let inner = block.inner(rect);
        block.render(rect, buf);
        self.page = usize::from(inner.height).max(1);
        self.scroll_by(0);
        let w = usize::from(inner.width);
        for (y, row) in self
            .rows
            .iter()
            .skip(self.scroll)
            .take(usize::from(inner.height))
            .enumerate()
        {
            let line = match row {
                DiffRow::Diff(s) => Line::from(Span::styled(truncate(s, w), line_style(s))),
                DiffRow::Note(t) => Line::from(Span::styled(truncate(&l.text(t), w), theme::dim())),
                DiffRow::Blank => Line::default(),
            };
            buf.set_line(inner.x, inner.y + y as u16, &line, inner.width);
        }
    }

    fn handle(&mut self, action: Action, _m: &Model, _out: &mut Vec<AppEvent>) -> Handled {
        let page = self.page.max(1) as isize;
        match action {
            Action::LineUp => self.scroll_by(-1),
            Action::LineDown => self.scroll_by(1),
            Action::PageUp => self.scroll_by(-page),
            Action::PageDown => self.scroll_by(page),
            Action::ScrollTop => self.scroll = 0,
            Action::ScrollBottom => self.scroll_by(isize::MAX / 2),
            Action::Close => return Handled::Close,
            _ => {}
        }
        Handled::Consumed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Locale;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    const DIFF: &str = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-alpha\n+ALPHA\n second\n";

    fn view(files: Vec<DiffFile>) -> DiffView {
        DiffView {
            title: Text::new(
                "diff-turn-title",
                vec![("n", Arg::from(1usize)), ("count", Arg::from(1usize))],
            ),
            files,
        }
    }

    fn draw(o: &mut DiffOverlay, loc: Locale, w: u16, h: u16) -> Buffer {
        let m = Model::new(loc, false);
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| o.render(f.area(), f.buffer_mut(), &m)).unwrap();
        t.backend().buffer().clone()
    }

    fn row(b: &Buffer, y: u16) -> String {
        (0..b.area.width)
            .map(|x| b[(x, y)].symbol().to_string())
            .collect()
    }

    fn find(b: &Buffer, text: &str) -> (u16, u16) {
        for y in 0..b.area.height {
            let r = row(b, y);
            if let Some(i) = r.find(text) {
                return (r[..i].chars().count() as u16, y);
            }
        }
        panic!("{text} not drawn");
    }

    #[test]
    fn additions_are_green_removals_red_and_the_title_is_shown_at_80_and_120_columns() {
        for w in [80, 120] {
            let mut o = DiffOverlay::new(view(vec![DiffFile::Text {
                path: "a.txt".into(),
                diff: DIFF.into(),
            }]));
            let b = draw(&mut o, Locale::EnUs, w, 12);
            assert!(
                row(&b, 1).contains("Turn 1 changed 1 file"),
                "{}",
                row(&b, 1)
            );
            let (x, y) = find(&b, "-alpha");
            assert_eq!(b[(x, y)].fg, theme::error().fg.unwrap());
            let (x, y) = find(&b, "+ALPHA");
            assert_eq!(b[(x, y)].fg, theme::success().fg.unwrap());
            let (x, y) = find(&b, "@@ -1,2");
            assert_eq!(b[(x, y)].fg, theme::accent().fg.unwrap());
        }
    }

    #[test]
    fn each_file_shows_its_own_diff_and_a_binary_or_oversized_one_says_why_in_chinese() {
        let mut o = DiffOverlay::new(view(vec![
            DiffFile::Text {
                path: "a.txt".into(),
                diff: DIFF.into(),
            },
            DiffFile::Binary {
                path: "img.png".into(),
            },
            DiffFile::NotKept {
                path: "big.bin".into(),
            },
        ]));
        let b = draw(&mut o, Locale::ZhCn, 80, 16);
        let all: String = (0..16).map(|y| row(&b, y) + "\n").collect();
        let flat = all.replace(' ', "");
        assert!(
            flat.contains("img.png") && flat.contains("big.bin"),
            "{all}"
        );
        assert!(flat.contains("第1轮改动了1个文件"), "{all}");
    }

    #[test]
    fn it_scrolls_within_the_diff_and_esc_closes() {
        let text: String = (0..50).map(|i| format!("+line {i}\n")).collect();
        let mut o = DiffOverlay::new(view(vec![DiffFile::Text {
            path: "x".into(),
            diff: text,
        }]));
        // 12 rows: the margin and the border leave 8 for the diff.
        draw(&mut o, Locale::EnUs, 80, 12);
        let m = Model::new(Locale::EnUs, false);
        let mut out = Vec::new();
        assert_eq!(o.handle(Action::PageDown, &m, &mut out), Handled::Consumed);
        assert_eq!(o.scroll(), 8);
        o.handle(Action::ScrollBottom, &m, &mut out);
        assert_eq!(o.scroll(), 42);
        o.handle(Action::LineUp, &m, &mut out);
        assert_eq!(o.scroll(), 41);
        o.handle(Action::ScrollTop, &m, &mut out);
        assert_eq!(o.scroll(), 0);
        assert_eq!(o.handle(Action::Close, &m, &mut out), Handled::Close);
        assert!(out.is_empty());
    }
}
