//! The request inspector overlay as a component: owns the open [`Inspector`].

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::ui::inspector::Inspector;
use crate::ui::keymap::Action;

use super::component::{Component, Handled};
use super::state::UiState;

/// The open request inspector.
#[derive(Debug)]
pub struct InspectorOverlay {
    /// The inspector's state.
    pub inspector: Inspector,
}

impl Component for InspectorOverlay {
    fn render(&mut self, area: Rect, buf: &mut Buffer, s: &mut UiState) {
        self.inspector.draw(s.l, area, buf);
    }

    fn handle(&mut self, action: Action, _s: &mut UiState) -> Handled {
        if self.inspector.act(action) {
            Handled::Consumed
        } else {
            Handled::Close
        }
    }
}
