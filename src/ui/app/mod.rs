//! The application shell: owns the panes (Chat, Trajectory, bottom pane), the overlay
//! stack and the read-only [`Model`] they render from; folds AgentEvents into them
//! (`agent_events.rs`), routes keys through the keymap table to the component of the
//! resolved context (`keys.rs`), handles the [`AppEvent`]s the components push
//! ([`App::handle`]), sends what only the event loop can carry out on its one channel
//! (`ui::app_event`), and lays the screen out with one ratatui `Layout` (`render.rs`).
//! The terminal event loop lives in `ui/terminal/event_loop.rs`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use ratatui::layout::Rect;

use crate::agent::protocol::{AgentCommand, Notice, NoticeLevel};
use crate::i18n::{Arg, Locale};
use crate::ui::app_event::{self, AppEvent, AppEventReceiver, AppEventSender, TermRequest};
use crate::ui::bottom::BottomPane;
use crate::ui::bottom::composer::Composer;
use crate::ui::chat::{CellKind, ChatPane, Transcript};
use crate::ui::history::HistoryBatch;
use crate::ui::model::Model;
use crate::ui::overlays::{HelpOverlay, Overlay, OverlayStack};
use crate::ui::terminal::osc;
use crate::ui::trajectory::{Trajectory, TrajectoryPane};

pub use crate::ui::model::Focus;

/// Width from which Chat and Trajectory show side by side.
pub const SPLIT_WIDTH: u16 = 100;
/// Window for the second Ctrl+C.
const QUIT_WINDOW: Duration = Duration::from_secs(3);
/// Window for the second Esc of Esc Esc (the rewind picker).
const REWIND_WINDOW: Duration = Duration::from_secs(2);
/// How long a transient status-line hint (`/copy`'s answer) stays.
const HINT_WINDOW: Duration = Duration::from_secs(4);

/// The whole UI: the components, each owning its state, and the model they read.
pub struct App {
    model: Model,
    chat: ChatPane,
    traj: TrajectoryPane,
    bottom: BottomPane,
    overlays: OverlayStack,
    quit_armed: Option<Instant>,
    /// A first Esc on an empty, idle composer: a second one opens the rewind picker.
    rewind_armed: Option<Instant>,
    exited: bool,
    /// The open session's id (the exit hint names it).
    session_id: Option<String>,
    /// See [`App::set_resume_args`].
    resume_args: Vec<String>,
    /// Whether the open session holds a message: nothing to resume otherwise (and `main`
    /// removes such a log on exit).
    session_has_messages: bool,
    /// The reading of all sessions' messages under way, off the UI thread; its batches
    /// arrive on the channel.
    history: Option<HistoryReading>,
    /// The number of the last history reading started.
    readings: u64,
    /// The newest `/resume` listing shown (its picker was opened by its first batch);
    /// batches of older listings are dropped.
    resume_listing: Option<u64>,
    /// URLs notices named (their `url` argument), drawn as OSC 8 links (`ui::terminal::hyperlink`).
    links: Vec<String>,
    /// whether the mouse is captured (wheel scrolls) or free (native selection).
    mouse_capture: bool,
    /// whether the terminal has focus (focus events; assumed until told).
    focused: bool,
    /// `[ui] notify`: OSC 9 at turn end while unfocused.
    notify: bool,
    /// a transient status-line hint (warns when true) and when it was set.
    hint: Option<(String, bool, Instant)>,
    /// The running turn's prompts and whether any reply arrived: a turn cancelled
    /// before one gives its prompt back to the composer (§14.5).
    prompts: crate::ui::cancelled_prompt::PromptWatch,
    /// The pane shown below the split width.
    narrow_pane: Focus,
    /// Shift+Tab asked to switch to full-access: the next key confirms (`y`) or not.
    confirm_full_access: bool,
    /// The model's plan, pinned, and the question to carry it out (`plan.rs`).
    plan: plan_state::PlanState,
    /// The UI's one way out: what the event loop carries out, in order.
    tx: AppEventSender,
    /// The other end, drained by the event loop (and the history reader's batches).
    events: AppEventReceiver,
    /// Whether the user asked to quit.
    quit: bool,
    /// The screen of the last frame (whether one pane or both show).
    screen: Option<Rect>,
}

/// A history reading under way: its number, and the flag that stops its thread once the
/// reading is replaced or the UI is gone.
#[derive(Debug)]
struct HistoryReading {
    id: u64,
    stop: Arc<AtomicBool>,
}

