//! How `App` routes input: keys through the keymap table to the context that binds them
//! (overlay, approval, focused pane, global, composer), pastes, and the mouse.

use crossterm::event::{KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Position;

use crate::agent::protocol::AgentCommand;
use crate::ui::app_event::TermRequest;
use crate::ui::component::Component;
use crate::ui::keymap::{self, Action, Context, ctrl, typed};
use crate::ui::overlays::{HelpOverlay, Overlay};

use super::{App, Focus};

impl App {
    /// Keys while Ctrl+R searches: typing narrows, Ctrl+R goes older,
    /// Enter takes the match into the composer, Esc / Ctrl+C leave with the draft as it was.
    fn search_key(&mut self, k: &KeyEvent) {
        use crossterm::event::KeyCode;
        let c = self.bottom.composer_mut();
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

    /// The keymap contexts a key is looked up in, in order: the open overlay (which takes
    /// every key), else a pending approval, the focused pane, global keys, the composer.
    pub fn key_contexts(&self) -> Vec<Context> {
        if let Some(top) = self.overlays.contexts().first() {
            return vec![*top];
        }
        let mut cx = Vec::with_capacity(4);
        if self.bottom.approval_pending() {
            cx.push(Context::Approval);
        }
        match self.model.focus {
            Focus::Chat => cx.push(Context::Chat),
            Focus::Trajectory => cx.push(Context::Trajectory),
            // With the slash popup open, Tab completes instead of moving focus.
            Focus::Composer if self.bottom.composer().popup_open() => cx.push(Context::Composer),
            Focus::Composer => {}
        }
        cx.push(Context::Global);
        cx.push(Context::Composer);
        cx
    }

    /// The action `k` resolves to now, and the context that binds it. A `Twice` chord's
    /// window: the rewind window for Esc, the quit window for the rest (Ctrl+C).
    pub fn resolve(&self, k: &KeyEvent) -> Option<(Context, Action)> {
        let armed = if k.code == crossterm::event::KeyCode::Esc {
            self.rewind_armed()
        } else {
            self.quit_hint_visible()
        };
        keymap::lookup_in(&self.key_contexts(), k, armed)
    }

    /// Handles a bracketed paste.
    pub fn on_paste(&mut self, text: &str) {
        // An MCP server's form takes the paste (an address, a code), not the draft behind.
        if self.overlays.paste(text) {
            return;
        }
        if self.bottom.typing_reason() && self.bottom.approval_pending() {
            self.bottom.reason_paste(text);
            return;
        }
        self.model.focus = Focus::Composer;
        self.bottom.composer_mut().search_cancel();
        self.bottom.composer_mut().paste(text, self.model.l);
    }

    /// `deepterm "PROMPT"` (SPEC §15.4): the prompt goes into the composer and is sent,
    /// as if typed and Enter pressed.
    pub fn send_first(&mut self, text: &str) {
        self.on_paste(text);
        self.on_key(KeyEvent::new(
            crossterm::event::KeyCode::Enter,
            crossterm::event::KeyModifiers::NONE,
        ));
    }

    /// The guided demo's copy of the sample project, for the banner.
    pub fn set_demo_dir(&mut self, dir: Option<String>) {
        self.model.demo_dir = dir;
    }

    /// Handles a key press: the open overlay takes it, else the keymap table resolves it
    /// (see [`App::key_contexts`]) and the component owning the context handles the action;
    /// unbound typed characters go to the composer. What the components ask for is routed
    /// once they return.
    pub fn on_key(&mut self, k: KeyEvent) {
        if k.kind == KeyEventKind::Release {
            return;
        }
        // A listing still read for a picker the key closes (Esc, or Enter on a session)
        // is read no further.
        let reading = self
            .overlays
            .resume_picker()
            .and_then(|p| p.reading_count())
            .and(self.resume_listing);
        let mut out = Vec::new();
        self.key(k, &mut out);
        self.route(out);
        if let Some(listing) = reading
            && self.overlays.resume_picker().is_none()
        {
            self.send(AgentCommand::StopListing { listing });
        }
    }

    fn key(&mut self, k: KeyEvent, out: &mut Vec<crate::ui::app_event::AppEvent>) {
        let resolved = self.resolve(&k);
        if !ctrl(&k, 'c') {
            self.quit_armed = None;
        }
        // Esc Esc means two presses of the global Esc with nothing between them: an Esc
        // an overlay, a popup or an approval took is not the first of two.
        let esc_armed = self.rewind_armed.take();
        if matches!(
            resolved,
            Some((Context::Global, Action::Cancel | Action::Rewind))
        ) {
            self.rewind_armed = esc_armed;
        }
        let pending = self.bottom.approval_pending();
        // `n` on an approval: the keys type the reason until Enter or Esc.
        if self.bottom.typing_reason() && pending {
            self.bottom.reason_key(&k, out);
            return;
        }
        // `/mode full-access` asked to leave the sandbox: this key answers (SPEC §15.3).
        if std::mem::take(&mut self.confirm_full_access) {
            if matches!(k.code, crossterm::event::KeyCode::Char('y' | 'Y')) {
                self.send(AgentCommand::SetMode(crate::sandbox::AgentMode::FullAccess));
            }
            return;
        }
        // `Execute this plan?` after a turn in plan mode: this key answers (SPEC §15.3).
        if self.plan_key(&k) {
            return;
        }
        if self.overlays.on_key(&k, &self.model, out) {
            return;
        }
        if self.bottom.composer().search().is_some() && !pending {
            self.search_key(&k);
            return;
        }
        let m = &self.model;
        match resolved {
            Some((Context::Approval, a)) => {
                self.bottom.handle(a, m, out);
            }
            Some((Context::Chat, a)) => {
                self.chat.handle(a, m, out);
            }
            Some((Context::Trajectory, a)) => {
                self.traj.handle(a, m, out);
            }
            Some((Context::Global, a)) => self.global(a),
            Some((Context::Composer, Action::ExternalEditor)) => self.request_editor(),
            // The readline keys edit a draft the approval prompt hides: they wait.
            Some((Context::Composer, a)) if pending && a.is_readline() => {}
            Some((Context::Composer, a)) => {
                // From a pane only typing and Backspace move to the composer; Ctrl+D on an
                // empty composer quits from anywhere.
                let quit = a == Action::DeleteOrQuit && self.bottom.composer().is_empty();
                if m.focus != Focus::Composer && !quit {
                    if typed(&k).is_none()
                        && !matches!(a, Action::Backspace | Action::HistorySearch)
                    {
                        return;
                    }
                    self.model.focus = Focus::Composer;
                }
                self.bottom.handle(a, &self.model, out);
            }
            Some((
                Context::HelpOverlay
                | Context::InspectorOverlay
                | Context::ResumePicker
                | Context::DiffOverlay
                | Context::RewindPicker
                | Context::TranscriptOverlay
                | Context::ElicitOverlay,
                _,
            )) => {}
            None => {
                if let Some(c) = typed(&k) {
                    self.model.focus = Focus::Composer;
                    self.bottom.composer_mut().insert_char(c);
                }
            }
        }
    }

    /// Whether Esc Esc may open the rewind picker: idle, nothing to answer, no popup, and
    /// an empty composer (with a draft, Esc is only Esc).
    fn may_rewind(&self) -> bool {
        !self.model.busy()
            && !self.bottom.approval_pending()
            && !self.bottom.composer().popup_open()
            && self.bottom.composer().is_empty()
            && self.bottom.composer().search().is_none()
    }

    /// Whether a first Esc armed the rewind picker and the second can still open it.
    pub(super) fn rewind_armed(&self) -> bool {
        self.rewind_armed
            .is_some_and(|t| self.model.now.saturating_duration_since(t) < super::REWIND_WINDOW)
    }

    /// Esc (`Cancel`) and Esc Esc (`Rewind`): close the slash popup, else cancel the
    /// turn, else focus the composer; on an empty, idle composer the first Esc arms the
    /// rewind picker and the second asks the agent for the earlier prompts (SPEC §14.3).
    fn escape(&mut self, a: Action) {
        if a == Action::Rewind && self.rewind_armed.take().is_some() && self.may_rewind() {
            self.send(crate::ui::overlays::rewind_picker::list_prompts());
            return;
        }
        // Esc Esc whose first press no longer counts is one Esc.
        self.rewind_armed = None;
        if self.bottom.composer().popup_open() {
            self.bottom.composer_mut().close_popup();
            return;
        }
        if self.model.busy() {
            self.send(AgentCommand::Cancel);
            return;
        }
        self.model.focus = Focus::Composer;
        if self.may_rewind() {
            self.rewind_armed = Some(self.model.now);
        }
    }

    /// Global actions (no component owns them).
    fn global(&mut self, a: Action) {
        if matches!(a, Action::Cancel | Action::Rewind) {
            self.escape(a);
            return;
        }
        let m = &mut self.model;
        match a {
            Action::Help => {
                let custom = self.bottom.composer().custom_commands().to_vec();
                let help = HelpOverlay::new(self.mouse_capture, custom);
                self.overlays.push(Overlay::Help(help));
            }
            Action::ToggleLocale => {
                let next = m.l.locale.toggled();
                m.set_locale(next);
                self.send(AgentCommand::SetLocale(next));
            }
            Action::CycleMode => {
                // The Shift+Tab cycle (SPEC §15.3): full-access is never one of its steps.
                let current = m.sandbox.map_or(Default::default(), |i| i.agent_mode());
                let next = crate::agent::mode::shift_tab_next(current);
                self.send(AgentCommand::SetMode(next));
            }
            Action::FocusNext => {
                m.focus = match m.focus {
                    Focus::Composer => Focus::Chat,
                    Focus::Chat => Focus::Trajectory,
                    Focus::Trajectory => Focus::Composer,
                };
                if m.focus != Focus::Composer {
                    self.narrow_pane = m.focus;
                }
            }
            Action::PageUp | Action::PageDown => {
                let up = a == Action::PageUp;
                if m.focus == Focus::Trajectory {
                    let h = (self.traj.page_height() as isize).max(1);
                    self.traj.scroll_by(if up { -h } else { h }, m.l);
                } else {
                    let h = (self.chat.page_height() as isize).max(1);
                    self.chat.scroll_by(if up { -h } else { h });
                }
            }
            Action::Interrupt | Action::Quit => {
                if m.busy() {
                    self.send(AgentCommand::Cancel);
                } else if !self.bottom.composer().is_empty() {
                    // ↑ on the empty composer brings the draft back.
                    self.bottom.composer_mut().clear_to_stash();
                } else if a == Action::Quit {
                    self.request_quit();
                } else {
                    // Transient: shown on the status line while armed, never in the history.
                    self.quit_armed = Some(m.now);
                }
            }
            Action::ToggleMouse => {
                self.mouse_capture = !self.mouse_capture;
                self.terminal(TermRequest::MouseCapture(self.mouse_capture));
            }
            Action::CycleCards => {
                m.cards = m.cards.next();
                m.generation += 1;
            }
            Action::Transcript => {
                let o = crate::ui::overlays::TranscriptOverlay::new(self.chat.transcript().cells());
                self.overlays
                    .push(crate::ui::overlays::Overlay::Transcript(o));
            }
            Action::ToggleLastToolChange => {
                let t = self.chat.transcript_mut();
                if let Some(i) = t.last_tool_change() {
                    t.toggle(i);
                    // Expanded below the screen is no use: bring it into view.
                    t.reveal(i);
                }
            }
            _ => {}
        }
    }

    /// Handles a mouse event (wheel scrolls the pane under the pointer; a click toggles a
    /// Chat node).
    pub fn on_mouse(&mut self, m: MouseEvent) {
        // The full request viewer scrolls with the wheel (SPEC §14.5).
        if let Some(v) = self.overlays.viewer_mut() {
            v.handle_mouse(&m);
            return;
        }
        let pos = Position {
            x: m.column,
            y: m.row,
        };
        let traj = self.traj.contains(pos);
        let l = self.model.l;
        match m.kind {
            MouseEventKind::ScrollUp if traj => self.traj.scroll_by(-3, l),
            MouseEventKind::ScrollDown if traj => self.traj.scroll_by(3, l),
            MouseEventKind::ScrollUp => self.chat.scroll_by(-3),
            MouseEventKind::ScrollDown => self.chat.scroll_by(3),
            MouseEventKind::Down(MouseButton::Left) => {
                let mut out = Vec::new();
                self.chat.click(pos, &mut out);
                self.route(out);
            }
            _ => {}
        }
    }
}
