//! Message history across sessions: the user messages of the session logs in the session
//! directory, newest first and without duplicates, for ↑/↓ and the Ctrl+R reverse search.
//! Read off the UI thread and handed over in batches as it goes (see [`spawn_load`]), so
//! the first frame never waits for it and Ctrl+R fills in while it reads.
//!
//! What is read and kept is bounded ([`BOUNDS`]; decision 0101): the newest sessions, each
//! log read from its end within a byte window and up to a number of prompts, and an index
//! of at most so many entries and bytes — the newest entries in full, older ones cut to a
//! prefix. The session directory is read as [`crate::session::listing`] reads it (regular
//! files only, opened without blocking, lines capped; decision 0034).

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::session::event::{Event, EventKind};
use crate::session::listing::{LISTING_LINE_CAP, list_sessions};
use crate::session::open::open_regular;
use crate::session::tail::TailLines;

/// How much of the session directory the history reads and keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Sessions read at most (the newest ones).
    pub sessions: usize,
    /// Bytes read from the end of each log at most.
    pub log_window: usize,
    /// User messages taken from each log at most (its last ones).
    pub log_messages: usize,
    /// Entries kept at most.
    pub entries: usize,
    /// Text kept at most, in bytes.
    pub bytes: usize,
    /// The newest entries kept in full; older ones are cut to [`Bounds::cut_bytes`].
    pub full_entries: usize,
    /// The prefix an older entry keeps, in bytes (then `…`).
    pub cut_bytes: usize,
}

/// The bounds the TUI reads with: 5,000 entries and 8 MiB of text at most, the newest
/// 500 in full, older ones cut to 512 bytes; the newest 2,000 logs, each from its last
/// 2 MiB and at most its last 200 prompts.
pub const BOUNDS: Bounds = Bounds {
    sessions: 2000,
    log_window: 2 << 20,
    log_messages: 200,
    entries: 5000,
    bytes: 8 << 20,
    full_entries: 500,
    cut_bytes: 512,
};

/// One step of the reading: entries older than every earlier batch's, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HistoryBatch {
    /// The new entries, newest first.
    pub older: Vec<String>,
    /// Sessions read so far.
    pub sessions: usize,
    /// The reading is over (nothing follows).
    pub done: bool,
}

/// How often a batch goes to the UI at most while reading.
const BATCH_EVERY: Duration = Duration::from_millis(50);

/// The entries admitted so far, counted against [`Bounds`]; texts are remembered by hash.
#[derive(Debug)]
struct Index {
    b: Bounds,
    seen: HashSet<u64>,
    entries: usize,
    bytes: usize,
}

impl Index {
    fn new(b: Bounds) -> Self {
        Index {
            b,
            seen: HashSet::new(),
            entries: 0,
            bytes: 0,
        }
    }

    fn is_full(&self) -> bool {
        self.entries >= self.b.entries || self.bytes >= self.b.bytes
    }

    /// The entry `text` becomes, if it is new and fits: in full among the newest, else cut.
    fn admit(&mut self, text: String) -> Option<String> {
        if self.is_full() {
            return None;
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut h);
        if !self.seen.insert(h.finish()) {
            return None;
        }
        let room = self.b.bytes - self.bytes;
        let t = if self.entries < self.b.full_entries && text.len() <= room {
            text
        } else {
            cut(text, self.b.cut_bytes.min(room))
        };
        self.entries += 1;
        self.bytes += t.len();
        Some(t)
    }
}

