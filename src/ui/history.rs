//! Message history across sessions: the user messages of every session
//! log in the session directory, newest first and without duplicates, for ↑/↓ and the
//! Ctrl+R reverse search. Loaded off the UI thread (see [`spawn_load`]).
//!
//! The session directory is read as [`crate::session::listing`] reads it (regular files
//! only, opened without blocking, lines capped), and what is kept is bounded: at most
//! [`MAX_MESSAGES`] entries and [`MAX_TOTAL_BYTES`] of text, the most recent ones, so a
//! directory of large logs costs a scan, not its size in memory.
//! See docs/decisions/0034-hostile-session-directory.md.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};

use crate::session::event::{Event, EventKind};
use crate::session::listing::{LISTING_LINE_CAP, list_sessions};
use crate::session::open::{LineReader, Overlong, open_regular};

/// Sessions read at most (the newest ones).
pub const MAX_SESSIONS: usize = 500;
/// Messages kept at most.
pub const MAX_MESSAGES: usize = 5000;
/// Text kept at most, in bytes (8 MiB): enough for thousands of prompts, while a few
/// pasted logs cannot make the history the biggest thing in memory.
pub const MAX_TOTAL_BYTES: usize = 8 << 20;

/// The user messages of the logs in `dir`, newest first (newest session first, its last
/// message first), each text once, within [`MAX_MESSAGES`] and [`MAX_TOTAL_BYTES`].
/// Unreadable logs and lines are skipped.
pub fn load(dir: &Path) -> Vec<String> {
    let Ok(sessions) = list_sessions(dir) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    let mut bytes = 0usize;
    let mut seen = std::collections::HashSet::new();
    for s in sessions.iter().take(MAX_SESSIONS) {
        let budget = Budget {
            entries: MAX_MESSAGES - out.len(),
            bytes: MAX_TOTAL_BYTES - bytes,
        };
        for m in session_messages(&s.path, budget).into_iter().rev() {
            if seen.insert(m.clone()) {
                bytes += m.len();
                out.push(m);
            }
        }
        if out.len() >= MAX_MESSAGES || bytes >= MAX_TOTAL_BYTES {
            break;
        }
    }
    out
}

/// How much one session may still add to the history.
#[derive(Debug, Clone, Copy)]
struct Budget {
    entries: usize,
    bytes: usize,
}

