//! `App::render`: one vertical `Layout` of banner, panes, status line, bottom pane and
//! footer, the panes split from [`SPLIT_WIDTH`], then the popups and overlays on top.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};

use crate::agent::protocol::TurnPhase;
use crate::i18n::Arg;
use crate::ui::component::Component;
use crate::ui::text::{str_width, truncate};
use crate::ui::{footer, theme};

use super::{App, Focus, SPLIT_WIDTH};

impl App {
    /// Renders the whole screen: one vertical `Layout` places the banner, the panes, the
    /// status line, the bottom pane and the footer; the panes split horizontally from
    /// [`SPLIT_WIDTH`]; then the slash popup and the overlay stack go on top.
    pub fn render(&mut self, frame: &mut Frame) {
        let area = frame.area();
        if area.height < 3 || area.width < 4 {
            return;
        }
        self.screen = Some(area);
        let banner_h = u16::from(self.model.demo);
        // Rows between the banner and the footer, as the composer's height budget.
        let avail = area.height.saturating_sub(banner_h + 1);
        let bottom_h = if self.bottom.approval_pending() {
            self.bottom.approval_height(area.width, avail, self.model.l)
        } else {
            self.bottom.height(area.width, avail) + self.bottom.queued_rows(&self.model)
        };
        let plan_h = self.plan_height(avail);
        let [banner, panes, plan, status, bottom, footer_row] = Layout::vertical([
            Constraint::Length(banner_h),
            Constraint::Fill(1),
            Constraint::Length(plan_h),
            Constraint::Length(1),
            Constraint::Length(bottom_h),
            Constraint::Length(1),
        ])
        .areas(area);
        let buf = frame.buffer_mut();
        self.render_banner(banner, buf);
        self.render_footer(footer_row, buf);
        self.bottom.render(bottom, buf, &self.model);
        self.render_status(status, buf);
        self.render_plan(plan, buf);
        self.render_panes(panes, buf);
        self.bottom.render_popup(panes, buf, &self.model);
        self.overlays.render(area, buf, &self.model);
        if !self.links.is_empty() {
            crate::ui::terminal::hyperlink::mark(buf, &self.links);
        }
        if let Some(c) = self.bottom.cursor()
            && self.overlays.is_empty()
        {
            frame.set_cursor_position(c);
        }
    }

    /// The simulator banner (demo mode only; the layout gives it no row otherwise).
    fn render_banner(&self, area: Rect, buf: &mut Buffer) {
        if area.height == 0 {
            return;
        }
        let text = match &self.model.demo_dir {
            Some(dir) => self.model.l.tra(
                "first-run-demo-banner",
                &[("dir", Arg::from(crate::safe_text::sanitize(dir)))],
            ),
            None => self.model.l.tr("tui-demo-banner"),
        };
        let t = truncate(&format!(" {text} "), area.width as usize);
        let pad = " ".repeat((area.width as usize).saturating_sub(str_width(&t)));
        buf.set_line(
            area.x,
            area.y,
            &Line::from(Span::styled(format!("{t}{pad}"), theme::banner())),
            area.width,
        );
    }

    /// The footer: route, usage, cost, sandbox, card mode and mouse mode, dropping fields
    /// by their declared priority as the row narrows (`footer.rs`).
    fn render_footer(&self, area: Rect, buf: &mut Buffer) {
        let (m, t) = (&self.model, self.traj.trajectory());
        // The mouse mode sits at the right end and is the first field to go (§14.5).
        let mouse = footer::mouse_label(m.l, self.mouse_capture);
        let line = footer::footer_line(
            m.l,
            m.route.as_ref(),
            &footer::FooterUsage {
                session: m.usage,
                last: t.last_usage(),
                cost: t.session_cost(),
                context_used: m.context_used,
                unknown: t.unknown_usage(),
                sandbox: m.sandbox,
            },
            m.cards,
            Some(mouse),
            area.width,
        );
        buf.set_line(area.x, area.y, &line, area.width);
    }

    /// The status line: a pending confirmation, the quit hint, a retry, a transient hint,
    /// else the phase with its clock and the queued count.
    fn render_status(&self, area: Rect, buf: &mut Buffer) {
        let (m, l) = (&self.model, self.model.l);
        let w = usize::from(area.width);
        let warn = |text: String| Line::from(Span::styled(truncate(&text, w), theme::warn()));
        let st = if self.confirm_full_access {
            warn(l.tr("tui-mode-confirm-full"))
        } else if self.plan.confirm {
            Line::from(Span::styled(
                truncate(&l.tr("plan-execute-question"), w),
                theme::accent(),
            ))
        } else if self.quit_hint_visible() {
            warn(l.tr("tui-quit-hint"))
        } else if self.rewind_armed() {
            Line::from(Span::styled(
                truncate(&l.tr("tui-rewind-hint"), w),
                theme::accent(),
            ))
        } else if let Some(r) = m.retry.filter(|_| m.phase == TurnPhase::Waiting) {
            // One transient line while a request is retried (§14.5).
            warn(l.tra(
                "tui-status-reconnecting",
                &[
                    ("attempt", Arg::from(r.attempt)),
                    ("max", Arg::from(r.max)),
                    ("cause", Arg::from(l.tr(r.cause.key()))),
                    ("seconds", Arg::from(format!("{:.1}", r.seconds))),
                ],
            ))
        } else if let Some((text, is_warn)) = self.hint_visible() {
            let style = if is_warn {
                theme::warn()
            } else {
                theme::accent()
            };
            Line::from(Span::styled(truncate(text, w), style))
        } else {
            let phase = m.shown_phase(self.bottom.approval_pending());
            footer::status_line(l, phase, m.elapsed(), m.queued, area.width)
        };
        buf.set_line(area.x, area.y, &st, area.width);
    }

    /// Chat and the Trajectory side by side from [`SPLIT_WIDTH`], else the one chosen.
    fn render_panes(&mut self, area: Rect, buf: &mut Buffer) {
        self.chat.hidden();
        self.traj.hidden();
        if area.height < 2 {
            return;
        }
        let m = &self.model;
        self.chat.set_one_pane(area.width < SPLIT_WIDTH);
        if area.width >= SPLIT_WIDTH {
            let [chat, sep, traj] = Layout::horizontal([
                Constraint::Length(area.width / 2),
                Constraint::Length(1),
                Constraint::Fill(1),
            ])
            .areas(area);
            for y in sep.top()..sep.bottom() {
                buf.set_line(sep.x, y, &Line::from(Span::styled("│", theme::dim())), 1);
            }
            self.chat.render(chat, buf, m);
            self.traj.render(traj, buf, m);
        } else if self.narrow_pane == Focus::Trajectory {
            self.traj.render(area, buf, m);
        } else {
            self.chat.render(area, buf, m);
        }
    }
}
