//! The pure application state: fed AgentEvents, keys, pastes and mouse events; renders into
//! any ratatui backend. The terminal event loop lives in `terminal.rs`.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};

use crate::agent::protocol::{
    AgentCommand, AgentEvent, ApprovalDecision, Notice, NoticeLevel, RouteInfo, TurnPhase,
};
use crate::i18n::{Locale, Localizer};
use crate::session::event::{EventKind, Usage};

use super::chat::{self, Scroll};
use super::composer::Composer;
use super::keymap::{ctrl, is_newline, typed};
use super::text::{str_width, truncate};
use super::trajectory::Trajectory;
use super::view::{CellKind, RenderCtx, ToolCardMode, Transcript};
use super::{footer, help, theme};

/// Width from which Chat and Trajectory show side by side.
pub const SPLIT_WIDTH: u16 = 100;
/// Maximum composer text rows.
const COMPOSER_MAX_ROWS: usize = 6;
/// Window for the second Ctrl+C.
const QUIT_WINDOW: Duration = Duration::from_secs(2);

/// Which part has keyboard focus (`Tab` cycles).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Focus {
    /// The composer.
    #[default]
    Composer,
    /// The Chat pane.
    Chat,
    /// The Trajectory pane.
    Trajectory,
}

/// The whole UI state.
pub struct App {
    l: Localizer,
    demo: bool,
    transcript: Transcript,
    trajectory: Trajectory,
    composer: Composer,
    chat_scroll: Scroll,
    traj_scroll: Scroll,
    focus: Focus,
    narrow_pane: Focus,
    selected: Option<usize>,
    cards: ToolCardMode,
    generation: u64,
    phase: TurnPhase,
    phase_since: Instant,
    now: Instant,
    queued: usize,
    route: Option<RouteInfo>,
    usage: Usage,
    context_used: u64,
    approvals: VecDeque<String>,
    help: bool,
    quit_armed: Option<Instant>,
    quit: bool,
    exited: bool,
    outbox: Vec<AgentCommand>,
    chat_area: Rect,
    chat_top: usize,
    traj_area: Rect,
    traj_selected: Option<usize>,
    inspector: Option<super::inspector::Inspector>,
}

impl App {
    /// A fresh UI in `locale`; `demo` shows the simulator banner.
    pub fn new(locale: Locale, demo: bool) -> Self {
        let now = Instant::now();
        App {
            l: Localizer::new(locale),
            demo,
            transcript: Transcript::new(),
            trajectory: Trajectory::new(),
            composer: Composer::new(),
            chat_scroll: Scroll::default(),
            traj_scroll: Scroll::default(),
            focus: Focus::Composer,
            narrow_pane: Focus::Chat,
            selected: None,
            cards: ToolCardMode::Collapsed,
            generation: 0,
            phase: TurnPhase::Idle,
            phase_since: now,
            now,
            queued: 0,
            route: None,
            usage: Usage::default(),
            context_used: 0,
            approvals: VecDeque::new(),
            help: false,
            quit_armed: None,
            quit: false,
            exited: false,
            outbox: Vec::new(),
            chat_area: Rect::default(),
            chat_top: 0,
            traj_area: Rect::default(),
            traj_selected: None,
            inspector: None,
        }
    }

    /// Sets the clock used for elapsed times (the event loop calls this before drawing).
    pub fn set_now(&mut self, now: Instant) {
        self.now = now;
    }

    /// The current locale.
    pub fn locale(&self) -> Locale {
        self.l.locale
    }

    /// Commands produced since the last call, in order.
    pub fn take_commands(&mut self) -> Vec<AgentCommand> {
        std::mem::take(&mut self.outbox)
    }

    /// Whether the user asked to quit.
    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// Whether the agent loop reported `Exited`.
    pub fn agent_exited(&self) -> bool {
        self.exited
    }

    /// Whether a turn is running (status line animates).
    pub fn busy(&self) -> bool {
        self.phase != TurnPhase::Idle
    }

    /// The composer (tests).
    pub fn composer(&self) -> &Composer {
        &self.composer
    }

    /// The Chat transcript (tests, benches).
    pub fn transcript(&self) -> &Transcript {
        &self.transcript
    }

    /// The focused part.
    pub fn focus(&self) -> Focus {
        self.focus
    }

    /// The selected Chat cell.
    pub fn selected(&self) -> Option<usize> {
        self.selected
    }