impl Drop for HistoryReading {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl App {
    /// A fresh UI in `locale`; `demo` shows the simulator banner.
    pub fn new(locale: Locale, demo: bool) -> Self {
        let (tx, events) = app_event::channel();
        App {
            model: Model::new(locale, demo),
            chat: ChatPane::new(),
            traj: TrajectoryPane::default(),
            bottom: BottomPane::new(),
            overlays: OverlayStack::default(),
            quit_armed: None,
            rewind_armed: None,
            exited: false,
            session_id: None,
            resume_args: Vec::new(),
            session_has_messages: false,
            history: None,
            readings: 0,
            resume_listing: None,
            links: Vec::new(),
            // §14.5: the terminal keeps the mouse (native selection); the wheel scrolls
            // through alternate scroll. F3 captures it.
            mouse_capture: false,
            focused: true,
            notify: false,
            hint: None,
            prompts: Default::default(),
            narrow_pane: Focus::Chat,
            confirm_full_access: false,
            plan: Default::default(),
            tx,
            events,
            quit: false,
            screen: None,
        }
    }

    /// Whether the last frame showed one pane (narrower than the split width).
    fn one_pane(&self) -> bool {
        self.screen.is_some_and(|r| r.width < SPLIT_WIDTH)
    }

    /// Brings Chat into view in one-pane mode: something the user must see or answer
    /// arrived. `cell` is scrolled into view on the next frame, else Chat follows the tail
    /// if it was hidden. With both panes shown, focus and the pane stay as they are.
    fn show_chat(&mut self, cell: Option<usize>) {
        let one = self.one_pane();
        let hidden = one && self.narrow_pane == Focus::Trajectory;
        self.narrow_pane = Focus::Chat;
        if one && self.model.focus == Focus::Trajectory {
            self.model.focus = Focus::Chat;
        }
        match cell {
            Some(i) => self.chat.reveal(i),
            None if hidden => self.chat.follow(),
            None => {}
        }
    }

    /// Sends a command to the agent (through the event loop).
    fn send(&self, cmd: AgentCommand) {
        // Nobody receives only once the App is being dropped.
        self.tx.send(AppEvent::Agent(cmd));
    }

    /// Asks the agent to shut down and the UI to quit.
    fn request_quit(&mut self) {
        self.quit = true;
        self.send(AgentCommand::Shutdown);
        self.tx.send(AppEvent::Quit);
    }

    /// Handles what the components asked for, in order.
    fn route(&mut self, events: Vec<AppEvent>) {
        for e in events {
            self.handle(e);
        }
    }

    /// Handles one request: what `App` does itself it does now; what only the event loop
    /// can carry out ([`AppEvent::for_loop`]) goes out on the channel, after `App`'s part
    /// (`/mode full-access` waits for `y`; quitting sends `Shutdown` first).
    pub fn handle(&mut self, e: AppEvent) {
        match e {
            // `/mode full-access` leaves the sandbox only after `y` (SPEC §15.3).
            AppEvent::Agent(AgentCommand::Run(crate::agent::command_spec::Command::Mode {
                mode: Some(crate::sandbox::AgentMode::FullAccess),
            })) if !self
                .model
                .sandbox
                .is_some_and(|s| s.mode == crate::sandbox::SandboxMode::FullAccess) =>
            {
                self.confirm_full_access = true;
            }
            AppEvent::Agent(cmd) => self.send(cmd),
            AppEvent::Quit => self.request_quit(),
            AppEvent::OpenHelp => {
                let custom = self.bottom.composer().custom_commands().to_vec();
                let help = HelpOverlay::new(self.mouse_capture, custom);
                self.overlays.push(Overlay::Help(help));
            }
            AppEvent::Copy { n } => self.copy(n),
            AppEvent::CopyText(text) => {
                self.terminal(TermRequest::Escape(osc::osc52(&text)));
            }
            AppEvent::Answer {
                call_id,
                decision,
                reason,
            } => {
                self.chat.transcript_mut().decide(&call_id, decision);
                self.send(match reason {
                    Some(reason) => AgentCommand::DenyWithReason { call_id, reason },
                    None => AgentCommand::Approve { call_id, decision },
                });
            }
            AppEvent::Notice(n) => {
                self.chat.transcript_mut().push(CellKind::Notice(n));
            }
            AppEvent::ShowChat => self.show_chat(None),
            AppEvent::ChatFollow => self.chat.follow(),
            AppEvent::ChatTop => self.chat.to_top(),
            AppEvent::Focus(f) => self.model.focus = f,
            AppEvent::History { reading, batch } => self.on_history(reading, batch),
            e @ (AppEvent::Terminal(_) | AppEvent::Editor(_)) => {
                self.tx.send(e);
            }
        }
    }

