//! The Chat pane: owns the transcript (cells and their layout cache), the scroll position,
//! the selection and the body area of its last frame (for mouse hit-testing); draws the
//! title, the visible slice of the transcript and the "Not following" hint on its own
//! cleared row.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};

use crate::ui::app_event::AppEvent;
use crate::ui::component::{Component, Handled, clear_area, overlay_base, pane_title};
use crate::ui::keymap::Action;
use crate::ui::model::{Focus, Model};
use crate::ui::scroll::Scroll;
use crate::ui::text::truncate;
use crate::ui::theme;

use super::fold::Transcript;
use super::layout;
use crate::ui::model::RenderCtx;

/// The Chat pane and its state.
#[derive(Debug)]
pub struct ChatPane {
    /// The transcript: cells, the fold's bookkeeping and the layout cache.
    transcript: Transcript,
    /// The scroll position.
    scroll: Scroll,
    /// The selected cell.
    selected: Option<usize>,
    /// A cell to scroll into view on the next frame (a pending approval's card).
    reveal: Option<usize>,
    /// Whether the screen shows Chat alone (narrower than the split width): the first
    /// screen then says that Tab reaches the Trajectory. Set by `App`'s layout.
    one_pane: bool,
    /// The body area of the last frame (empty when the pane was not drawn).
    area: Rect,
    /// The transcript row at the top of the last frame.
    top: usize,
    /// `/clear` emptied the screen: the empty pane says so instead of "no messages yet".
    cleared: bool,
}

impl ChatPane {
    /// A pane with an empty transcript, following the tail.
    pub fn new() -> Self {
        ChatPane {
            transcript: Transcript::new(),
            scroll: Scroll::default(),
            selected: None,
            reveal: None,
            one_pane: false,
            area: Rect::default(),
            top: 0,
            cleared: false,
        }
    }

    /// The transcript the pane shows.
    pub fn transcript(&self) -> &Transcript {
        &self.transcript
    }

    /// The transcript, to fold what happened into it.
    pub fn transcript_mut(&mut self) -> &mut Transcript {
        &mut self.transcript
    }

    /// The selected cell.
    pub fn selected(&self) -> Option<usize> {
        self.selected
    }

    /// Follows the tail again (the newest row at the bottom).
    pub fn follow(&mut self) {
        self.scroll = Scroll::default();
    }

    /// Scrolls to the first row.
    pub fn to_top(&mut self) {
        self.scroll_by(isize::MIN / 2);
    }

    /// Brings cell `i` into view on the next frame (a card the user must answer).
    pub fn reveal(&mut self, i: usize) {
        self.reveal = Some(i);
    }

    /// Drops a cell waiting to be brought into view: what arrived was not news (a
    /// replayed history), and the place the user chose stays.
    pub fn keep_place(&mut self) {
        self.reveal = None;
    }

    /// Whether the screen shows Chat alone (the layout says so each frame).
    pub fn set_one_pane(&mut self, alone: bool) {
        self.one_pane = alone;
    }

    /// A new session: nothing shown, nothing selected, following the tail.
    pub fn reset(&mut self) {
        self.transcript = Transcript::new();
        self.scroll = Scroll::default();
        self.selected = None;
        self.cleared = false;
    }

    /// `/clear` (§14.5): the view empties; the transcript keeps what it knows about tools.
    pub fn clear_screen(&mut self) {
        self.transcript.clear_screen();
        self.scroll = Scroll::default();
        self.selected = None;
        self.cleared = true;
    }

    /// The pane was not drawn this frame: nothing of it is under the mouse.
    pub fn hidden(&mut self) {
        self.area = Rect::default();
    }

    /// The body height of the last frame.
    pub fn page_height(&self) -> usize {
        self.area.height as usize
    }

    /// Scrolls by `delta` rows (negative = up).
    pub fn scroll_by(&mut self, delta: isize) {
        let total = self.transcript.total_height();
        self.scroll.by(delta, total, self.page_height());
    }

    /// Moves the selection between expandable nodes (`dir` = ±1).
    /// ↑/↓ move between the expandable nodes; where there is none to move to they scroll
    /// Chat a line, so a wheel turned into ↑/↓ by alternate scroll (§14.5)
    /// scrolls a transcript without tool changes too.
    fn move_selection(&mut self, dir: isize, ctx: &RenderCtx) {
        let n = self.transcript.cells().len();
        if n == 0 {
            return;
        }
        let mut i = match self.selected {
            Some(i) => i as isize + dir,
            None if dir < 0 => n as isize - 1,
            None => {
                self.scroll_by(dir);
                return;
            }
        };
        while i >= 0 && (i as usize) < n {
            let u = i as usize;
            // Only where Enter does something (SPEC §14.5: Enter expands a node).
            if self.transcript.actionable(u, self.area.width, ctx) {
                self.selected = Some(u);
                self.reveal_top(u);
                return;
            }
            i += dir;
        }
        if dir > 0 {
            self.selected = None;
            self.scroll = Scroll::default();
        } else {
            self.scroll_by(dir);
        }
    }

