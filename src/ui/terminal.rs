//! Terminal lifecycle: raw mode, alternate screen, bracketed paste and mouse capture,
//! restored on exit and on a panic of the UI thread (see [`super::panic`]). The event loop
//! itself is [`super::event_loop::drive`].

use std::io::{self, Write};

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    EventStream, KeyboardEnhancementFlags, PopKeyboardEnhancementFlags,
    PushKeyboardEnhancementFlags,
};
use crossterm::execute;
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::task::JoinHandle;

use crate::agent::protocol::{AgentCommand, AgentEvent};
use crate::i18n::Locale;
use crate::secret::ApiKey;

use super::app::App;
pub use super::event_loop::{FRAME, FrameLimiter, UiExit};
use super::event_loop::{LoopIo, drive};

/// Options the binary passes to [`run`].
#[derive(Debug, Clone, Default)]
pub struct UiOptions {
    /// Initial interface locale.
    pub locale: Locale,
    /// Demo mode (built-in simulator): shows a banner.
    pub demo: bool,
    /// The API key, scrubbed from every panic message the UI shows.
    pub secret: Option<ApiKey>,
}

/// Puts the terminal back: keyboard flags, mouse, paste, main screen, cursor, cooked mode.
pub fn restore_terminal() {
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

/// Runs the UI on the calling task until the user quits or the agent task dies. Call it
/// with `Runtime::block_on` on the thread that owns the terminal: that thread becomes the
/// UI thread of the panic hook. `agent` is the agent task, watched for a panic.
pub async fn run(
    opts: UiOptions,
    commands: UnboundedSender<AgentCommand>,
    events: UnboundedReceiver<AgentEvent>,
    agent: Option<JoinHandle<()>>,
) -> anyhow::Result<UiExit> {
    let (_panic_guard, panics) = super::panic::register(restore_terminal);
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
    let mut app = App::new(opts.locale, opts.demo);
    let io = LoopIo {
        input: EventStream::new(),
        events,
        agent,
        commands,
        panics,
        secret: opts.secret,
        // Start-up benchmark hook (docs/benchmarks.md): leave right after the first frame.
        exit_after_first_frame: std::env::var_os("DEEPTERM_EXIT_AFTER_FIRST_FRAME").is_some(),
    };
    let end = drive(&mut app, &mut term, io).await?;
    Ok(end.exit)
}
