//! A subagent's log inside its parent's (decision 0171): the sink that hands each of its
//! events to the parent's loop, and the subagent's whole log read back from the parent's.

use tokio::sync::mpsc;

use crate::session::event::{Event, EventKind};
use crate::session::{EventSink, Session, SessionError, SinkError};

/// What a running subagent asks of the parent's loop, the only writer of the log.
pub(crate) enum ToParent {
    /// Log this event of the subagent's conversation (wrapped in `subagent/event`).
    Event(String, Box<Event>),
    /// Make the log durable (before the subagent's request, as before every request).
    Sync,
    /// Decide this call through the parent's approvals (`inherit`); the answer is the
    /// call's error result when it does not run.
    Ask {
        agent: String,
        description: String,
        call: crate::agent::tool_runner::ToolCall,
        answer: tokio::sync::oneshot::Sender<Option<String>>,
    },
}

/// The subagent's log sink: every event it commits goes to the parent's loop.
pub(crate) struct ParentSink {
    pub(crate) agent: String,
    pub(crate) tx: mpsc::UnboundedSender<ToParent>,
}

impl EventSink for ParentSink {
    fn write(&mut self, ev: &Event) -> Result<(), SinkError> {
        self.tx
            .send(ToParent::Event(self.agent.clone(), Box::new(ev.clone())))
            .map_err(|_| SinkError::Write("the agent loop stopped".to_string()))
    }

    fn sync(&mut self) -> Result<(), SinkError> {
        self.tx
            .send(ToParent::Sync)
            .map_err(|_| SinkError::Sync("the agent loop stopped".to_string()))
    }
}

/// The ids of the subagents logged in `parent`, in start order.
pub fn subagents(parent: &Session) -> Vec<crate::session::subagent_event::SubagentStart> {
    parent
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SubagentStart(s) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

/// The next free subagent id of `parent` (`a1`, `a2`, …).
pub fn next_id(parent: &Session, offset: usize) -> String {
    let started = parent
        .events()
        .iter()
        .filter(|e| matches!(e.kind, EventKind::SubagentStart(_)))
        .count();
    format!("a{}", started + offset + 1)
}

/// The events a subagent's conversation starts from: the parent's up to `parent_seq`.
pub fn base_events(parent: &Session, parent_seq: u64) -> Vec<Event> {
    parent
        .events()
        .iter()
        .take_while(|e| e.seq <= parent_seq)
        .map(|e| (**e).clone())
        .collect()
}

/// Subagent `agent`'s whole log as the parent's log holds it: the parent's events up to
/// its `parentSeq`, then its own, unwrapped. `None` when no such subagent was started.
pub fn subagent_log(parent: &Session, agent: &str) -> Option<Result<Session, SessionError>> {
    let start = subagents(parent).into_iter().find(|s| s.agent == agent)?;
    let mut events = base_events(parent, start.parent_seq);
    events.extend(parent.events().iter().filter_map(|e| match &e.kind {
        EventKind::SubagentEvent(s) if s.agent == agent => Some((*s.event).clone()),
        _ => None,
    }));
    Some(Session::from_events(events))
}