    /// Writes `r` to the terminal (through the event loop).
    fn terminal(&self, r: TermRequest) {
        self.tx.send(AppEvent::Terminal(r));
    }

    /// Ctrl+G: the event loop suspends the terminal, runs the editor on the draft and
    /// calls [`App::editor_finished`].
    fn request_editor(&mut self) {
        self.model.focus = Focus::Composer;
        self.tx
            .send(AppEvent::Editor(self.bottom.composer().expanded_text()));
    }

    /// The next request for the event loop, waiting for one (a history batch arrives from
    /// its thread). Never ends: the App holds a sender itself.
    pub async fn next_event(&mut self) -> Option<AppEvent> {
        self.events.recv().await
    }

    /// The next request for the event loop, if one is waiting.
    pub fn try_next_event(&mut self) -> Option<AppEvent> {
        self.events.try_recv().ok()
    }

    /// What the event loop would be handed since the last call, in order, once what `App`
    /// handles itself (a history batch) is handled as the loop hands it back (tests).
    #[cfg(any(test, feature = "testing"))]
    pub fn take_events(&mut self) -> Vec<AppEvent> {
        let mut out = Vec::new();
        while let Some(ev) = self.try_next_event() {
            if ev.for_loop() {
                out.push(ev);
            } else {
                self.handle(ev);
            }
        }
        out
    }

    /// The agent commands among [`App::take_events`] (tests).
    #[cfg(any(test, feature = "testing"))]
    pub fn take_commands(&mut self) -> Vec<AgentCommand> {
        let events = self.take_events();
        events
            .into_iter()
            .filter_map(|e| match e {
                AppEvent::Agent(c) => Some(c),
                _ => None,
            })
            .collect()
    }

    /// The terminal requests among [`App::take_events`] (tests).
    #[cfg(any(test, feature = "testing"))]
    pub fn take_term_requests(&mut self) -> Vec<TermRequest> {
        let events = self.take_events();
        events
            .into_iter()
            .filter_map(|e| match e {
                AppEvent::Terminal(r) => Some(r),
                _ => None,
            })
            .collect()
    }

    /// The editor's result: its text replaces the draft; a failure is a notice and the
    /// draft stays.
    pub fn editor_finished(&mut self, r: Result<String, crate::ui::terminal::editor::EditorError>) {
        use crate::ui::terminal::editor::EditorError;
        let notice = |key: &'static str, args: Vec<(&'static str, Arg)>| {
            CellKind::Notice(Notice::new(NoticeLevel::Error, key, args))
        };
        let cell = match r {
            Ok(text) => {
                // A pasted message edited in the editor is still a message.
                let literal = self.bottom.composer().is_literal();
                self.bottom.composer_mut().set_text(&text);
                if literal {
                    self.bottom.composer_mut().mark_literal();
                }
                self.model.focus = Focus::Composer;
                return;
            }
            Err(EditorError::Spawn(cmd, e)) => notice(
                "tui-editor-spawn-failed",
                vec![("command", cmd.into()), ("error", e.into())],
            ),
            Err(EditorError::Failed(cmd, st)) => notice(
                "tui-editor-failed",
                vec![("command", cmd.into()), ("status", st.into())],
            ),
            Err(EditorError::File(e)) => {
                notice("tui-editor-file-failed", vec![("error", e.into())])
            }
        };
        self.chat.transcript_mut().push(cell);
        self.show_chat(None);
    }

    /// A batch of the cross-session history into the composer (each is older than the
    /// ones before); the model says how far the reading got. A batch of a reading that was
    /// replaced is dropped.
    fn on_history(&mut self, reading: u64, b: HistoryBatch) {
        if self.history.as_ref().is_none_or(|h| h.id != reading) {
            return;
        }
        self.bottom.composer_mut().add_older_history(b.older);
        self.model.history_reading = (!b.done).then_some(b.sessions);
        if b.done {
            self.history = None;
        }
    }

    /// Starts reading the history of the session directory holding `log` in the
    /// background (tests call it with their own directory).
    pub fn start_history(&mut self, log: &std::path::Path) {
        let sink = self.history_sink();
        crate::ui::history::spawn_load(log, sink);
    }

