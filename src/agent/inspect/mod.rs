//! The request inspector (SPEC §10 "Inspector", §12.1): any past request is rebuilt from
//! the session log alone, and two requests are compared for where their bytes first
//! differ and why.
//!
//! Requests are numbered from 1 over `assistant/message` and `assistant/attempt` events
//! (a failed attempt is a request too) and compaction summarizer requests (settled by
//! `compaction/summary`, or by a failed `compaction/end`), the same numbering as the
//! Trajectory pane: both read the one request ledger ([`crate::session::ledger`]), and
//! requests are rebuilt by the loop's own builder ([`crate::agent::request`]). A step request settled by the event at index `S` was built from
//! `events[..S]`: nothing is logged between dispatch and settlement, so replaying that
//! prefix gives its messages, tool history, header and route. A compaction request was
//! built right after its `compaction/start` from the region that event names.

pub mod account;
pub mod data;
pub mod subagent;

use std::sync::Arc;

use serde_json::Value;

use crate::agent::request::{RequestError, RequestTarget, logged_request};
use crate::i18n::{Arg, Localizer};
use crate::llm::client::{SerializedBody, build_request};
use crate::llm::types::{GenerateOptions, LlmError, Route};
use crate::session::event::{
    Block, Event, EventKind, HeaderReason, RequestContext, SurfaceOp, ToolRemoval, ToolUpdateMode,
};
use crate::session::ledger::RequestLedger;
use crate::session::{Session, SessionError};

pub use crate::agent::inspect::account::divergence_line;
pub use crate::agent::inspect::data::{DiffReason, Divergence, InspectedRequest, InspectorData};

/// Errors of the reconstruction.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    /// Replaying the log failed.
    #[error("{0}")]
    Session(#[from] SessionError),
    /// The request could not be serialized.
    #[error("{0}")]
    Llm(#[from] LlmError),
    /// No request with this number.
    #[error("no request #{0}")]
    NoSuchRequest(usize),
    /// The log has no `request/context` before the request.
    #[error("request #{0} has no request/context before it")]
    NoContext(usize),
    /// The provider's protocol is unknown.
    #[error("unknown provider \"{0}\"")]
    UnknownProvider(String),
    /// No subagent request with this label (`T3.S2·a1.S1`).
    #[error("no subagent request {0}")]
    NoSuchSubagentRequest(String),
}

impl InspectError {
    /// The error in the interface language: deepterm's words, a library's own text only
    /// as a quoted detail.
    pub fn text(&self) -> crate::i18n::Text {
        use crate::i18n::{Arg, Text};
        match self {
            InspectError::Session(e) => e.text(),
            InspectError::Llm(e) => Text::new(
                e.code.message_id(),
                vec![("message", Arg::from(e.message.clone()))],
            ),
            InspectError::NoSuchRequest(n) => {
                Text::new("inspect-no-request", vec![("n", Arg::from(*n))])
            }
            InspectError::NoContext(n) => {
                Text::new("inspect-no-context", vec![("n", Arg::from(*n))])
            }
            InspectError::UnknownProvider(p) => Text::new(
                "inspect-unknown-provider",
                vec![("provider", Arg::from(p.as_str()))],
            ),
            InspectError::NoSuchSubagentRequest(label) => Text::new(
                "inspect-no-subagent-request",
                vec![("label", Arg::from(label.as_str()))],
            ),
        }
    }
}

pub use crate::session::ledger::RequestRef;

/// Every request of a log, in order (the session's request ledger over `events`).
pub fn request_refs(events: &[Arc<Event>]) -> Vec<RequestRef> {
    RequestLedger::from_events(events).refs().to_vec()
}

/// A rebuilt request.
#[derive(Debug, Clone)]
pub struct Reconstructed {
    /// Which request.
    pub at: RequestRef,
    /// The options the loop built.
    pub opts: GenerateOptions,
    /// The projected wire body and beta header.
    pub wire: SerializedBody,
}

pub use crate::agent::request::KindOf;

/// Rebuilds the requests numbered `wanted` with one incremental replay of the log (the
/// cost is one pass over the events up to the last wanted request). Results are in
/// request order.
pub fn reconstruct(
    events: &[Arc<Event>],
    wanted: &[usize],
    kind_of: KindOf<'_>,
) -> Result<Vec<Reconstructed>, InspectError> {
    let ledger = RequestLedger::from_events(events);
    let mut targets: Vec<RequestRef> = Vec::with_capacity(wanted.len());
    for &n in wanted {
        let r = ledger.get(n).ok_or(InspectError::NoSuchRequest(n))?;
        targets.push(*r);
    }
    targets.sort_by_key(|r| r.n);
    targets.dedup();
    let Some(first) = events.first() else {
        return Err(SessionError::Empty.into());
    };
    let mut session = Session::from_events(vec![(**first).clone()])?;
    let mut out = Vec::with_capacity(targets.len());
    let mut next = 1;
    for t in targets {
        while next < t.index {
            let ev = &events[next];
            session.append_with_sources(
                ev.kind.clone(),
                ev.surface_op.clone(),
                ev.source_event_seqs.clone(),
            )?;
            next += 1;
        }
        let target = match t.compaction {
            Some((start_seq, end_seq)) => RequestTarget::Compaction { start_seq, end_seq },
            None => RequestTarget::Step,
        };
        let opts = logged_request(&mut session, kind_of, target).map_err(|e| match e {
            RequestError::Session(e) => InspectError::Session(e),
            RequestError::NoContext => InspectError::NoContext(t.n),
            RequestError::UnknownProvider(p) => InspectError::UnknownProvider(p),
        })?;
        let wire = build_request(&opts)?;
        out.push(Reconstructed { at: t, opts, wire });
    }
    Ok(out)
}

/// What a stretch of logged events did to the next request's prefix, folded one event at
/// a time. The inspector's why-line ([`classify`]) and the Trajectory's cache-break reason
/// both use it, so they always agree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReasonFold {
    seen: Vec<Seen>,
    /// Tool additions appended.
    pub added: usize,
    /// Tool removals appended.
    pub removed: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    Compaction,
    Series,
    Consolidation,
    Prompt,
    Addition,
    Removal,
    Rewind,
    Downgrade,
}