    /// The selected Trajectory row.
    pub fn trajectory_selected(&self) -> Option<usize> {
        self.traj_selected
    }

    /// The open request inspector.
    pub fn inspector(&self) -> Option<&super::inspector::Inspector> {
        self.inspector.as_ref()
    }

    fn ctx(&self) -> RenderCtx {
        RenderCtx {
            l: self.l,
            cards: self.cards,
            generation: self.generation,
        }
    }

    fn set_locale(&mut self, loc: Locale) {
        if self.l.locale != loc {
            self.l = Localizer::new(loc);
            self.generation += 1;
        }
    }

    fn notice(&mut self, level: NoticeLevel, key: &str) {
        self.transcript
            .push(CellKind::Notice(Notice::new(level, key, vec![])));
    }

    /// Folds one agent event into the view.
    pub fn on_agent_event(&mut self, ev: AgentEvent) {
        match ev {
            AgentEvent::SessionOpened { history, .. } => {
                self.transcript = Transcript::new();
                self.trajectory = Trajectory::new();
                self.selected = None;
                self.traj_selected = None;
                self.inspector = None;
                self.chat_scroll = Scroll::default();
                self.traj_scroll = Scroll::default();
                for e in &history {
                    self.apply_committed(e);
                }
            }
            AgentEvent::Committed(e) => self.apply_committed(&e),
            AgentEvent::Stream { turn, step, event } => self.transcript.stream(turn, step, &event),
            AgentEvent::Phase(p) => {
                if p != self.phase {
                    self.phase_since = self.now;
                }
                if p == TurnPhase::Idle {
                    self.transcript.end_streams();
                }
                self.phase = p;
            }
            AgentEvent::Route(r) => {
                self.demo |= r.demo;
                self.route = Some(r);
            }
            AgentEvent::SessionUsage(u) => self.usage = u,
            AgentEvent::Notice(n) => {
                self.transcript.push(CellKind::Notice(n));
            }
            AgentEvent::Output(lines) => {
                self.transcript.push(CellKind::Output(lines));
            }
            AgentEvent::ApprovalRequest {
                call_id,
                tool,
                arguments,
            } => {
                self.transcript.push(CellKind::Approval {
                    call_id: call_id.clone(),
                    tool: super::text::sanitize(&tool),
                    arguments: super::text::sanitize(&arguments),
                    decision: None,
                });
                self.approvals.push_back(call_id);
            }
            AgentEvent::Queued(n) => self.queued = n,
            AgentEvent::LocaleChanged(loc) => self.set_locale(loc),
            AgentEvent::TurnFinished | AgentEvent::CommandFinished => {}
            AgentEvent::Inspector(d) => self.inspector = Some(super::inspector::Inspector::new(*d)),
            AgentEvent::Exited => self.exited = true,
        }
    }

    fn apply_committed(&mut self, e: &crate::session::event::Event) {
        if let EventKind::AssistantMessage(d) = &e.kind
            && let Some(u) = d.usage
        {
            self.context_used = u.total_input() + u.output_tokens;
        }
        self.transcript.apply(e);
        self.trajectory.apply(e);
    }

    /// Handles a bracketed paste.
    pub fn on_paste(&mut self, s: &str) {
        self.focus = Focus::Composer;
        self.composer.paste(s, self.l);
    }

    fn answer(&mut self, d: ApprovalDecision) {
        if let Some(call_id) = self.approvals.pop_front() {
            self.transcript.decide(&call_id, d);
            self.outbox.push(AgentCommand::Approve {
                call_id,
                decision: d,
            });
        }
    }

    fn submit(&mut self) {
        let Some(text) = self.composer.submit() else {
            return;
        };
        self.chat_scroll = Scroll::default();
        let quit = crate::agent::command_spec::find(text.trim())
            .is_some_and(|c| c.id == crate::agent::command_spec::CommandId::Quit);
        if quit && !self.busy() {
            self.request_quit();
            return;
        }
        self.outbox.push(AgentCommand::Submit(text));
    }

    fn request_quit(&mut self) {
        self.quit = true;
        self.outbox.push(AgentCommand::Shutdown);
    }

    fn toggle_locale(&mut self) {
        let next = self.l.locale.toggled();
        self.set_locale(next);
        self.outbox.push(AgentCommand::SetLocale(next));
    }

