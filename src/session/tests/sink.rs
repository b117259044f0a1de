//! The event sink: every appended event reaches it, a failed write or sync adds nothing, and
//! the latest header and context follow the appends.

use super::*;

#[test]
fn sink_receives_every_event_and_a_failed_write_adds_nothing() {
    let sink = MemSink::default();
    let mut s = Session::create("s", "/", Box::new(sink.clone())).unwrap();
    s.push(user_kind("a")).unwrap();
    assert_eq!(*sink.lines.lock().unwrap(), [0, 1]);
    *sink.fail.lock().unwrap() = true;
    let err = s.push(user_kind("b")).unwrap_err();
    assert_eq!(
        err,
        SessionError::Sink(SinkError::Write("disk full".into()))
    );
    assert_eq!(err.to_string(), "session log write failed: disk full");
    assert_eq!(s.events().len(), 2);
    assert_eq!(s.derive_messages().len(), 1);
    *sink.fail.lock().unwrap() = false;
    // The seq is not consumed by the failed write.
    assert_eq!(s.push(user_kind("b")).unwrap().seq, 2);
    s.sync().unwrap();
    assert_eq!(*sink.syncs.lock().unwrap(), 1);
    // An invalid event never reaches the sink.
    assert!(s.append(user_kind("c"), None).is_err());
    assert_eq!(*sink.lines.lock().unwrap(), [0, 1, 2]);
}

#[test]
fn a_failed_sync_is_reported_as_a_sync_failure_with_the_same_text() {
    let sink = MemSink::default();
    let mut s = Session::create("s", "/", Box::new(sink.clone())).unwrap();
    *sink.fail.lock().unwrap() = true;
    let err = s.sync().unwrap_err();
    assert_eq!(
        err,
        SessionError::Sink(SinkError::Sync("fsync: input/output error".into()))
    );
    assert_eq!(
        err.to_string(),
        "session log write failed: fsync: input/output error"
    );
    assert_eq!(*sink.syncs.lock().unwrap(), 0);
}

#[test]
fn latest_header_and_context_track_appends() {
    let mut s = new_session();
    assert!(s.latest_header().is_none());
    let h1 = header(&mut s, &[tool("search")], HeaderReason::Initial);
    let h2 = header(&mut s, &[tool("fetch")], HeaderReason::Change);
    let (seq, h) = s.latest_header().unwrap();
    assert_eq!(seq, h2);
    assert_ne!(h1, h2);
    assert_eq!(h.header.tools.as_ref().unwrap()[0].name, "fetch");
    s.push(EventKind::RequestContext(RequestContext {
        provider: "deepseek".into(),
        model: "m".into(),
        caps: crate::session::event::Capabilities {
            tool_update: Some(ToolUpdateMode::AdditionOnly),
            ..crate::session::event::Capabilities::plain(10)
        },
        protocol: None,
        effort: None,
    }))
    .unwrap();
    assert_eq!(s.latest_context().unwrap().model, "m");
    let loaded = Session::from_events(plain_events(&s)).unwrap();
    assert_eq!(loaded.latest_header().unwrap().0, h2);
    assert_eq!(loaded.latest_context().unwrap().model, "m");
}

#[test]
fn a_log_error_reads_in_the_interface_language_with_the_sink_text_only_quoted() {
    use crate::i18n::{Arg, Locale, Localizer};
    let e = SessionError::Sink(SinkError::Write("No space left on device".into()));
    let shown = |locale| {
        Localizer::new(locale).tra("agent-session-error", &[("error", Arg::from(e.text()))])
    };
    assert_eq!(
        shown(Locale::ZhCn),
        "会话日志错误：写入失败（详情：“No space left on device”）"
    );
    assert_eq!(
        shown(Locale::EnUs),
        "Session log error: writing failed (detail: \"No space left on device\")"
    );
    // The English `Display` (the tracing log) is unchanged.
    assert_eq!(
        e.to_string(),
        "session log write failed: No space left on device"
    );
}
