//! Terminal lifecycle: raw mode, alternate screen, bracketed paste, mouse capture and focus
//! reports, restored on exit and on a panic of the UI task (see `panic.rs`); the loop itself
//! is `event_loop.rs`, fed by crossterm's async `EventStream`. Redraws are coalesced and
//! capped at 60 per second by [`FrameLimiter`]. Beside them, what else touches the terminal:
//! `osc.rs` (OSC 52 / OSC 9), `hyperlink.rs` (OSC 8 links) and `editor.rs` (Ctrl+G's
//! external editor).

pub mod editor;
pub mod event_loop;
pub mod hyperlink;
pub mod osc;
pub mod panic;

use std::io::{self, Write};

use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste,
    EnableFocusChange, EnableMouseCapture, EventStream, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::execute;
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use crate::agent::protocol::{AgentCommand, AgentEvent};
use crate::i18n::Locale;
use crate::secret::ApiKey;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::task::JoinHandle;

use crate::ui::app::App;
use crate::ui::app_event::TermRequest;
use event_loop::{LoopExit, LoopIo, Screen, Shutdown, drive};
use panic::{Registration, TaskPanic, UI_TASK, named, register};

pub use event_loop::{FRAME, FrameLimiter};

/// Options the binary passes to [`run`].
#[derive(Debug, Clone, Default)]
pub struct UiOptions {
    /// Initial interface locale.
    pub locale: Locale,
    /// Demo mode (built-in simulator): shows a banner.
    pub demo: bool,
    /// API keys to scrub from panic notices.
    pub secrets: Vec<ApiKey>,
    /// `[ui] notify`: an OSC 9 notification when a turn ends while unfocused.
    pub notify: bool,
    /// Arguments the resume hint repeats (`--session-dir`, `--config`), unquoted.
    pub resume_args: Vec<String>,
    /// The guided demo's copy of the sample project, named in the banner (SPEC §15.4).
    pub demo_dir: Option<String>,
    /// `deepterm "PROMPT"`: sent as the first message, as if typed (SPEC §15.4).
    pub prompt: Option<String>,
}

/// Why [`run`] failed.
#[derive(Debug, thiserror::Error)]
pub enum UiError {
    /// Terminal I/O failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The agent task panicked; the UI showed the notice and left.
    #[error("internal error in {}: {}", .0.task, .0.message)]
    AgentDied(TaskPanic),
}

/// DECSET 1007, alternate scroll: in the alternate screen the terminal turns wheel
/// events into ↑/↓ keys while the mouse is not captured, so the wheel scrolls the focused
/// pane and native selection keeps working (§14.5).
pub const ALTERNATE_SCROLL_ON: &str = "\x1b[?1007h";
/// DECRST 1007: the terminal's own wheel behaviour again.
pub const ALTERNATE_SCROLL_OFF: &str = "\x1b[?1007l";

/// Writes what entering the TUI needs: the alternate screen, bracketed paste, alternate
/// scroll and focus reports, and mouse capture only when `mouse_capture` is on (by default
/// it is off, so the terminal's own selection works; F3 turns it on).
pub fn write_enter(out: &mut impl Write, mouse_capture: bool) -> io::Result<()> {
    execute!(out, EnterAlternateScreen, EnableBracketedPaste)?;
    out.write_all(ALTERNATE_SCROLL_ON.as_bytes())?;
    if mouse_capture {
        execute!(out, EnableMouseCapture)?;
    }
    execute!(out, EnableFocusChange)
}

/// Writes what leaving the TUI needs (exit, panic, Ctrl+G's suspend): everything
/// [`write_enter`] and F3 turned on is turned off, whatever its state.
pub fn write_leave(out: &mut impl Write) -> io::Result<()> {
    execute!(out, PopKeyboardEnhancementFlags, DisableMouseCapture)?;
    out.write_all(ALTERNATE_SCROLL_OFF.as_bytes())?;
    execute!(
        out,
        DisableBracketedPaste,
        DisableFocusChange,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    )?;
    out.flush()
}

