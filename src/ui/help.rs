//! The key-help overlay (`?` on an empty composer, or `F1`): the keys, then, when the
//! terminal is tall enough, the slash commands from the one command table.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use crate::agent::command_spec::COMMANDS;
use crate::i18n::Localizer;

use super::components::component::{clear_area, overlay_base};
use super::keymap;
use super::text::{str_width, truncate};
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
    rows
}

/// Draws the overlay centered in `area`.
pub fn draw(l: Localizer, area: Rect, buf: &mut Buffer) {
    let rows = rows(area.height);
    // Key names that are words (mouse, any key) are localized.
    let rows: Vec<(String, &str)> = rows
        .into_iter()
        .map(|(k, d)| (keymap::label_text(l, k), d))
        .collect();
    let key_w = rows.iter().map(|(k, _)| str_width(k)).max().unwrap_or(0);
    let w = if area.width < 60 {
        area.width
    } else {
        area.width.saturating_sub(4).min(76)
    };
    let h = (rows.len() as u16 + 3).min(area.height);
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
    let inner_w = inner.width as usize;
    for (i, (k, d)) in rows.iter().enumerate() {
        if i as u16 >= inner.height.saturating_sub(1) {
            break;
        }
        if k.is_empty() {
            // A heading.
            let line = Line::from(Span::styled(truncate(&l.tr(d), inner_w), theme::bold()));
            buf.set_line(inner.x, inner.y + i as u16, &line, inner.width);
            continue;
        }
        let kw = key_w.min(inner_w * 2 / 5);
        let kt = truncate(k, kw);
        let key = format!("{kt}{}  ", " ".repeat(kw.saturating_sub(str_width(&kt))));
        let desc = truncate(&l.tr(d), inner_w.saturating_sub(str_width(&key)));
        let line = Line::from(vec![Span::styled(key, theme::bold()), Span::raw(desc)]);
        buf.set_line(inner.x, inner.y + i as u16, &line, inner.width);
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
