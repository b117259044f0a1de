//! The [`Component`] trait, what handling an action returns, and drawing helpers shared by
//! components (clearing an area to a base style, pane titles).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

use crate::i18n::Localizer;
use crate::ui::keymap::Action;
use crate::ui::text::truncate;
use crate::ui::theme;

use super::state::UiState;

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

/// A part of the screen: draws itself into an area from the shared state and handles the
/// actions the keymap resolves for its context.
pub trait Component {
    /// Draws into `area` of `buf` (may note layout facts, e.g. its body area, in `state`).
    fn render(&mut self, area: Rect, buf: &mut Buffer, state: &mut UiState);
    /// Handles one action.
    fn handle(&mut self, action: Action, state: &mut UiState) -> Handled;
}

/// The base style overlays fill their area with: terminal default colours, no modifiers, so
/// nothing of what is underneath (colour, reverse video) shows through.
pub fn overlay_base() -> Style {
    Style::new()
        .fg(Color::Reset)
        .bg(Color::Reset)
        .remove_modifier(Modifier::all())
}

/// Clears `area` with ratatui's [`Clear`] and fills it with `base`.
pub fn clear_area(area: Rect, buf: &mut Buffer, base: Style) {
    let area = area.intersection(buf.area);
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
