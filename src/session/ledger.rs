//! The request ledger: one numbering of the requests in a log (SPEC §10 "Inspector",
//! Trajectory). Requests are numbered from 1 over `assistant/message` and
//! `assistant/attempt` events (a failed attempt is a request too) and compaction
//! summarizer requests (settled by `compaction/summary`, or by a failed `compaction/end`).
//! A step request settled by the event at index `S` was built from `events[..S]`; a
//! compaction request was built right after its `compaction/start`, from the region that
//! event names, so its `index` is the one after that start.
//!
//! The fold is incremental: the session feeds it every event it accepts, and the
//! Trajectory pane runs the same fold over the events it receives.

use std::sync::Arc;

use crate::session::event::{Event, EventKind};

/// One request in the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestRef {
    /// Number from 1 (Trajectory numbering).
    pub n: usize,
    /// Index of the settling event in the event list (the request saw `events[..index]`).
    pub index: usize,
    /// Turn.
    pub turn: u64,
    /// Step.
    pub step: u64,
    /// The attempt failed (`assistant/attempt`, or a compaction that produced no summary).
    pub failed: bool,
    /// For a compaction request: the shadowed region `(startSeq, endSeq)`.
    pub compaction: Option<(u64, u64)>,
}

/// The incremental fold that numbers requests, attempts and compaction requests.
#[derive(Debug, Clone, Default)]
pub struct RequestLedger {
    refs: Vec<RequestRef>,
    /// (index after `compaction/start`, region) while a compaction has started and its
    /// request has not settled yet.
    pending: Option<(usize, (u64, u64))>,
    turn: u64,
    step: u64,
}

impl RequestLedger {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// The ledger of a whole event list.
    pub fn from_events(events: &[Arc<Event>]) -> Self {
        let mut l = RequestLedger::new();
        for (i, ev) in events.iter().enumerate() {
            l.apply(i, ev);
        }
        l
    }

    /// Folds the event at `index`; returns the request it settles, if any.
    pub fn apply(&mut self, index: usize, ev: &Event) -> Option<RequestRef> {
        let (index, failed, compaction) = match &ev.kind {
            EventKind::StepStart(s) => {
                (self.turn, self.step) = (s.turn, s.step);
                return None;
            }
            EventKind::AssistantMessage(d) => {
                (self.turn, self.step) = (d.turn, d.step);
                (index, false, None)
            }
            EventKind::AssistantAttempt(a) => {
                (self.turn, self.step) = (a.turn, a.step);
                (index, true, None)
            }
            EventKind::CompactionStart(c) => {
                self.pending = Some((index + 1, (c.start_seq, c.end_seq)));
                return None;
            }
            EventKind::CompactionSummary(_) => {
                let (at, region) = self.pending.take()?;
                (at, false, Some(region))
            }
            EventKind::CompactionEnd(_) => {
                let (at, region) = self.pending.take()?;
                (at, true, Some(region))
            }
            _ => return None,
        };
        let r = RequestRef {
            n: self.refs.len() + 1,
            index,
            turn: self.turn,
            step: self.step,
            failed,
            compaction,
        };
        self.refs.push(r);
        Some(r)
    }

    /// Every request so far, in order (`refs()[n - 1]` is request `n`).
    pub fn refs(&self) -> &[RequestRef] {
        &self.refs
    }

    /// Request `n` (from 1).
    pub fn get(&self, n: usize) -> Option<&RequestRef> {
        n.checked_sub(1).and_then(|i| self.refs.get(i))
    }

    /// How many requests have been numbered.
    pub fn len(&self) -> usize {
        self.refs.len()
    }

    /// No request yet.
    pub fn is_empty(&self) -> bool {
        self.refs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::event::{
        AssistantAttempt, AttemptError, CompactionEnd, CompactionStart, CompactionSummary,
    };

    fn ev(kind: EventKind) -> Arc<Event> {
        Arc::new(Event {
            kind,
            seq: 0,
            time: String::new(),
            surface_op: None,
            source_event_seqs: None,
        })
    }

    fn attempt(turn: u64, step: u64) -> Arc<Event> {
        ev(EventKind::AssistantAttempt(AssistantAttempt {
            turn,
            step,
            error: AttemptError {
                code: "server".into(),
                status: None,
                message: "x".into(),
                retried: true,
                detail: None,
            },
        }))
    }

    #[test]
    fn numbers_failed_attempts_and_compaction_requests_in_log_order() {
        let start = |a, b| {
            ev(EventKind::CompactionStart(CompactionStart {
                trigger: crate::session::event::CompactionTrigger::Manual,
                start_seq: a,
                end_seq: b,
            }))
        };
        let end = |ok: bool| {
            ev(EventKind::CompactionEnd(CompactionEnd {
                outcome: if ok {
                    crate::session::event::CompactionOutcome::Completed
                } else {
                    crate::session::event::CompactionOutcome::Failed
                },
                error: None,
            }))
        };
        let events = vec![
            attempt(1, 1),
            start(2, 5),
            ev(EventKind::CompactionSummary(CompactionSummary {
                text: "s".into(),
                usage: None,
            })),
            end(true),
            start(2, 7),
            end(false),
            // An end without a start settles nothing.
            end(false),
            attempt(2, 3),
        ];
        let l = RequestLedger::from_events(&events);
        let r = |n, index, failed, compaction, turn, step| RequestRef {
            n,
            index,
            turn,
            step,
            failed,
            compaction,
        };
        assert_eq!(
            l.refs(),
            [
                r(1, 0, true, None, 1, 1),
                r(2, 2, false, Some((2, 5)), 1, 1),
                r(3, 5, true, Some((2, 7)), 1, 1),
                r(4, 7, true, None, 2, 3),
            ]
        );
        assert_eq!(l.get(4).map(|r| r.turn), Some(2));
        assert!(l.get(0).is_none() && l.get(5).is_none());
    }
}
