//! The inspector on a subagent's request (SPEC §15.3: "the inspector opens any of
//! them"). A subagent's log is the parent's events up to its `parentSeq` followed by its
//! own ([`crate::agent::subagent::log::subagent_log`]), so its requests are rebuilt by the
//! same replay as the parent's ([`super::inspect_past`]) over that log, and compared with
//! the request before them there: for its first request, the parent's request that called
//! `task`, whose bytes it repeats.

use crate::agent::subagent::log::{subagent_log, subagents};
use crate::session::Session;
use crate::session::event::EventKind;
use crate::session::ledger::RequestLedger;

use super::{InspectError, InspectorData, KindOf, inspect_past};

/// The Trajectory's label of a subagent's request: `T3.S2·a1.S1` (the parent's turn and
/// step that called `task`, the subagent and its step).
pub fn subagent_label(turn: u64, parent_step: u64, agent: &str, step: u64) -> String {
    format!("T{turn}.S{parent_step}·{agent}.S{step}")
}

/// Inspector data for step `step` of subagent `agent` of `parent`, next to the request
/// before it in the subagent's log; both carry the Trajectory's label, except a parent
/// request, which keeps its number.
pub fn inspect_subagent(
    parent: &Session,
    agent: &str,
    step: u64,
    kind_of: KindOf<'_>,
) -> Result<InspectorData, InspectError> {
    let Some(start) = subagents(parent).into_iter().find(|s| s.agent == agent) else {
        return Err(InspectError::NoSuchSubagentRequest(subagent_label(
            0, 0, agent, step,
        )));
    };
    let label = |step: u64| subagent_label(start.turn, start.step, agent, step);
    let log = match subagent_log(parent, agent) {
        Some(log) => log?,
        None => return Err(InspectError::NoSuchSubagentRequest(label(step))),
    };
    let events = log.events();
    let ledger = RequestLedger::from_events(events);
    // The subagent's own settled requests: after the parent's events, in its log.
    let own = |r: &&crate::session::ledger::RequestRef| {
        !r.failed
            && events[r.index].seq > start.parent_seq
            && matches!(events[r.index].kind, EventKind::AssistantMessage(_))
    };
    let Some(at) = ledger.refs().iter().filter(own).find(|r| r.step == step) else {
        return Err(InspectError::NoSuchSubagentRequest(label(step)));
    };
    let mut data = inspect_past(events, at.n, kind_of)?;
    data.selected.label = Some(label(step));
    if let Some(prev) = data.previous.as_mut()
        && let Some(r) = prev.n.and_then(|n| ledger.get(n))
        && events[r.index].seq > start.parent_seq
    {
        prev.label = Some(label(r.step));
    }
    Ok(data)
}
