//! The key-help overlay (`?` on an empty composer, or `F1`): the keys, then, when the
//! terminal is tall enough, the slash commands from the one command table. A long
//! description wraps under its own column.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use crate::agent::command_spec::COMMANDS;
use crate::i18n::Localizer;

use super::text::{str_width, truncate, wrap_prefixed};
use super::theme;

/// (keys, Fluent id of the description), in display order.
pub const KEYS: &[(&str, &str)] = &[
    ("Enter", "tui-help-send"),
    ("Shift+Enter / Ctrl+J / Alt+Enter", "tui-help-newline"),
    ("↑ / ↓", "tui-help-history"),
    ("/", "tui-help-commands"),
    ("Tab", "tui-help-focus"),
    ("↑ ↓ Enter Space", "tui-help-select"),
    ("PgUp / PgDn / Home / End", "tui-help-scroll"),
    ("Ctrl+O", "tui-help-cards"),
    ("Ctrl+T", "tui-help-toggle-tools"),
    ("Esc / Ctrl+C", "tui-help-cancel"),
    ("Ctrl+C Ctrl+C", "tui-help-quit"),
    ("y / a / n", "tui-help-approve"),
    ("F2", "tui-help-lang"),
    ("F1 / ?", "tui-help-help"),
];

/// The overlay's rows (keys or command names, and description ids): the keys, then a
/// heading and every command of the table when `height` rows leave room for all of them.
pub fn rows(height: u16) -> Vec<(&'static str, &'static str)> {
    let mut rows: Vec<(&str, &str)> = KEYS.to_vec();
    // Border (2), the close hint (1) and the heading (1) besides the rows, and a row
    // above and below so the overlay does not cover the whole screen.
    if usize::from(height) >= KEYS.len() + COMMANDS.len() + 6 {
        rows.push(("", "tui-help-commands-title"));
        rows.extend(COMMANDS.iter().map(|c| (c.name, c.desc_key)));
    }
    rows
}

/// The overlay's visual rows at `inner_w` columns: a long description wraps under its
/// own column (continuation rows start below the description, not at column 0), or,
/// when `wrap` is off, is cut with `…` to one row.
fn lines(l: Localizer, rows: &[(&str, &str)], inner_w: usize, wrap: bool) -> Vec<Line<'static>> {
    let key_w = rows.iter().map(|(k, _)| str_width(k)).max().unwrap_or(0);
    let kw = key_w.min(inner_w * 2 / 5);
    let gutter = [Span::raw(" ".repeat(kw + 2))];
    let mut out = Vec::new();
    for (k, d) in rows {
        if k.is_empty() {
            // A heading.
            let heading = Line::from(Span::styled(l.tr(d), theme::bold()));
            out.extend(
                wrap_prefixed(&heading, inner_w, &[], &[])
                    .into_iter()
                    .take(if wrap { usize::MAX } else { 1 }),
            );
            continue;
        }
        let key = truncate(k, kw);
        let pad = (kw + 2).saturating_sub(str_width(&key));
        let key = [Span::styled(
            format!("{key}{}", " ".repeat(pad)),
            theme::bold(),
        )];
        if wrap {
            out.extend(wrap_prefixed(&Line::from(l.tr(d)), inner_w, &key, &gutter));
        } else {
            let desc = truncate(&l.tr(d), inner_w.saturating_sub(kw + 2));
            out.push(Line::from(vec![key[0].clone(), Span::raw(desc)]));
        }
    }
    out
}

/// Draws the overlay centered in `area`. Descriptions wrap under their column; the
/// commands are shown only when their wrapped rows fit too, and when even the keys'
/// wrapped rows do not fit, every description is cut to one row so that no key is lost.
pub fn draw(l: Localizer, area: Rect, buf: &mut Buffer) {
    let w = if area.width < 60 {
        area.width
    } else {
        area.width.saturating_sub(4).min(76)
    };
    let inner_w = w.saturating_sub(2) as usize;
    let mut rows = rows(area.height);
    let mut body = lines(l, &rows, inner_w, true);
    // As in `rows`: border, close hint and a row above and below besides the rows.
    if rows.len() > KEYS.len() && body.len() + 5 > usize::from(area.height) {
        rows.truncate(KEYS.len());
        body = lines(l, &rows, inner_w, true);
    }
    // Border and close hint besides the rows.
    if body.len() + 3 > usize::from(area.height) {
        body = lines(l, &rows, inner_w, false);
    }
    let h = (body.len() as u16 + 3).min(area.height);
    let rect = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    Clear.render(rect, buf);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::accent())
        .title(format!(" {} ", l.tr("tui-help-title")));
    let inner = block.inner(rect);
    block.render(rect, buf);
    for (i, line) in body.iter().enumerate() {
        if i as u16 >= inner.height.saturating_sub(1) {
            break;
        }
        buf.set_line(inner.x, inner.y + i as u16, line, inner.width);
    }
    let close = Line::from(Span::styled(
        truncate(&l.tr("tui-help-close"), inner_w),
        theme::dim(),
    ));
    buf.set_line(
        inner.x,
        inner.y + inner.height.saturating_sub(1),
        &close,
        inner.width,
    );
}