/// `text`'s first `max` bytes (at a character boundary) and `…`, or `text` if it fits.
fn cut(mut text: String, max: usize) -> String {
    const MORE: &str = "…";
    if text.len() <= max {
        return text;
    }
    let mut at = max.saturating_sub(MORE.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    text.truncate(at);
    text.push_str(MORE);
    text
}

/// Reads the history of `dir` within `b`, handing `send` a batch at least every
/// [`BATCH_EVERY`] while it reads and a last one marked done; stops early when `send`
/// returns `false` (nobody listens any more). Unreadable logs and lines are skipped.
pub fn read(dir: &Path, b: Bounds, mut send: impl FnMut(HistoryBatch) -> bool) {
    let sessions = list_sessions(dir).unwrap_or_default();
    let mut index = Index::new(b);
    let mut tail = TailLines::default();
    let mut batch = HistoryBatch::default();
    let mut sent_at: Option<Instant> = None;
    for s in sessions.iter().take(b.sessions) {
        if index.is_full() {
            break;
        }
        read_log(&s.path, b, &mut tail, &mut index, &mut batch.older);
        batch.sessions += 1;
        // The first entries go at once; then at most every BATCH_EVERY.
        let due = match sent_at {
            None => !batch.older.is_empty(),
            Some(t) => t.elapsed() >= BATCH_EVERY,
        };
        if due {
            let next = HistoryBatch {
                sessions: batch.sessions,
                ..Default::default()
            };
            if !send(std::mem::replace(&mut batch, next)) {
                return;
            }
            sent_at = Some(Instant::now());
        }
    }
    batch.done = true;
    send(batch);
}

/// Adds the last user messages of the log at `path` to `index`, newest first, into `out`.
fn read_log(
    path: &Path,
    b: Bounds,
    tail: &mut TailLines,
    index: &mut Index,
    out: &mut Vec<String>,
) {
    let Ok(file) = open_regular(path, false) else {
        return;
    };
    let Ok(meta) = file.metadata() else {
        return;
    };
    let mut taken = 0usize;
    let r = tail.read(&file, meta.len(), b.log_window, LISTING_LINE_CAP, |line| {
        // Only user messages are parsed (tool results can be large).
        if !contains(line, br#""user/message""#) {
            return true;
        }
        let Ok(ev) = serde_json::from_slice::<Event>(line) else {
            return true;
        };
        let EventKind::UserMessage(m) = &ev.kind else {
            return true;
        };
        let t = m.message.typed_text();
        if t.trim().is_empty() {
            return true;
        }
        taken += 1;
        if let Some(t) = index.admit(t) {
            out.push(t);
        }
        taken < b.log_messages && !index.is_full()
    });
    if r.overlong > 0 {
        tracing::warn!(
            "{}: {} line(s) longer than {LISTING_LINE_CAP} bytes left out of the history",
            path.display(),
            r.overlong
        );
    }
    // `tail` keeps its buffer for the next log: it never outgrows `b.log_window` (2 MiB),
    // and a new one per large log cost a zero-filled window each.
}

/// The whole history of `dir` within [`BOUNDS`], newest first, read on this thread.
pub fn load(dir: &Path) -> Vec<String> {
    load_within(dir, BOUNDS)
}

/// [`load`] within `b`.
pub fn load_within(dir: &Path, b: Bounds) -> Vec<String> {
    let mut out = Vec::new();
    read(dir, b, |batch| {
        out.extend(batch.older);
        true
    });
    out
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

/// Reads the history of the session directory holding `log` on a background thread,
/// handing each batch to `send` as it is read (the last one is `done`); the reading stops
/// when `send` returns `false`.
pub fn spawn_load(log: &Path, send: impl FnMut(HistoryBatch) -> bool + Send + 'static) {
    let dir: PathBuf = log.parent().map(Path::to_path_buf).unwrap_or_default();
    let spawned = std::thread::Builder::new()
        .name("history".into())
        .spawn(move || read(&dir, BOUNDS, send));
    drop(spawned);
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
    fn a_long_log_is_read_from_its_end_only() {
        let dir = tempfile::tempdir().unwrap();
        let texts: Vec<String> = (0..2000).map(|i| format!("prompt {i}")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        write_log(dir.path(), "20260101-000000-aaaaaaaa", &refs);
        let b = Bounds {
            log_window: 16 * 1024,
            ..BOUNDS
        };
        let h = load_within(dir.path(), b);
        assert_eq!(h[0], "prompt 1999");
        assert!(h.len() < 200, "only the window's prompts: {}", h.len());
        let b = Bounds {
            log_messages: 7,
            ..BOUNDS
        };
        assert_eq!(load_within(dir.path(), b).len(), 7);
    }

    #[test]
    fn a_cut_entry_keeps_a_prefix_at_a_character_boundary() {
        assert_eq!(cut("short".into(), 10), "short");
        assert_eq!(cut("编辑文件".into(), 8), "编…");
        assert!(cut("x".repeat(100), 20).len() <= 20);
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
