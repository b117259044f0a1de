//! The [`Component`] trait, what handling an action returns, and drawing helpers shared by
//! components (clearing an area to a base style, pane titles).
//!
//! A component owns its view state (a pane its rows, scroll and selection; an overlay its
//! scroll) and renders from it plus the read-only [`Model`]; what it wants from the rest of
//! the UI it pushes as an [`AppEvent`].

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

use crate::i18n::Localizer;
use crate::ui::keymap::Action;
use crate::ui::text::truncate;
use crate::ui::theme;

use crate::ui::app_event::AppEvent;
use crate::ui::model::Model;

/// What a component did with an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handled {
    /// Acted on it; nobody else sees it.
    Consumed,
    /// Not for this component; routing goes on.
    Ignored,
    /// Acted on it and is done: an overlay returning this is taken off the stack.
    Close,
}

/// A part of the screen: draws itself into an area from its own state and the model, and
/// handles the actions the keymap resolves for its context.
pub trait Component {
    /// Draws into `area` of `buf`. Only the component's own state changes (its layout
    /// cache, the area it was given, for mouse hit-testing); the model is read-only.
    fn render(&mut self, area: Rect, buf: &mut Buffer, m: &Model);
    /// Handles one action; requests for the rest of the UI go to `out`, in order.
    fn handle(&mut self, action: Action, m: &Model, out: &mut Vec<AppEvent>) -> Handled;
}

/// A full-screen overlay's box inside `area`: a margin of one column and one row when it
/// fits (the `/diff` view, the transcript).
pub fn overlay_frame(area: Rect) -> Rect {
    if area.width > 20 && area.height > 8 {
        Rect::new(area.x + 1, area.y + 1, area.width - 2, area.height - 2)
    } else {
        area
    }
}

/// The base style overlays fill their area with: terminal default colours, no modifiers, so
/// nothing of what is underneath (colour, reverse video) shows through.
pub fn overlay_base() -> Style {
    Style::new()
        .fg(Color::Reset)
        .bg(Color::Reset)
        .remove_modifier(Modifier::all())
}

/// Clears `area` with ratatui's [`Clear`] and fills it with `base`. A wide (CJK) character
/// just left of the area whose right half lies inside it is blanked too: the terminal would
/// otherwise draw it over the area's first column (a border) when only the area changes.
pub fn clear_area(area: Rect, buf: &mut Buffer, base: Style) {
    let area = area.intersection(buf.area);
    if area.x > buf.area.x {
        for y in area.top()..area.bottom() {
            let left = &mut buf[(area.x - 1, y)];
            if unicode_width::UnicodeWidthStr::width(left.symbol()) > 1 {
                left.set_symbol(" ");
            }
        }
    }
    Clear.render(area, buf);
    buf.set_style(area, base);
}

/// A pane's title row (accented when the pane has focus).
pub fn pane_title(buf: &mut Buffer, r: Rect, l: Localizer, key: &str, focused: bool) {
    let st = if focused {
        theme::accent().patch(theme::bold())
    } else {
        theme::dim()
    };
    let s = truncate(&format!(" {} ", l.tr(key)), r.width as usize);
    buf.set_line(r.x, r.y, &Line::from(Span::styled(s, st)), r.width);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clearing_an_area_blanks_a_wide_char_straddling_its_left_edge() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 10, 2));
        buf.set_string(1, 0, "请求", Style::default());
        buf.set_string(1, 1, "ab", Style::default());
        clear_area(Rect::new(2, 0, 5, 2), &mut buf, Style::default());
        // The wide char at x=1 covered x=2, inside the area: it is gone, not half-drawn.
        assert_eq!(buf[(1, 0)].symbol(), " ");
        // A narrow char left of the area stays.
        assert_eq!(buf[(1, 1)].symbol(), "a");
        assert_eq!(buf[(2, 0)].symbol(), " ");
    }
}
