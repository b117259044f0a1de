//! The key-help overlay (`?` on an empty composer, or `F1`): the keys, then, when the
//! terminal is tall enough, the slash commands from the one command table. A long
//! description wraps under its own column.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use crate::agent::command_spec::COMMANDS;
use crate::i18n::Localizer;

use super::components::component::{clear_area, overlay_base};
use super::keymap;
use super::text::{str_width, truncate, wrap_prefixed};
use super::theme;

/// The overlay's rows (keys or command names, and description ids): the keys, then a
/// heading and every command of the table when `height` rows leave room for all of them.
pub fn rows(height: u16) -> Vec<(&'static str, &'static str)> {
    // The key rows come from the keymap table, so the help lists every bound key.
    let keys = keymap::help_rows();
    let mut rows: Vec<(&str, &str)> = keys.iter().map(|(k, d)| (k.as_str(), *d)).collect();
    // Border (2), the close hint (1) and the heading (1) besides the rows, and a row
    // above and below so the overlay does not cover the whole screen.
    if usize::from(height) >= keys.len() + COMMANDS.len() + 6 {
        rows.push(("", "tui-help-commands-title"));
        rows.extend(COMMANDS.iter().map(|c| (c.name, c.desc_key)));
    }
    // The Trajectory legend (issue 12 item 6) when it fits below the rest.
    let legend = super::trajectory::LEGEND;
    if usize::from(height) >= rows.len() + legend.len() + 1 + 5 {
        rows.push(("", "tui-help-legend-title"));
        rows.extend(legend.iter().copied());
    }
    rows
}

/// The overlay's visual rows at `inner_w` columns: a long description wraps under its
/// own column (continuation rows start below the description, not at column 0), or,
/// when `wrap` is off, is cut with `…` to one row.
fn lines(l: Localizer, rows: &[(String, &str)], inner_w: usize, wrap: bool) -> Vec<Line<'static>> {
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
    let key_rows = keymap::help_rows().len();
    // Key names that are words (mouse, any key) are localized.
    let mut rows: Vec<(String, &str)> = rows(area.height)
        .into_iter()
        .map(|(k, d)| (keymap::label_text(l, k), d))
        .collect();
    let mut body = lines(l, &rows, inner_w, true);
    // The legend goes first when the wrapped rows do not fit.
    if body.len() + 5 > usize::from(area.height)
        && let Some(at) = rows.iter().position(|(_, d)| *d == "tui-help-legend-title")
    {
        rows.truncate(at);
        body = lines(l, &rows, inner_w, true);
    }
    // As in `rows`: border, close hint and a row above and below besides the rows.
    if rows.len() > key_rows && body.len() + 5 > usize::from(area.height) {
        rows.truncate(key_rows);
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
    // Own the area: cleared and filled with the overlay's base style.
    clear_area(rect, buf, overlay_base());
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
