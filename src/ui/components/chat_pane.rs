//! The Chat pane: title, the visible slice of the transcript, the selection, and the
//! "Not following" hint on its own cleared row.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};

use crate::ui::chat::{self, Scroll};
use crate::ui::keymap::Action;
use crate::ui::text::truncate;
use crate::ui::theme;

use super::component::{Component, Handled, clear_area, overlay_base, pane_title};
use super::state::{Focus, UiState};

/// The Chat pane (its state lives in [`UiState`]).
#[derive(Debug, Default)]
pub struct ChatPane;

impl ChatPane {
    /// Moves the selection between expandable nodes (`dir` = ±1).
    /// ↑/↓ move between the expandable nodes; where there is none to move to they scroll
    /// Chat a line, so a wheel turned into ↑/↓ by alternate scroll (§14.5, decision 0037)
    /// scrolls a transcript without tool changes too.
    fn move_selection(&self, s: &mut UiState, dir: isize) {
        let n = s.transcript.cells().len();
        if n == 0 {
            return;
        }
        let mut i = match s.selected {
            Some(i) => i as isize + dir,
            None if dir < 0 => n as isize - 1,
            None => {
                s.scroll(Focus::Chat, dir);
                return;
            }
        };
        while i >= 0 && (i as usize) < n {
            let u = i as usize;
            if s.transcript.cells()[u].selectable() {
                s.selected = Some(u);
                Self::reveal(s, u);
                return;
            }
            i += dir;
        }
        if dir > 0 {
            s.selected = None;
            s.chat_scroll = Scroll::default();
        } else {
            s.scroll(Focus::Chat, dir);
        }
    }

    /// Scrolls Chat so cell `i` is on screen.
    fn reveal(s: &mut UiState, i: usize) {
        let h = s.chat_area.height as usize;
        if h == 0 {
            return;
        }
        let top = s.transcript.cell_top(i);
        let total = s.transcript.total_height();
        let cur = s.chat_scroll.resolve(total, h);
        if top < cur || top >= cur + h {
            let max = total.saturating_sub(h);
            let t = top.min(max);
            s.chat_scroll.top = if t >= max { None } else { Some(t) };
        }
    }

    /// Scrolls Chat so all of cell `i` shows (its top if it is taller than the pane), after
    /// laying the transcript out at the pane's width: a pending approval's card, with its
    /// tool and arguments, is on screen before it can be answered.
    fn reveal_whole(s: &mut UiState, i: usize, body: Rect, ctx: &crate::ui::view::RenderCtx) {
        let h = body.height as usize;
        if i >= s.transcript.len() || h == 0 || body.width == 0 {
            return;
        }
        s.transcript.layout(body.width, ctx);
        let total = s.transcript.total_height();
        let max = total.saturating_sub(h);
        let top = s.transcript.cell_top(i);
        let end = top + s.transcript.cell_height(i);
        let cur = s.chat_scroll.resolve(total, h);
        if top < cur || end > cur + h {
            let t = if end - top >= h {
                top
            } else {
                end.saturating_sub(h)
            }
            .min(max);
            s.chat_scroll.top = if t >= max { None } else { Some(t) };
        }
    }

    /// A left click at `pos`: toggles the node under it. Returns whether it hit one.
    pub fn click(&self, pos: Position, s: &mut UiState) -> bool {
        if !s.chat_area.contains(pos) {
            return false;
        }
        let row = s.chat_top + (pos.y - s.chat_area.y) as usize;
        if let Some(i) = s.transcript.cell_at(row)
            && s.transcript.cells()[i].selectable()
        {
            s.selected = Some(i);
            s.focus = Focus::Chat;
            s.transcript.toggle(i);
            return true;
        }
        false
    }
}

impl Component for ChatPane {
    fn render(&mut self, area: Rect, buf: &mut Buffer, s: &mut UiState) {
        let [title, body] =
            Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(area);
        pane_title(buf, title, s.l, "tui-pane-chat", s.focus == Focus::Chat);
        s.chat_area = body;
        if s.transcript.is_empty() {
            // The first screen says how to send, to quit and, with one pane shown, that Tab
            // reaches the Trajectory (§14.5); each line fits 80 columns in both locales.
            let quit = if s.one_pane {
                "tui-chat-empty-quit-one-pane"
            } else {
                "tui-chat-empty-quit"
            };
            // Wrapped, not cut, in the split layout's narrower Chat pane.
            let rows = ["tui-chat-empty", quit].into_iter().flat_map(|key| {
                let text = s.l.tr(key);
                crate::ui::text::wrap_ranges(&text, body.width as usize)
                    .into_iter()
                    .map(|r| text[r].trim_end().to_string())
                    .collect::<Vec<_>>()
            });
            for (dy, row) in rows.enumerate().take(body.height as usize) {
                let t = truncate(&row, body.width as usize);
                buf.set_line(
                    body.x,
                    body.y + dy as u16,
                    &Line::from(Span::styled(t, theme::dim())),
                    body.width,
                );
            }
        }
        let ctx = s.ctx();
        if let Some(i) = s.reveal.take() {
            Self::reveal_whole(s, i, body, &ctx);
        }
        s.chat_top = chat::draw(
            &mut s.transcript,
            &mut s.chat_scroll,
            s.selected,
            &ctx,
            body,
            buf,
        );
        if !s.chat_scroll.following() && body.height > 0 {
            // The hint owns its whole row: nothing of the transcript line under it remains.
            let [_, row] =
                Layout::vertical([Constraint::Fill(1), Constraint::Length(1)]).areas(body);
            clear_area(row, buf, overlay_base());
            let hint = chat::jump_hint(&ctx, row.width);
            buf.set_line(row.x, row.y, &hint, row.width);
        }
    }

    fn handle(&mut self, action: Action, s: &mut UiState) -> Handled {
        match action {
            Action::SelectPrev => self.move_selection(s, -1),
            Action::SelectNext => self.move_selection(s, 1),
            Action::ToggleNode => {
                if let Some(i) = s.selected {
                    s.transcript.toggle(i);
                }
            }
            Action::ScrollTop => s.scroll(Focus::Chat, isize::MIN / 2),
            Action::ScrollBottom => s.scroll(Focus::Chat, isize::MAX / 2),
            _ => return Handled::Ignored,
        }
        Handled::Consumed
    }
}