/// The last user messages of one log that fit `budget`, oldest first. Older ones are
/// dropped while reading, so only the budget is ever held.
fn session_messages(path: &Path, budget: Budget) -> VecDeque<String> {
    let mut out = VecDeque::new();
    let Ok(file) = open_regular(path, false) else {
        return out;
    };
    let reader = std::io::BufReader::with_capacity(64 * 1024, file);
    let mut lines = LineReader::new(reader, LISTING_LINE_CAP, Overlong::Skip);
    let mut held = 0usize;
    let mut skipped = 0usize;
    while let Ok(Some(line)) = lines.next_line() {
        // Only user messages are parsed (tool results can be large).
        if !contains(line.bytes, br#""user/message""#) {
            continue;
        }
        if line.is_cut() {
            skipped += 1;
            continue;
        }
        let Ok(ev) = serde_json::from_slice::<Event>(line.bytes) else {
            continue;
        };
        let EventKind::UserMessage(m) = &ev.kind else {
            continue;
        };
        let t = m.message.typed_text();
        if t.trim().is_empty() {
            continue;
        }
        held += t.len();
        out.push_back(t);
        while out.len() > budget.entries || held > budget.bytes {
            let Some(old) = out.pop_front() else { break };
            held -= old.len();
        }
    }
    if skipped > 0 {
        tracing::warn!(
            "{}: {skipped} user message line(s) longer than {LISTING_LINE_CAP} bytes left out of the history",
            path.display()
        );
    }
    out
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

/// Loads the history of the session directory holding `log` on a background thread.
pub fn spawn_load(log: &Path) -> Receiver<Vec<String>> {
    let (tx, rx) = channel();
    let dir: PathBuf = log.parent().map(Path::to_path_buf).unwrap_or_default();
    let spawned = std::thread::Builder::new()
        .name("history".into())
        .spawn(move || {
            let _ = tx.send(load(&dir));
        });
    drop(spawned);
    rx
}

/// Indices into `newest_first` of the entries containing `query` (case-insensitive),
/// newest first, each text once. An empty query matches everything.
pub fn matches(newest_first: &[&str], query: &str) -> Vec<usize> {
    let q = query.to_lowercase();
    let mut seen = std::collections::HashSet::new();
    newest_first
        .iter()
        .enumerate()
        .filter(|(_, t)| t.to_lowercase().contains(&q) && seen.insert(**t))
        .map(|(i, _)| i)
        .collect()
}

/// Where `query` first occurs in `text` (case-insensitive), as a byte range of `text`.
pub fn find_ci(text: &str, query: &str) -> Option<std::ops::Range<usize>> {
    if query.is_empty() {
        return None;
    }
    let q: Vec<char> = query.chars().flat_map(char::to_lowercase).collect();
    let idx: Vec<(usize, char)> = text.char_indices().collect();
    for start in 0..idx.len() {
        let mut qi = 0;
        let mut j = start;
        while qi < q.len() && j < idx.len() {
            let lower: Vec<char> = idx[j].1.to_lowercase().collect();
            if q[qi..].starts_with(&lower) {
                qi += lower.len();
                j += 1;
            } else {
                break;
            }
        }
        if qi == q.len() {
            let end = idx.get(j).map_or(text.len(), |(b, _)| *b);
            return Some(idx[start].0..end);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_are_newest_first_case_insensitive_and_deduplicated() {
        let h = [
            "Deploy the API",
            "fix tests",
            "deploy the api",
            "Deploy the API",
        ];
        assert_eq!(matches(&h, "DEPLOY"), vec![0, 2]);
        assert_eq!(matches(&h, "tests"), vec![1]);
        assert_eq!(matches(&h, "nothing"), Vec::<usize>::new());
        assert_eq!(matches(&h, ""), vec![0, 1, 2]);
    }

    fn write_log(dir: &Path, id: &str, texts: &[&str]) {
        use crate::session::Session;
        use crate::session::event::{Message, Role, Source, UserMessageData};
        let mut s = Session::new(id, "/tmp");
        for t in texts {
            s.push(EventKind::UserMessage(UserMessageData {
                message: Message::text(Role::User, *t, Source::kind("user")),
            }))
            .unwrap();
        }
        let body: String = s
            .events()
            .iter()
            .map(|e| serde_json::to_string(&**e).unwrap() + "\n")
            .collect();
        std::fs::write(dir.join(format!("{id}.jsonl")), body).unwrap();
    }

    #[test]
    fn load_reads_every_session_newest_first_without_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        write_log(
            dir.path(),
            "20260101-000000-aaaaaaaa",
            &["old one", "shared"],
        );
        // The newer log: written later, so its modification time is not older.
        std::thread::sleep(std::time::Duration::from_millis(20));
        write_log(
            dir.path(),
            "20260102-000000-bbbbbbbb",
            &["shared", "newest"],
        );
        std::fs::write(dir.path().join("notes.txt"), "not a log").unwrap();
        assert_eq!(load(dir.path()), ["newest", "shared", "old one"]);
        assert!(load(&dir.path().join("missing")).is_empty());
    }

    #[test]
    fn history_keeps_the_newest_messages_within_its_size_cap() {
        let dir = tempfile::tempdir().unwrap();
        // 3 sessions of 40 messages of 256 KiB: 30 MiB of prompts, over the 8 MiB cap.
        let big = |s: usize, i: usize| format!("{s}-{i} {}", "p".repeat(256 * 1024));
        for s in 0..3 {
            let texts: Vec<String> = (0..40).map(|i| big(s, i)).collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            write_log(dir.path(), &format!("2026010{s}-000000-aaaaaaaa"), &refs);
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let h = load(dir.path());
        let total: usize = h.iter().map(String::len).sum();
        assert!(total <= MAX_TOTAL_BYTES, "{total} bytes kept");
        assert!(total > MAX_TOTAL_BYTES / 2, "the budget is used: {total}");
        // Newest session first, its last message first.
        assert_eq!(h[0], big(2, 39));
        assert_eq!(h[1], big(2, 38));
    }

    #[test]
    fn history_reads_past_hostile_entries_in_the_session_directory() {
        let dir = tempfile::tempdir().unwrap();
        write_log(dir.path(), "20260101-000000-aaaaaaaa", &["kept prompt"]);
        let fifo = dir.path().join("20270101-000000-ffffffff.jsonl");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        std::os::unix::fs::symlink(
            "/dev/zero",
            dir.path().join("20270101-000000-zzzzzzzz.jsonl"),
        )
        .unwrap();
        // A log of one line of zeros, longer than any line the history reads.
        let long = dir.path().join("20270101-000000-llllllll.jsonl");
        std::fs::File::create(&long)
            .unwrap()
            .set_len(4 * crate::session::listing::LISTING_LINE_CAP as u64)
            .unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let d = dir.path().to_path_buf();
        std::thread::spawn(move || {
            let _ = tx.send(load(&d));
        });
        let h = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("the history loads within 10 s");
        assert_eq!(h, ["kept prompt"]);
    }

    #[test]
    fn find_ci_locates_the_fragment() {
        assert_eq!(find_ci("Hello World", "wor"), Some(6..9));
        assert_eq!(find_ci("编辑 文件", "文件"), Some(7..13));
        assert_eq!(find_ci("abc", "x"), None);
        assert_eq!(find_ci("abc", ""), None);
    }
}
