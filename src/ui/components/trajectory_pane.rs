//! The Trajectory pane: title and the request / context rows, with a selection that
//! `Enter` inspects.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};

use crate::agent::protocol::AgentCommand;
use crate::ui::chat::Scroll;
use crate::ui::keymap::Action;
use crate::ui::trajectory::Row;

use super::component::{Component, Handled, pane_title};
use super::state::{Focus, UiState};

/// The Trajectory pane (its state lives in [`UiState`]).
#[derive(Debug, Default)]
pub struct TrajectoryPane;

impl TrajectoryPane {
    /// Moves the selection between request rows (`dir` = ±1).
    fn move_selection(&self, s: &mut UiState, dir: isize) {
        let n = s.trajectory.rows().len();
        let mut i = match s.traj_selected {
            Some(i) => i as isize + dir,
            None if dir < 0 => n as isize - 1,
            None => return,
        };
        while i >= 0 && (i as usize) < n {
            if s.trajectory.rows()[i as usize].request_number().is_some() {
                let u = i as usize;
                s.traj_selected = Some(u);
                // Scrolling counts screen rows: a wrapped break reason takes several.
                let (h, w) = (s.traj_area.height as usize, s.traj_area.width as usize);
                let total = s.trajectory.screen_len(s.l, w);
                let (first, end) = s.trajectory.screen_span(u, s.l, w);
                let cur = s.traj_scroll.resolve(total, h);
                if h > 0 && (first < cur || end > cur + h) {
                    let max = total.saturating_sub(h);
                    let t = first.saturating_sub(h / 2).min(max);
                    s.traj_scroll.top = if t >= max { None } else { Some(t) };
                }
                return;
            }
            i += dir;
        }
        if dir > 0 {
            s.traj_selected = None;
            s.traj_scroll = Scroll::default();
        }
    }
}

impl Component for TrajectoryPane {
    fn render(&mut self, area: Rect, buf: &mut Buffer, s: &mut UiState) {
        let [title, body] =
            Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(area);
        pane_title(
            buf,
            title,
            s.l,
            "tui-pane-trajectory",
            s.focus == Focus::Trajectory,
        );
        // The localized column header stays on top; the rows scroll below it.
        let [header, body] =
            Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(body);
        buf.set_line(
            header.x,
            header.y,
            &s.trajectory.header(s.l, header.width as usize),
            header.width,
        );
        s.traj_area = body;
        let sel = (s.focus == Focus::Trajectory)
            .then_some(s.traj_selected)
            .flatten();
        s.trajectory.draw(&s.traj_scroll, sel, s.l, body, buf);
    }

    fn handle(&mut self, action: Action, s: &mut UiState) -> Handled {
        match action {
            Action::SelectPrev => self.move_selection(s, -1),
            Action::SelectNext => self.move_selection(s, 1),
            Action::Inspect => {
                let n = s
                    .traj_selected
                    .and_then(|i| s.trajectory.rows().get(i))
                    .and_then(Row::request_number);
                if let Some(n) = n {
                    s.outbox.push(AgentCommand::Inspect { request: Some(n) });
                }
            }
            Action::ScrollTop => s.scroll(Focus::Trajectory, isize::MIN / 2),
            Action::ScrollBottom => s.scroll(Focus::Trajectory, isize::MAX / 2),
            _ => return Handled::Ignored,
        }
        Handled::Consumed
    }
}
