//! The one way the loop tells its UI (or `exec`) something: [`Emitter::emit`]. The loop,
//! its commands, the tool runner and the background tasks they start all hold an
//! [`Emitter`] (a cheap clone), so every event reaches the UI through one path.

use tokio::sync::mpsc;

use crate::agent::protocol::{AgentEvent, Notice};

/// The sending end of the loop's event channel.
#[derive(Debug, Clone)]
pub struct Emitter {
    tx: mpsc::UnboundedSender<AgentEvent>,
}

impl Emitter {
    /// An emitter over the UI's (or `exec`'s) event channel.
    pub fn new(tx: mpsc::UnboundedSender<AgentEvent>) -> Self {
        Emitter { tx }
    }

    /// Sends `ev` (a [`Notice`] converts). When the receiver is gone (the UI quit), the
    /// event is dropped: nobody is left to show it, and the log already holds what matters.
    pub fn emit(&self, ev: impl Into<AgentEvent>) {
        let _ = self.tx.send(ev.into());
    }
}

impl From<Notice> for AgentEvent {
    fn from(n: Notice) -> Self {
        AgentEvent::Notice(n)
    }
}
