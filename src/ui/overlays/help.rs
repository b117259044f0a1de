//! The key-help overlay (`?` on an empty composer, or `F1`): the keys, then the slash
//! commands from the one command table. A long description wraps under its own column;
//! the overlay sizes to the terminal and scrolls when its rows do not fit. [`HelpOverlay`]
//! owns its scroll position and handles the `HelpOverlay` rows of the keymap table
//! (↑/↓, PgUp/PgDn, Home/End); any other key closes it.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use crate::agent::command_spec::{COMMANDS, CommandSpec, describe};
use crate::i18n::{Arg, Localizer};
use crate::ui::app_event::AppEvent;
use crate::ui::bottom::popup::usage_line;
use crate::ui::component::{Component, Handled, clear_area, overlay_base};
use crate::ui::keymap::Action;
use crate::ui::model::Model;

use crate::ui::keymap;
use crate::ui::text::{str_width, truncate, wrap_prefixed};
use crate::ui::theme;

/// The overlay's rows (key names or a command with its argument synopsis, and the
/// description in `l`'s language; a heading has no key): every key of the keymap table,
/// then a heading and every command of the one command table and the `custom` ones. Key
/// names that are words (mouse, any key) are localized. The mouse row (wheel, click) is
/// listed only while the mouse is captured: by default it is not, and
/// F3's row says how to capture it.
pub fn rows(l: Localizer, mouse_capture: bool, custom: &[CommandSpec]) -> Vec<(String, String)> {
    // The key rows come from the keymap table, so the help lists every bound key.
    let mut rows: Vec<(String, String)> = keymap::help_rows()
        .iter()
        .filter(|(_, d)| mouse_capture || *d != "tui-help-mouse")
        .map(|(k, d)| (keymap::label_text(l, k), l.tr(d)))
        .collect();
    rows.push((String::new(), l.tr("tui-help-commands-title")));
    // Custom commands (SPEC §14.4) after the table: a `description:` line is shown as
    // written.
    rows.extend(
        COMMANDS
            .iter()
            .chain(custom)
            .map(|c| (usage_line(l, c), describe(c, |k| l.tr(k)))),
    );
    // The Trajectory legend last: the overlay scrolls to it.
    rows.push((String::new(), l.tr("tui-help-legend-title")));
    rows.extend(
        crate::ui::trajectory::LEGEND
            .iter()
            .map(|(k, d)| (keymap::label_text(l, k), l.tr(d))),
    );
    rows
}

/// The widest the overlay gets: wider lines read badly.
pub const MAX_WIDTH: u16 = 120;

/// What the overlay shows of its rows after drawing (the scroll position, clamped).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HelpView {
    /// The first visual row shown (0-based).
    pub first: usize,
    /// Visual rows shown at once.
    pub page: usize,
    /// Visual rows in all.
    pub total: usize,
}

impl HelpView {
    /// The largest useful scroll position.
    pub fn max_scroll(&self) -> usize {
        self.total.saturating_sub(self.page)
    }
}

/// The overlay's visual rows at `inner_w` columns: a long description wraps under its
/// own column (continuation rows start below the description, not at column 0).
fn lines(rows: &[(String, String)], inner_w: usize) -> Vec<Line<'static>> {
    let key_w = rows.iter().map(|(k, _)| str_width(k)).max().unwrap_or(0);
    let kw = key_w.min(inner_w * 2 / 5);
    let gutter = [Span::raw(" ".repeat(kw + 2))];
    let mut out = Vec::new();
    for (k, d) in rows {
        if k.is_empty() {
            // A heading.
            let heading = Line::from(Span::styled(d.clone(), theme::bold()));
            out.extend(wrap_prefixed(&heading, inner_w, &[], &[]));
            continue;
        }
        if str_width(k) > kw {
            // A key name wider than its column is never cut: it takes rows of its own
            // and the description starts under the column.
            let name = Line::from(Span::styled(k.clone(), theme::bold()));
            out.extend(wrap_prefixed(&name, inner_w, &[], &[]));
            out.extend(wrap_prefixed(
                &Line::from(d.clone()),
                inner_w,
                &gutter,
                &gutter,
            ));
            continue;
        }
        let key = truncate(k, kw);
        let pad = (kw + 2).saturating_sub(str_width(&key));
        let key = [Span::styled(
            format!("{key}{}", " ".repeat(pad)),
            theme::bold(),
        )];
        out.extend(wrap_prefixed(
            &Line::from(d.clone()),
            inner_w,
            &key,
            &gutter,
        ));
    }
    out
}

/// Draws the overlay centered in `area`, from its first row, with the mouse released (the
/// default; see [`draw_scrolled`]).
pub fn draw(l: Localizer, area: Rect, buf: &mut Buffer) -> HelpView {
    draw_scrolled(l, area, buf, 0, false, &[])
}

