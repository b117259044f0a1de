//! Session tests: validation (E-1…E-15, SPEC §12.3) live and on load, the surface fold,
//! and the tool-history fold (F-1…F-8, FX1…FX11).
use super::event::*;
use super::tool_history::{ToolHistoryError, ToolHistoryFold, schemas_json_equal};
use super::*;
use crate::session::vocab::{ToolHistory, ToolHistoryUpdate};
use serde_json::json;

use std::sync::{Arc, Mutex};

pub(crate) fn tool(name: &str) -> ToolSchema {
    let mut desc = name.to_string();
    desc[..1].make_ascii_uppercase();
    ToolSchema {
        name: name.into(),
        description: desc,
        parameters: json!({}),
        defer_loading: None,
    }
}

fn deferred(t: ToolSchema) -> ToolSchema {
    ToolSchema {
        defer_loading: Some(true),
        ..t
    }
}

pub(crate) fn header_kind(tools: &[ToolSchema], reason: HeaderReason, starts: bool) -> EventKind {
    EventKind::RequestHeader(RequestHeaderData {
        header: RequestHeader {
            config: CallConfig {
                provider: "deepseek".into(),
                model: "deepseek-flash".into(),
                reasoning_effort: None,
                temperature: None,
                max_tokens: None,
                stop: None,
            },
            adapter_defaults: None,
            tools: (!tools.is_empty()).then(|| tools.to_vec()),
        },
        reason,
        starts_series: starts.then_some(true),
    })
}

fn header(s: &mut Session, tools: &[ToolSchema], reason: HeaderReason) -> u64 {
    s.push(header_kind(tools, reason, false)).unwrap().seq
}

pub(crate) fn dev_kind(blocks: Vec<Block>, header_seq: Option<u64>) -> EventKind {
    EventKind::DeveloperMessage(DeveloperMessageData {
        turn: 1,
        step: 1,
        message: Message::new(Role::Developer, blocks, Source::kind("tool-registry")),
        header_seq,
    })
}

/// Appends a developer message; returns its message id.
fn dev(s: &mut Session, blocks: Vec<Block>, header_seq: Option<u64>) -> String {
    let ev = s.push(dev_kind(blocks, header_seq)).unwrap();
    ev.kind.message().unwrap().id.clone()
}

fn user_kind(text: &str) -> EventKind {
    EventKind::UserMessage(UserMessageData {
        message: Message::text(Role::User, text, Source::kind("user")),
    })
}

fn new_session() -> Session {
    Session::new("s1", "/tmp")
}

fn plain_events(s: &Session) -> Vec<Event> {
    s.events().iter().map(|e| Event::clone(e)).collect()
}

fn upd(id: &str, additions: Vec<ToolSchema>) -> ToolHistoryUpdate {
    ToolHistoryUpdate {
        message_id: id.into(),
        additions,
    }
}

/// Checks that appending `kind` to `s` and loading `s`'s events plus that event both
/// give the same verdict: `Ok` when `rule` is `None`, else a rejection under `rule`.
fn verdict_both(s: &Session, kind: EventKind, op: Option<SurfaceOp>, rule: Option<&str>) {
    let mut events = plain_events(s);
    let ev = Event {
        kind: kind.clone(),
        seq: events.len() as u64,
        time: "2026-01-01T00:00:00Z".into(),
        surface_op: op.clone(),
        source_event_seqs: None,
    };
    events.push(ev);
    let mut live = Session::from_events(plain_events(s)).unwrap();
    let live_res = live.append(kind, op);
    let load_res = Session::from_events(events);
    match rule {
        None => {
            assert!(live_res.is_ok(), "live append rejected: {live_res:?}");
            assert!(load_res.is_ok(), "load rejected: {:?}", load_res.err());
        }
        Some(rule) => {
            let n = live.events().len();
            match live_res {
                Err(SessionError::Invalid(e)) => assert_eq!(e.rule, rule, "{e}"),
                other => panic!("live append not rejected under {rule}: {other:?}"),
            }
            assert_eq!(live.events().len(), n, "rejected event must not be added");
            match load_res {
                Err(SessionError::Invalid(e)) => assert_eq!(e.rule, rule, "{e}"),
                Err(other) => panic!("load failed differently: {other}"),
                Ok(_) => panic!("load not rejected under {rule}"),
            }
        }
    }
}

