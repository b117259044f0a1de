//! The one UI event loop: crossterm's async `EventStream`, the agent's events, panics
//! reported from other tasks and a frame timer, in one `tokio::select!` on the UI task.
//! Every input marks the frame dirty; [`FrameLimiter`] coalesces redraws to at most 60
//! per second, and an idle app draws nothing.

use std::time::Duration;

use crossterm::event::Event as TermEvent;
use futures_util::{Stream, StreamExt};
use ratatui::Terminal;
use ratatui::backend::Backend;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::agent::protocol::{AgentCommand, AgentEvent, Notice, NoticeLevel};
use crate::i18n::Arg;
use crate::secret::ApiKey;

use super::app::App;
use super::panic::TaskPanic;

/// Minimum time between two frames (60 per second).
pub const FRAME: Duration = Duration::from_micros(16_667);
/// How long to wait for `Exited` after `Shutdown`.
pub const EXIT_WAIT: Duration = Duration::from_secs(2);
/// While a turn runs, the status clock and spinner redraw this often.
pub const BUSY_TICK: Duration = Duration::from_millis(250);
/// How long the loop sleeps when nothing is pending (it wakes on any input anyway).
const IDLE: Duration = Duration::from_secs(3600);

/// Coalesces redraw requests into at most one frame per [`FRAME`].
#[derive(Debug, Clone, Copy, Default)]
pub struct FrameLimiter {
    last: Option<std::time::Instant>,
    dirty: bool,
}

impl FrameLimiter {
    /// Asks for a frame.
    pub fn request(&mut self) {
        self.dirty = true;
    }

    /// Whether a frame should be drawn now.
    pub fn due(&self, now: std::time::Instant) -> bool {
        self.dirty
            && self
                .last
                .is_none_or(|t| now.saturating_duration_since(t) >= FRAME)
    }

    /// Records a drawn frame.
    pub fn drawn(&mut self, now: std::time::Instant) {
        self.last = Some(now);
        self.dirty = false;
    }

    /// How long to sleep before the pending frame is due (`None` when nothing is pending).
    pub fn wait(&self, now: std::time::Instant) -> Option<Duration> {
        self.dirty.then(|| match self.last {
            Some(t) => FRAME.saturating_sub(now.saturating_duration_since(t)),
            None => Duration::ZERO,
        })
    }
}

/// How the loop ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UiExit {
    /// The user quit (or the agent finished after a quit request).
    Quit,
    /// The agent task panicked; the message (API key scrubbed) is shown on exit.
    AgentDied(String),
}

/// What a finished loop reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopEnd {
    /// Why it ended.
    pub exit: UiExit,
    /// Frames drawn.
    pub frames: u64,
}

/// The loop's inputs and outputs besides the terminal.
pub struct LoopIo<S> {
    /// Terminal events (crossterm's `EventStream` in the binary).
    pub input: S,
    /// Events from the agent loop.
    pub events: UnboundedReceiver<AgentEvent>,
    /// The agent task, watched for a panic. `None` when there is none to watch.
    pub agent: Option<JoinHandle<()>>,
    /// Commands to the agent loop.
    pub commands: UnboundedSender<AgentCommand>,
    /// Panics on other threads (see [`super::panic`]).
    pub panics: UnboundedReceiver<TaskPanic>,
    /// Scrubbed from every panic message shown.
    pub secret: Option<ApiKey>,
    /// Leave right after the first frame (start-up benchmark hook).
    pub exit_after_first_frame: bool,
}

fn now() -> std::time::Instant {
    Instant::now().into_std()
}

fn scrub(secret: &Option<ApiKey>, s: &str) -> String {
    match secret {
        Some(k) => k.scrub(s),
        None => s.to_string(),
    }
}

fn panic_message(e: tokio::task::JoinError) -> String {
    match e.try_into_panic() {
        Ok(p) => {
            if let Some(s) = p.downcast_ref::<&str>() {
                (*s).to_string()
            } else if let Some(s) = p.downcast_ref::<String>() {
                s.clone()
            } else {
                "panic".to_string()
            }
        }
        Err(e) => e.to_string(),
    }
}

enum Wake {
    Term(Option<std::io::Result<TermEvent>>),
    Agent(Option<AgentEvent>),
    AgentDone(Result<(), tokio::task::JoinError>),
    Panic(TaskPanic),
    Timer,
}