/// Leaves raw mode and the alternate screen and shows the cursor (idempotent).
pub fn restore_terminal() {
    let mut out = io::stdout();
    let _ = write_leave(&mut out);
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

struct TermScreen(Terminal<CrosstermBackend<io::Stdout>>, bool);

impl Screen for TermScreen {
    fn draw(&mut self, app: &mut App) -> io::Result<()> {
        self.0.draw(|f| app.render(f)).map(|_| ())
    }

    /// Ctrl+G: the editor gets a normal terminal, then the TUI returns.
    fn suspended(&mut self, f: &mut dyn FnMut()) -> io::Result<()> {
        let keyboard = self.1;
        restore_terminal();
        f();
        terminal::enable_raw_mode()?;
        let out = self.0.backend_mut();
        // Capture stays off here; `run_editor` re-applies F3's choice.
        write_enter(out, false)?;
        if keyboard {
            let _ = execute!(
                out,
                PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
            );
        }
        // Everything is drawn anew: a cleared screen and a blank previous frame (ratatui's
        // `clear` would ask the terminal for the cursor position, which is not needed here).
        execute!(
            self.0.backend_mut(),
            terminal::Clear(terminal::ClearType::All)
        )?;
        self.0.swap_buffers();
        Ok(())
    }

    fn apply(&mut self, request: TermRequest) -> io::Result<()> {
        let out = self.0.backend_mut();
        match request {
            TermRequest::Escape(seq) => {
                out.write_all(seq.as_bytes())?;
                out.flush()
            }
            TermRequest::MouseCapture(on) => set_mouse_capture(out, on),
        }
    }
}

/// Turns mouse capture on or off (F3; re-applied after a suspend with
/// [`App::mouse_capture`]). [`restore_terminal`] always turns it off on exit. Alternate
/// scroll stays on underneath: with capture on the terminal reports the wheel instead.
pub fn set_mouse_capture(out: &mut impl Write, on: bool) -> io::Result<()> {
    if on {
        execute!(out, EnableMouseCapture)
    } else {
        execute!(out, DisableMouseCapture)
    }
}

/// SIGTERM, SIGHUP, SIGINT and SIGQUIT from outside (`kill`, a supervisor, `timeout -s
/// INT`) all end the TUI the same clean way: the agent is told to shut down (which kills
/// running tools' process groups) and the terminal is restored. In raw mode Ctrl+C and
/// Ctrl+\ arrive as keys, so a SIGINT or SIGQUIT is always someone else's request to stop;
/// left to their default actions they would kill the process with the terminal still in
/// raw mode and the alternate screen, and the tools' process groups orphaned.
#[cfg(unix)]
fn shutdown_signal() -> Option<Shutdown> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).ok()?;
    let mut hup = signal(SignalKind::hangup()).ok()?;
    let mut int = signal(SignalKind::interrupt()).ok()?;
    let mut quit = signal(SignalKind::quit()).ok()?;
    Some(Box::pin(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = hup.recv() => {}
            _ = int.recv() => {}
            _ = quit.recv() => {}
        }
    }))
}

#[cfg(not(unix))]
fn shutdown_signal() -> Option<Shutdown> {
    None
}

/// Runs the UI as the calling task until the user quits; call it inside a tokio runtime
/// (the binary uses `block_on`, so the UI stays on the main thread while the agent, tools
/// and MCP servers run on the workers).
///
/// `agent` is the agent loop's task (spawned with [`panic::named`]`("agent", …)`):
/// if it panics the UI shows the notice and returns [`UiError::AgentDied`] after restoring
/// the terminal. F2 toggles the locale locally and sends `SetLocale(locale)`.
pub async fn run(
    opts: UiOptions,
    commands: UnboundedSender<AgentCommand>,
    events: UnboundedReceiver<AgentEvent>,
    agent: Option<JoinHandle<()>>,
) -> Result<(), UiError> {
    named(UI_TASK, run_ui(opts, commands, events, agent)).await
}

