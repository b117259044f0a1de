//! What the log's rewinds took back, as the UI folds it (decision 0096): the agent sends
//! every event, and Chat leaves out, and the Trajectory dims, the events a conversation
//! rewind took back, by the same rule as the session ([`taken_back`]).

use std::sync::Arc;

use crate::session::event::Event;
use crate::session::rewind::taken_back;

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
