//! Terminal lifecycle and the event loop: raw mode, alternate screen, bracketed paste and
//! mouse capture, restored on exit and on panic; one channel carries keys and agent events;
//! redraws are coalesced and capped at 60 per second.

use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crossterm::event::{
    self, DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    Event as TermEvent, KeyboardEnhancementFlags, PopKeyboardEnhancementFlags,
    PushKeyboardEnhancementFlags,
};
use crossterm::execute;
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use crate::agent::protocol::{AgentCommand, AgentEvent};
use crate::i18n::Locale;

use super::app::App;

/// Minimum time between two frames (60 per second).
pub const FRAME: Duration = Duration::from_micros(16_667);
/// How long to wait for `Exited` after `Shutdown`.
const EXIT_WAIT: Duration = Duration::from_secs(2);

/// Options the binary passes to [`run`].
#[derive(Debug, Clone, Default)]
pub struct UiOptions {
    /// Initial interface locale.
    pub locale: Locale,
    /// Demo mode (built-in simulator): shows a banner.
    pub demo: bool,
}

/// Coalesces redraw requests into at most one frame per [`FRAME`].
#[derive(Debug, Clone, Copy, Default)]
pub struct FrameLimiter {
    last: Option<Instant>,
    dirty: bool,
}

impl FrameLimiter {
    /// Asks for a frame.
    pub fn request(&mut self) {
        self.dirty = true;
    }

    /// Whether a frame should be drawn now.
    pub fn due(&self, now: Instant) -> bool {
        self.dirty
            && self
                .last
                .is_none_or(|t| now.saturating_duration_since(t) >= FRAME)
    }

    /// Records a drawn frame.
    pub fn drawn(&mut self, now: Instant) {
        self.last = Some(now);
        self.dirty = false;
    }

    /// How long to sleep before the pending frame is due (`None` when nothing is pending).
    pub fn wait(&self, now: Instant) -> Option<Duration> {
        self.dirty.then(|| match self.last {
            Some(t) => FRAME.saturating_sub(now.saturating_duration_since(t)),
            None => Duration::ZERO,
        })
    }
}

enum UiEvent {
    Term(TermEvent),
    Agent(AgentEvent),
    AgentGone,
}

fn restore_terminal() {
    let mut out = io::stdout();
    let _ = execute!(
        out,
        PopKeyboardEnhancementFlags,
        DisableMouseCapture,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = terminal::disable_raw_mode();
    let _ = out.flush();
}

/// Restores the terminal when dropped (normal exit and error paths).
struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // Restore first so the panic message lands on a usable screen.
        restore_terminal();
        previous(info);
    }));
}

/// Runs the UI on the calling thread until the user quits.
///
/// `events` is a std receiver: the agent side sends with `std::sync::mpsc::Sender::send`,
/// which works from async code without blocking. F2 toggles the locale locally and sends
/// `SetLocale(locale)` so the loop switches too and persists the choice.
pub fn run(
    opts: UiOptions,
    commands: tokio::sync::mpsc::UnboundedSender<AgentCommand>,
    events: mpsc::Receiver<AgentEvent>,
) -> anyhow::Result<()> {
    install_panic_hook();
    terminal::enable_raw_mode()?;
    let _guard = TerminalGuard;
    let mut out = io::stdout();
    execute!(
        out,
        EnterAlternateScreen,
        EnableBracketedPaste,
        EnableMouseCapture
    )?;
    if terminal::supports_keyboard_enhancement().unwrap_or(false) {
        let _ = execute!(
            out,
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        );
    }
    let mut term = Terminal::new(CrosstermBackend::new(out))?;
    term.clear()?;

    let (tx, rx) = mpsc::channel::<UiEvent>();
    let stop = Arc::new(AtomicBool::new(false));
    {
        let tx = tx.clone();
        std::thread::Builder::new()
            .name("ui-agent-events".into())
            .spawn(move || {
                while let Ok(ev) = events.recv() {
                    if tx.send(UiEvent::Agent(ev)).is_err() {
                        return;
                    }
                }
                let _ = tx.send(UiEvent::AgentGone);
            })?;
    }
    {
        let tx = tx.clone();
        let stop = stop.clone();
        std::thread::Builder::new()
            .name("ui-input".into())
            .spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    match event::poll(Duration::from_millis(50)) {
                        Ok(true) => match event::read() {
                            Ok(ev) => {
                                if tx.send(UiEvent::Term(ev)).is_err() {
                                    return;
                                }
                            }
                            Err(_) => return,
                        },
                        Ok(false) => {}
                        Err(_) => return,
                    }
                }
            })?;
    }
    drop(tx);

    let mut app = App::new(opts.locale, opts.demo);
    let mut frames = FrameLimiter::default();
    frames.request();
    let mut quit_deadline: Option<Instant> = None;
    let mut agent_gone = false;
    // Start-up benchmark hook (docs/benchmarks.md): leave right after the first frame.
    let exit_after_first_frame = std::env::var_os("DEEPTERM_EXIT_AFTER_FIRST_FRAME").is_some();
    loop {
        let now = Instant::now();
        if frames.due(now) {
            app.set_now(now);
            term.draw(|f| app.render(f))?;
            frames.drawn(Instant::now());
            if exit_after_first_frame {
                break;
            }
        }
        if let Some(d) = quit_deadline
            && (Instant::now() >= d || app.agent_exited() || agent_gone)
        {
            break;
        }
        // Wake for the next frame when dirty, for the status clock while busy, else idle.
        let timeout = if let Some(w) = frames.wait(Instant::now()) {
            w
        } else if app.busy() {
            Duration::from_millis(250)
        } else {
            Duration::from_secs(1)
        };
        let first = match rx.recv_timeout(timeout) {
            Ok(ev) => Some(ev),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if app.busy() {
                    frames.request();
                }
                None
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        // Drain everything already queued so a burst of deltas costs one frame.
        for ev in first
            .into_iter()
            .chain(std::iter::from_fn(|| rx.try_recv().ok()))
        {
            app.set_now(Instant::now());
            frames.request();
            match ev {
                UiEvent::Term(TermEvent::Key(k)) => app.on_key(k),
                UiEvent::Term(TermEvent::Paste(s)) => app.on_paste(&s),
                UiEvent::Term(TermEvent::Mouse(m)) => app.on_mouse(m),
                UiEvent::Term(_) => {}
                UiEvent::Agent(ev) => app.on_agent_event(ev),
                UiEvent::AgentGone => agent_gone = true,
            }
            for cmd in app.take_commands() {
                // A closed agent channel means the loop is gone; quitting still works.
                let _ = commands.send(cmd);
            }
            if app.should_quit() && quit_deadline.is_none() {
                quit_deadline = Some(Instant::now() + EXIT_WAIT);
            }
        }
        if agent_gone && quit_deadline.is_none() {
            // Without an agent there is nothing to wait for on quit.
            if app.should_quit() {
                break;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
