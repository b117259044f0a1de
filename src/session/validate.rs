//! Event validation on append and on load (SPEC §4, §12.3; reference E-1…E-3, E-7…E-14).
//!
//! [`Validator`] is incremental: it checks one candidate event against the events already
//! accepted (looked up by seq, never rescanned), so loading a log is linear in its length.
//! Surface-range rules (replacement ranges, cited shadowed nodes, E-2/E-15) need the
//! current surface and live in [`crate::session::surface::Surface::plan`].

use std::sync::Arc;

use serde_json::Value;

use crate::session::event::{
    Block, DeveloperMessageData, Event, EventKind, LOG_FORMAT, RequestHeaderData, Role, SurfaceOp,
};

/// A rejected event: which seq, which rule and what is wrong, in plain words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("event {seq} ({event_type}): {message} [{rule}]")]
pub struct ValidationError {
    /// Seq of the rejected event.
    pub seq: u64,
    /// Its type name (`developer/message`, …).
    pub event_type: &'static str,
    /// Rule identifier from the reference (`E-11`, `SPEC 12.3`, …).
    pub rule: &'static str,
    /// What is wrong (English, internal; callers wrap it in a localized frame).
    pub message: String,
}

impl ValidationError {
    /// An error for `ev` under `rule`.
    pub fn new(ev: &Event, rule: &'static str, message: impl Into<String>) -> Self {
        ValidationError {
            seq: ev.seq,
            event_type: ev.kind.type_name(),
            rule,
            message: message.into(),
        }
    }
}

/// Incremental validator: feed it every event in log order.
#[derive(Debug, Clone, Default)]
pub struct Validator {
    next_seq: u64,
}

impl Validator {
    /// A validator expecting seq 0 (`session/start`).
    pub fn new() -> Self {
        Validator::default()
    }

    /// The seq the next event must carry.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Checks `ev` as the next event after `log` (the events accepted so far, indexed by
    /// seq). Does not change state; call [`Validator::commit`] once the event is accepted.
    pub fn check(&self, ev: &Event, log: &[Arc<Event>]) -> Result<(), ValidationError> {
        self.check_envelope(ev)?;
        check_surface_metadata(ev)?;
        match &ev.kind {
            EventKind::SessionStart(start) if start.format != LOG_FORMAT => {
                return Err(ValidationError::new(
                    ev,
                    "E-1",
                    format!(
                        "unsupported log format {} (expected {LOG_FORMAT})",
                        start.format
                    ),
                ));
            }
            EventKind::RequestHeader(h) => check_header(ev, h)?,
            EventKind::DeveloperMessage(d) => check_developer(ev, d, log)?,
            _ => {}
        }
        if let Some(m) = ev.kind.message() {
            let is_dev_event = matches!(ev.kind, EventKind::DeveloperMessage(_));
            if is_dev_event != (m.role == Role::Developer) {
                return Err(ValidationError::new(
                    ev,
                    "E-7",
                    "developer/message and developer role must occur together",
                ));
            }
            if m.role != Role::Developer && m.content.iter().any(Block::is_tool_change) {
                return Err(ValidationError::new(
                    ev,
                    "E-8",
                    "tool-change blocks require developer role",
                ));
            }
        }
        Ok(())
    }

    /// Records that the event last checked was accepted.
    pub fn commit(&mut self) {
        self.next_seq += 1;
    }

    /// Checks and commits in one go (for callers that keep no separate log step).
    pub fn accept(&mut self, ev: &Event, log: &[Arc<Event>]) -> Result<(), ValidationError> {
        self.check(ev, log)?;
        self.commit();
        Ok(())
    }

    fn check_envelope(&self, ev: &Event) -> Result<(), ValidationError> {
        if ev.seq != self.next_seq {
            return Err(ValidationError::new(
                ev,
                "E-1",
                format!("seq is not contiguous; expected {}", self.next_seq),
            ));
        }
        let is_start = matches!(ev.kind, EventKind::SessionStart(_));
        if ev.seq == 0 && !is_start {
            return Err(ValidationError::new(
                ev,
                "E-1",
                "the first event (seq 0) must be session/start",
            ));
        }
        if ev.seq != 0 && is_start {
            return Err(ValidationError::new(
                ev,
                "E-1",
                "session/start may only appear at seq 0",
            ));
        }
        if chrono::DateTime::parse_from_rfc3339(&ev.time).is_err() {
            return Err(ValidationError::new(
                ev,
                "E-1",
                format!("time {:?} is not an RFC 3339 timestamp", ev.time),
            ));
        }
        Ok(())
    }
}

