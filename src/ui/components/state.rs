//! The state components share: transcript, trajectory, session info, focus, scroll
//! positions and the commands produced for the agent.

use std::collections::VecDeque;
use std::time::Instant;

use ratatui::layout::Rect;

use crate::agent::protocol::{AgentCommand, RouteInfo, TurnPhase};
use crate::i18n::{Locale, Localizer};
use crate::session::event::Usage;
use crate::ui::chat::Scroll;
use crate::ui::trajectory::Trajectory;
use crate::ui::view::{RenderCtx, ToolCardMode, Transcript};

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

/// Shared UI state, passed to every component.
pub struct UiState {
    /// The UI locale.
    pub l: Localizer,
    /// Whether the simulator banner shows.
    pub demo: bool,
    /// The Chat transcript.
    pub transcript: Transcript,
    /// The Trajectory rows.
    pub trajectory: Trajectory,
    /// Chat scroll position.
    pub chat_scroll: Scroll,
    /// Trajectory scroll position.
    pub traj_scroll: Scroll,
    /// The focused part.
    pub focus: Focus,
    /// The pane shown below the split width.
    pub narrow_pane: Focus,
    /// The selected Chat cell.
    pub selected: Option<usize>,
    /// The selected Trajectory row.
    pub traj_selected: Option<usize>,
    /// Tool-card mode.
    pub cards: ToolCardMode,
    /// Bumped when cached cell renderings go stale (locale, card mode).
    pub generation: u64,
    /// The turn phase.
    pub phase: TurnPhase,
    /// When the phase began.
    pub phase_since: Instant,
    /// The clock for elapsed times.
    pub now: Instant,
    /// Queued inputs.
    pub queued: usize,
    /// The latest submitted texts, newest last (as shown in the composer, bounded); the
    /// last [`UiState::queued`] of them wait behind the running turn and are shown under
    /// the composer.
    pub sent: VecDeque<String>,
    /// The active route.
    pub route: Option<RouteInfo>,
    /// Session token usage.
    pub usage: Usage,
    /// The sandbox mode and network setting, as the loop last said them.
    pub sandbox: Option<crate::agent::protocol::SandboxInfo>,
    /// The retry in progress, shown on the status line while the request is retried.
    pub retry: Option<crate::agent::protocol::RetryStatus>,
    /// Shift+Tab asked to switch to full-access: the next key confirms (`y`) or not.
    pub confirm_full_access: bool,
    /// Context tokens in use; `None` when the last request's usage is unknown.
    pub context_used: Option<u64>,
    /// Pending approvals' call ids, oldest first.
    pub approvals: VecDeque<String>,
    /// Commands for the agent, in order.
    pub outbox: Vec<AgentCommand>,
    /// Whether the user asked to quit.
    pub quit: bool,
    /// Set by a component that wants the key help opened.
    pub open_help: bool,
    /// The Chat body area of the last frame.
    pub chat_area: Rect,
    /// The Chat top row of the last frame.
    pub chat_top: usize,
    /// The Trajectory body area of the last frame.
    pub traj_area: Rect,
    /// When the turn's clock was paused for an approval.
    pub paused_at: Option<Instant>,
    /// Whether the last frame showed one pane (narrower than the split width).
    pub one_pane: bool,
    /// A Chat cell to scroll into view on the next frame (a pending approval's card).
    pub reveal: Option<usize>,
    /// `/copy ARGS` typed in the composer: the UI copies (it owns the terminal).
    pub copy_request: Option<String>,
}

impl UiState {
    /// Fresh state in `locale`.
    pub fn new(locale: Locale, demo: bool) -> Self {
        let now = Instant::now();
        UiState {
            l: Localizer::new(locale),
            demo,
            transcript: Transcript::new(),
            trajectory: Trajectory::new(),
            chat_scroll: Scroll::default(),
            traj_scroll: Scroll::default(),
            focus: Focus::Composer,
            narrow_pane: Focus::Chat,
            selected: None,
            traj_selected: None,
            cards: ToolCardMode::Collapsed,
            generation: 0,
            phase: TurnPhase::Idle,
            phase_since: now,
            now,
            queued: 0,
            sent: VecDeque::new(),
            route: None,
            usage: Usage::default(),
            sandbox: None,
            retry: None,
            confirm_full_access: false,
            context_used: Some(0),
            approvals: VecDeque::new(),
            outbox: Vec::new(),
            quit: false,
            open_help: false,
            chat_area: Rect::default(),
            chat_top: 0,
            traj_area: Rect::default(),
            paused_at: None,
            one_pane: false,
            reveal: None,
            copy_request: None,
        }
    }

    /// The running phase's elapsed time; it stands still while an approval waits.
    pub fn elapsed(&self) -> std::time::Duration {
        self.paused_at
            .unwrap_or(self.now)
            .saturating_duration_since(self.phase_since)
    }

    /// The phase the status line shows: waiting for the user whenever an approval is
    /// pending, whatever the agent last reported.
    pub fn shown_phase(&self) -> TurnPhase {
        if self.approvals.is_empty() || self.phase == TurnPhase::Idle {
            self.phase
        } else {
            TurnPhase::AwaitingApproval
        }
    }

    /// Brings Chat into view in one-pane mode: something the user must see
    /// or answer arrived. `cell` is scrolled into view on the next frame, else Chat follows
    /// the tail if it was hidden. With both panes shown, focus and the pane stay as they are.
    pub fn show_chat(&mut self, cell: Option<usize>) {
        let hidden = self.one_pane && self.narrow_pane == Focus::Trajectory;
        self.narrow_pane = Focus::Chat;
        if self.one_pane && self.focus == Focus::Trajectory {
            self.focus = Focus::Chat;
        }
        match cell {
            Some(i) => self.reveal = Some(i),
            None if hidden => self.chat_scroll = Scroll::default(),
            None => {}
        }
    }

    /// The cell rendering context.
    pub fn ctx(&self) -> RenderCtx {
        RenderCtx {
            l: self.l,
            cards: self.cards,
            generation: self.generation,
        }
    }

    /// Whether a turn is running.
    pub fn busy(&self) -> bool {
        self.phase != TurnPhase::Idle
    }

    /// The queued messages, oldest first (the agent counts them; the UI remembers the texts).
    pub fn queued_texts(&self) -> impl Iterator<Item = &str> {
        let n = self.queued.min(self.sent.len());
        self.sent
            .iter()
            .skip(self.sent.len() - n)
            .map(String::as_str)
    }

    /// Asks the agent to shut down and the UI to quit.
    pub fn request_quit(&mut self) {
        self.quit = true;
        self.outbox.push(AgentCommand::Shutdown);
    }

    /// The body height of a pane in the last frame.
    pub fn pane_height(&self, pane: Focus) -> usize {
        match pane {
            Focus::Trajectory => self.traj_area.height as usize,
            _ => self.chat_area.height as usize,
        }
    }

    /// Scrolls a pane by `delta` rows (negative = up).
    pub fn scroll(&mut self, pane: Focus, delta: isize) {
        let h = self.pane_height(pane);
        match pane {
            Focus::Trajectory => {
                let w = self.traj_area.width as usize;
                let total = self.trajectory.screen_len(self.l, w);
                self.traj_scroll.by(delta, total, h);
            }
            _ => {
                let total = self.transcript.total_height();
                self.chat_scroll.by(delta, total, h);
            }
        }
    }
}