fn append_op() -> Option<SurfaceOp> {
    Some(SurfaceOp::append())
}

// ---------------------------------------------------------------- E-1 … E-3

#[test]
fn a_new_session_starts_with_session_start_at_seq_0() {
    let s = new_session();
    assert_eq!(s.events().len(), 1);
    assert_eq!(s.events()[0].seq, 0);
    assert!(matches!(s.events()[0].kind, EventKind::SessionStart(_)));
    assert_eq!(s.id(), "s1");
    assert!(chrono::DateTime::parse_from_rfc3339(&s.events()[0].time).is_ok());
}

#[test]
fn load_rejects_a_seq_gap_a_wrong_start_and_a_late_start() {
    let mut s = new_session();
    s.push(user_kind("hi")).unwrap();
    let mut ev = plain_events(&s);
    ev[1].seq = 2;
    let err = Session::from_events(ev).unwrap_err();
    assert!(
        matches!(&err, SessionError::Invalid(e) if e.rule == "E-1" && e.message.contains("expected 1")),
        "{err}"
    );

    let ev = plain_events(&s)[1..].to_vec();
    let mut ev = ev;
    ev[0].seq = 0;
    assert!(matches!(Session::from_events(ev), Err(SessionError::Invalid(e)) if e.rule == "E-1"));

    let start = s.events()[0].kind.clone();
    verdict_both(&s, start, None, Some("E-1"));
    assert!(matches!(
        Session::from_events(vec![]),
        Err(SessionError::Empty)
    ));
}

#[test]
fn a_surface_op_appears_exactly_on_surface_events() {
    let s = new_session();
    verdict_both(&s, user_kind("x"), None, Some("E-2"));
    verdict_both(
        &s,
        EventKind::TurnStart(TurnRef { turn: 1 }),
        append_op(),
        Some("E-2"),
    );
    verdict_both(&s, user_kind("x"), append_op(), None);
    verdict_both(&s, EventKind::TurnStart(TurnRef { turn: 1 }), None, None);
}

#[test]
fn a_replace_must_cite_every_shadowed_node() {
    let mut s = new_session();
    let a = s.push(user_kind("a")).unwrap().seq;
    let b = s.push(user_kind("b")).unwrap().seq;
    // Not citing b.
    let err = s
        .append_with_sources(
            user_kind("sum"),
            Some(SurfaceOp::replace(a, b)),
            Some(vec![a]),
        )
        .unwrap_err();
    assert!(
        matches!(&err, SessionError::Invalid(e) if e.rule == "E-2" && e.message.contains("missing 2")),
        "{err}"
    );
    // Range not on the surface.
    let err = s.replace(user_kind("sum"), 0, b).unwrap_err();
    assert!(matches!(err, SessionError::Invalid(e) if e.rule == "E-2"));
    assert_eq!(s.content_generation(), 0);
    let ev = s.replace(user_kind("sum"), a, b).unwrap();
    assert_eq!(ev.source_event_seqs, Some(vec![a, b]));
    assert_eq!(s.content_generation(), 1);
    let texts: Vec<String> = s
        .derive_messages()
        .iter()
        .map(|m| m.joined_text())
        .collect();
    assert_eq!(texts, ["sum"]);
    // The replaced nodes are gone from the surface: replacing them again fails.
    assert!(s.replace(user_kind("again"), a, a).is_err());
    // Loading reproduces the same surface.
    let loaded = Session::from_events(plain_events(&s)).unwrap();
    assert_eq!(loaded.content_generation(), 1);
    assert_eq!(loaded.derive_messages()[0].joined_text(), "sum");
}