    /// Handles a key press.
    pub fn on_key(&mut self, k: KeyEvent) {
        if k.kind == KeyEventKind::Release {
            return;
        }
        if !ctrl(&k, 'c') {
            self.quit_armed = None;
        }
        if self.help {
            self.help = false;
            return;
        }
        if let Some(ins) = &mut self.inspector {
            if !ins.key(&k) {
                self.inspector = None;
            }
            return;
        }
        if !self.approvals.is_empty() {
            match k.code {
                KeyCode::Char('y') => return self.answer(ApprovalDecision::Allow),
                KeyCode::Char('a') => return self.answer(ApprovalDecision::AlwaysAllow),
                KeyCode::Char('n') | KeyCode::Esc => return self.answer(ApprovalDecision::Deny),
                _ if ctrl(&k, 'c') => return self.answer(ApprovalDecision::Deny),
                _ => {}
            }
        }
        // Global keys.
        match k.code {
            KeyCode::F(1) => {
                self.help = true;
                return;
            }
            KeyCode::F(2) => return self.toggle_locale(),
            KeyCode::Tab => {
                self.focus = match self.focus {
                    Focus::Composer => Focus::Chat,
                    Focus::Chat => Focus::Trajectory,
                    Focus::Trajectory => Focus::Composer,
                };
                if self.focus != Focus::Composer {
                    self.narrow_pane = self.focus;
                }
                if self.focus == Focus::Composer && self.composer.popup_open() {
                    self.composer.complete();
                }
                return;
            }
            KeyCode::PageUp | KeyCode::PageDown => {
                let up = k.code == KeyCode::PageUp;
                let pane = if self.focus == Focus::Trajectory {
                    Focus::Trajectory
                } else {
                    Focus::Chat
                };
                let h = self.pane_height(pane) as isize;
                self.scroll(pane, if up { -h.max(1) } else { h.max(1) });
                return;
            }
            _ => {}
        }
        if ctrl(&k, 'c') {
            if self.busy() {
                self.outbox.push(AgentCommand::Cancel);
            } else if !self.composer.is_empty() {
                self.composer.clear();
            } else if self
                .quit_armed
                .is_some_and(|t| self.now.saturating_duration_since(t) < QUIT_WINDOW)
            {
                self.request_quit();
            } else {
                self.quit_armed = Some(self.now);
                self.notice(NoticeLevel::Info, "tui-quit-hint");
            }
            return;
        }
        if ctrl(&k, 'o') {
            self.cards = self.cards.next();
            self.generation += 1;
            return;
        }
        if ctrl(&k, 't') {
            if let Some(i) = self.transcript.last_tool_change() {
                self.transcript.toggle(i);
            }
            return;
        }
        if k.code == KeyCode::Esc {
            if self.composer.popup_open() {
                self.composer.close_popup();
            } else if self.busy() {
                self.outbox.push(AgentCommand::Cancel);
            } else if self.focus != Focus::Composer {
                self.focus = Focus::Composer;
            }
            return;
        }
        let focus = self.focus;
        if focus != Focus::Composer && self.pane_key(focus, &k) {
            return;
        }
        self.composer_key(k);
    }

    /// Keys for a focused pane; returns whether consumed.
    fn pane_key(&mut self, pane: Focus, k: &KeyEvent) -> bool {
        match (pane, k.code) {
            (Focus::Chat, KeyCode::Up) => self.move_selection(-1),
            (Focus::Chat, KeyCode::Down) => self.move_selection(1),
            (Focus::Chat, KeyCode::Enter | KeyCode::Char(' ')) => {
                if let Some(i) = self.selected {
                    self.transcript.toggle(i);
                }
            }
            (Focus::Trajectory, KeyCode::Up) => self.move_traj_selection(-1),
            (Focus::Trajectory, KeyCode::Down) => self.move_traj_selection(1),
            (Focus::Trajectory, KeyCode::Enter) => {
                let n = self
                    .traj_selected
                    .and_then(|i| self.trajectory.rows().get(i))
                    .and_then(super::trajectory::Row::request_number);
                if let Some(n) = n {
                    self.outbox.push(AgentCommand::Inspect { request: Some(n) });
                }
            }
            (_, KeyCode::Home) => self.scroll(pane, isize::MIN / 2),
            (_, KeyCode::End) => self.scroll(pane, isize::MAX / 2),
            _ => return false,
        }
        true
    }

