//! The application shell: owns the components (Chat, Trajectory, bottom pane, overlay stack)
//! and the shared [`UiState`], folds AgentEvents into the state, routes keys through the
//! keymap table to the component of the resolved context, and lays the screen out with
//! ratatui `Layout`. The terminal event loop lives in `terminal.rs`.

use std::time::{Duration, Instant};

use crossterm::event::{KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};

use crate::agent::protocol::{AgentCommand, AgentEvent, Notice, NoticeLevel, TurnPhase};
use crate::i18n::{Arg, Locale, Localizer};
use crate::session::event::{EventKind, McpState};

use super::chat::Scroll;
use super::components::{
    BottomPane, ChatPane, Component, HelpOverlay, Overlay, OverlayStack, TrajectoryPane, UiState,
};
use super::composer::Composer;
use super::keymap::{self, Action, Context, ctrl, typed};
use super::osc::{self, TermRequest};
use super::text::{str_width, truncate};
use super::trajectory::Trajectory;
use super::view::{CellKind, Transcript};
use super::{footer, theme};

pub use super::components::Focus;

/// Width from which Chat and Trajectory show side by side.
pub const SPLIT_WIDTH: u16 = 100;
/// Window for the second Ctrl+C.
const QUIT_WINDOW: Duration = Duration::from_secs(3);
/// How long a transient status-line hint (`/copy`'s answer) stays.
const HINT_WINDOW: Duration = Duration::from_secs(4);

/// The whole UI: the components and the state they share.
pub struct App {
    state: UiState,
    chat: ChatPane,
    traj: TrajectoryPane,
    bottom: BottomPane,
    overlays: OverlayStack,
    quit_armed: Option<Instant>,
    exited: bool,
    /// The open session's id (the exit hint names it).
    session_id: Option<String>,
    /// See [`App::set_resume_args`].
    resume_args: Vec<String>,
    /// Whether the open session holds a message: nothing to resume otherwise (and `main`
    /// removes such a log on exit).
    session_has_messages: bool,
    /// The messages of all sessions, loading off the UI thread.
    history_rx: Option<std::sync::mpsc::Receiver<Vec<String>>>,
    /// Ctrl+G was pressed: the loop hands the terminal to the editor.
    editor_requested: bool,
    /// terminal requests (OSC 52 / OSC 9, mouse capture) for the event loop.
    term_out: Vec<TermRequest>,
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
    prompts: super::cancelled_prompt::PromptWatch,
}

impl App {
    /// A fresh UI in `locale`; `demo` shows the simulator banner.
    pub fn new(locale: Locale, demo: bool) -> Self {
        App {
            state: UiState::new(locale, demo),
            chat: ChatPane,
            traj: TrajectoryPane,
            bottom: BottomPane::new(),
            overlays: OverlayStack::default(),
            quit_armed: None,
            exited: false,
            session_id: None,
            resume_args: Vec::new(),
            session_has_messages: false,
            history_rx: None,
            editor_requested: false,
            term_out: Vec::new(),
            // §14.5: the terminal keeps the mouse (native selection); the wheel scrolls
            // through alternate scroll (decision 0037). F3 captures it.
            mouse_capture: false,
            focused: true,
            notify: false,
            hint: None,
            prompts: Default::default(),
        }
    }

    /// The draft to edit when Ctrl+G was pressed (once); the event loop suspends the
    /// terminal, runs the editor and calls [`App::editor_finished`].
    pub fn take_editor_request(&mut self) -> Option<String> {
        std::mem::take(&mut self.editor_requested).then(|| self.bottom.composer.expanded_text())
    }

