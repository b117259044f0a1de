//! The key-help overlay as a component: drawn by `ui::help` (rows generated from the keymap
//! table and the command table), scrolled with ↑/↓, PgUp/PgDn, Home/End (the
//! `HelpOverlay` rows of the keymap table), closed by any other key.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::ui::help::{self, HelpView};
use crate::ui::keymap::Action;

use super::component::{Component, Handled};
use super::state::UiState;

/// The open key help and its scroll position.
#[derive(Debug, Default)]
pub struct HelpOverlay {
    /// The first visual row shown.
    pub scroll: usize,
    /// What the last frame showed (page size and row count, for the scroll keys).
    pub view: HelpView,
}

impl Component for HelpOverlay {
    fn render(&mut self, area: Rect, buf: &mut Buffer, s: &mut UiState) {
        self.view = help::draw_scrolled(s.l, area, buf, self.scroll);
        self.scroll = self.view.first;
    }

    fn handle(&mut self, action: Action, _s: &mut UiState) -> Handled {
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
