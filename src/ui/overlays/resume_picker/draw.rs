//! How the `/resume` picker draws: its box at the width it needs, each entry on one row
//! when it fits (else the date and figures, then the prompt), the local time, the log's
//! size and the workspace's directory name, a fork naming its parent.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use crate::agent::protocol::SessionSummary;
use crate::i18n::{Arg, Localizer};
use crate::ui::component::{clear_area, overlay_base};
use crate::ui::model::Model;
use crate::ui::text::{sanitize, str_width, truncate};
use crate::ui::theme;

use super::ResumePicker;

/// Inner width from which an entry fits on one row (else: date and stats, then the prompt).
const ONE_ROW_WIDTH: usize = 72;
/// The widest the picker grows.
const MAX_WIDTH: u16 = 120;

impl ResumePicker {
    /// Draws the picker over `area` (its `Component::render`).
    pub(super) fn draw(&mut self, area: Rect, buf: &mut Buffer, m: &Model) {
        let l = m.l;
        if area.width < 10 || area.height < 6 {
            return;
        }
        let w = if area.width < 60 {
            area.width
        } else {
            area.width.saturating_sub(4).min(MAX_WIDTH)
        };
        let h = if area.height >= 12 {
            area.height - 2
        } else {
            area.height
        };
        let rect = Rect {
            x: area.x + (area.width - w) / 2,
            y: area.y + (area.height - h) / 2,
            width: w,
            height: h,
        };
        clear_area(rect, buf, overlay_base());
        // Cloned: drawing updates the scroll position while walking the list.
        let visible: Vec<SessionSummary> = self.visible().into_iter().cloned().collect();
        let total = visible.len();
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme::accent())
            .title(format!(" {} ", l.tr("tui-resume-title")))
            .title_bottom(
                Line::from(format!(
                    " {}{} ",
                    l.tra(
                        "tui-resume-count",
                        &[
                            ("shown", Arg::from(total)),
                            ("total", Arg::from(self.listed_count())),
                        ],
                    ),
                    // The list fills in while the logs are read.
                    self.reading_count().map_or(String::new(), |n| format!(
                        " · {}",
                        l.tra("tui-history-reading", &[("count", Arg::from(n))])
                    ))
                ))
                .right_aligned(),
            );
        let inner = block.inner(rect);
        block.render(rect, buf);
        if inner.height < 3 || inner.width < 4 {
            return;
        }
        let iw = inner.width as usize;
        // Row 0: the filter, with a caret block; row 1 free; entries; last row: the keys.
        let label = l.tr("tui-resume-filter");
        let filter = Line::from(vec![
            // A full-width colon (Chinese) carries its own space.
            Span::styled(
                if label.ends_with('：') {
                    label
                } else {
                    format!("{label} ")
                },
                theme::accent(),
            ),
            Span::raw(sanitize(&self.filter)),
            Span::styled(" ", theme::selected()),
        ]);
        buf.set_line(inner.x, inner.y, &filter, inner.width);
        let hint = Line::from(Span::styled(
            truncate(&l.tr("tui-resume-keys"), iw),
            theme::dim(),
        ));
        buf.set_line(inner.x, inner.bottom() - 1, &hint, inner.width);
        let list = Rect {
            x: inner.x,
            y: inner.y + 2,
            width: inner.width,
            height: inner.height.saturating_sub(3),
        };
        if total == 0 {
            let msg = if let Some(n) = self.reading_count() {
                l.tra("tui-history-reading", &[("count", Arg::from(n))])
            } else if self.listed_count() == 0 {
                l.tr("tui-resume-empty")
            } else {
                l.tra(
                    "tui-resume-no-match",
                    &[("filter", Arg::from(sanitize(&self.filter)))],
                )
            };
            let line = Line::from(Span::styled(truncate(&msg, iw), theme::dim()));
            if list.height > 0 {
                buf.set_line(list.x, list.y, &line, list.width);
            }
            return;
        }
        let per = if iw >= ONE_ROW_WIDTH { 1 } else { 2 };
        let page = (usize::from(list.height) / per).max(1);
        self.page = page;
        self.selected = self.selected.min(total - 1);
        if self.selected < self.scroll {
            self.scroll = self.selected;
        } else if self.selected >= self.scroll + page {
            self.scroll = self.selected + 1 - page;
        }
        for (i, e) in visible.iter().skip(self.scroll).take(page).enumerate() {
            let y = list.y + (i * per) as u16;
            let rows: Vec<Rect> = (0..per as u16)
                .map(|d| Rect::new(list.x, y + d, list.width, 1))
                .filter(|r| r.y < list.bottom())
                .collect();
            if rows.is_empty() {
                break;
            }
            self.draw_entry(l, e, &rows, self.scroll + i == self.selected, buf);
        }
    }

    pub(super) fn draw_entry(
        &self,
        l: Localizer,
        s: &SessionSummary,
        rows: &[Rect],
        selected: bool,
        buf: &mut Buffer,
    ) {
        let w = rows[0].width as usize;
        let date = local_time(s.modified);
        // A long log is counted within its first bytes only.
        let stats_key = if s.messages_partial {
            "tui-resume-stats-at-least"
        } else {
            "tui-resume-stats"
        };
        let mut stats = l.tra(
            stats_key,
            &[
                ("count", Arg::from(s.messages)),
                ("size", Arg::from(human_size(s.bytes))),
            ],
        );
        // SPEC §14.4: the workspace the session belongs to (its directory's name).
        if let Some(name) = s.workspace.as_deref().map(workspace_name) {
            stats = format!("{}  {stats}", sanitize(&name));
        }
        // SPEC §14.3: a fork names its parent (the id's time part, a prefix `--resume`
        // takes).
        if let Some(parent) = &s.forked_from {
            let short: String = parent.chars().take(15).collect();
            let fork = l.tra(
                "tui-resume-fork",
                &[("parent", Arg::from(sanitize(&short)))],
            );
            stats = format!("{fork}  {stats}");
        }
        let prompt = match &s.first_prompt {
            Some(p) => sanitize(p),
            None => l.tr("tui-resume-no-prompt"),
        };
        let base = if selected {
            theme::selected()
        } else {
            Style::default()
        };
        let marker = if selected { "› " } else { "  " };
        let mut lines = Vec::new();
        if rows.len() == 1 {
            // marker, date, two spaces, prompt (fills), two spaces, stats.
            let fixed = 2 + str_width(&date) + 2 + 2 + str_width(&stats);
            let pw = w.saturating_sub(fixed);
            let p = truncate(&prompt, pw);
            let pad = " ".repeat(pw.saturating_sub(str_width(&p)));
            lines.push(Line::from(vec![
                Span::styled(format!("{marker}{date}  "), base.patch(theme::dim())),
                Span::styled(format!("{p}{pad}  "), base),
                Span::styled(stats, base.patch(theme::dim())),
            ]));
        } else {
            let mut head = format!("{marker}{date}  {stats}");
            if str_width(&head) > w {
                // Narrow: the year goes first, so the size still shows.
                head = format!("{marker}{}  {stats}", date.get(5..).unwrap_or(&date));
            }
            let head = truncate(&head, w);
            lines.push(Line::from(Span::styled(head, base.patch(theme::dim()))));
            let p = truncate(&format!("    {prompt}"), w);
            lines.push(Line::from(Span::styled(p, base)));
        }
        for (r, line) in rows.iter().zip(&lines) {
            if selected {
                buf.set_style(*r, base);
            }
            buf.set_line(r.x, r.y, line, r.width);
        }
    }
}

/// A workspace as the picker names it: its last path component (`/` for the root).
pub(super) fn workspace_name(path: &str) -> String {
    std::path::Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string())
}

/// `modified` (Unix seconds) as local `YYYY-MM-DD HH:MM`.
pub fn local_time(modified: i64) -> String {
    use chrono::TimeZone;
    match chrono::Local.timestamp_opt(modified, 0).single() {
        Some(t) => t.format("%Y-%m-%d %H:%M").to_string(),
        None => "????-??-?? ??:??".into(),
    }
}

/// A log size for people: `512 B`, `3.4 KB`, `1.2 MB`.
pub fn human_size(bytes: u64) -> String {
    const K: f64 = 1024.0;
    let b = bytes as f64;
    if b < K {
        format!("{bytes} B")
    } else if b < K * K {
        format!("{:.1} KB", b / K)
    } else if b < K * K * K {
        format!("{:.1} MB", b / (K * K))
    } else {
        format!("{:.1} GB", b / (K * K * K))
    }
}
