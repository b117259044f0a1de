//! The read-only model the panes render from: what the agent last said about the session
//! (route, usage, sandbox, phase, retry, queued inputs), the locale and card mode, the clock
//! and which part has focus, and the rendering inputs a Chat cell takes from it
//! ([`RenderCtx`]). It depends on no pane. `App` owns it and changes it on AgentEvents and
//! global keys; panes read it and never write it (what they want changed they ask for as
//! an [`crate::ui::app_event::AppEvent`]).

use std::time::Instant;

use crate::agent::protocol::{RetryStatus, RouteInfo, SandboxInfo, TurnPhase};
use crate::i18n::{Locale, Localizer};
use crate::session::event::Usage;

/// How tool cards show (`Ctrl+O` cycles).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolCardMode {
    /// Header and a short preview.
    #[default]
    Collapsed,
    /// Full arguments and output.
    Expanded,
    /// Not shown.
    Hidden,
}

impl ToolCardMode {
    /// The next mode in the cycle.
    pub fn next(self) -> Self {
        match self {
            ToolCardMode::Collapsed => ToolCardMode::Expanded,
            ToolCardMode::Expanded => ToolCardMode::Hidden,
            ToolCardMode::Hidden => ToolCardMode::Collapsed,
        }
    }
    /// Fluent id of the mode's name.
    pub fn key(self) -> &'static str {
        match self {
            ToolCardMode::Collapsed => "tui-cards-collapsed",
            ToolCardMode::Expanded => "tui-cards-expanded",
            ToolCardMode::Hidden => "tui-cards-hidden",
        }
    }
}

/// Rendering inputs shared by every cell.
#[derive(Debug, Clone, Copy)]
pub struct RenderCtx {
    /// Strings.
    pub l: Localizer,
    /// Tool card mode.
    pub cards: ToolCardMode,
    /// Bumped whenever `l` or `cards` changes so caches miss.
    pub generation: u64,
}

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

/// Session facts and view settings every pane reads.
#[derive(Debug, Clone)]
pub struct Model {
    /// The UI locale.
    pub l: Localizer,
    /// Whether the simulator banner shows.
    pub demo: bool,
    /// The guided demo's copy of the sample project, named in the banner.
    pub demo_dir: Option<String>,
    /// The focused part.
    pub focus: Focus,
    /// Tool-card mode.
    pub cards: ToolCardMode,
    /// Bumped when cached cell renderings go stale (locale, card mode).
    pub generation: u64,
    /// The turn phase.
    pub phase: TurnPhase,
    /// When the phase began.
    pub phase_since: Instant,
    /// When the turn's clock was paused for an approval.
    pub paused_at: Option<Instant>,
    /// The clock for elapsed times.
    pub now: Instant,
    /// Inputs queued behind the running turn (the agent counts them).
    pub queued: usize,
    /// The active route.
    pub route: Option<RouteInfo>,
    /// Session token usage.
    pub usage: Usage,
    /// The sandbox mode and network setting, as the loop last said them.
    pub sandbox: Option<SandboxInfo>,
    /// The retry in progress, shown on the status line while the request is retried.
    pub retry: Option<RetryStatus>,
    /// Context tokens in use; `None` when the last request's usage is unknown.
    pub context_used: Option<u64>,
    /// The cross-session history is still being read: sessions read so far.
    pub history_reading: Option<usize>,
}

impl Model {
    /// A fresh model in `locale`.
    pub fn new(locale: Locale, demo: bool) -> Self {
        let now = Instant::now();
        Model {
            l: Localizer::new(locale),
            demo,
            demo_dir: None,
            focus: Focus::Composer,
            cards: ToolCardMode::Collapsed,
            generation: 0,
            phase: TurnPhase::Idle,
            phase_since: now,
            paused_at: None,
            now,
            queued: 0,
            route: None,
            usage: Usage::default(),
            sandbox: None,
            retry: None,
            context_used: Some(0),
            history_reading: None,
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
    pub fn shown_phase(&self, approval_pending: bool) -> TurnPhase {
        if !approval_pending || self.phase == TurnPhase::Idle {
            self.phase
        } else {
            TurnPhase::AwaitingApproval
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

    /// Switches the locale; cached renderings go stale.
    pub fn set_locale(&mut self, loc: Locale) {
        if self.l.locale != loc {
            self.l = Localizer::new(loc);
            self.generation += 1;
        }
    }
}