    fn move_selection(&mut self, dir: isize) {
        let cells = self.transcript.cells();
        let n = cells.len();
        if n == 0 {
            return;
        }
        let visible = |i: usize| {
            self.transcript.cell_height(i) > 0 || self.transcript.cells()[i].selectable()
        };
        let mut i = match self.selected {
            Some(i) => i as isize + dir,
            None if dir < 0 => n as isize - 1,
            None => return,
        };
        while i >= 0 && (i as usize) < n {
            let u = i as usize;
            if cells[u].selectable() && visible(u) {
                self.selected = Some(u);
                self.reveal(u);
                return;
            }
            i += dir;
        }
        if dir > 0 {
            self.selected = None;
            self.chat_scroll = Scroll::default();
        }
    }

    /// Moves the Trajectory selection between request rows (Enter inspects the selected one).
    fn move_traj_selection(&mut self, dir: isize) {
        let rows = self.trajectory.rows();
        let n = rows.len();
        let mut i = match self.traj_selected {
            Some(i) => i as isize + dir,
            None if dir < 0 => n as isize - 1,
            None => return,
        };
        while i >= 0 && (i as usize) < n {
            if rows[i as usize].request_number().is_some() {
                let u = i as usize;
                self.traj_selected = Some(u);
                let h = self.traj_area.height as usize;
                let cur = self.traj_scroll.resolve(n, h);
                if h > 0 && (u < cur || u >= cur + h) {
                    let max = n.saturating_sub(h);
                    let t = u.saturating_sub(h / 2).min(max);
                    self.traj_scroll.top = if t >= max { None } else { Some(t) };
                }
                return;
            }
            i += dir;
        }
        if dir > 0 {
            self.traj_selected = None;
            self.traj_scroll = Scroll::default();
        }
    }

    /// Scrolls Chat so cell `i` is on screen.
    fn reveal(&mut self, i: usize) {
        let h = self.chat_area.height as usize;
        if h == 0 {
            return;
        }
        let top = self.transcript.cell_top(i);
        let total = self.transcript.total_height();
        let cur = self.chat_scroll.resolve(total, h);
        if top < cur || top >= cur + h {
            let max = total.saturating_sub(h);
            let t = top.min(max);
            self.chat_scroll.top = if t >= max { None } else { Some(t) };
        }
    }

    fn pane_height(&self, pane: Focus) -> usize {
        match pane {
            Focus::Trajectory => self.traj_area.height as usize,
            _ => self.chat_area.height as usize,
        }
    }

    fn scroll(&mut self, pane: Focus, delta: isize) {
        let h = self.pane_height(pane);
        match pane {
            Focus::Trajectory => {
                let total = self.trajectory.rows().len();
                self.traj_scroll.by(delta, total, h);
            }
            _ => {
                let total = self.transcript.total_height();
                self.chat_scroll.by(delta, total, h);
            }
        }
    }

    fn composer_key(&mut self, k: KeyEvent) {
        if self.focus != Focus::Composer {
            if typed(&k).is_none() && k.code != KeyCode::Backspace {
                return;
            }
            self.focus = Focus::Composer;
        }
        if is_newline(&k) {
            self.composer.newline();
            return;
        }
        match k.code {
            KeyCode::Enter => {
                if self.composer.popup_open() {
                    if let Some(cmd) = self.composer.complete()
                        && !cmd.complete_with_args
                    {
                        self.submit();
                    }
                } else {
                    self.submit();
                }
            }
            KeyCode::Backspace => self.composer.backspace(),
            KeyCode::Delete => self.composer.delete(),
            KeyCode::Left => self.composer.left(),
            KeyCode::Right => self.composer.right(),
            KeyCode::Home if self.composer.is_empty() => self.scroll(Focus::Chat, isize::MIN / 2),
            KeyCode::End if self.composer.is_empty() => self.chat_scroll = Scroll::default(),
            KeyCode::Home => self.composer.home(),
            KeyCode::End => self.composer.end(),
            KeyCode::Up => self.composer.up(),
            KeyCode::Down => self.composer.down(),
            _ => {
                if let Some(c) = typed(&k) {
                    if c == '?' && self.composer.is_empty() {
                        self.help = true;
                    } else {
                        self.composer.insert_char(c);
                    }
                } else if k.modifiers.contains(KeyModifiers::CONTROL)
                    && k.code == KeyCode::Char('u')
                {
                    self.composer.clear();
                }
            }
        }
    }

