//! The session log and everything derived from it.
//!
//! [`Session`] is the one API the loop and the UI use: an in-memory event list that is
//! validated on every append (and on load, the same way), the surface fold with its
//! derived request messages, and the cached incremental tool-history fold.

pub mod checkpoint_event;
pub mod effort;
pub mod event;
pub mod fork;
pub mod hook_event;
pub mod ledger;
pub mod listing;
pub mod message_list;
pub mod open;
pub mod retry_event;
pub mod rewind;
pub mod rewound;
pub mod store;
pub mod subagent_event;
pub mod surface;
pub mod tail;
pub mod tool_history;
pub mod tool_ids;
pub mod tools_event;
pub mod validate;
pub mod vocab;
pub mod workspace;

use std::sync::Arc;

use event::{
    Event, EventKind, LOG_FORMAT, RequestContext, RequestHeaderData, SessionStart, SurfaceOp,
};
use surface::Surface;
use tool_history::{ToolHistoryError, ToolHistoryFold};
use validate::{ValidationError, Validator};
use vocab::ToolHistory;

/// Where committed events go (the JSONL store implements this).
pub trait EventSink {
    /// Writes one event (one line) and flushes it.
    fn write(&mut self, ev: &Event) -> Result<(), SinkError>;
    /// Makes everything written so far durable (fsync).
    fn sync(&mut self) -> Result<(), SinkError>;
}

/// Why an [`EventSink`] failed; the text is the cause as the sink reported it (English,
/// shown inside a localized frame).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SinkError {
    /// Writing or flushing an event line failed; the event is not committed.
    #[error("{0}")]
    Write(String),
    /// Making the written events durable (fsync) failed.
    #[error("{0}")]
    Sync(String),
}

/// Errors of [`Session`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// The event breaks a log rule; it was not added.
    #[error("invalid session event: {0}")]
    Invalid(#[from] ValidationError),
    /// The persistence sink failed; the event was not added.
    #[error("session log write failed: {0}")]
    Sink(#[from] SinkError),
    /// The tool-history fold failed.
    #[error("{0}")]
    ToolHistory(#[from] ToolHistoryError),
    /// `from_events` got an empty list.
    #[error("session log is empty (no session/start)")]
    Empty,
    /// An event holds a key value that could not be taken out; it was not added.
    #[error("could not redact a key value from an event: {0}")]
    Redaction(String),
}

impl SessionError {
    /// The error as a message in the interface language: what went wrong in deepterm's
    /// words, the sink's or a rule's own (English) text only as a quoted detail.
    pub fn text(&self) -> crate::i18n::Text {
        use crate::i18n::{Arg, Text};
        let (key, detail) = match self {
            SessionError::Invalid(e) => ("session-error-invalid", Some(e.to_string())),
            SessionError::Sink(SinkError::Write(d)) => ("session-error-write", Some(d.clone())),
            SessionError::Sink(SinkError::Sync(d)) => ("session-error-sync", Some(d.clone())),
            SessionError::ToolHistory(e) => ("session-error-tool-history", Some(e.to_string())),
            SessionError::Empty => ("session-error-empty", None),
            SessionError::Redaction(d) => ("session-error-redaction", Some(d.clone())),
        };
        let args = detail.map(|d| vec![("detail", Arg::Str(d))]);
        Text::new(key, args.unwrap_or_default())
    }
}

/// An open session: events, validation, surface and tool-history folds.
pub struct Session {
    id: String,
    events: Vec<Arc<Event>>,
    validator: Validator,
    surface: Surface,
    fold: ToolHistoryFold,
    consumed: usize,
    latest_header: Option<usize>,
    latest_context: Option<usize>,
    ledger: ledger::RequestLedger,
    sink: Option<Box<dyn EventSink + Send>>,
    /// Key values redacted from every live event before it is validated, logged and
    /// kept.
    secrets: crate::secret::Secrets,
    /// Seq ranges `[toSeq, rewindSeq)` taken back by conversation rewinds (SPEC §14.3).
    rewound: rewound::Rewound,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id)
            .field("events", &self.events.len())
            .field("content_generation", &self.surface.content_generation())
            .field("has_sink", &self.sink.is_some())
            .finish()
    }
}