    /// The editor's result: its text replaces the draft; a failure is a notice and the
    /// draft stays.
    pub fn editor_finished(&mut self, r: Result<String, super::editor::EditorError>) {
        use super::editor::EditorError;
        let notice = |key: &'static str, args: Vec<(&'static str, Arg)>| {
            CellKind::Notice(Notice::new(NoticeLevel::Error, key, args))
        };
        let cell = match r {
            Ok(text) => {
                // A pasted message edited in the editor is still a message.
                let literal = self.bottom.composer.is_literal();
                self.bottom.composer.set_text(&text);
                if literal {
                    self.bottom.composer.mark_literal();
                }
                self.state.focus = Focus::Composer;
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
        self.state.transcript.push(cell);
        self.state.show_chat(None);
    }

    /// Takes the cross-session history into the composer once it has loaded.
    fn poll_history(&mut self) {
        if let Some(rx) = &self.history_rx {
            match rx.try_recv() {
                Ok(h) => {
                    self.bottom.composer.add_older_history(h);
                    self.history_rx = None;
                }
                Err(std::sync::mpsc::TryRecvError::Empty) => {}
                Err(_) => self.history_rx = None,
            }
        }
    }

    /// Loads the messages of every session in `dir`'s sessions now (tests).
    pub fn load_history_now(&mut self, log: &std::path::Path) {
        let dir = log.parent().unwrap_or(log);
        self.bottom
            .composer
            .add_older_history(super::history::load(dir));
    }

    /// Keys while Ctrl+R searches: typing narrows, Ctrl+R goes older,
    /// Enter takes the match into the composer, Esc / Ctrl+C leave with the draft as it was.
    fn search_key(&mut self, k: &KeyEvent) {
        use crossterm::event::KeyCode;
        let c = &mut self.bottom.composer;
        if ctrl(k, 'r') {
            c.search_older();
        } else if ctrl(k, 'c') || k.code == KeyCode::Esc {
            c.search_cancel();
        } else if k.code == KeyCode::Enter {
            c.search_accept();
        } else if k.code == KeyCode::Backspace {
            c.search_backspace();
        } else if let Some(ch) = typed(k) {
            c.search_type(ch);
        }
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

    /// Terminal requests produced since the last call, in order (the loop writes them).
    pub fn take_term_requests(&mut self) -> Vec<TermRequest> {
        std::mem::take(&mut self.term_out)
    }

    /// The transient status-line hint shown now, if any.
    pub fn hint(&self) -> Option<&str> {
        self.hint_visible().map(|(t, _)| t)
    }

    fn hint_visible(&self) -> Option<(&str, bool)> {
        self.hint
            .as_ref()
            .filter(|(_, _, t)| self.state.now.saturating_duration_since(*t) < HINT_WINDOW)
            .map(|(text, warn, _)| (text.as_str(), *warn))
    }

    fn set_hint(&mut self, text: String, warn: bool) {
        self.hint = Some((text, warn, self.state.now));
    }

    /// `/copy ARGS`: the reply on the clipboard through OSC 52, and a transient hint.
    fn copy(&mut self, args: &str) {
        let l = self.state.l;
        let Some(n) = osc::parse_copy_arg(args) else {
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
        match osc::nth_last_reply(&self.state.transcript, n) {
            Some(text) => {
                let chars = text.chars().count();
                self.term_out.push(TermRequest::Escape(osc::osc52(text)));
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
        let l = self.state.l;
        let text = match osc::nth_last_reply(&self.state.transcript, 1) {
            Some(reply) => l.tra(
                "tui-notify-turn-finished-reply",
                &[("reply", Arg::from(osc::first_words(reply)))],
            ),
            None => l.tr("tui-notify-turn-finished"),
        };
        self.term_out.push(TermRequest::Escape(osc::osc9(&text)));
    }

    /// The line the normal screen shows after the TUI closes, in the current language:
    /// `Resume with: deepterm --resume <id>` and the arguments it needs; `None` before a
    /// session opened, or when the open one has no message.
    pub fn resume_hint(&self) -> Option<String> {
        let id = self.session_id.as_deref()?;
        if !self.session_has_messages {
            return None;
        }
        Some(self.state.l.tra(
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
        self.state.now = now;
    }

    /// The current locale.
    pub fn locale(&self) -> Locale {
        self.state.l.locale
    }

    /// Commands produced since the last call, in order.
    pub fn take_commands(&mut self) -> Vec<AgentCommand> {
        std::mem::take(&mut self.state.outbox)
    }

    /// Whether the user asked to quit.
    pub fn should_quit(&self) -> bool {
        self.state.quit
    }

    /// Whether the agent loop reported `Exited`.
    pub fn agent_exited(&self) -> bool {
        self.exited
    }

    /// Whether a turn is running (status line animates).
    pub fn busy(&self) -> bool {
        self.state.busy()
    }

    /// Whether the screen changes with time alone (a running turn's clock, or the quit hint
    /// that disappears when its window closes), so the loop keeps a tick.
    pub fn animating(&self) -> bool {
        self.busy()
            || self.quit_hint_visible()
            || self.hint_visible().is_some()
            || self.mention_files_pending()
    }

    /// Whether an `@` is typed while the workspace walk still runs: keep ticking so the
    /// popup appears when the files arrive.
    fn mention_files_pending(&self) -> bool {
        let c = &self.bottom.composer;
        c.files_loading() && c.text().contains('@')
    }

    /// Gives the composer's `@` popup its workspace files.
    pub fn set_mention_files(&mut self, files: crate::ui::mention::FileIndex) {
        self.bottom.composer.set_files(files);
    }

    /// Whether the first Ctrl+C armed quitting and the second can still quit.
    fn quit_hint_visible(&self) -> bool {
        self.quit_armed
            .is_some_and(|t| self.state.now.saturating_duration_since(t) < QUIT_WINDOW)
    }

    /// The composer (tests).
    pub fn composer(&self) -> &Composer {
        &self.bottom.composer
    }

    /// The Chat transcript (tests, benches).
    pub fn transcript(&self) -> &Transcript {
        &self.state.transcript
    }

    /// The Trajectory rows (tests).
    pub fn trajectory(&self) -> &Trajectory {
        &self.state.trajectory
    }

    /// The focused part.
    pub fn focus(&self) -> Focus {
        self.state.focus
    }

    /// The selected Chat cell.
    pub fn selected(&self) -> Option<usize> {
        self.state.selected
    }

    /// The selected Trajectory row.
    pub fn trajectory_selected(&self) -> Option<usize> {
        self.state.traj_selected
    }

    /// The open request inspector.
    pub fn inspector(&self) -> Option<&super::inspector::Inspector> {
        self.overlays.inspector()
    }

    /// The open `/resume` picker.
    pub fn resume_picker(&self) -> Option<&super::components::ResumePicker> {
        self.overlays.resume_picker()
    }

    /// Whether the key help is open.
    pub fn help_open(&self) -> bool {
        self.overlays.help_open()
    }

    /// The keymap contexts a key is looked up in, in order: the open overlay (which takes
    /// every key), else a pending approval, the focused pane, global keys, the composer.
    pub fn key_contexts(&self) -> Vec<Context> {
        if let Some(top) = self.overlays.contexts().first() {
            return vec![*top];
        }
        let mut cx = Vec::with_capacity(4);
        if !self.state.approvals.is_empty() {
            cx.push(Context::Approval);
        }
        match self.state.focus {
            Focus::Chat => cx.push(Context::Chat),
            Focus::Trajectory => cx.push(Context::Trajectory),
            // With the slash popup open, Tab completes instead of moving focus.
            Focus::Composer if self.bottom.composer.popup_open() => cx.push(Context::Composer),
            Focus::Composer => {}
        }
        cx.push(Context::Global);
        cx.push(Context::Composer);
        cx
    }

    /// The action `k` resolves to now, and the context that binds it.
    pub fn resolve(&self, k: &KeyEvent) -> Option<(Context, Action)> {
        keymap::lookup_in(&self.key_contexts(), k, self.quit_hint_visible())
    }

    fn set_locale(&mut self, loc: Locale) {
        let s = &mut self.state;
        if s.l.locale != loc {
            s.l = Localizer::new(loc);
            s.generation += 1;
        }
    }

    /// Folds one agent event into the view.
    pub fn on_agent_event(&mut self, ev: AgentEvent) {
        let s = &mut self.state;
        match ev {
            AgentEvent::SessionOpened { id, path, history } => {
                self.session_id = Some(id);
                self.session_has_messages = history.iter().any(|e| is_message(e));
                if !path.is_empty() {
                    self.history_rx = Some(super::history::spawn_load(std::path::Path::new(&path)));
                }
                s.transcript = Transcript::new();
                s.trajectory = s.trajectory.renewed();
                s.selected = None;
                s.traj_selected = None;
                self.overlays.clear();
                s.chat_scroll = Scroll::default();
                s.traj_scroll = Scroll::default();
                s.transcript.set_replaying(true);
                for e in &history {
                    self.apply_committed(e);
                }
                self.state.transcript.set_replaying(false);
                // Replaying history is not news: the pane the user chose stays.
                self.state.reveal = None;
            }
            AgentEvent::Committed(e) => {
                self.session_has_messages |= is_message(&e);
                if let Some(prompt) = self.prompts.committed(&e) {
                    self.bottom.composer.restore_prompt(&prompt);
                }
                if self.apply_committed(&e) {
                    self.state.show_chat(None);
                }
            }
            AgentEvent::Stream { turn, step, event } => {
                self.prompts.streamed(&event);
                s.transcript.stream(turn, step, &event)
            }
            AgentEvent::Phase(p) => {
                // Waiting for the user pauses the clock of the phase it interrupts; the
                // phase it returns to goes on from there.
                if p == TurnPhase::AwaitingApproval {
                    if s.paused_at.is_none() {
                        s.paused_at = Some(s.now);
                    }
                } else if let Some(at) = s.paused_at.take() {
                    if p == TurnPhase::RunningTools {
                        s.phase_since += s.now.saturating_duration_since(at);
                    } else {
                        s.phase_since = s.now;
                    }
                } else if p != s.phase {
                    s.phase_since = s.now;
                }
                if p == TurnPhase::Idle {
                    s.transcript.end_streams();
                    // No call waits for an answer once the turn is over: keys go back to
                    // the composer.
                    s.approvals.clear();
                }
                if p != TurnPhase::Waiting {
                    s.retry = None;
                }
                s.phase = p;
            }
            AgentEvent::Route(r) => {
                s.demo |= r.demo;
                s.trajectory.set_prices(&r.id, r.caps.prices);
                s.route = Some(r);
            }
            AgentEvent::SessionUsage(u) => s.usage = u,
            AgentEvent::Retrying(r) => s.retry = Some(r),
            AgentEvent::Sandbox(info) => s.sandbox = Some(info),
            AgentEvent::Notice(n) => {
                if n.key != "mcp-connect-failed" || !recent_notice(&s.transcript, &n) {
                    s.transcript.push(CellKind::Notice(n));
                }
                s.show_chat(None);
            }
            AgentEvent::Output(lines) => {
                s.transcript.push(CellKind::Output(lines));
                s.show_chat(None);
            }
            AgentEvent::ToolsChanged(c) => s.transcript.tools_changed(&c),
            AgentEvent::ApprovalRequest {
                call_id,
                tool,
                arguments,
            } => {
                // The call's own card shows "waiting for you", and Chat
                // comes into view with it.
                let i = s.transcript.request_approval(
                    &call_id,
                    &super::text::sanitize(&tool),
                    &super::text::sanitize(&arguments),
                );
                s.approvals.push_back(call_id);
                s.show_chat(Some(i));
            }
            AgentEvent::ApprovalPreview { call_id, preview } => {
                s.transcript.set_preview(&call_id, preview)
            }
            AgentEvent::Queued(n) => s.queued = n,
            AgentEvent::LocaleChanged(loc) => self.set_locale(loc),
            AgentEvent::TurnFinished => self.turn_finished(),
            // `/clear` (§14.5): Chat's view is emptied; the session, its log, the
            // Trajectory and the next request are untouched.
            AgentEvent::ClearScreen => {
                s.transcript.clear_screen();
                s.chat_scroll = Scroll::default();
                s.selected = None;
            }
            AgentEvent::CommandFinished => {}
            AgentEvent::Sessions { current, sessions } => self
                .overlays
                .open_resume_picker(super::components::ResumePicker::new(&current, sessions)),
            AgentEvent::Inspector(d) => {
                let saving = d.selected.n.and_then(|n| s.trajectory.cache_saving(n));
                let unknown = d.selected.n.is_some_and(|n| s.trajectory.usage_unknown(n));
                self.overlays.open_inspector(
                    super::inspector::Inspector::new(*d)
                        .with_cache_saving(saving)
                        .with_usage_unknown(unknown),
                )
            }
            AgentEvent::Exited => self.exited = true,
        }
    }

    /// Folds a committed event into Chat and the Trajectory; returns whether it put
    /// something in Chat the user must see (an MCP server that failed).
    fn apply_committed(&mut self, e: &crate::session::event::Event) -> bool {
        let s = &mut self.state;
        if let EventKind::AssistantMessage(d) = &e.kind {
            // Unknown when the provider's usage was impossible (decision 0028).
            s.context_used = d
                .usage
                .map(|u| u.total_input().saturating_add(u.output_tokens));
        }
        s.transcript.apply(e);
        s.trajectory.apply(e);
        // A failed MCP server is a Trajectory row, and a notice in Chat too: the Trajectory
        // may be hidden. `/mcp connect` already said so when it was the one that failed.
        if let EventKind::McpStatus(m) = &e.kind
            && m.state == McpState::Failed
        {
            let n = Notice::new(
                NoticeLevel::Warn,
                "mcp-connect-failed",
                vec![
                    ("name", Arg::from(m.server.clone())),
                    ("error", Arg::from(m.error.clone().unwrap_or_default())),
                ],
            );
            if !recent_notice(&s.transcript, &n) {
                s.transcript.push(CellKind::Notice(n));
            }
            return true;
        }
        false
    }

    /// Handles a bracketed paste.
    pub fn on_paste(&mut self, text: &str) {
        if self.bottom.typing_reason() && !self.state.approvals.is_empty() {
            self.bottom.reason_paste(text);
            return;
        }
        self.state.focus = Focus::Composer;
        self.bottom.composer.search_cancel();
        self.bottom.composer.paste(text, self.state.l);
    }

    /// Handles a key press: the open overlay takes it, else the keymap table resolves it
    /// (see [`App::key_contexts`]) and the component owning the context handles the action;
    /// unbound typed characters go to the composer.
    pub fn on_key(&mut self, k: KeyEvent) {
        if k.kind == KeyEventKind::Release {
            return;
        }
        let resolved = self.resolve(&k);
        if !ctrl(&k, 'c') {
            self.quit_armed = None;
        }
        // `n` on an approval: the keys type the reason until Enter or Esc.
        if self.bottom.typing_reason() && !self.state.approvals.is_empty() {
            self.bottom.reason_key(&k, &mut self.state);
            return;
        }
        // Shift+Tab asked to leave the sandbox: this key answers (SPEC §14.2).
        if std::mem::take(&mut self.state.confirm_full_access) {
            if matches!(k.code, crossterm::event::KeyCode::Char('y' | 'Y')) {
                self.state.outbox.push(AgentCommand::SetMode(
                    crate::sandbox::SandboxMode::FullAccess,
                ));
            }
            return;
        }
        if self.overlays.on_key(&k, &mut self.state) {
            return;
        }
        self.poll_history();
        if self.bottom.composer.search().is_some() && self.state.approvals.is_empty() {
            self.search_key(&k);
            return;
        }
        let s = &mut self.state;
        match resolved {
            Some((Context::Approval, a)) => {
                self.bottom.handle(a, s);
            }
            Some((Context::Chat, a)) => {
                self.chat.handle(a, s);
            }
            Some((Context::Trajectory, a)) => {
                self.traj.handle(a, s);
            }
            Some((Context::Global, a)) => self.global(a),
            Some((Context::Composer, Action::ExternalEditor)) => {
                s.focus = Focus::Composer;
                self.editor_requested = true;
            }
            // The readline keys edit a draft the approval prompt hides: they wait.
            Some((Context::Composer, a)) if !s.approvals.is_empty() && a.is_readline() => {}
            Some((Context::Composer, a)) => {
                // From a pane only typing and Backspace move to the composer; Ctrl+D on an
                // empty composer quits from anywhere.
                let quit = a == Action::DeleteOrQuit && self.bottom.composer.is_empty();
                if s.focus != Focus::Composer && !quit {
                    if typed(&k).is_none()
                        && !matches!(a, Action::Backspace | Action::HistorySearch)
                    {
                        return;
                    }
                    s.focus = Focus::Composer;
                }
                self.bottom.handle(a, s);
            }
            Some((Context::HelpOverlay | Context::InspectorOverlay | Context::ResumePicker, _)) => {
            }
            None => {
                if let Some(c) = typed(&k) {
                    s.focus = Focus::Composer;
                    self.bottom.composer.insert_char(c);
                }
            }
        }
        if std::mem::take(&mut self.state.open_help) {
            self.overlays.push(Overlay::Help(HelpOverlay::default()));
        }
        if let Some(args) = self.state.copy_request.take() {
            self.copy(&args);
        }
    }

    /// Global actions (no component owns them).
    fn global(&mut self, a: Action) {
        let s = &mut self.state;
        match a {
            Action::Help => self.overlays.push(Overlay::Help(HelpOverlay::default())),
            Action::ToggleLocale => {
                let next = s.l.locale.toggled();
                self.set_locale(next);
                self.state.outbox.push(AgentCommand::SetLocale(next));
            }
            Action::CycleMode => {
                // read-only → workspace-write → full-access (confirmed) → read-only.
                let current = s.sandbox.map_or(Default::default(), |i| i.mode);
                match current.next() {
                    crate::sandbox::SandboxMode::FullAccess => s.confirm_full_access = true,
                    next => s.outbox.push(AgentCommand::SetMode(next)),
                }
            }
            Action::FocusNext => {
                s.focus = match s.focus {
                    Focus::Composer => Focus::Chat,
                    Focus::Chat => Focus::Trajectory,
                    Focus::Trajectory => Focus::Composer,
                };
                if s.focus != Focus::Composer {
                    s.narrow_pane = s.focus;
                }
            }
            Action::PageUp | Action::PageDown => {
                let pane = if s.focus == Focus::Trajectory {
                    Focus::Trajectory
                } else {
                    Focus::Chat
                };
                let h = (s.pane_height(pane) as isize).max(1);
                s.scroll(pane, if a == Action::PageUp { -h } else { h });
            }
            Action::Interrupt | Action::Quit => {
                if s.busy() {
                    s.outbox.push(AgentCommand::Cancel);
                } else if !self.bottom.composer.is_empty() {
                    // ↑ on the empty composer brings the draft back.
                    self.bottom.composer.clear_to_stash();
                } else if a == Action::Quit {
                    s.request_quit();
                } else {
                    // Transient: shown on the status line while armed, never in the history.
                    self.quit_armed = Some(s.now);
                }
            }
            Action::ToggleMouse => {
                self.mouse_capture = !self.mouse_capture;
                self.term_out
                    .push(TermRequest::MouseCapture(self.mouse_capture));
            }
            Action::CycleCards => {
                s.cards = s.cards.next();
                s.generation += 1;
            }
            Action::ToggleLastToolChange => {
                if let Some(i) = s.transcript.last_tool_change() {
                    s.transcript.toggle(i);
                    // Expanded below the screen is no use: bring it into view.
                    s.transcript.reveal(i);
                }
            }
            Action::Cancel => {
                if self.bottom.composer.popup_open() {
                    self.bottom.composer.close_popup();
                } else if s.busy() {
                    s.outbox.push(AgentCommand::Cancel);
                } else if s.focus != Focus::Composer {
                    s.focus = Focus::Composer;
                }
            }
            _ => {}
        }
    }

    /// Handles a mouse event (wheel scrolls the pane under the pointer; a click toggles a Chat node).
    pub fn on_mouse(&mut self, m: MouseEvent) {
        let s = &mut self.state;
        let pos = Position {
            x: m.column,
            y: m.row,
        };
        let pane = if s.traj_area.contains(pos) {
            Focus::Trajectory
        } else {
            Focus::Chat
        };
        match m.kind {
            MouseEventKind::ScrollUp => s.scroll(pane, -3),
            MouseEventKind::ScrollDown => s.scroll(pane, 3),
            MouseEventKind::Down(MouseButton::Left) => {
                self.chat.click(pos, s);
            }
            _ => {}
        }
    }

    /// Renders the whole screen: a vertical `Layout` of banner / panes / status / bottom
    /// pane / footer, the panes split horizontally from [`SPLIT_WIDTH`], then the slash popup
    /// and the overlay stack on top.
    pub fn render(&mut self, frame: &mut Frame) {
        let area = frame.area();
        if area.height < 3 || area.width < 4 {
            return;
        }
        let quit_hint = self.quit_hint_visible();
        let hint = self.hint_visible().map(|(t, w)| (t.to_string(), w));
        let mouse = footer::mouse_span(self.state.l, self.mouse_capture);
        let s = &mut self.state;
        let l = s.l;
        let banner_h = u16::from(s.demo);
        // Rows between the banner and the footer, as the composer's height budget.
        let avail = area.height.saturating_sub(banner_h + 1);
        let bottom_h = if s.approvals.is_empty() {
            self.bottom.height(area.width, avail) + BottomPane::queued_rows(s)
        } else {
            BottomPane::approval_height(avail)
        };
        let [banner, panes, status, bottom, footer_row] = Layout::vertical([
            Constraint::Length(banner_h),
            Constraint::Fill(1),
            Constraint::Length(1),
            Constraint::Length(bottom_h),
            Constraint::Length(1),
        ])
        .areas(area);
        let buf = frame.buffer_mut();
        if banner.height > 0 {
            let t = truncate(
                &format!(" {} ", l.tr("tui-demo-banner")),
                banner.width as usize,
            );
            let pad = " ".repeat((banner.width as usize).saturating_sub(str_width(&t)));
            buf.set_line(
                banner.x,
                banner.y,
                &Line::from(Span::styled(format!("{t}{pad}"), theme::banner())),
                banner.width,
            );
        }
        // The mouse mode sits at the right end and is the first field to go (§14.5).
        let footer = footer::footer_line(
            l,
            s.route.as_ref(),
            &footer::FooterUsage {
                session: s.usage,
                last: s.trajectory.last_usage(),
                cost: s.trajectory.session_cost(),
                context_used: s.context_used,
                unknown: s.trajectory.unknown_usage(),
                sandbox: s.sandbox,
            },
            s.cards,
            Some(mouse),
            footer_row.width,
        );
        buf.set_line(footer_row.x, footer_row.y, &footer, footer_row.width);
        self.bottom.render(bottom, buf, s);
        let elapsed = s.elapsed();
        let st = if s.confirm_full_access {
            Line::from(Span::styled(
                truncate(&l.tr("tui-mode-confirm-full"), usize::from(status.width)),
                theme::warn(),
            ))
        } else if quit_hint {
            Line::from(Span::styled(
                truncate(&l.tr("tui-quit-hint"), usize::from(status.width)),
                theme::warn(),
            ))
        } else if let Some(r) = s.retry.filter(|_| s.phase == TurnPhase::Waiting) {
            // One transient line while a request is retried (§14.5).
            let text = l.tra(
                "tui-status-reconnecting",
                &[
                    ("attempt", Arg::from(r.attempt)),
                    ("max", Arg::from(r.max)),
                    ("cause", Arg::from(l.tr(r.cause.key()))),
                    ("seconds", Arg::from(format!("{:.1}", r.seconds))),
                ],
            );
            Line::from(Span::styled(
                truncate(&text, usize::from(status.width)),
                theme::warn(),
            ))
        } else if let Some((text, warn)) = hint {
            let style = if warn { theme::warn() } else { theme::accent() };
            Line::from(Span::styled(
                truncate(&text, usize::from(status.width)),
                style,
            ))
        } else {
            footer::status_line(l, s.shown_phase(), elapsed, s.queued, status.width)
        };
        buf.set_line(status.x, status.y, &st, status.width);
        self.render_panes(panes, buf);
        self.bottom.render_popup(panes, buf, &self.state);
        self.overlays.render(area, buf, &mut self.state);
        if let Some(c) = self.bottom.cursor()
            && self.overlays.is_empty()
        {
            frame.set_cursor_position(c);
        }
    }

    fn render_panes(&mut self, area: Rect, buf: &mut Buffer) {
        let s = &mut self.state;
        s.chat_area = Rect::default();
        s.traj_area = Rect::default();
        if area.height < 2 {
            return;
        }
        s.one_pane = area.width < SPLIT_WIDTH;
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
            self.chat.render(chat, buf, s);
            self.traj.render(traj, buf, s);
        } else if s.narrow_pane == Focus::Trajectory {
            self.traj.render(area, buf, s);
        } else {
            self.chat.render(area, buf, s);
        }
    }
}

/// Whether one of the last few Chat cells is notice `n` already (an MCP failure is both
/// a `/mcp connect` reply and an `mcp/status` event).
fn recent_notice(t: &Transcript, n: &Notice) -> bool {
    t.cells()
        .iter()
        .rev()
        .take(3)
        .any(|c| matches!(&c.kind, CellKind::Notice(m) if m == n))
}

/// A user or assistant message: what makes a session worth resuming.
fn is_message(e: &crate::session::event::Event) -> bool {
    use crate::session::event::EventKind;
    matches!(
        e.kind,
        EventKind::UserMessage(_) | EventKind::AssistantMessage(_)
    )
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
    super::text::sanitize(&cmd)
}

#[cfg(test)]
#[path = "app_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "copy_source_tests.rs"]
mod copy_source_tests;

#[cfg(test)]
#[path = "unknown_usage_tests.rs"]
mod unknown_usage_tests;

#[cfg(test)]
#[path = "app_composer_tests.rs"]
mod composer_tests;

#[cfg(test)]
#[path = "app_wheel_tests.rs"]
mod wheel_tests;

#[cfg(test)]
#[path = "app_first_screen_tests.rs"]
mod first_screen_tests;

#[cfg(test)]
#[path = "resume_hint_tests.rs"]
mod resume_hint_tests;

#[cfg(test)]
#[path = "app_mode_tests.rs"]
mod mode_tests;

#[cfg(test)]
#[path = "app_deny_reason_tests.rs"]
mod deny_reason_tests;
