//! Store hardening (issue 9: defects 11, 12, 14 and the store parts of 16), driven through
//! the same entry points `exec` and the TUI use: [`crate::app::open_session`] and
//! [`Store::open`].

use std::path::Path;

use super::Session;
use super::event::*;
use super::store::{Store, StoreError};
use crate::app::open_session;
use crate::i18n::{Locale, Localizer};

fn en() -> Localizer {
    Localizer::new(Locale::EnUs)
}

fn user(text: &str) -> EventKind {
    EventKind::UserMessage(UserMessageData {
        message: Message::text(Role::User, text, Source::kind("user")),
    })
}

/// The lines (without newlines) of a valid log: session/start and `n` user messages.
fn valid_lines(id: &str, n: usize) -> Vec<String> {
    let mut s = Session::new(id, "/tmp");
    for i in 0..n {
        s.push(user(&format!("message {i}"))).unwrap();
    }
    s.events()
        .iter()
        .map(|e| serde_json::to_string(&**e).unwrap())
        .collect()
}

fn joined(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn write_log(dir: &Path, id: &str, content: &[u8]) -> std::path::PathBuf {
    let path = dir.join(format!("{id}.jsonl"));
    std::fs::write(&path, content).unwrap();
    path
}

#[test]
fn hardening_d16_load_error_names_the_line_number_not_only_the_seq() {
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
