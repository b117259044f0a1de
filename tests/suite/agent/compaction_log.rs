//! `compaction/start.trigger` and `compaction/end.outcome` are enums written as the same
//! strings as before (E-6): old logs load and re-serialize byte for byte, and a value this
//! version does not know stops the load with an error naming the line and the value.

use deepterm::session::Session;
use deepterm::session::event::{
    CompactionEnd, CompactionOutcome, CompactionStart, CompactionTrigger, EventKind,
};
use deepterm::session::store::parse_log;

/// A log as earlier versions wrote it: a manual compaction that completed and an automatic
/// one that failed.
fn old_log() -> String {
    let mut s = Session::new("s", "/");
    for (trigger, outcome, error) in [
        (
            CompactionTrigger::Manual,
            CompactionOutcome::Completed,
            None,
        ),
        (
            CompactionTrigger::Auto,
            CompactionOutcome::Failed,
            Some("the summary was empty".to_string()),
        ),
    ] {
        s.push(EventKind::CompactionStart(CompactionStart {
            trigger,
            start_seq: 1,
            end_seq: 2,
        }))
        .unwrap();
        s.push(EventKind::CompactionEnd(CompactionEnd { outcome, error }))
            .unwrap();
    }
    let mut out = String::new();
    for ev in s.events() {
        out.push_str(&serde_json::to_string(&**ev).unwrap());
        out.push('\n');
    }
    out
}

#[test]
fn compaction_values_are_written_as_the_old_strings() {
    let log = old_log();
    let data: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["data"].clone())
        .collect();
    assert_eq!(data[1]["trigger"], "manual");
    assert_eq!(data[2]["outcome"], "completed");
    assert_eq!(data[3]["trigger"], "auto");
    assert_eq!(data[4]["outcome"], "failed");
    assert_eq!(data[4]["error"], "the summary was empty");
}

#[test]
fn old_compaction_logs_load_and_reserialize_unchanged() {
    // The lines below are literal old-format text, not produced by this version.
    let log = concat!(
        r#"{"type":"session/start","data":{"format":1,"id":"s","cwd":"/","appVersion":"0.1.0"},"seq":0,"time":"2026-01-01T00:00:00.000Z"}"#,
        "\n",
        r#"{"type":"compaction/start","data":{"trigger":"manual","startSeq":1,"endSeq":2},"seq":1,"time":"2026-01-01T00:00:01.000Z"}"#,
        "\n",
        r#"{"type":"compaction/end","data":{"outcome":"completed"},"seq":2,"time":"2026-01-01T00:00:02.000Z"}"#,
        "\n",
        r#"{"type":"compaction/start","data":{"trigger":"auto","startSeq":1,"endSeq":2},"seq":3,"time":"2026-01-01T00:00:03.000Z"}"#,
        "\n",
        r#"{"type":"compaction/end","data":{"outcome":"failed","error":"boom"},"seq":4,"time":"2026-01-01T00:00:04.000Z"}"#,
        "\n",
    );
    let parsed = parse_log(log.as_bytes()).unwrap_or_else(|e| panic!("{e:?}"));
    let session = parsed.session.expect("events loaded");
    let kinds: Vec<_> = session.events().iter().map(|e| e.kind.clone()).collect();
    assert!(matches!(
        &kinds[1],
        EventKind::CompactionStart(CompactionStart {
            trigger: CompactionTrigger::Manual,
            ..
        })
    ));
    assert!(matches!(
        &kinds[2],
        EventKind::CompactionEnd(CompactionEnd {
            outcome: CompactionOutcome::Completed,
            ..
        })
    ));
    assert!(matches!(
        &kinds[3],
        EventKind::CompactionStart(CompactionStart {
            trigger: CompactionTrigger::Auto,
            ..
        })
    ));
    assert!(matches!(
        &kinds[4],
        EventKind::CompactionEnd(CompactionEnd {
            outcome: CompactionOutcome::Failed,
            ..
        })
    ));
    let mut again = String::new();
    for ev in session.events() {
        again.push_str(&serde_json::to_string(&**ev).unwrap());
        again.push('\n');
    }
    assert_eq!(again, log);
}

#[test]
fn an_unknown_compaction_trigger_stops_the_load_naming_line_and_value() {
    let log = old_log().replacen(r#""trigger":"auto""#, r#""trigger":"scheduled""#, 1);
    let err = parse_log(log.as_bytes()).expect_err("an unknown trigger is refused");
    assert_eq!(err.line, 4, "{err:?}");
    assert!(err.message.contains("scheduled"), "{}", err.message);
    assert!(
        err.message.contains("manual") && err.message.contains("auto"),
        "{}",
        err.message
    );
}

#[test]
fn an_unknown_compaction_outcome_stops_the_load_naming_line_and_value() {
    let log = old_log().replacen(r#""outcome":"completed""#, r#""outcome":"partial""#, 1);
    let err = parse_log(log.as_bytes()).expect_err("an unknown outcome is refused");
    assert_eq!(err.line, 3, "{err:?}");
    assert!(err.message.contains("partial"), "{}", err.message);
    assert!(
        err.message.contains("completed") && err.message.contains("failed"),
        "{}",
        err.message
    );
}

#[test]
fn compaction_values_keep_their_wire_names() {
    assert_eq!(CompactionTrigger::Manual.as_str(), "manual");
    assert_eq!(CompactionTrigger::Auto.as_str(), "auto");
    assert_eq!(CompactionOutcome::Completed.as_str(), "completed");
    assert_eq!(CompactionOutcome::Failed.as_str(), "failed");
}
