//! The Trajectory pane: owns the rows, the selection that `Enter` inspects, the scroll
//! position and the body area of its last frame; draws the title, the column header and
//! the rows.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Position, Rect};

use crate::i18n::Localizer;
use crate::ui::app_event::AppEvent;
use crate::ui::component::{Component, Handled, pane_title};
use crate::ui::keymap::Action;
use crate::ui::model::{Focus, Model};
use crate::ui::scroll::Scroll;

use super::rows::{Row, Trajectory};

/// The Trajectory pane and its state.
#[derive(Debug, Default)]
pub struct TrajectoryPane {
    /// The ledger rows.
    trajectory: Trajectory,
    /// The scroll position.
    scroll: Scroll,
    /// The selected row.
    selected: Option<usize>,
    /// The body area of the last frame (empty when the pane was not drawn).
    area: Rect,
}

impl TrajectoryPane {
    /// The ledger rows the pane shows.
    pub fn trajectory(&self) -> &Trajectory {
        &self.trajectory
    }

    /// The ledger rows, to fold what happened into them.
    pub fn trajectory_mut(&mut self) -> &mut Trajectory {
        &mut self.trajectory
    }

    /// The selected row.
    pub fn selected(&self) -> Option<usize> {
        self.selected
    }

    /// A new session: the rows start over (prices stay), nothing selected.
    pub fn renew(&mut self) {
        self.trajectory = self.trajectory.renewed();
        self.selected = None;
        self.scroll = Scroll::default();
    }

    /// The pane was not drawn this frame: nothing of it is under the mouse.
    pub fn hidden(&mut self) {
        self.area = Rect::default();
    }

    /// Whether `pos` lies on the pane's body in the last frame.
    pub fn contains(&self, pos: Position) -> bool {
        self.area.contains(pos)
    }

    /// The body height of the last frame.
    pub fn page_height(&self) -> usize {
        self.area.height as usize
    }

    /// Scrolls by `delta` screen rows (negative = up; a wrapped break reason takes several).
    pub fn scroll_by(&mut self, delta: isize, l: Localizer) {
        let (h, w) = (self.area.height as usize, self.area.width as usize);
        let total = self.trajectory.screen_len(l, w);
        self.scroll.by(delta, total, h);
    }

    /// Moves the selection between request rows, a subagent's too (`dir` = ±1).
    fn move_selection(&mut self, dir: isize, l: Localizer) {
        let n = self.trajectory.rows().len();
        let mut i = match self.selected {
            Some(i) => i as isize + dir,
            None if dir < 0 => n as isize - 1,
            None => return,
        };
        while i >= 0 && (i as usize) < n {
            if self.trajectory.rows()[i as usize]
                .inspect_command()
                .is_some()
            {
                let u = i as usize;
                self.selected = Some(u);
                // Scrolling counts screen rows: a wrapped break reason takes several.
                let (h, w) = (self.area.height as usize, self.area.width as usize);
                let total = self.trajectory.screen_len(l, w);
                let (first, end) = self.trajectory.screen_span(u, l, w);
                let cur = self.scroll.resolve(total, h);
                if h > 0 && (first < cur || end > cur + h) {
                    let max = total.saturating_sub(h);
                    let t = first.saturating_sub(h / 2).min(max);
                    self.scroll.top = if t >= max { None } else { Some(t) };
                }
                return;
            }
            i += dir;
        }
        if dir > 0 {
            self.selected = None;
            self.scroll = Scroll::default();
        }
    }
}

impl Component for TrajectoryPane {
    fn render(&mut self, area: Rect, buf: &mut Buffer, m: &Model) {
        let [title, body] =
            Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(area);
        pane_title(
            buf,
            title,
            m.l,
            "tui-pane-trajectory",
            m.focus == Focus::Trajectory,
        );
        // The localized column header stays on top; the rows scroll below it.
        let [header, body] =
            Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(body);
        buf.set_line(
            header.x,
            header.y,
            &self.trajectory.header(m.l, header.width as usize),
            header.width,
        );
        self.area = body;
        let sel = (m.focus == Focus::Trajectory)
            .then_some(self.selected)
            .flatten();
        self.trajectory.draw(&self.scroll, sel, m.l, body, buf);
    }

    fn handle(&mut self, action: Action, m: &Model, out: &mut Vec<AppEvent>) -> Handled {
        match action {
            Action::SelectPrev => self.move_selection(-1, m.l),
            Action::SelectNext => self.move_selection(1, m.l),
            Action::Inspect => {
                let cmd = self
                    .selected
                    .and_then(|i| self.trajectory.rows().get(i))
                    .and_then(Row::inspect_command);
                if let Some(cmd) = cmd {
                    out.push(AppEvent::Agent(cmd));
                }
            }
            Action::ScrollTop => self.scroll_by(isize::MIN / 2, m.l),
            Action::ScrollBottom => self.scroll_by(isize::MAX / 2, m.l),
            _ => return Handled::Ignored,
        }
        Handled::Consumed
    }
}