#[test]
fn the_system_head_is_only_rewritten_by_system_over_exactly_that_node() {
    let mut s = new_session();
    let head = s
        .push(EventKind::SystemMessage(StepMessage {
            turn: 0,
            step: 0,
            message: Message::text(Role::System, "prompt", Source::kind("system-prompt")),
        }))
        .unwrap()
        .seq;
    let u = s.push(user_kind("a")).unwrap().seq;
    let err = s.replace(user_kind("sum"), head, u).unwrap_err();
    assert!(matches!(err, SessionError::Invalid(e) if e.rule == "E-2"));
    s.replace(
        EventKind::SystemMessage(StepMessage {
            turn: 0,
            step: 0,
            message: Message::text(Role::System, "new", Source::kind("system-prompt")),
        }),
        head,
        head,
    )
    .unwrap();
    assert_eq!(s.derive_messages()[0].joined_text(), "new");
}

#[test]
fn a_header_rejects_empty_tools_and_empty_adapter_defaults() {
    let s = new_session();
    let mut k = header_kind(&[], HeaderReason::Initial, false);
    if let EventKind::RequestHeader(h) = &mut k {
        h.header.tools = Some(vec![]);
    }
    verdict_both(&s, k, None, Some("E-3"));
    let mut k = header_kind(&[tool("search")], HeaderReason::Initial, false);
    if let EventKind::RequestHeader(h) = &mut k {
        h.header.adapter_defaults = Some(AdapterDefaults::default());
    }
    verdict_both(&s, k, None, Some("E-3"));
    verdict_both(
        &s,
        header_kind(&[], HeaderReason::Initial, false),
        None,
        None,
    );
}

// ---------------------------------------------------------------- E-7 … E-14

#[test]
fn the_developer_event_and_role_must_occur_together() {
    let s = new_session();
    let wrong_role = EventKind::DeveloperMessage(DeveloperMessageData {
        turn: 1,
        step: 1,
        message: Message::text(Role::User, "x", Source::kind("tool-registry")),
        header_seq: None,
    });
    verdict_both(&s, wrong_role, append_op(), Some("E-7"));
    let dev_in_user = EventKind::UserMessage(UserMessageData {
        message: Message::text(Role::Developer, "x", Source::kind("user")),
    });
    verdict_both(&s, dev_in_user, append_op(), Some("E-7"));
    verdict_both(
        &s,
        dev_kind(vec![Block::text("note")], None),
        append_op(),
        None,
    );
}

#[test]
fn tool_change_blocks_require_the_developer_role() {
    let s = new_session();
    let k = EventKind::UserMessage(UserMessageData {
        message: Message::new(Role::User, vec![Block::removal("x")], Source::kind("user")),
    });
    verdict_both(&s, k, append_op(), Some("E-8"));
}

#[test]
fn tool_blocks_need_a_nonempty_tool_name() {
    let s = new_session();
    verdict_both(
        &s,
        dev_kind(vec![Block::removal("")], None),
        append_op(),
        Some("E-9"),
    );
    verdict_both(
        &s,
        dev_kind(vec![Block::removal("x")], None),
        append_op(),
        None,
    );
}

#[test]
fn a_tool_addition_must_omit_the_inline_definition() {
    let mut s = new_session();
    let h = header(&mut s, &[tool("fetch")], HeaderReason::Initial);
    let inline = Block::ToolAddition {
        tool_name: "fetch".into(),
        tool: Some(json!({"name": "fetch"})),
    };
    verdict_both(
        &s,
        dev_kind(vec![inline], Some(h)),
        append_op(),
        Some("E-10"),
    );
}