/// Runs `app` on `term` until the user quits, the input ends, or the agent dies.
pub async fn drive<B, S>(
    app: &mut App,
    term: &mut Terminal<B>,
    mut io: LoopIo<S>,
) -> anyhow::Result<LoopEnd>
where
    B: Backend,
    B::Error: Send + Sync + 'static,
    S: Stream<Item = std::io::Result<TermEvent>> + Unpin,
{
    let mut frames = FrameLimiter::default();
    frames.request();
    let mut drawn = 0u64;
    let mut quit_deadline: Option<std::time::Instant> = None;
    let mut agent_gone = false;
    let mut input_open = true;
    let mut died: Option<String> = None;
    let mut next_tick = now() + BUSY_TICK;
    loop {
        let t = now();
        if frames.due(t) {
            app.set_now(t);
            term.draw(|f| app.render(f))?;
            frames.drawn(now());
            drawn += 1;
            if io.exit_after_first_frame {
                break;
            }
        }
        if let Some(d) = quit_deadline
            && (now() >= d || app.agent_exited() || agent_gone)
        {
            break;
        }
        if agent_gone && app.should_quit() {
            break;
        }
        // Sleep until the pending frame, the busy tick, or the quit deadline.
        let t = now();
        let mut wait = frames.wait(t).unwrap_or(IDLE);
        if app.busy() {
            wait = wait.min(next_tick.saturating_duration_since(t));
        }
        if let Some(d) = quit_deadline {
            wait = wait.min(d.saturating_duration_since(t));
        }
        let sleep = tokio::time::sleep(wait);
        let agent_watch = async {
            match io.agent.as_mut() {
                Some(h) => h.await,
                None => std::future::pending().await,
            }
        };
        let wake = tokio::select! {
            ev = io.input.next(), if input_open => Wake::Term(ev),
            ev = io.events.recv(), if !agent_gone => Wake::Agent(ev),
            r = agent_watch => Wake::AgentDone(r),
            Some(p) = io.panics.recv() => Wake::Panic(p),
            _ = sleep => Wake::Timer,
        };
        let t = now();
        app.set_now(t);
        match wake {
            Wake::Timer => {
                if app.busy() && t >= next_tick {
                    next_tick = t + BUSY_TICK;
                    frames.request();
                }
                continue;
            }
            // After the agent died, the notice stays up until a key (or the input's end).
            Wake::Term(None) | Wake::Term(Some(Ok(TermEvent::Key(_)))) if died.is_some() => {
                return Ok(LoopEnd {
                    exit: UiExit::AgentDied(died.unwrap_or_default()),
                    frames: drawn,
                });
            }
            Wake::Term(None) => input_open = false,
            Wake::Term(Some(Err(e))) => return Err(e.into()),
            Wake::Term(Some(Ok(ev))) => match ev {
                TermEvent::Key(k) => app.on_key(k),
                TermEvent::Paste(s) => app.on_paste(&s),
                TermEvent::Mouse(m) => app.on_mouse(m),
                _ => {}
            },
            Wake::Agent(Some(ev)) => {
                app.on_agent_event(ev);
                // Drain what is already queued so a burst of deltas costs one frame.
                while let Ok(ev) = io.events.try_recv() {
                    app.on_agent_event(ev);
                }
            }
            Wake::Agent(None) => agent_gone = true,
            Wake::AgentDone(r) => {
                io.agent = None;
                if let Err(e) = r
                    && e.is_panic()
                {
                    let msg = scrub(&io.secret, &panic_message(e));
                    app.on_agent_event(AgentEvent::Notice(Notice::new(
                        NoticeLevel::Error,
                        "tui-agent-died",
                        vec![("message", Arg::from(msg.clone()))],
                    )));
                    died = Some(msg);
                }
            }
            Wake::Panic(p) => {
                let msg = scrub(&io.secret, &p.message);
                app.on_agent_event(AgentEvent::Notice(Notice::new(
                    NoticeLevel::Error,
                    "tui-task-panicked",
                    vec![
                        ("message", Arg::from(msg)),
                        ("location", Arg::from(p.location)),
                    ],
                )));
            }
        }
        frames.request();
        for cmd in app.take_commands() {
            // A closed agent channel means the loop is gone; quitting still works.
            let _ = io.commands.send(cmd);
        }
        if app.should_quit() && quit_deadline.is_none() {
            quit_deadline = Some(now() + EXIT_WAIT);
        }
        if !input_open && quit_deadline.is_none() && died.is_none() {
            // No more keys: nothing can ever quit; leave.
            break;
        }
    }
    Ok(LoopEnd {
        exit: UiExit::Quit,
        frames: drawn,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn redraws_are_coalesced_and_capped_at_60_per_second() {
        let t0 = Instant::now();
        let mut f = FrameLimiter::default();
        assert!(!f.due(t0));
        assert_eq!(f.wait(t0), None);
        f.request();
        assert!(f.due(t0));
        f.drawn(t0);
        // A burst of requests right after a frame waits for the next 16.7 ms slot: one frame.
        for _ in 0..100 {
            f.request();
        }
        let soon = t0 + Duration::from_millis(5);
        assert!(!f.due(soon));
        assert_eq!(f.wait(soon), Some(FRAME - Duration::from_millis(5)));
        assert!(f.due(t0 + FRAME));
        f.drawn(t0 + FRAME);
        assert!(!f.due(t0 + FRAME * 3));
    }
}
