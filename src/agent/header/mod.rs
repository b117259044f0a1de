//! Request headers: canonical form and identity (D-8, E-3), and the per-attempt
//! `request/header` + tool-registry `developer/message` logging (L-1…L-6).
//!
//! [`plan_header`] is the pure decision; [`apply_header_plan`] writes it to a
//! [`Session`]; [`log_request_header`] is the one call the loop makes per attempt.

use std::collections::HashSet;
use std::sync::Arc;

use crate::agent::prompt::RequestSeries;
use crate::session::event::{
    Block, CallConfig, DeveloperMessageData, Event, EventKind, HeaderReason, Message,
    RequestHeader, RequestHeaderData, Role, Source,
};
pub use crate::session::tool_history::tools_equal;
use crate::session::{Session, SessionError};

/// Source kind of loop-made developer messages.
pub const TOOL_REGISTRY_SOURCE: &str = "tool-registry";

/// Canonical form (D-8, E-3): an empty tool list and an `adapterDefaults` without a
/// `true` marker are dropped.
pub fn canonical_header(mut h: RequestHeader) -> RequestHeader {
    if h.tools.as_ref().is_some_and(|t| t.is_empty()) {
        h.tools = None;
    }
    if h.adapter_defaults
        .as_ref()
        .is_some_and(|d| d.reasoning_effort != Some(true) && d.max_tokens != Some(true))
    {
        h.adapter_defaults = None;
    }
    h
}

/// Field-wise equality of call configs.
pub fn call_config_equals(a: &CallConfig, b: &CallConfig) -> bool {
    a == b
}

/// Header identity over canonical headers (D-8).
pub fn header_equals(a: &RequestHeader, b: &RequestHeader) -> bool {
    let marker = |h: &RequestHeader| {
        h.adapter_defaults
            .as_ref()
            .map(|d| (d.reasoning_effort, d.max_tokens))
            .unwrap_or((None, None))
    };
    call_config_equals(&a.config, &b.config)
        && marker(a) == marker(b)
        && tools_equal(
            a.tools.as_deref().unwrap_or(&[]),
            b.tools.as_deref().unwrap_or(&[]),
        )
}

/// The `request/header` event an attempt owes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderWrite {
    /// Why it is written.
    pub reason: HeaderReason,
    /// Whether it carries `startsSeries: true`.
    pub starts_series: bool,
}

/// What one attempt must append (L-2, L-5).
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderPlan {
    /// The header to append, if any.
    pub header: Option<HeaderWrite>,
    /// Blocks of the tool-registry developer message (empty = none owed).
    pub developer_blocks: Vec<Block>,
    /// Whether that message must carry `headerSeq` (it has an addition, E-11).
    pub header_seq_owed: bool,
}

/// Decides the header and developer message of one attempt (L-2…L-6).
///
/// `baseline` is the latest logged header (`None` when the log has none),
/// `first_request` whether this loop instance has not logged a header yet, and
/// `starts_series` the L-1 condition. `candidate` should be canonical.
pub fn plan_header(
    baseline: Option<&RequestHeader>,
    candidate: &RequestHeader,
    first_request: bool,
    starts_series: bool,
) -> HeaderPlan {
    let header = if first_request {
        Some(HeaderWrite {
            reason: if baseline.is_none() {
                HeaderReason::Initial
            } else {
                HeaderReason::Resume
            },
            starts_series,
        })
    } else if baseline.is_none_or(|b| !header_equals(b, candidate)) {
        Some(HeaderWrite {
            reason: HeaderReason::Change,
            starts_series,
        })
    } else if starts_series {
        Some(HeaderWrite {
            reason: HeaderReason::Series,
            starts_series: false,
        })
    } else {
        None
    };
    let mut developer_blocks = Vec::new();
    let mut header_seq_owed = false;
    // L-5: only a baseline plus an initial/resume/change header can owe a message.
    if let (Some(b), Some(w)) = (baseline, header)
        && w.reason != HeaderReason::Series
    {
        let before = b.tools.as_deref().unwrap_or(&[]);
        let now = candidate.tools.as_deref().unwrap_or(&[]);
        let before_names: HashSet<&str> = before.iter().map(|t| t.name.as_str()).collect();
        let now_names: HashSet<&str> = now.iter().map(|t| t.name.as_str()).collect();
        for t in now
            .iter()
            .filter(|t| !before_names.contains(t.name.as_str()))
        {
            developer_blocks.push(Block::addition(t.name.clone()));
            header_seq_owed = true;
        }
        for t in before
            .iter()
            .filter(|t| !now_names.contains(t.name.as_str()))
        {
            developer_blocks.push(Block::removal(t.name.clone()));
        }
    }
    HeaderPlan {
        header,
        developer_blocks,
        header_seq_owed,
    }
}

/// The events an applied plan appended.
#[derive(Debug, Clone, Default)]
pub struct AppliedHeader {
    /// The `request/header` event, if one was written.
    pub header: Option<Arc<Event>>,
    /// The tool-registry `developer/message` event, if one was written.
    pub developer: Option<Arc<Event>>,
}

/// Appends the plan's header (with `candidate`) and then its developer message
/// (source `tool-registry`, fresh id, `headerSeq` only when it has an addition).
pub fn apply_header_plan(
    session: &mut Session,
    plan: &HeaderPlan,
    candidate: &RequestHeader,
    turn: u64,
    step: u64,
) -> Result<AppliedHeader, SessionError> {
    let mut out = AppliedHeader::default();
    let Some(w) = plan.header else {
        return Ok(out);
    };
    let header_ev = session.push(EventKind::RequestHeader(RequestHeaderData {
        header: candidate.clone(),
        reason: w.reason,
        starts_series: w.starts_series.then_some(true),
    }))?;
    let header_seq = header_ev.seq;
    out.header = Some(header_ev);
    if !plan.developer_blocks.is_empty() {
        let message = Message::new(
            Role::Developer,
            plan.developer_blocks.clone(),
            Source::kind(TOOL_REGISTRY_SOURCE),
        );
        out.developer = Some(
            session.push(EventKind::DeveloperMessage(DeveloperMessageData {
                turn,
                step,
                message,
                header_seq: plan.header_seq_owed.then_some(header_seq),
            }))?,
        );
    }
    Ok(out)
}

/// What [`log_request_header`] did.
#[derive(Debug, Clone)]
pub struct HeaderOutcome {
    /// The canonical header this request uses (the latest header after the call).
    pub header: RequestHeader,
    /// The decision.
    pub plan: HeaderPlan,
    /// The events written.
    pub applied: AppliedHeader,
}

/// The loop's per-attempt call, after prompt reconciliation and user input (E-16):
/// computes L-1 from `series`, plans against the latest logged header, appends the
/// owed header and developer message, and records the request in `series`.
pub fn log_request_header(
    session: &mut Session,
    series: &mut RequestSeries,
    candidate: RequestHeader,
    explicit_series_start: bool,
    turn: u64,
    step: u64,
) -> Result<HeaderOutcome, SessionError> {
    let candidate = canonical_header(candidate);
    let generation = session.content_generation();
    let starts = series.starts_series(session, explicit_series_start);
    let plan = plan_header(
        session.latest_header().map(|(_, h)| &h.header),
        &candidate,
        series.is_first_request(),
        starts,
    );
    let applied = apply_header_plan(session, &plan, &candidate, turn, step)?;
    series.record_request(generation);
    Ok(HeaderOutcome {
        header: candidate,
        plan,
        applied,
    })
}

#[cfg(test)]
mod tests;