#[test]
fn a_header_seq_is_present_exactly_when_additions_are() {
    let mut s = new_session();
    let h = header(&mut s, &[tool("fetch")], HeaderReason::Initial);
    verdict_both(
        &s,
        dev_kind(vec![Block::addition("fetch")], None),
        append_op(),
        Some("E-11"),
    );
    verdict_both(
        &s,
        dev_kind(vec![Block::removal("x")], Some(h)),
        append_op(),
        Some("E-11"),
    );
    verdict_both(
        &s,
        dev_kind(vec![Block::text("t")], Some(h)),
        append_op(),
        Some("E-11"),
    );
    verdict_both(
        &s,
        dev_kind(vec![Block::removal("x")], None),
        append_op(),
        None,
    );
    verdict_both(
        &s,
        dev_kind(vec![Block::addition("fetch")], Some(h)),
        append_op(),
        None,
    );
    let mut live = Session::from_events(plain_events(&s)).unwrap();
    let err = live
        .push(dev_kind(vec![Block::addition("fetch")], None))
        .unwrap_err();
    assert!(
        err.to_string().contains(
            "developer/message requires headerSeq exactly when tool additions are present"
        ),
        "{err}"
    );
}

#[test]
fn a_header_seq_must_reference_an_earlier_request_header() {
    let mut s = new_session();
    let h = header(&mut s, &[tool("fetch")], HeaderReason::Initial);
    let u = s.push(user_kind("u")).unwrap().seq;
    verdict_both(
        &s,
        dev_kind(vec![Block::addition("fetch")], Some(u)),
        append_op(),
        Some("E-12"),
    );
    verdict_both(
        &s,
        dev_kind(vec![Block::addition("fetch")], Some(99)),
        append_op(),
        Some("E-12"),
    );
    // Its own seq is not earlier.
    let own = s.events().len() as u64;
    verdict_both(
        &s,
        dev_kind(vec![Block::addition("fetch")], Some(own)),
        append_op(),
        Some("E-12"),
    );
    verdict_both(
        &s,
        dev_kind(vec![Block::addition("fetch")], Some(h)),
        append_op(),
        None,
    );
}

#[test]
fn an_addition_must_name_exactly_one_complete_tool() {
    let mut s = new_session();
    let empty = header(&mut s, &[], HeaderReason::Initial);
    verdict_both(
        &s,
        dev_kind(vec![Block::addition("fetch")], Some(empty)),
        append_op(),
        Some("E-13"),
    );
    let h = header(&mut s, &[tool("search")], HeaderReason::Change);
    verdict_both(
        &s,
        dev_kind(vec![Block::addition("fetch")], Some(h)),
        append_op(),
        Some("E-13"),
    );
    let dup = header(
        &mut s,
        &[tool("fetch"), tool("fetch")],
        HeaderReason::Change,
    );
    verdict_both(
        &s,
        dev_kind(vec![Block::addition("fetch")], Some(dup)),
        append_op(),
        Some("E-13"),
    );
    let mut bad_params = tool("fetch");
    bad_params.parameters = json!([]);
    let bp = header(&mut s, &[bad_params], HeaderReason::Change);
    verdict_both(
        &s,
        dev_kind(vec![Block::addition("fetch")], Some(bp)),
        append_op(),
        Some("E-13"),
    );
    let mut not_deferred = tool("fetch");
    not_deferred.defer_loading = Some(false);
    let nd = header(&mut s, &[not_deferred], HeaderReason::Change);
    verdict_both(
        &s,
        dev_kind(vec![Block::addition("fetch")], Some(nd)),
        append_op(),
        Some("E-13"),
    );
    let ok = header(&mut s, &[deferred(tool("fetch"))], HeaderReason::Change);
    verdict_both(
        &s,
        dev_kind(vec![Block::addition("fetch")], Some(ok)),
        append_op(),
        None,
    );
}