impl ReasonFold {
    /// An empty fold (nothing logged since the previous request).
    pub fn new() -> Self {
        Self::default()
    }

    fn note(&mut self, s: Seen) {
        if !self.seen.contains(&s) {
            self.seen.push(s);
        }
    }

    /// Folds one event logged after the previous request settled.
    pub fn observe(&mut self, ev: &Event) {
        let replace = matches!(ev.surface_op, Some(SurfaceOp::Replace(_)));
        match &ev.kind {
            EventKind::RequestHeader(h)
                if h.starts_series == Some(true) || h.reason == HeaderReason::Series =>
            {
                self.note(Seen::Series)
            }
            EventKind::SessionRewind(r) if r.scope.conversation() => self.note(Seen::Rewind),
            EventKind::CompactionStart(_) | EventKind::CompactionEnd(_) => {
                self.note(Seen::Compaction)
            }
            EventKind::RouteDowngrade(_) => self.note(Seen::Downgrade),
            EventKind::SystemMessage(_) if replace => self.note(Seen::Consolidation),
            EventKind::SystemMessage(_) => self.note(Seen::Prompt),
            EventKind::DeveloperMessage(d) => {
                for b in &d.message.content {
                    match b {
                        Block::ToolAddition { .. } => {
                            self.added += 1;
                            self.note(Seen::Addition)
                        }
                        Block::ToolRemoval { .. } => {
                            self.removed += 1;
                            self.note(Seen::Removal)
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    /// The reasons, prefix-breaking ones first, given the route contexts of the previous
    /// and the selected request and whether their bodies are byte-identical.
    pub fn reasons(
        &self,
        prev_ctx: Option<&RequestContext>,
        sel_ctx: Option<&RequestContext>,
        bodies_equal: bool,
    ) -> Vec<DiffReason> {
        let mut out = Vec::new();
        let add = |r: DiffReason, out: &mut Vec<DiffReason>| {
            if !out.contains(&r) {
                out.push(r);
            }
        };
        let mode = sel_ctx.and_then(|c| c.caps.tool_update);
        let retain = sel_ctx.is_some_and(|c| c.caps.tool_removal == ToolRemoval::Retain);
        // A compaction starts a series of its own: it is named, in the Trajectory's words.
        let compacted = self.seen.contains(&Seen::Compaction);
        for s in &self.seen {
            let r = match s {
                Seen::Compaction => DiffReason::Compacted,
                Seen::Series if compacted => continue,
                Seen::Series => DiffReason::NewSeries,
                Seen::Rewind => DiffReason::AfterRewind,
                Seen::Consolidation => DiffReason::Consolidation,
                Seen::Prompt => DiffReason::PromptUpdateAppended,
                Seen::Addition => DiffReason::ToolAdditionAppended,
                Seen::Removal if mode == Some(ToolUpdateMode::AdditionOnly) => {
                    if retain {
                        DiffReason::RemovalRetained
                    } else {
                        DiffReason::RemovalOnAdditionOnly
                    }
                }
                Seen::Removal => DiffReason::ToolRemovalAppended,
                Seen::Downgrade => DiffReason::RouteDowngraded,
            };
            add(r, &mut out);
        }
        let route_of = |c: &RequestContext| {
            (
                c.provider.clone(),
                c.model.clone(),
                c.caps.system_prompt_update,
                c.caps.tool_update,
                c.caps.tool_removal,
            )
        };
        // A downgrade names the route change it made (in the provider's terms).
        let downgraded = self.seen.contains(&Seen::Downgrade);
        if let (Some(p), Some(s)) = (prev_ctx, sel_ctx)
            && route_of(p) != route_of(s)
            && !(downgraded && (&p.provider, &p.model) == (&s.provider, &s.model))
        {
            let model = (&p.provider, &p.model) != (&s.provider, &s.model);
            let r = match model {
                true => DiffReason::ModelChanged,
                false => DiffReason::RouteChanged,
            };
            add(r, &mut out);
        }
        if out.is_empty() {
            out.push(if bodies_equal {
                DiffReason::Identical
            } else {
                DiffReason::HistoryAppended
            });
        }
        // Prefix-breaking reasons first.
        out.sort_by_key(|r| match r {
            DiffReason::AfterRewind => 0,
            DiffReason::Compacted
            | DiffReason::NewSeries
            | DiffReason::Consolidation
            | DiffReason::RemovalOnAdditionOnly => 0,
            DiffReason::ModelChanged | DiffReason::RouteChanged => 1,
            _ => 2,
        });
        out
    }
}

/// Classifies the events logged between two requests (`between` = the events after the
/// previous request settled up to the selected request's dispatch).
pub fn classify(
    between: &[Arc<Event>],
    prev_ctx: Option<&RequestContext>,
    sel_ctx: Option<&RequestContext>,
    bodies_equal: bool,
) -> Vec<DiffReason> {
    let mut fold = ReasonFold::new();
    for ev in between {
        fold.observe(ev);
    }
    fold.reasons(prev_ctx, sel_ctx, bodies_equal)
}

fn short(s: &str, max: usize) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > max {
        let t: String = one.chars().take(max).collect();
        format!("{t}…")
    } else {
        one
    }
}

/// A call's tool as the summary names it: a bridged call is `call_tool(word_count)`, the
/// wire's name with the real tool it runs (§15.1).
fn called(name: &str, args: Option<&Value>) -> String {
    match args.and_then(|a| a.get("name")).and_then(Value::as_str) {
        Some(real) if name == crate::llm::bridge::CALL_TOOL => format!("{name}({real})"),
        _ => name.to_string(),
    }
}

fn block_summary(b: &Value) -> String {
    let ty = b.get("type").and_then(Value::as_str).unwrap_or("?");
    let detail = match ty {
        "text" => b
            .get("text")
            .and_then(Value::as_str)
            .map(|t| format!("\"{}\"", short(t, 40))),
        "tool_use" => b
            .get("name")
            .and_then(Value::as_str)
            .map(|n| called(n, b.get("input"))),
        "tool_result" => b
            .get("tool_use_id")
            .and_then(Value::as_str)
            .map(str::to_string),
        "tool_addition" | "tool_removal" => b
            .pointer("/tool/name")
            .and_then(Value::as_str)
            .map(str::to_string),
        _ => None,
    };
    match detail {
        Some(d) => format!("{ty} {d}"),
        None => ty.to_string(),
    }
}

/// One-line summary of a wire message (`system: tool_addition fetch`).
pub fn message_summary(m: &Value) -> String {
    let role = m.get("role").and_then(Value::as_str).unwrap_or("?");
    let mut parts = Vec::new();
    match m.get("content") {
        Some(Value::String(s)) => parts.push(format!("text \"{}\"", short(s, 40))),
        Some(Value::Array(blocks)) => parts.extend(blocks.iter().map(block_summary)),
        _ => {}
    }
    if let Some(calls) = m.get("tool_calls").and_then(Value::as_array) {
        for c in calls {
            let name = c.pointer("/function/name").and_then(Value::as_str);
            let args = c
                .pointer("/function/arguments")
                .and_then(Value::as_str)
                .and_then(|a| serde_json::from_str::<Value>(a).ok());
            let name = name.map(|n| called(n, args.as_ref()));
            parts.push(format!("tool_call {}", name.as_deref().unwrap_or("?")));
        }
    }
    if let Some(id) = m.get("tool_call_id").and_then(Value::as_str) {
        parts.push(format!("tool_call_id {id}"));
    }
    format!("{role}: {}", parts.join(", "))
}

fn tool_entry(t: &Value) -> (String, bool) {
    let name = t
        .get("name")
        .or_else(|| t.pointer("/function/name"))
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string();
    (name, t.get("defer_loading") == Some(&Value::Bool(true)))
}

fn system_text(body: &Value) -> Option<String> {
    match body.get("system")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(blocks) => Some(
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => None,
    }
}

fn array<'a>(body: &'a Value, key: &str) -> &'a [Value] {
    body.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// The inspector's view of a serialized request.
pub fn inspected(n: Option<usize>, route: &Route, wire: &SerializedBody) -> InspectedRequest {
    InspectedRequest {
        n,
        label: None,
        route: route.id(),
        system: system_text(&wire.body),
        tools: array(&wire.body, "tools").iter().map(tool_entry).collect(),
        messages: array(&wire.body, "messages")
            .iter()
            .map(message_summary)
            .collect(),
        body: wire.body.to_string(),
        beta: wire.beta.clone(),
    }
}

fn first_difference(a: &[Value], b: &[Value]) -> Option<usize> {
    let common = a.len().min(b.len());
    (0..common)
        .find(|&i| a[i] != b[i])
        .or((a.len() != b.len()).then_some(common))
}

/// Where two serialized requests first differ.
pub fn divergence(prev: &SerializedBody, sel: &SerializedBody) -> Divergence {
    let (a, b) = (prev.body.to_string(), sel.body.to_string());
    let body_offset = a
        .bytes()
        .zip(b.bytes())
        .position(|(x, y)| x != y)
        .or((a.len() != b.len()).then_some(a.len().min(b.len())));
    Divergence {
        body_offset,
        system: prev.body.get("system") != sel.body.get("system"),
        tool: first_difference(array(&prev.body, "tools"), array(&sel.body, "tools")),
        message: first_difference(array(&prev.body, "messages"), array(&sel.body, "messages")),
    }
}

fn context_before(events: &[Arc<Event>]) -> Option<&RequestContext> {
    events.iter().rev().find_map(|e| match &e.kind {
        EventKind::RequestContext(c) => Some(c),
        _ => None,
    })
}

/// Inspector data for past request `n` (compared with request `n - 1`).
pub fn inspect_past(
    events: &[Arc<Event>],
    n: usize,
    kind_of: KindOf<'_>,
) -> Result<InspectorData, InspectError> {
    // Name the request asked for, not its predecessor, when neither exists.
    if RequestLedger::from_events(events).get(n).is_none() {
        return Err(InspectError::NoSuchRequest(n));
    }
    let wanted: Vec<usize> = if n > 1 { vec![n - 1, n] } else { vec![n] };
    let mut rebuilt = reconstruct(events, &wanted, kind_of)?;
    let Some(sel) = rebuilt.pop() else {
        return Err(InspectError::NoSuchRequest(n));
    };
    let prev = rebuilt.pop();
    Ok(compare(
        events,
        prev.as_ref(),
        &sel.opts.route,
        &sel.wire,
        Some(n),
        sel.at.index,
    ))
}

/// Inspector data for the next request (`opts`, built over `events`, the log plus what the
/// next attempt would append) compared with the last request sent.
pub fn inspect_next(
    events: &[Arc<Event>],
    opts: &GenerateOptions,
    kind_of: KindOf<'_>,
) -> Result<InspectorData, InspectError> {
    let wire = build_request(opts)?;
    let ledger = RequestLedger::from_events(events);
    let prev = match ledger.refs().last() {
        Some(last) => reconstruct(events, &[last.n], kind_of)?.pop(),
        None => None,
    };
    Ok(compare(
        events,
        prev.as_ref(),
        &opts.route,
        &wire,
        None,
        events.len(),
    ))
}

fn compare(
    events: &[Arc<Event>],
    prev: Option<&Reconstructed>,
    sel_route: &Route,
    sel_wire: &SerializedBody,
    sel_n: Option<usize>,
    sel_index: usize,
) -> InspectorData {
    let selected = inspected(sel_n, sel_route, sel_wire);
    let Some(prev) = prev else {
        return InspectorData {
            previous: None,
            selected,
            divergence: Divergence::default(),
            reasons: vec![DiffReason::FirstRequest],
        };
    };
    let div = divergence(&prev.wire, sel_wire);
    let start = (prev.at.index + 1).min(sel_index);
    let reasons = classify(
        &events[start..sel_index],
        context_before(&events[..prev.at.index]),
        context_before(&events[..sel_index]),
        div.body_offset.is_none(),
    );
    InspectorData {
        previous: Some(inspected(Some(prev.at.n), &prev.opts.route, &prev.wire)),
        selected,
        divergence: div,
        reasons,
    }
}

/// A request's title: its number, a subagent's label, or "the next request".
pub fn request_title(l: Localizer, r: &InspectedRequest) -> String {
    match (&r.label, r.n) {
        (Some(label), _) => l.tra(
            "tui-inspector-subagent-request",
            &[("label", Arg::from(label.as_str()))],
        ),
        (None, Some(n)) => l.tra("tui-inspector-request", &[("n", Arg::from(n))]),
        (None, None) => l.tr("tui-inspector-next"),
    }
}

/// Plain-text rendering (for `exec`): reason, divergence, then both requests.
pub fn render_text(d: &InspectorData, l: Localizer) -> Vec<String> {
    let mut out = Vec::new();
    let reasons: Vec<String> = d.reasons.iter().map(|r| l.tr(r.message_id())).collect();
    out.push(l.tra(
        "tui-inspector-reason",
        &[("reasons", Arg::from(reasons.join("; ")))],
    ));
    out.push(divergence_line(d, l));
    let sections: Vec<&InspectedRequest> = d.previous.iter().chain([&d.selected]).collect();
    for r in sections {
        out.push(format!("== {} · {}", request_title(l, r), r.route));
        if let Some(s) = &r.system {
            let text = Arg::from(short(s, 60));
            out.push(format!(
                "  {}",
                l.tra("tui-inspector-system-line", &[("text", text)])
            ));
        }
        out.push(format!("  {}:", l.tr("tui-inspector-tools")));
        for (name, deferred) in &r.tools {
            let mark = if *deferred {
                format!(" ({})", l.tr("tui-inspector-deferred"))
            } else {
                String::new()
            };
            out.push(format!("    {name}{mark}"));
        }
        out.push(format!("  {}:", l.tr("tui-inspector-messages")));
        for (i, m) in r.messages.iter().enumerate() {
            let marker = d.previous.is_some() && d.divergence.message == Some(i);
            // Numbered from 1, like the tool entries (§14.5).
            out.push(format!(
                "  {} [{}] {m}",
                if marker { "▶" } else { " " },
                i + 1
            ));
        }
        if let Some(b) = &r.beta {
            out.push(format!("  anthropic-beta: {b}"));
        }
        out.push(format!("  {}", r.body));
    }
    out
}

#[cfg(test)]
mod tests;
