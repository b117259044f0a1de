//! The overlays, each in one file with its state, drawing and keys: the key help, the
//! request inspector, the `/resume` picker, the transcript, and the checkpoint overlays
//! (SPEC §14.3): the `/diff` overlay and the rewind picker; an MCP server's elicitation
//! (SPEC §15.2).
//!
//! The overlay stack: the topmost overlay gets every key first (overlays are modal) and is
//! taken off when it returns [`Handled::Close`]; overlays draw bottom to top over the screen.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::ui::app_event::AppEvent;
use crate::ui::component::{Component, Handled};
use crate::ui::keymap::{self, Context};
use crate::ui::model::Model;

pub mod diff;
pub mod elicit;
pub mod help;
pub mod inspector;
pub mod resume_picker;
pub mod rewind_picker;
pub mod transcript;

pub use help::HelpOverlay;
pub use inspector::{Inspector, InspectorOverlay};
pub use resume_picker::ResumePicker;
pub use transcript::TranscriptOverlay;

pub use diff::DiffOverlay;
pub use elicit::ElicitOverlay;
pub use rewind_picker::RewindPicker;

/// An overlay (later: pickers).
#[derive(Debug)]
pub enum Overlay {
    /// The key help.
    Help(HelpOverlay),
    /// The request inspector.
    Inspector(Box<InspectorOverlay>),
    /// The `/resume` picker.
    Resume(ResumePicker),
    /// The `/diff` overlay.
    Diff(DiffOverlay),
    /// The rewind picker (Esc Esc, `/rewind`).
    Rewind(RewindPicker),
    /// The Ctrl+T transcript.
    Transcript(TranscriptOverlay),
    /// An MCP server's question (a form, or a URL to open).
    Elicit(Box<ElicitOverlay>),
}

impl Overlay {
    /// The keymap context of this overlay.
    pub fn context(&self) -> Context {
        match self {
            Overlay::Help(_) => Context::HelpOverlay,
            Overlay::Inspector(_) => Context::InspectorOverlay,
            Overlay::Resume(_) => Context::ResumePicker,
            Overlay::Diff(_) => Context::DiffOverlay,
            Overlay::Rewind(_) => Context::RewindPicker,
            Overlay::Transcript(_) => Context::TranscriptOverlay,
            Overlay::Elicit(_) => Context::ElicitOverlay,
        }
    }
}

impl Component for Overlay {
    fn render(&mut self, area: Rect, buf: &mut Buffer, m: &Model) {
        match self {
            Overlay::Help(o) => o.render(area, buf, m),
            Overlay::Inspector(o) => o.render(area, buf, m),
            Overlay::Resume(o) => o.render(area, buf, m),
            Overlay::Diff(o) => o.render(area, buf, m),
            Overlay::Rewind(o) => o.render(area, buf, m),
            Overlay::Transcript(o) => o.render(area, buf, m),
            Overlay::Elicit(o) => o.render(area, buf, m),
        }
    }

    fn handle(&mut self, action: keymap::Action, m: &Model, out: &mut Vec<AppEvent>) -> Handled {
        match self {
            Overlay::Help(o) => o.handle(action, m, out),
            Overlay::Inspector(o) => o.handle(action, m, out),
            Overlay::Resume(o) => o.handle(action, m, out),
            Overlay::Diff(o) => o.handle(action, m, out),
            Overlay::Rewind(o) => o.handle(action, m, out),
            Overlay::Transcript(o) => o.handle(action, m, out),
            // The form reads raw keys (`OverlayStack::on_key`); no action reaches it.
            Overlay::Elicit(_) => Handled::Consumed,
        }
    }
}

/// The open overlays, bottom first.
#[derive(Debug, Default)]
pub struct OverlayStack {
    items: Vec<Overlay>,
}

impl OverlayStack {
    /// Opens `o` on top.
    pub fn push(&mut self, o: Overlay) {
        self.items.push(o);
    }

    /// Whether no overlay is open.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The open elicitations (id and server), bottom first.
    pub fn elicitations(&self) -> Vec<(u64, String)> {
        self.items
            .iter()
            .filter_map(|o| match o {
                Overlay::Elicit(e) => Some((e.id(), e.server().to_string())),
                _ => None,
            })
            .collect()
    }

