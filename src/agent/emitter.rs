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
    /// The subagent (id, description) whose calls this emitter's approvals are for.
    asker: Option<Arc<(String, String)>>,
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
            asker: None,
        }
    }

    /// This emitter for deciding a call of subagent `agent` (`inherit`, SPEC §15.3): each
    /// question it sends ([`AgentEvent::ApprovalRequest`]) is preceded by an
    /// [`AgentEvent::ApprovalAsker`] naming the subagent, so the card says who asks. A
    /// call that needs no answer sends nothing of the kind.
    pub fn for_subagent(&self, agent: &str, description: &str) -> Emitter {
        Emitter {
            asker: Some(Arc::new((agent.to_string(), description.to_string()))),
            ..self.clone()
        }
    }

    /// The subagent (id, `task` description) this emitter decides calls for, if any.
    pub fn asker(&self) -> Option<(&str, &str)> {
        self.asker.as_deref().map(|(a, d)| (a.as_str(), d.as_str()))
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
        let ev = ev.into();
        if let (Some(asker), AgentEvent::ApprovalRequest { call_id, .. }) = (&self.asker, &ev) {
            let _ = self.tx.send(AgentEvent::ApprovalAsker {
                call_id: call_id.clone(),
                agent: asker.0.clone(),
                description: asker.1.clone(),
            });
        }
        let _ = self.tx.send(ev);
    }
}

impl From<Notice> for AgentEvent {
    fn from(n: Notice) -> Self {
        AgentEvent::Notice(n)
    }
}