async fn run_ui(
    opts: UiOptions,
    commands: UnboundedSender<AgentCommand>,
    events: UnboundedReceiver<AgentEvent>,
    agent: Option<JoinHandle<()>>,
) -> Result<(), UiError> {
    let (panic_tx, panics) = tokio::sync::mpsc::unbounded_channel();
    let _hook = register(Registration {
        restore: restore_terminal,
        reports: panic_tx,
        secrets: opts.secrets.clone(),
    });
    terminal::enable_raw_mode()?;
    let guard = TerminalGuard;
    let mut app = App::new(opts.locale, opts.demo);
    let mut out = io::stdout();
    write_enter(&mut out, app.mouse_capture())?;
    let keyboard = terminal::supports_keyboard_enhancement().unwrap_or(false);
    if keyboard {
        let _ = execute!(
            out,
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        );
    }
    let mut term = Terminal::new(CrosstermBackend::new(out))?;
    term.clear()?;
    let mut screen = TermScreen(term, keyboard);
    app.set_notify(opts.notify);
    app.set_resume_args(opts.resume_args.clone());
    app.set_demo_dir(opts.demo_dir.clone());
    if let Some(p) = &opts.prompt {
        app.send_first(p);
    }
    // The `@` popup's files, walked once in the background.
    app.set_mention_files(crate::ui::mention::FileIndex::spawn(
        crate::tools::walk::current_root(),
    ));
    let io = LoopIo {
        term: EventStream::new(),
        agent_events: events,
        commands,
        agent,
        panics,
        shutdown: shutdown_signal(),
        // Start-up benchmark hook (docs/benchmarks.md): leave right after the first frame.
        exit_after_first_frame: std::env::var_os("DEEPTERM_EXIT_AFTER_FIRST_FRAME").is_some(),
        reopen: Some(EventStream::new),
        secrets: opts
            .secrets
            .iter()
            .map(|k| k.expose().to_string())
            .collect(),
    };
    let exit = drive(&mut app, io, &mut screen).await?;
    drop(screen);
    drop(guard);
    // On the normal screen, after the alternate one is gone.
    if matches!(exit, LoopExit::Quit)
        && let Some(hint) = app.resume_hint()
    {
        println!("{hint}");
    }
    match exit {
        LoopExit::Quit => Ok(()),
        LoopExit::AgentDied(p) => Err(UiError::AgentDied(p)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// Any of the mouse-reporting modes crossterm's capture turns on (1000, 1002, 1003, 1006).
    fn requests_mouse_reports(bytes: &str) -> bool {
        ["\x1b[?1000h", "\x1b[?1002h", "\x1b[?1003h", "\x1b[?1006h"]
            .iter()
            .any(|m| bytes.contains(m))
    }

    fn written(f: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> String {
        let mut out = Vec::new();
        f(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn entering_by_default_leaves_the_mouse_to_the_terminal_and_turns_alternate_scroll_on() {
        let capture = App::new(Locale::EnUs, false).mouse_capture();
        let enter = written(|o| write_enter(o, capture));
        assert!(!requests_mouse_reports(&enter), "{enter:?}");
        assert!(enter.contains(ALTERNATE_SCROLL_ON), "{enter:?}");
        assert!(enter.contains("\x1b[?1049h"), "alternate screen: {enter:?}");
        assert!(enter.contains("\x1b[?2004h"), "bracketed paste: {enter:?}");
    }

    #[test]
    fn entering_with_capture_requests_mouse_reports() {
        let enter = written(|o| write_enter(o, true));
        assert!(requests_mouse_reports(&enter), "{enter:?}");
        assert!(enter.contains(ALTERNATE_SCROLL_ON), "{enter:?}");
    }

    #[test]
    fn leaving_turns_off_capture_and_alternate_scroll() {
        let leave = written(write_leave);
        assert!(leave.contains(ALTERNATE_SCROLL_OFF), "{leave:?}");
        for off in ["\x1b[?1000l", "\x1b[?1002l", "\x1b[?1003l", "\x1b[?1006l"] {
            assert!(leave.contains(off), "{off:?} missing in {leave:?}");
        }
        assert!(leave.contains("\x1b[?1049l"), "alternate screen: {leave:?}");
        assert!(!leave.contains(ALTERNATE_SCROLL_ON), "{leave:?}");
    }

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