    /// Starts a new history reading (replacing any under way) and returns where its batches
    /// go: onto the UI's channel, until the reading is replaced or the UI is gone (the
    /// reader stops when this returns `false`). Tests feed it to pace the reading.
    pub fn history_sink(&mut self) -> impl FnMut(HistoryBatch) -> bool + Send + 'static {
        self.readings += 1;
        let id = self.readings;
        let stop = Arc::new(AtomicBool::new(false));
        // Replacing the reading under way stops its thread (`HistoryReading::drop`).
        self.history = Some(HistoryReading {
            id,
            stop: stop.clone(),
        });
        self.model.history_reading = Some(0);
        let tx = self.tx.clone();
        move |batch| {
            !stop.load(Ordering::Relaxed) && tx.send(AppEvent::History { reading: id, batch })
        }
    }

    /// Whether the history is still being read (Ctrl+R says so meanwhile).
    pub fn history_reading(&self) -> Option<usize> {
        self.model.history_reading
    }

    /// Loads the messages of every session in `dir`'s sessions now (tests).
    pub fn load_history_now(&mut self, log: &std::path::Path) {
        let dir = log.parent().unwrap_or(log);
        self.bottom
            .composer_mut()
            .add_older_history(crate::ui::history::load(dir));
    }

    /// Turns the turn-end notification (`[ui] notify`) on or off.
    pub fn set_notify(&mut self, on: bool) {
        self.notify = on;
    }

    /// Whether the mouse is captured (the wheel scrolls the panes); F3 toggles it. The
    /// terminal code re-applies this after a suspend.
    pub fn mouse_capture(&self) -> bool {
        self.mouse_capture
    }

    /// The terminal gained (`true`) or lost focus.
    pub fn on_focus(&mut self, focused: bool) {
        self.focused = focused;
    }

    /// The transient status-line hint shown now, if any.
    pub fn hint(&self) -> Option<&str> {
        self.hint_visible().map(|(t, _)| t)
    }

    fn hint_visible(&self) -> Option<(&str, bool)> {
        self.hint
            .as_ref()
            .filter(|(_, _, t)| self.model.now.saturating_duration_since(*t) < HINT_WINDOW)
            .map(|(text, warn, _)| (text.as_str(), *warn))
    }

    fn set_hint(&mut self, text: String, warn: bool) {
        self.hint = Some((text, warn, self.model.now));
    }

    /// `/copy [N]`: the reply on the clipboard through OSC 52, and a transient hint; `None`
    /// (an argument that is not a count) shows the usage.
    fn copy(&mut self, n: Option<usize>) {
        let l = self.model.l;
        let Some(n) = n else {
            let usage = l.tra(
                "cmd-usage",
                &[
                    ("command", Arg::from("/copy")),
                    ("args", Arg::from(l.tr("cmd-copy-args"))),
                ],
            );
            self.set_hint(usage, true);
            return;
        };
        match osc::nth_last_reply(self.chat.transcript(), n) {
            Some(text) => {
                let chars = text.chars().count();
                self.terminal(TermRequest::Escape(osc::osc52(text)));
                let msg = l.tra(
                    "tui-copy-done",
                    &[("n", Arg::from(n)), ("chars", Arg::from(chars))],
                );
                self.set_hint(msg, false);
            }
            None => {
                let msg = if n == 1 {
                    l.tr("tui-copy-nothing")
                } else {
                    l.tra("tui-copy-no-such", &[("n", Arg::from(n))])
                };
                self.set_hint(msg, true);
            }
        }
    }

    /// A turn ended: notify through OSC 9 when enabled and the terminal is unfocused.
    fn turn_finished(&mut self) {
        if !self.notify || self.focused {
            return;
        }
        let l = self.model.l;
        let text = match osc::nth_last_reply(self.chat.transcript(), 1) {
            Some(reply) => l.tra(
                "tui-notify-turn-finished-reply",
                &[("reply", Arg::from(osc::first_words(reply)))],
            ),
            None => l.tr("tui-notify-turn-finished"),
        };
        self.terminal(TermRequest::Escape(osc::osc9(&text)));
    }

    /// The line the normal screen shows after the TUI closes, in the current language:
    /// `Resume with: deepterm --resume <id>` and the arguments it needs; `None` before a
    /// session opened, or when the open one has no message.
    pub fn resume_hint(&self) -> Option<String> {
        let id = self.session_id.as_deref()?;
        if !self.session_has_messages {
            return None;
        }
        Some(self.model.l.tra(
            "tui-resume-hint",
            &[("command", resume_command(id, &self.resume_args).into())],
        ))
    }

    /// The arguments the resume hint repeats so that it works as printed: a session in
    /// another `--session-dir`, or a route from another `--config`, is found only with them.
    pub fn set_resume_args(&mut self, args: Vec<String>) {
        self.resume_args = args;
    }

    /// Sets the clock used for elapsed times (the event loop calls this before drawing).
    pub fn set_now(&mut self, now: Instant) {
        self.model.now = now;
    }

    /// The current locale.
    pub fn locale(&self) -> Locale {
        self.model.l.locale
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
        self.model.busy()
    }

    /// Whether the screen changes with time alone (a running turn's clock, or the quit hint
    /// that disappears when its window closes), so the loop keeps a tick.
    pub fn animating(&self) -> bool {
        self.busy()
            || self.quit_hint_visible()
            || self.rewind_armed()
            || self.hint_visible().is_some()
            || self.mention_files_pending()
    }

    /// Whether an `@` is typed while the workspace walk still runs: keep ticking so the
    /// popup appears when the files arrive.
    fn mention_files_pending(&self) -> bool {
        let c = self.bottom.composer();
        c.files_loading() && c.text().contains('@')
    }

    /// Gives the composer's `@` popup its workspace files.
    pub fn set_mention_files(&mut self, files: crate::ui::mention::FileIndex) {
        self.bottom.composer_mut().set_files(files);
    }

    /// Whether the first Ctrl+C armed quitting and the second can still quit.
    fn quit_hint_visible(&self) -> bool {
        self.quit_armed
            .is_some_and(|t| self.model.now.saturating_duration_since(t) < QUIT_WINDOW)
    }

    /// The composer (tests).
    pub fn composer(&self) -> &Composer {
        self.bottom.composer()
    }

    /// The Chat transcript (tests, benches).
    pub fn transcript(&self) -> &Transcript {
        self.chat.transcript()
    }

    /// The Trajectory rows (tests).
    pub fn trajectory(&self) -> &Trajectory {
        self.traj.trajectory()
    }

    /// The focused part.
    pub fn focus(&self) -> Focus {
        self.model.focus
    }

    /// The selected Chat cell.
    pub fn selected(&self) -> Option<usize> {
        self.chat.selected()
    }

    /// The selected Trajectory row.
    pub fn trajectory_selected(&self) -> Option<usize> {
        self.traj.selected()
    }

    /// The open request inspector.
    pub fn inspector(&self) -> Option<&crate::ui::inspector::Inspector> {
        self.overlays.inspector()
    }

    /// The open `/resume` picker.
    pub fn resume_picker(&self) -> Option<&crate::ui::overlays::ResumePicker> {
        self.overlays.resume_picker()
    }

    /// Whether the key help is open.
    pub fn help_open(&self) -> bool {
        self.overlays.help_open()
    }

    /// The open `/diff` overlay.
    pub fn diff_overlay(&self) -> Option<&crate::ui::overlays::DiffOverlay> {
        self.overlays.diff()
    }

    /// The open rewind picker.
    pub fn rewind_picker(&self) -> Option<&crate::ui::overlays::RewindPicker> {
        self.overlays.rewind_picker()
    }
}

