//! Message history across sessions: the user messages of every session
//! log in the session directory, newest first and without duplicates, for ↑/↓ and the
//! Ctrl+R reverse search. Loaded off the UI thread (see [`spawn_load`]).

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};

use crate::session::event::{Event, EventKind};
use crate::session::store::list_sessions;

/// Sessions read at most (the newest ones).
pub const MAX_SESSIONS: usize = 500;
/// Messages kept at most.
pub const MAX_MESSAGES: usize = 5000;

/// The user messages of the logs in `dir`, newest first (newest session first, its last
/// message first), each text once. Unreadable logs and lines are skipped.
pub fn load(dir: &Path) -> Vec<String> {
    let Ok(sessions) = list_sessions(dir) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for s in sessions.iter().take(MAX_SESSIONS) {
        for m in session_messages(&s.path).into_iter().rev() {
            if seen.insert(m.clone()) {
                out.push(m);
                if out.len() >= MAX_MESSAGES {
                    return out;
                }
            }
        }
    }
    out
}

/// The user messages of one log, oldest first.
fn session_messages(path: &Path) -> Vec<String> {
    let Ok(f) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for line in std::io::BufReader::new(f).lines() {
        let Ok(line) = line else { break };
        // Only user messages are parsed (tool results can be large).
        if !line.contains("\"user/message\"") {
            continue;
        }
        if let Ok(ev) = serde_json::from_str::<Event>(&line)
            && let EventKind::UserMessage(m) = &ev.kind
        {
            let t = m.message.typed_text();
            if !t.trim().is_empty() {
                out.push(t);
            }
        }
    }
    out
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
    fn find_ci_locates_the_fragment() {
        assert_eq!(find_ci("Hello World", "wor"), Some(6..9));
        assert_eq!(find_ci("编辑 文件", "文件"), Some(7..13));
        assert_eq!(find_ci("abc", "x"), None);
        assert_eq!(find_ci("abc", ""), None);
    }
}