/// Event-local surface metadata (E-2): `surfaceOp` exactly on surface events, replace
/// ranges and cited seqs earlier than the event, cited seqs non-empty and distinct.
fn check_surface_metadata(ev: &Event) -> Result<(), ValidationError> {
    if !ev.kind.is_surface() {
        if ev.surface_op.is_some() {
            return Err(ValidationError::new(
                ev,
                "E-2",
                "a non-surface event cannot carry surfaceOp",
            ));
        }
        if ev.source_event_seqs.is_some() {
            return Err(ValidationError::new(
                ev,
                "E-2",
                "a non-surface event cannot carry sourceEventSeqs",
            ));
        }
        return Ok(());
    }
    let Some(op) = &ev.surface_op else {
        return Err(ValidationError::new(
            ev,
            "E-2",
            "a surface event requires surfaceOp",
        ));
    };
    if let SurfaceOp::Replace(r) = op
        && (r.start_seq >= ev.seq || r.end_seq >= ev.seq)
    {
        return Err(ValidationError::new(
            ev,
            "E-2",
            "replace startSeq and endSeq must reference earlier events",
        ));
    }
    if let Some(sources) = &ev.source_event_seqs {
        if matches!(ev.kind, EventKind::AssistantMessage(_)) {
            return Err(ValidationError::new(
                ev,
                "E-2",
                "assistant/message cannot carry sourceEventSeqs",
            ));
        }
        if sources.is_empty() {
            return Err(ValidationError::new(
                ev,
                "E-2",
                "sourceEventSeqs must not be empty",
            ));
        }
        let mut seen = std::collections::HashSet::with_capacity(sources.len());
        for &s in sources {
            if s >= ev.seq {
                return Err(ValidationError::new(
                    ev,
                    "E-2",
                    format!("sourceEventSeqs must reference earlier events: {s}"),
                ));
            }
            if !seen.insert(s) {
                return Err(ValidationError::new(
                    ev,
                    "E-2",
                    "sourceEventSeqs must not contain duplicates",
                ));
            }
        }
    }
    Ok(())
}

/// E-3: canonical header shape and reason fields.
fn check_header(ev: &Event, h: &RequestHeaderData) -> Result<(), ValidationError> {
    if matches!(&h.header.tools, Some(t) if t.is_empty()) {
        return Err(ValidationError::new(
            ev,
            "E-3",
            "request/header must omit empty tools",
        ));
    }
    if matches!(&h.header.adapter_defaults, Some(d) if d.reasoning_effort.is_none() && d.max_tokens.is_none())
    {
        return Err(ValidationError::new(
            ev,
            "E-3",
            "request/header must omit empty adapterDefaults",
        ));
    }
    if h.starts_series == Some(false) {
        return Err(ValidationError::new(
            ev,
            "E-3",
            "startsSeries must be true when present",
        ));
    }
    Ok(())
}

/// E-9…E-13 and SPEC §12.3 for one developer message.
fn check_developer(
    ev: &Event,
    d: &DeveloperMessageData,
    log: &[Arc<Event>],
) -> Result<(), ValidationError> {
    if d.message.content.is_empty() {
        return Err(ValidationError::new(
            ev,
            "SPEC 12.3",
            "developer/message must not be empty",
        ));
    }
    let mut has_additions = false;
    for b in &d.message.content {
        match b {
            Block::ToolAddition { tool_name, tool } => {
                if tool_name.is_empty() {
                    return Err(ValidationError::new(
                        ev,
                        "E-9",
                        "tool-addition requires a nonempty toolName",
                    ));
                }
                if tool.is_some() {
                    return Err(ValidationError::new(
                        ev,
                        "E-10",
                        "tool-addition must omit inline tool definitions",
                    ));
                }
                has_additions = true;
            }
            Block::ToolRemoval { tool_name } if tool_name.is_empty() => {
                return Err(ValidationError::new(
                    ev,
                    "E-9",
                    "tool-removal requires a nonempty toolName",
                ));
            }
            _ => {}
        }
    }
    if has_additions != d.header_seq.is_some() {
        return Err(ValidationError::new(
            ev,
            "E-11",
            "developer/message requires headerSeq exactly when tool additions are present",
        ));
    }
    let Some(h) = d.header_seq else {
        return Ok(());
    };
    let header = if h < ev.seq {
        log.get(h as usize).and_then(|e| match &e.kind {
            EventKind::RequestHeader(hd) if e.seq == h => Some(hd),
            _ => None,
        })
    } else {
        None
    };
    let Some(header) = header else {
        return Err(ValidationError::new(
            ev,
            "E-12",
            "developer/message headerSeq must reference an earlier request/header",
        ));
    };
    let tools = header.header.tools.as_deref().unwrap_or(&[]);
    for b in &d.message.content {
        let Block::ToolAddition { tool_name, .. } = b else {
            continue;
        };
        let mut found = tools.iter().filter(|t| &t.name == tool_name);
        let (Some(def), None) = (found.next(), found.next()) else {
            return Err(ValidationError::new(
                ev,
                "E-13",
                format!("tool-addition {tool_name:?} must name exactly one tool in headerSeq {h}"),
            ));
        };
        if !matches!(def.parameters, Value::Object(_)) {
            return Err(ValidationError::new(
                ev,
                "E-13",
                format!(
                    "tool-addition {tool_name:?} requires a complete tool definition in headerSeq {h}"
                ),
            ));
        }
        if def.defer_loading == Some(false) {
            return Err(ValidationError::new(
                ev,
                "E-13",
                "referenced tool deferLoading must be true when present",
            ));
        }
    }
    Ok(())
}
