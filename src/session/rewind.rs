//! Rewinds in the session fold (SPEC §14.3): the log stays append-only; a
//! `session/rewind` whose scope takes back the conversation leaves every event from its
//! `toSeq` (the prompt's `turn/start`) up to itself out of the surface, the derived
//! messages, the tool-history fold and the latest header and context, so the next request
//! is the one the session had before that prompt. Loading a log folds its rewinds the same
//! way, so a resume sends the rewound history too. The request series goes on: what changed
//! since that prompt (the prompt, the tools) is appended as an update, never consolidated.

use std::sync::Arc;

use super::Session;
use super::event::{Event, EventKind};
use super::surface::Surface;
use super::tool_history::ToolHistoryFold;
use super::validate::ValidationError;

pub use super::rewound::{Rewound, taken_back};

impl Session {
    /// Whether the event at `seq` was taken back by a later rewind of the conversation.
    pub fn is_rewound(&self, seq: u64) -> bool {
        self.rewound.contains(seq)
    }

    /// The events that still count, in order: every event not taken back by a rewind.
    pub fn effective_events(&self) -> Vec<Arc<Event>> {
        self.events
            .iter()
            .filter(|e| !self.is_rewound(e.seq))
            .cloned()
            .collect()
    }

    /// Checks a `session/rewind` against the log: it must name the `turn/start` of a turn
    /// that still counts.
    pub(super) fn check_rewind(&self, ev: &Event) -> Result<(), ValidationError> {
        let EventKind::SessionRewind(r) = &ev.kind else {
            return Ok(());
        };
        let ok = r.to_seq < ev.seq
            && !self.is_rewound(r.to_seq)
            && self
                .events
                .get(r.to_seq as usize)
                .is_some_and(|e| matches!(e.kind, EventKind::TurnStart(_)));
        if ok {
            Ok(())
        } else {
            Err(ValidationError::new(
                ev,
                "SPEC 14.3",
                format!(
                    "session/rewind: toSeq {} is not the turn/start of a turn that still counts",
                    r.to_seq
                ),
            ))
        }
    }

    /// Records an accepted rewind and rebuilds the folds over the events that still count.
    pub(super) fn apply_rewind(&mut self, ev: &Event) {
        if taken_back(ev).is_none() {
            return;
        }
        self.rewound.observe(ev);
        // The kept history is a prefix the session already sent, so the request series
        // goes on from it (SPEC §14.3): a new generation would start a series
        // (L-1b), consolidating a prompt changed since at the head and re-declaring the
        // tools at the top, and the first request would no longer repeat the cached prefix.
        let generation = self.surface.content_generation();
        let mut surface = Surface::new();
        self.latest_header = None;
        self.latest_context = None;
        for (idx, e) in self.events.iter().enumerate() {
            if self.is_rewound(e.seq) {
                continue;
            }
            // Every event here was accepted against this same effective history before.
            if let Ok(plan) = surface.plan(e) {
                surface.apply(e, plan);
            }
            match &e.kind {
                EventKind::RequestHeader(_) => self.latest_header = Some(idx),
                EventKind::RequestContext(_) => self.latest_context = Some(idx),
                _ => {}
            }
        }
        surface.set_content_generation(generation);
        self.surface = surface;
        self.fold = ToolHistoryFold::new();
        self.consumed = 0;
    }
}