/// `deepterm --resume ID` and `args`, each shell-quoted (a path with a space or a quote
/// pastes back as one argument). Printed on the normal screen, so the result is also
/// escaped: the id is a file name from the session directory, the paths are the user's.
pub fn resume_command(id: &str, args: &[String]) -> String {
    let mut cmd = String::from("deepterm --resume");
    for a in std::iter::once(id).chain(args.iter().map(String::as_str)) {
        cmd.push(' ');
        // A NUL cannot be quoted (nor be in a path); escaped below like any control.
        cmd.push_str(&shlex::try_quote(a).unwrap_or(std::borrow::Cow::Borrowed(a)));
    }
    crate::ui::text::sanitize(&cmd)
}

mod agent_events;
mod keys;
mod plan;
mod plan_state;
#[cfg(test)]
mod plan_tests;
mod render;

/// What the unit tests below share through `use super::*`.
#[cfg(test)]
use {
    crate::agent::protocol::{AgentEvent, TurnPhase},
    crate::i18n::Localizer,
    crate::session::event::{EventKind, McpState},
    crate::ui::keymap::Action,
    crate::ui::text::str_width,
    crossterm::event::{KeyEvent, MouseButton, MouseEvent, MouseEventKind},
};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod copy_source_tests;

#[cfg(test)]
mod unknown_usage_tests;

#[cfg(test)]
mod composer_tests;

#[cfg(test)]
mod wheel_tests;

#[cfg(test)]
mod first_screen_tests;

#[cfg(test)]
mod resume_hint_tests;

#[cfg(test)]
mod mode_tests;

#[cfg(test)]
mod deny_reason_tests;

#[cfg(test)]
mod request_viewer_tests;

#[cfg(test)]
mod login_link_tests;

#[cfg(test)]
mod subagent_approval_tests;
