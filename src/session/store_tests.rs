//! The session log store's tests (their helpers are shared with other modules' tests).

use super::*;
use crate::session::Session;
use crate::session::event::*;

pub(crate) fn user(text: &str) -> EventKind {
    EventKind::UserMessage(UserMessageData {
        message: Message::text(Role::User, text, Source::kind("user")),
    })
}

/// The lines (without newlines) of a valid log: session/start and `n` user messages.
pub(crate) fn valid_lines(id: &str, n: usize) -> Vec<String> {
    let mut s = Session::new(id, "/tmp");
    for i in 0..n {
        s.push(user(&format!("message {i}"))).unwrap();
    }
    s.events()
        .iter()
        .map(|e| serde_json::to_string(&**e).unwrap())
        .collect()
}

pub(crate) fn joined(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn append_then_reopen_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Store::create(dir.path(), "a").unwrap();
    let src = Session::new("a", "/tmp");
    s.append(&src.events()[0]).unwrap();
    s.sync().unwrap();
    let path = s.path().to_path_buf();
    drop(s);
    let loaded = Store::open(&path).unwrap();
    assert_eq!(loaded.session.events(), src.events());
    assert!(loaded.torn.is_none());
}

#[test]
fn a_log_closed_while_a_child_process_starts_opens_again() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.jsonl");
    std::fs::write(&path, joined(&valid_lines("a", 1))).unwrap();
    let held = Store::open(&path).unwrap();
    // A child forked now holds a copy of the log's descriptor (and so its lock) until
    // it execs, 150 ms later.
    let starting = std::thread::spawn(|| {
        let mut cmd = std::process::Command::new("true");
        // SAFETY: the child only sleeps before exec.
        unsafe {
            cmd.pre_exec(|| {
                std::thread::sleep(std::time::Duration::from_millis(150));
                Ok(())
            });
        }
        cmd.status().unwrap()
    });
    std::thread::sleep(std::time::Duration::from_millis(50));
    drop(held);
    let reopened = Store::open(&path);
    assert!(reopened.is_ok(), "{:?}", reopened.err());
    assert!(starting.join().unwrap().success());
}

#[test]
fn second_open_is_refused_while_locked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.jsonl");
    std::fs::write(&path, joined(&valid_lines("a", 1))).unwrap();
    let held = Store::open(&path).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Locked { .. }), "{err}");
    drop(held);
    assert!(Store::open(&path).is_ok());
}

#[test]
fn torn_tail_is_cut_saved_and_reported_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let lines = valid_lines("t", 2);
    let good = joined(&lines[..2]);
    let partial = &lines[2][..30];
    std::fs::write(&path, format!("{good}{partial}")).unwrap();
    let loaded = Store::open(&path).unwrap();
    assert_eq!(loaded.session.events().len(), 2);
    let torn = loaded.torn.clone().unwrap();
    assert_eq!(torn.line, 3);
    assert_eq!(std::fs::read_to_string(&torn.saved_to).unwrap(), partial);
    drop(loaded);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), good);
    let again = Store::open(&path).unwrap();
    assert!(again.torn.is_none(), "reported once");
    assert_eq!(again.session.events().len(), 2);
}

#[test]
fn corrupt_middle_line_names_the_line_and_leaves_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.jsonl");
    let lines = valid_lines("c", 1);
    let content = format!("{}\n{{not json}}\n{}\n", lines[0], lines[1]);
    std::fs::write(&path, &content).unwrap();
    match Store::open(&path).unwrap_err() {
        StoreError::Corrupt { line, .. } => assert_eq!(line, 2),
        e => panic!("unexpected {e}"),
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), content);
}

#[test]
fn an_id_that_exists_already_is_replaced_by_a_fresh_one() {
    let dir = tempfile::tempdir().unwrap();
    let taken = dir.path().join("taken.jsonl");
    std::fs::write(&taken, "keep me").unwrap();
    let mut ids = vec!["fresh", "taken"];
    let (id, store) = Store::create_unique(dir.path(), || ids.pop().unwrap().into()).unwrap();
    assert_eq!(id, "fresh");
    assert_eq!(store.path(), dir.path().join("fresh.jsonl"));
    assert!(ids.is_empty(), "the taken id was tried first");
    assert_eq!(std::fs::read_to_string(&taken).unwrap(), "keep me");
    // A directory where every id is taken gives up with a clear error, not a loop.
    let err = Store::create_unique(dir.path(), || "taken".into()).unwrap_err();
    assert!(err.to_string().contains("taken.jsonl"), "{err}");
}