    /// Scrolls Chat so cell `i` is on screen.
    fn reveal_top(&mut self, i: usize) {
        let h = self.area.height as usize;
        if h == 0 {
            return;
        }
        let top = self.transcript.cell_top(i);
        let total = self.transcript.total_height();
        let cur = self.scroll.resolve(total, h);
        if top < cur || top >= cur + h {
            let max = total.saturating_sub(h);
            let t = top.min(max);
            self.scroll.top = if t >= max { None } else { Some(t) };
        }
    }

    /// Scrolls Chat so all of cell `i` shows (its top if it is taller than the pane), after
    /// laying the transcript out at the pane's width: a pending approval's card, with its
    /// tool and arguments, is on screen before it can be answered.
    fn reveal_whole(&mut self, i: usize, body: Rect, ctx: &RenderCtx) {
        let h = body.height as usize;
        let t = &mut self.transcript;
        if i >= t.len() || h == 0 || body.width == 0 {
            return;
        }
        t.layout(body.width, ctx);
        let total = t.total_height();
        let max = total.saturating_sub(h);
        let top = t.cell_top(i);
        let end = top + t.cell_height(i);
        let cur = self.scroll.resolve(total, h);
        if top < cur || end > cur + h {
            let t = if end - top >= h {
                top
            } else {
                end.saturating_sub(h)
            }
            .min(max);
            self.scroll.top = if t >= max { None } else { Some(t) };
        }
    }

    /// A left click at `pos`: toggles the node under it and takes the focus. Returns
    /// whether it hit one.
    pub fn click(&mut self, pos: Position, out: &mut Vec<AppEvent>) -> bool {
        if !self.area.contains(pos) {
            return false;
        }
        let row = self.top + (pos.y - self.area.y) as usize;
        if let Some(i) = self.transcript.cell_at(row)
            && self.transcript.cells()[i].selectable()
        {
            self.selected = Some(i);
            out.push(AppEvent::Focus(Focus::Chat));
            self.transcript.toggle(i);
            return true;
        }
        false
    }

    /// The first screen: how to send, to quit and, with one pane shown, that Tab reaches
    /// the Trajectory (§14.5); each line fits 80 columns in both locales.
    fn render_empty(&self, body: Rect, buf: &mut Buffer, m: &Model) {
        let quit = if self.one_pane {
            "tui-chat-empty-quit-one-pane"
        } else {
            "tui-chat-empty-quit"
        };
        // After `/clear` the session goes on: the pane says what /clear did.
        let first = if self.cleared {
            "tui-chat-cleared"
        } else {
            "tui-chat-empty"
        };
        // Wrapped, not cut, in the split layout's narrower Chat pane.
        let rows = [first, quit].into_iter().flat_map(|key| {
            let text = m.l.tr(key);
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
}

impl Default for ChatPane {
    fn default() -> Self {
        Self::new()
    }
}

impl Component for ChatPane {
    fn render(&mut self, area: Rect, buf: &mut Buffer, m: &Model) {
        let [title, body] =
            Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(area);
        pane_title(buf, title, m.l, "tui-pane-chat", m.focus == Focus::Chat);
        self.area = body;
        if self.transcript.is_empty() {
            self.render_empty(body, buf, m);
        }
        let ctx = m.ctx();
        if let Some(i) = self.reveal.take() {
            self.reveal_whole(i, body, &ctx);
        }
        self.top = layout::draw(
            &mut self.transcript,
            &mut self.scroll,
            self.selected,
            &ctx,
            body,
            buf,
        );
        if !self.scroll.following() && body.height > 0 {
            // The hint owns its whole row: nothing of the transcript line under it remains.
            let [_, row] =
                Layout::vertical([Constraint::Fill(1), Constraint::Length(1)]).areas(body);
            clear_area(row, buf, overlay_base());
            let hint = layout::jump_hint(&ctx, row.width);
            buf.set_line(row.x, row.y, &hint, row.width);
        }
    }

    fn handle(&mut self, action: Action, m: &Model, _out: &mut Vec<AppEvent>) -> Handled {
        match action {
            Action::SelectPrev => self.move_selection(-1, &m.ctx()),
            Action::SelectNext => self.move_selection(1, &m.ctx()),
            Action::ToggleNode => {
                if let Some(i) = self.selected {
                    self.transcript.toggle(i);
                }
            }
            Action::ScrollTop => self.scroll_by(isize::MIN / 2),
            Action::ScrollBottom => self.scroll_by(isize::MAX / 2),
            _ => return Handled::Ignored,
        }
        Handled::Consumed
    }
}