    /// Gives a paste to the open elicitation form, if it is on top; `false` otherwise.
    pub fn paste(&mut self, text: &str) -> bool {
        match self.items.last_mut() {
            Some(Overlay::Elicit(e)) => {
                e.paste(text);
                true
            }
            _ => false,
        }
    }

    /// Closes every overlay.
    pub fn clear(&mut self) {
        self.items.clear();
    }

    /// The contexts of the open overlays, topmost first.
    pub fn contexts(&self) -> Vec<Context> {
        self.items.iter().rev().map(Overlay::context).collect()
    }

    /// Whether the key help is open.
    pub fn help_open(&self) -> bool {
        self.items.iter().any(|o| matches!(o, Overlay::Help(_)))
    }

    /// The open inspector, if any.
    pub fn inspector(&self) -> Option<&Inspector> {
        self.items.iter().rev().find_map(|o| match o {
            Overlay::Inspector(i) => Some(&i.inspector),
            _ => None,
        })
    }

    /// The open full request viewer, if any (it takes the mouse wheel).
    pub fn viewer_mut(&mut self) -> Option<&mut crate::ui::request_viewer::RequestViewer> {
        match self.items.last_mut() {
            Some(Overlay::Inspector(i)) => i.viewer.as_mut(),
            _ => None,
        }
    }

    /// Replaces any open inspector with `ins` (on top).
    pub fn open_inspector(&mut self, ins: Inspector) {
        self.items.retain(|o| !matches!(o, Overlay::Inspector(_)));
        self.push(Overlay::Inspector(Box::new(InspectorOverlay::new(ins))));
    }

    /// The open `/resume` picker, if any.
    pub fn resume_picker(&self) -> Option<&ResumePicker> {
        self.items.iter().rev().find_map(|o| match o {
            Overlay::Resume(p) => Some(p),
            _ => None,
        })
    }

    /// The open `/resume` picker, if any, to fill in.
    pub fn resume_picker_mut(&mut self) -> Option<&mut ResumePicker> {
        self.items.iter_mut().rev().find_map(|o| match o {
            Overlay::Resume(p) => Some(p),
            _ => None,
        })
    }

    /// Replaces any open `/resume` picker with `p` (on top).
    pub fn open_resume_picker(&mut self, p: ResumePicker) {
        self.items.retain(|o| !matches!(o, Overlay::Resume(_)));
        self.push(Overlay::Resume(p));
    }

    /// The open `/diff` overlay, if any.
    pub fn diff(&self) -> Option<&DiffOverlay> {
        self.items.iter().rev().find_map(|o| match o {
            Overlay::Diff(d) => Some(d),
            _ => None,
        })
    }

    /// The open rewind picker, if any.
    pub fn rewind_picker(&self) -> Option<&RewindPicker> {
        self.items.iter().rev().find_map(|o| match o {
            Overlay::Rewind(p) => Some(p),
            _ => None,
        })
    }

    /// Replaces any open overlay of the same kind as `o` with it (on top): a second
    /// `/diff` or `/rewind` shows the newer answer once.
    pub fn open_replacing(&mut self, o: Overlay) {
        let cx = o.context();
        self.items.retain(|x| x.context() != cx);
        self.push(o);
    }

    /// Gives `k` to the topmost overlay; returns `false` when none is open. A key the
    /// overlay's context does not bind is still swallowed (overlays are modal), except that
    /// a typed character goes to the `/resume` picker's filter.
    pub fn on_key(&mut self, k: &KeyEvent, m: &Model, out: &mut Vec<AppEvent>) -> bool {
        let Some(top) = self.items.last_mut() else {
            return false;
        };
        if let Overlay::Inspector(i) = &mut *top
            && i.viewer_key(k, out)
        {
            return true;
        }
        if let Overlay::Elicit(e) = &mut *top {
            if e.key(k, out) == Handled::Close {
                self.items.pop();
            }
            return true;
        }
        let action = keymap::lookup(&[top.context()], k, false);
        if action.is_none()
            && let (Overlay::Resume(p), Some(c)) = (&mut *top, keymap::typed(k))
        {
            p.type_char(c);
            return true;
        }
        if action.is_some_and(|a| top.handle(a, m, out) == Handled::Close) {
            self.items.pop();
        }
        true
    }

    /// Draws every overlay over `area`, bottom first.
    pub fn render(&mut self, area: Rect, buf: &mut Buffer, m: &Model) {
        for o in &mut self.items {
            o.render(area, buf, m);
        }
    }
}
