//! The key-help overlay as a component: drawn by `ui::help` (rows generated from the keymap
//! table), closed by any key.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::ui::help;
use crate::ui::keymap::Action;

use super::component::{Component, Handled};
use super::state::UiState;

/// The open key help.
#[derive(Debug, Default)]
pub struct HelpOverlay;

impl Component for HelpOverlay {
    fn render(&mut self, area: Rect, buf: &mut Buffer, s: &mut UiState) {
        help::draw(s.l, area, buf);
    }

    fn handle(&mut self, action: Action, _s: &mut UiState) -> Handled {
        match action {
            Action::Close => Handled::Close,
            _ => Handled::Consumed,
        }
    }
}
