//! Opening a session log through the entry points `exec` and the TUI use, [`super::open_session`] and
//! [`Store::open`], against damaged and hostile logs.

use std::collections::HashSet;
use std::path::Path;

use super::open_session;
use crate::i18n::{Locale, Localizer};
use crate::session::store::tests::{joined, user, valid_lines};
use crate::session::store::{Store, StoreError};

fn en() -> Localizer {
    Localizer::new(Locale::EnUs)
}

fn write_log(dir: &Path, id: &str, content: &[u8]) -> std::path::PathBuf {
    let path = dir.join(format!("{id}.jsonl"));
    std::fs::write(&path, content).unwrap();
    path
}

#[test]
fn load_error_names_the_line_number_not_only_the_seq() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = valid_lines("s", 3);
    // Line 4 carries seq 7 where seq 3 belongs.
    lines[3] = lines[3].replace("\"seq\":3", "\"seq\":7");
    let content = joined(&lines);
    let path = write_log(dir.path(), "s", content.as_bytes());
    let err = Store::open(&path).unwrap_err();
    match &err {
        StoreError::Corrupt { line, message, .. } => {
            assert_eq!(*line, 4, "{err}");
            assert!(message.contains("seq"), "{message}");
        }
        e => panic!("unexpected {e}"),
    }
    let text = err.localized(en());
    assert!(text.contains("line 4"), "{text}");
    assert!(text.contains("event 7"), "keeps the seq: {text}");
    // The same through the resume path.
    let text = open_session(dir.path(), Some("s"), en()).unwrap_err().0;
    assert!(text.contains("line 4"), "{text}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), content);
}

#[test]
fn failed_load_with_wrong_seq_and_torn_tail_leaves_the_file_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = valid_lines("w", 3);
    lines[2] = lines[2].replace("\"seq\":2", "\"seq\":5");
    let mut content = joined(&lines).into_bytes();
    content.extend_from_slice(br#"{"type":"turn/start","da"#);
    let path = write_log(dir.path(), "w", &content);
    let err = open_session(dir.path(), Some("w"), en()).unwrap_err().0;
    assert_eq!(std::fs::read(&path).unwrap(), content, "log untouched");
    assert!(err.contains("line 3"), "{err}");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "no .torn file for a failed load: {names:?}");
}

#[test]
fn complete_last_line_without_newline_is_kept_and_terminated() {
    let dir = tempfile::tempdir().unwrap();
    let lines = valid_lines("n", 1);
    let content = format!("{}\n{}", lines[0], lines[1]);
    let path = write_log(dir.path(), "n", content.as_bytes());
    let (mut session, _, torn) = open_session(dir.path(), Some("n"), en()).unwrap();
    assert!(torn.is_none(), "a complete line is not torn");
    assert_eq!(session.events().len(), 2);
    // The next event must start on a line of its own.
    session.push(user("after")).unwrap();
    session.sync().unwrap();
    drop(session);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with(&format!("{content}\n")), "{text}");
    let (again, _, torn) = open_session(dir.path(), Some("n"), en()).unwrap();
    assert!(torn.is_none());
    assert_eq!(again.events().len(), 3);
}

#[test]
fn single_unterminated_valid_line_loads_and_is_not_emptied() {
    let dir = tempfile::tempdir().unwrap();
    let line = valid_lines("u", 0).remove(0);
    let path = write_log(dir.path(), "u", line.as_bytes());
    let (session, _, torn) = open_session(dir.path(), Some("u"), en()).unwrap();
    assert!(torn.is_none());
    assert_eq!(session.events().len(), 1);
    assert_eq!(session.id(), "u");
    drop(session);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{line}\n"));
}

#[test]
fn single_torn_line_never_leaves_a_zero_byte_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(dir.path(), "z", br#"{"type":"session/start","se"#);
    // A fresh session under the same id, with the fragment saved aside: never a 0-byte log.
    let (session, _, torn) = open_session(dir.path(), Some("z"), en()).unwrap();
    assert_eq!(session.id(), "z");
    let torn = torn.expect("the fragment is reported");
    assert_eq!(torn.line, 1);
    assert_eq!(
        std::fs::read(&torn.saved_to).unwrap(),
        br#"{"type":"session/start","se"#
    );
    drop(session);
    let (again, _, torn) = open_session(dir.path(), Some("z"), en()).unwrap();
    assert_eq!(again.events().len(), 1);
    assert!(torn.is_none());
    drop(again);
    assert!(!std::fs::read(&path).unwrap().is_empty(), "0-byte log left");
}

#[test]
fn zero_byte_log_from_a_crash_after_creation_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(dir.path(), "e", b"");
    let (session, _, torn) = open_session(dir.path(), Some("e"), en()).unwrap();
    assert!(torn.is_none());
    assert_eq!(session.id(), "e");
    drop(session);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("{\"type\":\"session/start\"") && text.ends_with('\n'),
        "{text}"
    );
}

#[test]
fn two_successive_torn_tails_are_both_kept() {
    let dir = tempfile::tempdir().unwrap();
    let lines = valid_lines("t", 3);
    let first = &lines[2][..25];
    let mut content = joined(&lines[..2]);
    content.push_str(first);
    let path = write_log(dir.path(), "t", content.as_bytes());
    let one = Store::open(&path).unwrap();
    let saved_one = one.torn.clone().unwrap().saved_to;
    drop(one);
    let second = "{\"type\":\"user/message\",\"seq\":2,\"ti";
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut f, second.as_bytes()).unwrap();
    drop(f);
    let two = Store::open(&path).unwrap();
    let saved_two = two.torn.clone().unwrap().saved_to;
    assert_ne!(saved_one, saved_two);
    assert_eq!(std::fs::read_to_string(&saved_one).unwrap(), first);
    assert_eq!(std::fs::read_to_string(&saved_two).unwrap(), second);
    assert!(
        saved_one.ends_with("t.jsonl.torn"),
        "{}",
        saved_one.display()
    );
    assert!(
        saved_two.ends_with("t.jsonl.torn.1"),
        "{}",
        saved_two.display()
    );
}

#[test]
fn many_concurrent_new_sessions_get_distinct_ids() {
    let dir = tempfile::tempdir().unwrap();
    let threads: Vec<_> = (0..16)
        .map(|_| {
            let dir = dir.path().to_path_buf();
            std::thread::spawn(move || {
                let mut out = Vec::new();
                for _ in 0..64 {
                    // Keep the sessions (and their locks) open, as parallel processes would.
                    out.push(open_session(&dir, None, en()).map_err(|e| e.0));
                }
                out
            })
        })
        .collect();
    let mut ids = HashSet::new();
    let mut sessions = Vec::new();
    for t in threads {
        for r in t.join().unwrap() {
            let (s, path, _) = r.unwrap();
            assert!(path.exists());
            assert!(ids.insert(s.id().to_string()), "duplicate id {}", s.id());
            sessions.push(s);
        }
    }
    assert_eq!(ids.len(), 16 * 64);
}

#[test]
fn session_dir_that_is_a_file_gets_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let shown = file.display().to_string();
    for resume in [None, Some("last")] {
        let err = open_session(&file, resume, en()).unwrap_err().0;
        assert!(err.contains(&shown), "{err}");
        assert!(err.contains("not a directory"), "{err}");
        assert!(!err.contains("File exists"), "{err}");
    }
    let zh = open_session(&file, None, Localizer::new(Locale::ZhCn))
        .unwrap_err()
        .0;
    assert!(zh.contains(&shown) && zh.contains("不是目录"), "{zh}");
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
}