    /// Handles a mouse event (wheel scrolls the pane under the pointer; a click toggles a Chat node).
    pub fn on_mouse(&mut self, m: MouseEvent) {
        let pos = Position {
            x: m.column,
            y: m.row,
        };
        let pane = if self.traj_area.contains(pos) {
            Focus::Trajectory
        } else {
            Focus::Chat
        };
        match m.kind {
            MouseEventKind::ScrollUp => self.scroll(pane, -3),
            MouseEventKind::ScrollDown => self.scroll(pane, 3),
            MouseEventKind::Down(MouseButton::Left) if self.chat_area.contains(pos) => {
                let row = self.chat_top + (m.row - self.chat_area.y) as usize;
                if let Some(i) = self.transcript.cell_at(row)
                    && self.transcript.cells()[i].selectable()
                {
                    self.selected = Some(i);
                    self.focus = Focus::Chat;
                    self.transcript.toggle(i);
                }
            }
            _ => {}
        }
    }

    /// Renders the whole screen.
    pub fn render(&mut self, frame: &mut Frame) {
        let area = frame.area();
        let ctx = self.ctx();
        let l = self.l;
        let buf = frame.buffer_mut();
        let mut y = area.y;
        let mut bottom = area.y + area.height;
        if area.height < 3 || area.width < 4 {
            return;
        }
        if self.demo {
            let s = truncate(
                &format!(" {} ", l.tr("tui-demo-banner")),
                area.width as usize,
            );
            let pad = " ".repeat((area.width as usize).saturating_sub(str_width(&s)));
            buf.set_line(
                area.x,
                y,
                &Line::from(Span::styled(format!("{s}{pad}"), theme::banner())),
                area.width,
            );
            y += 1;
        }
        // Footer and status.
        bottom -= 1;
        let footer = footer::footer_line(
            l,
            self.route.as_ref(),
            &self.usage,
            self.context_used,
            self.cards,
            area.width,
        );
        buf.set_line(area.x, bottom, &footer, area.width);
        // Composer or approval prompt.
        let inner_w = area.width.saturating_sub(2).max(2) as usize;
        let layout = self.composer.layout(inner_w);
        let avail = bottom.saturating_sub(y) as usize;
        let max_rows = COMPOSER_MAX_ROWS.min(avail.saturating_sub(4).max(1));
        let rows_shown = layout.rows.len().clamp(1, max_rows);
        let comp_h = rows_shown as u16 + 1;
        bottom = bottom.saturating_sub(comp_h);
        let comp_top = bottom;
        let sep_style = if self.focus == Focus::Composer {
            theme::accent()
        } else {
            theme::dim()
        };
        buf.set_line(
            area.x,
            comp_top,
            &Line::from(Span::styled("─".repeat(area.width as usize), sep_style)),
            area.width,
        );
        let pending = self.approvals.front().is_some();
        let mut cursor = None;
        if pending {
            let s = truncate(&l.tr("tui-approval-prompt"), area.width as usize);
            buf.set_line(
                area.x,
                comp_top + 1,
                &Line::from(Span::styled(s, theme::warn().patch(theme::bold()))),
                area.width,
            );
        } else {
            let first = layout.caret_row.saturating_sub(rows_shown - 1);
            for (i, row) in layout.rows.iter().skip(first).take(rows_shown).enumerate() {
                let prefix = if i == 0 && first == 0 { "› " } else { "  " };
                buf.set_line(
                    area.x,
                    comp_top + 1 + i as u16,
                    &Line::from(vec![
                        Span::styled(prefix, theme::accent()),
                        Span::raw(row.clone()),
                    ]),
                    area.width,
                );
            }
            if self.composer.is_empty() {
                let hint = truncate(&l.tr("tui-composer-placeholder"), inner_w);
                buf.set_line(
                    area.x + 2,
                    comp_top + 1,
                    &Line::from(Span::styled(hint, theme::dim())),
                    area.width - 2,
                );
            }
            let cy = comp_top + 1 + (layout.caret_row - first) as u16;
            let cx = area.x + 2 + layout.caret_col.min(inner_w) as u16;
            cursor = Some(Position {
                x: cx.min(area.x + area.width - 1),
                y: cy,
            });
        }
        // Status line.
        bottom = bottom.saturating_sub(1);
        let elapsed = self.now.saturating_duration_since(self.phase_since);
        let status = footer::status_line(l, self.phase, elapsed, self.queued, area.width);
        buf.set_line(area.x, bottom, &status, area.width);
        // Panes.
        let pane_area = Rect {
            x: area.x,
            y,
            width: area.width,
            height: bottom.saturating_sub(y),
        };
        self.draw_panes(pane_area, &ctx, buf);
        // Slash popup above the composer, over the panes.
        if !pending && self.composer.popup_open() {
            let matches = self.composer.popup_matches();
            let h = (matches.len() as u16).min(pane_area.height);
            let top = comp_top.saturating_sub(h + 1);
            for (i, m) in matches.iter().take(h as usize).enumerate() {
                let sel = i == self.composer.popup_selected();
                let text = truncate(
                    &format!("{:<10} {}", m.name, l.tr(m.desc_key)),
                    area.width as usize,
                );
                let pad = " ".repeat((area.width as usize).saturating_sub(str_width(&text)));
                let st = if sel {
                    theme::selected()
                } else {
                    theme::dim().patch(ratatui::style::Style::default())
                };
                buf.set_line(
                    area.x,
                    top + i as u16,
                    &Line::from(Span::styled(format!("{text}{pad}"), st)),
                    area.width,
                );
            }
        }
        if let Some(ins) = &mut self.inspector {
            ins.draw(l, area, buf);
        }
        if self.help {
            help::draw(l, area, buf);
        }
        if let Some(c) = cursor
            && !self.help
            && self.inspector.is_none()
        {
            frame.set_cursor_position(c);
        }
    }

