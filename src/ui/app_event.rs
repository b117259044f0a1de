//! The UI's one vocabulary of requests, and its one channel out.
//!
//! Panes and overlays push [`AppEvent`]s while they handle an action; `App` handles them
//! once the handler returns (open the key help, copy a reply, answer an approval, show a
//! notice, bring Chat into view, move focus). What only the event loop can carry out — a
//! command for the agent, a write to the terminal, handing the terminal to the external
//! editor, leaving — `App` sends on its [`AppEventSender`], and so does the history reader
//! thread with its batches. The loop drains that channel after every input and handles each
//! event in one place (`event_loop::drive`); nothing leaves the UI through a queue or a flag
//! the loop polls (decision 0148).

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::agent::protocol::{AgentCommand, ApprovalDecision, Notice};
use crate::ui::history::HistoryBatch;

use super::model::Focus;

/// Something for the terminal itself, besides frames.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TermRequest {
    /// Raw escape sequence bytes (OSC 52 / OSC 9), written as they are.
    Escape(String),
    /// Turn mouse capture on (the wheel scrolls the panes) or off (native selection).
    MouseCapture(bool),
}

/// A request going up from a widget to `App`, or out of `App` to the event loop.
#[derive(Debug, Clone, PartialEq)]
pub enum AppEvent {
    /// Send a command to the agent (the loop writes it to the agent's channel).
    Agent(AgentCommand),
    /// Shut the agent down and leave the UI (`App` sends `Shutdown` first, then this for
    /// the loop, which waits for the agent's exit).
    Quit,
    /// Open the key help.
    OpenHelp,
    /// `/copy [N]`: put the N-th last reply on the clipboard (the UI owns the terminal);
    /// `None` when the argument is not a count (the usage is shown instead).
    Copy {
        /// Which reply, 1 = the last.
        n: Option<usize>,
    },
    /// The user answered pending approval `call_id` (Chat's card shows the answer, the
    /// agent gets it, with the reason typed for a denial).
    Answer {
        /// The call.
        call_id: String,
        /// The answer.
        decision: ApprovalDecision,
        /// The reason typed with `n`, for a denial.
        reason: Option<String>,
    },
    /// Put `text` on the clipboard through OSC 52 (the full request viewer's `y`).
    CopyText(String),
    /// Show a notice in Chat.
    Notice(Notice),
    /// Bring Chat into view (one-pane mode): something the user must see arrived.
    ShowChat,
    /// Chat follows the tail again.
    ChatFollow,
    /// Chat scrolls to its first row.
    ChatTop,
    /// Move the keyboard focus.
    Focus(Focus),
    /// Write to the terminal (the loop hands it to the screen).
    Terminal(TermRequest),
    /// Ctrl+G: hand the terminal to the external editor on this draft; its result comes
    /// back through `App::editor_finished`.
    Editor(String),
    /// A batch of the cross-session message history, from reading number `reading`
    /// (batches of a reading that was replaced are dropped).
    History {
        /// Which reading sent it.
        reading: u64,
        /// What it read.
        batch: HistoryBatch,
    },
}

impl AppEvent {
    /// Whether only the event loop can carry this out (it owns the agent's channel, the
    /// screen and the terminal); `App` handles the rest itself.
    pub fn for_loop(&self) -> bool {
        matches!(
            self,
            AppEvent::Agent(_) | AppEvent::Quit | AppEvent::Terminal(_) | AppEvent::Editor(_)
        )
    }
}

/// Where handlers put their requests, in order.
pub type AppEvents = Vec<AppEvent>;

/// The sending end of the UI's channel; cheap to clone, usable from any thread.
#[derive(Debug, Clone)]
pub struct AppEventSender(UnboundedSender<AppEvent>);

impl AppEventSender {
    /// Sends `ev`; `false` when nobody receives any more (the UI is gone).
    pub fn send(&self, ev: AppEvent) -> bool {
        self.0.send(ev).is_ok()
    }
}

/// The receiving end, drained by the event loop.
pub type AppEventReceiver = UnboundedReceiver<AppEvent>;

/// A new channel.
pub fn channel() -> (AppEventSender, AppEventReceiver) {
    let (tx, rx) = unbounded_channel();
    (AppEventSender(tx), rx)
}
