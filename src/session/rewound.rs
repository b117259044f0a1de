//! What conversation rewinds took back (SPEC §14.3), as seq ranges: one rule for the
//! session's fold and the UI's (decision 0096). It needs only the events, so the UI keeps
//! its own copy without the session.

use std::sync::Arc;

use super::event::{Event, EventKind};

/// The seq range `[toSeq, rewindSeq)` a logged `session/rewind` takes back: the
/// conversation's part of the log from the prompt's `turn/start` up to the rewind itself
/// (`None` for a code-only rewind and any other event). The session and the UI's folds
/// apply the same rule.
pub fn taken_back(ev: &Event) -> Option<(u64, u64)> {
    match &ev.kind {
        EventKind::SessionRewind(r) if r.scope.conversation() => Some((r.to_seq, ev.seq)),
        _ => None,
    }
}

/// The seq ranges taken back so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rewound {
    ranges: Vec<(u64, u64)>,
}

impl Rewound {
    /// The ranges every rewind of `events` takes back (a rewind comes after what it takes
    /// back, so a fold needs them before it starts).
    pub fn of(events: &[Arc<Event>]) -> Rewound {
        let mut r = Rewound::default();
        for e in events {
            r.observe(e);
        }
        r
    }

    /// Records what `ev` takes back, if it is a rewind of the conversation.
    pub fn observe(&mut self, ev: &Event) {
        if let Some(range) = taken_back(ev)
            && !self.ranges.contains(&range)
        {
            self.ranges.push(range);
        }
    }

    /// Whether the event at `seq` was taken back.
    pub fn contains(&self, seq: u64) -> bool {
        self.ranges.iter().any(|&(a, b)| a <= seq && seq < b)
    }

    /// Whether nothing was taken back.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}