#[test]
fn a_developer_replacement_may_reference_an_older_header() {
    let mut s = new_session();
    let h = header(&mut s, &[tool("fetch")], HeaderReason::Initial);
    let d = s
        .push(dev_kind(vec![Block::addition("fetch")], Some(h)))
        .unwrap()
        .seq;
    header(&mut s, &[], HeaderReason::Change);
    s.replace(dev_kind(vec![Block::addition("fetch")], Some(h)), d, d)
        .unwrap();
    assert_eq!(s.content_generation(), 1);
    Session::from_events(plain_events(&s)).unwrap();
}

#[test]
fn spec12_3_empty_developer_message_rejected() {
    let s = new_session();
    verdict_both(&s, dev_kind(vec![], None), append_op(), Some("SPEC 12.3"));
}

#[test]
fn an_empty_system_node_occupies_the_surface_but_derives_no_message() {
    let mut s = new_session();
    s.push(EventKind::SystemMessage(StepMessage {
        turn: 0,
        step: 0,
        message: Message::new(Role::System, vec![], Source::kind("system-prompt")),
    }))
    .unwrap();
    s.push(user_kind("u")).unwrap();
    assert_eq!(s.surface().nodes().len(), 2);
    assert_eq!(s.derive_messages().len(), 1);
}

#[test]
fn derive_messages_returns_shared_arcs_until_a_replacement() {
    let mut s = new_session();
    s.push(user_kind("a")).unwrap();
    let m1 = s.derive_messages();
    s.push(user_kind("b")).unwrap();
    let m2 = s.derive_messages();
    assert!(Arc::ptr_eq(&m1[0], &m2[0]));
    assert_eq!(m2.len(), 2);
}

// ---------------------------------------------------------------- sink

#[derive(Clone, Default)]
struct MemSink {
    lines: Arc<Mutex<Vec<u64>>>,
    fail: Arc<Mutex<bool>>,
    syncs: Arc<Mutex<u32>>,
}

impl EventSink for MemSink {
    fn write(&mut self, ev: &Event) -> Result<(), SinkError> {
        if *self.fail.lock().unwrap() {
            return Err(SinkError::Write("disk full".into()));
        }
        self.lines.lock().unwrap().push(ev.seq);
        Ok(())
    }
    fn sync(&mut self) -> Result<(), SinkError> {
        if *self.fail.lock().unwrap() {
            return Err(SinkError::Sync("fsync: input/output error".into()));
        }
        *self.syncs.lock().unwrap() += 1;
        Ok(())
    }
}

// ---------------------------------------------------------------- fold

fn hist(tools: Vec<ToolSchema>, updates: Vec<ToolHistoryUpdate>) -> ToolHistory {
    ToolHistory { tools, updates }
}

/// Builds FX3's log; returns (session, header #2 seq, id_a, FX1 snapshot, FX3 snapshot).
fn fx3() -> (Session, u64, String, Arc<ToolHistory>, Arc<ToolHistory>) {
    let mut s = new_session();
    header(&mut s, &[tool("search")], HeaderReason::Initial);
    let fx1 = s.tool_history().unwrap();
    let h2 = header(
        &mut s,
        &[tool("search"), tool("fetch")],
        HeaderReason::Change,
    );
    // FX2: fallback before the developer message.
    assert_eq!(
        *s.tool_history().unwrap(),
        hist(vec![tool("search"), tool("fetch")], vec![])
    );
    let id_a = dev(&mut s, vec![Block::addition("fetch")], Some(h2));
    let snap = s.tool_history().unwrap();
    (s, h2, id_a, fx1, snap)
}

fn raw(seq: u64, kind: EventKind, op: Option<SurfaceOp>) -> Event {
    Event {
        kind,
        seq,
        time: "2026-01-01T00:00:00Z".into(),
        surface_op: op,
        source_event_seqs: None,
    }
}

impl Session {
    fn fold_baseline_for_tests(&mut self) -> Option<u64> {
        self.tool_history().ok()?;
        self.fold.baseline_seq()
    }
}

mod fold;
mod sink;