/// Current time as RFC 3339 (UTC, milliseconds).
fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl Session {
    fn empty() -> Session {
        Session {
            id: String::new(),
            events: Vec::new(),
            validator: Validator::new(),
            surface: Surface::new(),
            fold: ToolHistoryFold::new(),
            consumed: 0,
            latest_header: None,
            latest_context: None,
            ledger: ledger::RequestLedger::new(),
            sink: None,
            secrets: crate::secret::Secrets::new(),
            rewound: rewound::Rewound::default(),
        }
    }

    /// A new session without persistence; appends `session/start`.
    pub fn new(id: impl Into<String>, cwd: impl Into<String>) -> Session {
        let mut s = Session::empty();
        s.start(id.into(), cwd.into())
            .map(|_| s)
            // Without a sink the only failure would be a validation bug in `start`.
            .unwrap_or_else(|_| Session::empty())
    }

    /// A new session writing to `sink`; `session/start` is the first event written.
    pub fn create(
        id: impl Into<String>,
        cwd: impl Into<String>,
        sink: Box<dyn EventSink + Send>,
    ) -> Result<Session, SessionError> {
        let mut s = Session::empty();
        s.sink = Some(sink);
        s.start(id.into(), cwd.into())?;
        Ok(s)
    }

    fn start(&mut self, id: String, cwd: String) -> Result<(), SessionError> {
        self.id = id.clone();
        self.append(
            EventKind::SessionStart(SessionStart {
                format: LOG_FORMAT,
                id,
                cwd,
                app_version: env!("CARGO_PKG_VERSION").to_string(),
                forked_from: None,
            }),
            None,
        )?;
        Ok(())
    }

    /// Restores a session from loaded events (resume), validating every event with the
    /// same rules as live appends (E-14). The tool-history fold consumes them lazily on
    /// the first [`Session::tool_history`] call (F-1).
    pub fn from_events(events: Vec<Event>) -> Result<Session, SessionError> {
        Session::from_events_indexed(events).map_err(|(_, e)| e)
    }

    /// Like [`Session::from_events`], but a failure also gives the 0-based index of the
    /// event that broke a rule (0 for an empty list), so a loader can name the line.
    pub fn from_events_indexed(events: Vec<Event>) -> Result<Session, (usize, SessionError)> {
        let mut s = Session::empty();
        s.events.reserve(events.len());
        for (i, ev) in events.into_iter().enumerate() {
            s.accept(ev).map_err(|e| (i, e))?;
        }
        match s.events.first().map(|e| &e.kind) {
            Some(EventKind::SessionStart(start)) => s.id = start.id.clone(),
            _ => return Err((0, SessionError::Empty)),
        }
        Ok(s)
    }

    /// Sets (or replaces) the persistence sink. Events already in the session are not
    /// re-written.
    pub fn set_sink(&mut self, sink: Box<dyn EventSink + Send>) {
        self.sink = Some(sink);
    }

    /// Sets the key values to redact from every event appended from now on. Since every
    /// request is built from the log alone, nothing appended can carry a
    /// key into a request either. Events already in the session (a
    /// loaded log) are kept as they are.
    pub fn set_secrets(&mut self, secrets: crate::secret::Secrets) {
        self.secrets = secrets;
    }

    /// The key values redacted from appended events.
    pub fn secrets(&self) -> &crate::secret::Secrets {
        &self.secrets
    }

    /// fsyncs the sink (no-op without one).
    pub fn sync(&mut self) -> Result<(), SessionError> {
        match &mut self.sink {
            Some(s) => s.sync().map_err(SessionError::Sink),
            None => Ok(()),
        }
    }

    /// Validates, persists and adds one event (seq and time assigned here). Nothing is
    /// added when validation or the sink write fails.
    pub fn append(
        &mut self,
        kind: EventKind,
        surface_op: Option<SurfaceOp>,
    ) -> Result<Arc<Event>, SessionError> {
        self.append_with_sources(kind, surface_op, None)
    }

    /// Appends a surface event with `surfaceOp: append`, or a log-only event without one.
    pub fn push(&mut self, kind: EventKind) -> Result<Arc<Event>, SessionError> {
        let op = kind.is_surface().then(SurfaceOp::append);
        self.append(kind, op)
    }

    /// Appends a surface event replacing the current nodes `start_seq..=end_seq`,
    /// citing exactly the shadowed nodes in `sourceEventSeqs`.
    pub fn replace(
        &mut self,
        kind: EventKind,
        start_seq: u64,
        end_seq: u64,
    ) -> Result<Arc<Event>, SessionError> {
        let sources = self.surface.shadowed_by(start_seq, end_seq);
        self.append_with_sources(kind, Some(SurfaceOp::replace(start_seq, end_seq)), sources)
    }

    /// Appends with explicit `surfaceOp` and `sourceEventSeqs`.
    pub fn append_with_sources(
        &mut self,
        kind: EventKind,
        surface_op: Option<SurfaceOp>,
        source_event_seqs: Option<Vec<u64>>,
    ) -> Result<Arc<Event>, SessionError> {
        // The one choke point for what is logged and, through the log, sent: system,
        // developer, user and assistant text, tool calls and results, tool schemas.
        let kind = match self.secrets.redact_serde(&kind) {
            Ok(Some(redacted)) => redacted,
            Ok(None) => kind,
            Err(e) => return Err(SessionError::Redaction(e.to_string())),
        };
        let ev = Event {
            kind,
            seq: self.validator.next_seq(),
            time: now_rfc3339(),
            surface_op,
            source_event_seqs,
        };
        self.accept(ev)
    }

    /// Validates an event as the next one, writes it to the sink, then adds it.
    fn accept(&mut self, ev: Event) -> Result<Arc<Event>, SessionError> {
        self.validator.check(&ev, &self.events)?;
        self.check_rewind(&ev)?;
        let plan = self.surface.plan(&ev)?;
        if let Some(sink) = &mut self.sink {
            sink.write(&ev).map_err(SessionError::Sink)?;
        }
        self.validator.commit();
        self.surface.apply(&ev, plan);
        let idx = self.events.len();
        match &ev.kind {
            EventKind::RequestHeader(_) => self.latest_header = Some(idx),
            EventKind::RequestContext(_) => self.latest_context = Some(idx),
            _ => {}
        }
        self.ledger.apply(idx, &ev);
        let ev = Arc::new(ev);
        self.events.push(ev.clone());
        // A rewind of the conversation rebuilds the folds without what it took back.
        self.apply_rewind(&ev);
        Ok(ev)
    }

    /// The request ledger: every request, attempt and compaction request, numbered.
    pub fn ledger(&self) -> &ledger::RequestLedger {
        &self.ledger
    }

    /// The session id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Every event, in seq order.
    pub fn events(&self) -> &[Arc<Event>] {
        &self.events
    }

    /// The surface (nodes, derived messages, generation).
    pub fn surface(&self) -> &Surface {
        &self.surface
    }

    /// Request messages derived from the current surface (O(1): a shared snapshot).
    pub fn derive_messages(&self) -> message_list::MessageList {
        self.surface.derive_messages()
    }

    /// Monotonic count of surface replacements (L-1b).
    pub fn content_generation(&self) -> u64 {
        self.surface.content_generation()
    }

    /// The latest `request/header` with its seq.
    pub fn latest_header(&self) -> Option<(u64, &RequestHeaderData)> {
        let ev = self.events.get(self.latest_header?)?;
        match &ev.kind {
            EventKind::RequestHeader(h) => Some((ev.seq, h)),
            _ => None,
        }
    }

    /// The latest `request/context`.
    pub fn latest_context(&self) -> Option<&RequestContext> {
        match &self.events.get(self.latest_context?)?.kind {
            EventKind::RequestContext(c) => Some(c),
            _ => None,
        }
    }

    /// The tool-history snapshot, folding only events not seen before (F-1).
    pub fn tool_history(&mut self) -> Result<Arc<ToolHistory>, SessionError> {
        while self.consumed < self.events.len() {
            let ev = &self.events[self.consumed];
            if !self.is_rewound(ev.seq) {
                self.fold.apply(ev)?;
            }
            self.consumed += 1;
        }
        Ok(self.fold.snapshot())
    }

    /// The tool bridge's fold snapshot (SPEC §15.1): like [`Session::tool_history`], but
    /// a same-name redeclaration does not restart it.
    pub fn bridge_history(&mut self) -> Result<Arc<ToolHistory>, SessionError> {
        self.tool_history()?;
        Ok(self.fold.bridge_snapshot())
    }

    /// The tools the model could call at the end of the log (the fold's available names,
    /// sorted); `None` before the first request. Resume restores this set.
    pub fn available_tool_names(&mut self) -> Result<Option<Vec<String>>, SessionError> {
        self.tool_history()?;
        Ok(self.fold.available_names())
    }

    /// Number of events the tool-history fold has consumed (F-1 accounting).
    pub fn tool_history_folded_events(&self) -> u64 {
        self.fold.folded_events()
    }
}

#[cfg(test)]
mod listing_tests;
#[cfg(test)]
mod rewind_tests;
#[cfg(test)]
mod store_proptest;
#[cfg(test)]
pub(crate) mod tests;
