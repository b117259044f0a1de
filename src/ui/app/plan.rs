//! The plan in the TUI (SPEC §15.3, decisions 0175, 0177): folded from the committed log
//! like Chat (so `--resume` and a rewind show the plan that conversation had), pinned above
//! the composer while a step is left, written into Chat each time it changes, and — when a
//! turn in plan mode set one — the status-line question `Execute this plan?`.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::agent::plan::{mark, one_line};
use crate::agent::protocol::{AgentCommand, OUTPUT_VERBATIM, OutputLine};
use crate::i18n::{Arg, Text};
use crate::sandbox::AgentMode;
use crate::tools::plan::{Plan, StepStatus};
use crate::ui::chat::{CellKind, OutputCell};
use crate::ui::text::truncate;
use crate::ui::theme;

use super::App;
use super::plan_state::PlanState;

/// Rows the pinned plan takes at most (title included); longer plans show a window
/// around the step in progress.
const MAX_PINNED_ROWS: usize = 6;

impl App {
    /// Folds a committed event into the plan; a plan it sets goes into Chat too.
    pub(super) fn plan_committed(&mut self, e: &crate::session::event::Event, live: bool) {
        if self.traj.trajectory().is_rewound(e.seq) {
            return;
        }
        if let Some(plan) = self.plan.fold.observe(e) {
            let lines = plan_cell(plan);
            self.chat
                .transcript_mut()
                .push(CellKind::Output(OutputCell { lines }));
            self.plan.this_turn |= live;
        }
    }

    /// A new log (session opened, rewound): the plan is folded again from it.
    pub(super) fn plan_reset(&mut self) {
        self.plan = PlanState::default();
    }

    /// The turn ended: in plan mode with a plan set, ask whether to carry it out.
    pub(super) fn plan_turn_finished(&mut self) {
        let in_plan = self
            .model
            .sandbox
            .is_some_and(|s| s.agent_mode() == AgentMode::Plan);
        self.plan.confirm = std::mem::take(&mut self.plan.this_turn) && in_plan;
    }

    /// The key answering `Execute this plan?`: `y` switches to workspace-write (a mode
    /// note) and sends "Go ahead with the plan."; `n` (or any other key) stays. Returns
    /// whether the key was taken.
    pub(super) fn plan_key(&mut self, k: &KeyEvent) -> bool {
        if !std::mem::take(&mut self.plan.confirm) {
            return false;
        }
        if matches!(k.code, KeyCode::Char('y' | 'Y')) {
            self.send(AgentCommand::SetMode(AgentMode::WorkspaceWrite));
            self.send(AgentCommand::Message(self.model.l.tr("plan-go-ahead")));
        }
        true
    }

    /// The plan to pin: the current one while a step is not completed.
    fn pinned(&self) -> Option<&Plan> {
        self.plan
            .fold
            .current()
            .filter(|p| p.plan.iter().any(|s| s.status != StepStatus::Completed))
    }

    /// Rows the pinned plan takes at `avail` rows of screen (0 when none is pinned; never
    /// more than a third of the screen).
    pub(super) fn plan_height(&self, avail: u16) -> u16 {
        let Some(p) = self.pinned() else { return 0 };
        let want = (p.plan.len() + 1).min(MAX_PINNED_ROWS);
        let cap = usize::from(avail / 3);
        u16::try_from(want.min(cap)).unwrap_or(0)
    }

    /// Draws the pinned plan: its title, then the steps around the one in progress, each
    /// on one row, clipped to the width.
    pub(super) fn render_plan(&self, area: Rect, buf: &mut Buffer) {
        let Some(p) = self.pinned() else { return };
        if area.height == 0 {
            return;
        }
        let w = usize::from(area.width);
        let l = self.model.l;
        let title = format!(" {}", crate::agent::plan::title(p, l));
        buf.set_line(
            area.x,
            area.y,
            &Line::from(Span::styled(truncate(&title, w), theme::accent())),
            area.width,
        );
        let rows = usize::from(area.height - 1);
        let current = p
            .plan
            .iter()
            .position(|s| s.status != StepStatus::Completed)
            .unwrap_or(0);
        let start = window_start(p.plan.len(), rows, current);
        for (i, s) in p.plan.iter().enumerate().skip(start).take(rows) {
            let style = match s.status {
                StepStatus::Completed => theme::dim(),
                StepStatus::InProgress => theme::bold(),
                StepStatus::Pending => ratatui::style::Style::default(),
            };
            let text = format!(
                "  {} {}",
                mark(s.status),
                crate::safe_text::sanitize(&one_line(&s.step))
            );
            let y = area.y + 1 + u16::try_from(i - start).unwrap_or(0);
            buf.set_line(
                area.x,
                y,
                &Line::from(Span::styled(truncate(&text, w), style)),
                area.width,
            );
        }
    }
}

/// The first step shown in `rows` rows of `len` steps so that `current` is visible with
/// the step before it when there is room.
fn window_start(len: usize, rows: usize, current: usize) -> usize {
    if len <= rows {
        return 0;
    }
    current.saturating_sub(1).min(len - rows)
}

/// The plan as Chat shows it: its title, its explanation, a line per step.
fn plan_cell(p: &Plan) -> Vec<OutputLine> {
    let verbatim = |s: String| Text::new(OUTPUT_VERBATIM, vec![("text", Arg::from(s))]);
    let mut lines = vec![Text::new(
        "plan-title",
        vec![
            ("done", Arg::from(p.completed())),
            ("total", Arg::from(p.plan.len())),
        ],
    )];
    if let Some(e) = &p.explanation {
        lines.push(verbatim(format!(
            "  {}",
            crate::safe_text::sanitize(&one_line(e))
        )));
    }
    for s in &p.plan {
        lines.push(verbatim(format!(
            "  {} {}",
            mark(s.status),
            crate::safe_text::sanitize(&one_line(&s.step))
        )));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::window_start;

    #[test]
    fn a_long_plan_keeps_the_step_in_progress_in_view() {
        assert_eq!(window_start(3, 5, 2), 0);
        assert_eq!(window_start(20, 5, 0), 0);
        assert_eq!(window_start(20, 5, 10), 9);
        assert_eq!(window_start(20, 5, 19), 15);
    }
}
