//! What a pane or overlay asks `App` for: handlers push [`AppEvent`]s, `App` routes them
//! once the handler returns (send a command to the agent, quit, open the key help, copy a
//! reply, answer an approval, show a notice, bring Chat into view, move focus). Nothing is
//! requested through a flag that `App` polls afterwards.

use crate::agent::protocol::{AgentCommand, ApprovalDecision, Notice};

use super::model::Focus;

/// A request going up from a widget to `App`.
#[derive(Debug, Clone, PartialEq)]
pub enum AppEvent {
    /// Send a command to the agent.
    Agent(AgentCommand),
    /// Shut the agent down and leave the UI.
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
}

/// Where handlers put their requests, in order.
pub type AppEvents = Vec<AppEvent>;