/// Draws the overlay centered in `area`, sized to the terminal: as wide as its longest
/// row needs, up to the area less a margin (or [`MAX_WIDTH`]); as tall as its rows, up to
/// the area. Descriptions wrap under their column. When the rows do not fit, the body
/// starts at visual row `scroll` (clamped) and the bottom border shows which rows are
/// visible (`3–14 of 20`).
pub fn draw_scrolled(
    l: Localizer,
    area: Rect,
    buf: &mut Buffer,
    scroll: usize,
    mouse_capture: bool,
    custom: &[CommandSpec],
) -> HelpView {
    let rows = rows(l, mouse_capture, custom);
    let key_w = rows.iter().map(|(k, _)| str_width(k)).max().unwrap_or(0);
    let desc_w = rows
        .iter()
        .filter(|(k, _)| !k.is_empty())
        .map(|(_, d)| str_width(d))
        .max()
        .unwrap_or(0);
    // Borders (2) besides the key column, a gap of 2 and the longest description.
    let natural = (key_w + 2 + desc_w + 2).min(usize::from(u16::MAX)) as u16;
    let w = if area.width < 60 {
        area.width
    } else {
        natural.clamp(56, area.width.saturating_sub(4).min(MAX_WIDTH))
    };
    let inner_w = w.saturating_sub(2) as usize;
    let body = lines(&rows, inner_w);
    // Border (2) and the close hint (1) besides the rows; a row above and below stays
    // free when the terminal is not tiny, so the overlay reads as one.
    let max_h = if area.height >= 12 {
        area.height - 2
    } else {
        area.height
    };
    let h = (body.len() as u16 + 3).min(max_h);
    let page = usize::from(h.saturating_sub(3)).max(1);
    let view = HelpView {
        first: scroll.min(body.len().saturating_sub(page)),
        page,
        total: body.len(),
    };
    let rect = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    // Own the area: cleared and filled with the overlay's base style.
    clear_area(rect, buf, overlay_base());
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::accent())
        .title(format!(" {} ", l.tr("tui-help-title")));
    if view.total > view.page {
        let pos = l.tra(
            "tui-help-position",
            &[
                ("first", Arg::from(view.first + 1)),
                ("last", Arg::from((view.first + view.page).min(view.total))),
                ("total", Arg::from(view.total)),
            ],
        );
        block = block.title_bottom(Line::from(format!(" {pos} ")).right_aligned());
    }
    let inner = block.inner(rect);
    block.render(rect, buf);
    for (i, line) in body.iter().skip(view.first).take(page).enumerate() {
        if i as u16 >= inner.height.saturating_sub(1) {
            break;
        }
        buf.set_line(inner.x, inner.y + i as u16, line, inner.width);
    }
    let close_key = if view.total > view.page {
        "tui-help-close-scroll"
    } else {
        "tui-help-close"
    };
    let close = Line::from(Span::styled(
        truncate(&l.tr(close_key), inner_w),
        theme::dim(),
    ));
    buf.set_line(
        inner.x,
        inner.y + inner.height.saturating_sub(1),
        &close,
        inner.width,
    );
    view
}

/// The open key help and its scroll position.
#[derive(Debug, Default)]
pub struct HelpOverlay {
    /// The first visual row shown.
    pub scroll: usize,
    /// What the last frame showed (page size and row count, for the scroll keys).
    pub view: HelpView,
    /// Whether the mouse was captured when the help opened (the mouse row shows then).
    pub mouse_capture: bool,
    /// The custom commands offered when the help opened (SPEC §14.4).
    pub custom: Vec<CommandSpec>,
}

impl HelpOverlay {
    /// The help as it opens, for the mouse mode in force and the `custom` commands the
    /// composer offers.
    pub fn new(mouse_capture: bool, custom: Vec<CommandSpec>) -> Self {
        HelpOverlay {
            mouse_capture,
            custom,
            ..HelpOverlay::default()
        }
    }
}

impl Component for HelpOverlay {
    fn render(&mut self, area: Rect, buf: &mut Buffer, m: &Model) {
        self.view = draw_scrolled(
            m.l,
            area,
            buf,
            self.scroll,
            self.mouse_capture,
            &self.custom,
        );
        self.scroll = self.view.first;
    }

    fn handle(&mut self, action: Action, _m: &Model, _out: &mut Vec<AppEvent>) -> Handled {
        let page = self.view.page.max(1);
        let max = self.view.max_scroll();
        // When everything fits, the help says "any key closes": the scroll keys close too.
        if max == 0 && self.view.total > 0 {
            return Handled::Close;
        }
        self.scroll = match action {
            Action::LineUp => self.scroll.saturating_sub(1),
            Action::LineDown => (self.scroll + 1).min(max),
            Action::PageUp => self.scroll.saturating_sub(page),
            Action::PageDown => (self.scroll + page).min(max),
            Action::ScrollTop => 0,
            Action::ScrollBottom => max,
            Action::Close => return Handled::Close,
            _ => return Handled::Consumed,
        };
        Handled::Consumed
    }
}
