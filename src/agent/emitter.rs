//! The one way the loop tells its UI (or `exec`) something: [`Emitter::emit`]. The loop,
//! its commands, the tool runner and the background tasks they start all hold an
//! [`Emitter`] (a cheap clone), so every event reaches the UI through one path.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::mpsc;

use crate::agent::protocol::{AgentEvent, Notice};

/// The sending end of the loop's event channel.
#[derive(Debug, Clone)]
pub struct Emitter {
    tx: mpsc::UnboundedSender<AgentEvent>,
    /// The id of the newest `/resume` listing sent on this channel, shared by every clone:
    /// the UI shows one listing at a time, so "newest" is per channel.
    listings: Arc<AtomicU64>,
}

/// One `/resume` listing on an emitter's channel: its id, and whether a newer listing
/// has started since (then its reader stops).
#[derive(Debug)]
pub struct Listing {
    id: u64,
    newest: Arc<AtomicU64>,
}

impl Listing {
    /// The id its batches carry (`AgentEvent::Sessions::listing`).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Whether a newer listing has started on the same channel.
    pub fn superseded(&self) -> bool {
        self.newest.load(Ordering::Acquire) != self.id
    }
}

impl Emitter {
    /// An emitter over the UI's (or `exec`'s) event channel.
    pub fn new(tx: mpsc::UnboundedSender<AgentEvent>) -> Self {
        Emitter {
            tx,
            listings: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Starts a new `/resume` listing, superseding any earlier one on this channel.
    pub fn start_listing(&self) -> Listing {
        let id = self.listings.fetch_add(1, Ordering::AcqRel) + 1;
        Listing {
            id,
            newest: Arc::clone(&self.listings),
        }
    }

    /// Stops listing `id` if it is still the newest (its picker was closed): its reader
    /// sees itself superseded at its next batch. A newer listing is left alone.
    pub fn stop_listing(&self, id: u64) {
        let _ = self
            .listings
            .compare_exchange(id, id + 1, Ordering::AcqRel, Ordering::Acquire);
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