    fn draw_panes(&mut self, area: Rect, ctx: &RenderCtx, buf: &mut ratatui::buffer::Buffer) {
        if area.height < 2 {
            self.chat_area = Rect::default();
            self.traj_area = Rect::default();
            return;
        }
        let l = self.l;
        let (chat_rect, traj_rect) = if area.width >= SPLIT_WIDTH {
            let cw = area.width / 2;
            let chat = Rect { width: cw, ..area };
            let traj = Rect {
                x: area.x + cw + 1,
                width: area.width - cw - 1,
                ..area
            };
            for yy in area.y..area.y + area.height {
                buf.set_line(
                    area.x + cw,
                    yy,
                    &Line::from(Span::styled("│", theme::dim())),
                    1,
                );
            }
            (Some(chat), Some(traj))
        } else if self.narrow_pane == Focus::Trajectory {
            (None, Some(area))
        } else {
            (Some(area), None)
        };
        let title = |buf: &mut ratatui::buffer::Buffer, r: Rect, key: &str, focused: bool| {
            let st = if focused {
                theme::accent().patch(theme::bold())
            } else {
                theme::dim()
            };
            let s = truncate(&format!(" {} ", l.tr(key)), r.width as usize);
            buf.set_line(r.x, r.y, &Line::from(Span::styled(s, st)), r.width);
        };
        self.chat_area = Rect::default();
        self.traj_area = Rect::default();
        if let Some(r) = chat_rect {
            title(buf, r, "tui-pane-chat", self.focus == Focus::Chat);
            let body = Rect {
                y: r.y + 1,
                height: r.height - 1,
                ..r
            };
            self.chat_area = body;
            if self.transcript.is_empty() {
                let s = truncate(&l.tr("tui-chat-empty"), body.width as usize);
                buf.set_line(
                    body.x,
                    body.y,
                    &Line::from(Span::styled(s, theme::dim())),
                    body.width,
                );
            }
            self.chat_top = chat::draw(
                &mut self.transcript,
                &mut self.chat_scroll,
                self.selected,
                ctx,
                body,
                buf,
            );
            if !self.chat_scroll.following() && body.height > 0 {
                let hint = chat::jump_hint(ctx, body.width);
                buf.set_line(body.x, body.y + body.height - 1, &hint, body.width);
            }
        }
        if let Some(r) = traj_rect {
            title(
                buf,
                r,
                "tui-pane-trajectory",
                self.focus == Focus::Trajectory,
            );
            let body = Rect {
                y: r.y + 1,
                height: r.height - 1,
                ..r
            };
            self.traj_area = body;
            let sel = (self.focus == Focus::Trajectory)
                .then_some(self.traj_selected)
                .flatten();
            self.trajectory.draw(&self.traj_scroll, sel, l, body, buf);
        }
    }
}

#[cfg(test)]
#[path = "app_tests.rs"]
mod tests;
