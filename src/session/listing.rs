//! The session directory as a list: where it is by default, which entries are logs, `--resume ID|last`, and the
//! `/resume` picker's summaries (with a cache, since reading every log takes seconds).
//!
//! Only regular files named `*.jsonl` are sessions: a directory, FIFO, socket or device
//! with that name (or a symlink to one) is skipped, so it can neither hang nor crash the
//! listing, and `--resume last` never picks it. Logs are opened and read as
//! [`super::open`] describes. See docs/decisions/0034-hostile-session-directory.md.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use super::event::{Event, EventKind};
use super::open::{LineReader, Overlong, open_regular};
use super::store::{StoreError, dir_error};

/// Where sessions live when `--session-dir` is not given.
pub fn default_session_dir() -> PathBuf {
    directories::ProjectDirs::from("", "", "deepterm")
        .map(|d| d.data_dir().join("sessions"))
        .unwrap_or_else(|| PathBuf::from(".deepterm/sessions"))
}

/// The longest line the listing and the message history read (1 MiB); a longer line is
/// skipped (a user message that long is no prompt to recall or to title a session with).
pub const LISTING_LINE_CAP: usize = 1 << 20;

/// The read buffer for scanning logs.
const SCAN_BUFFER: usize = 64 * 1024;

/// One session in the listing.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    /// Session id (file stem).
    pub id: String,
    /// Log path.
    pub path: PathBuf,
    /// Last modification time.
    pub modified: SystemTime,
    /// The log's size in bytes.
    pub bytes: u64,
}

/// Lists the sessions in `dir`, newest first: the regular files named `*.jsonl` (symlinks
/// followed). A missing directory is an empty list.
pub fn list_sessions(dir: &Path) -> Result<Vec<SessionInfo>, StoreError> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
        Err(e) => return Err(dir_error(dir, e)),
    };
    let mut out = Vec::new();
    for entry in rd.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
            continue;
        }
        let Some(id) = path
            .file_stem()
            .and_then(|s| s.to_str())
            .map(str::to_string)
        else {
            continue;
        };
        // `stat` follows a symlink without opening its target, so a FIFO costs nothing here.
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        out.push(SessionInfo {
            id,
            path,
            modified: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            bytes: meta.len(),
        });
    }
    out.sort_by(|a, b| b.modified.cmp(&a.modified).then(b.id.cmp(&a.id)));
    Ok(out)
}

/// Resolves `--resume ID|last` to a log path: `last` is the newest session; otherwise an
/// exact id or a unique id prefix. An exact id whose entry is not a regular file resolves
/// to its path, so that opening it says what is wrong instead of "no session matches".
pub fn resolve_resume(dir: &Path, query: &str) -> Result<PathBuf, StoreError> {
    let sessions = list_sessions(dir)?;
    if query == "last" {
        return sessions
            .into_iter()
            .next()
            .map(|s| s.path)
            .ok_or_else(|| StoreError::NotFound {
                dir: dir.to_path_buf(),
                query: query.into(),
            });
    }
    if let Some(s) = sessions.iter().find(|s| s.id == query) {
        return Ok(s.path.clone());
    }
    let exact = dir.join(format!("{query}.jsonl"));
    if !query.contains('/') && std::fs::symlink_metadata(&exact).is_ok() {
        return Ok(exact);
    }
    let matches: Vec<&SessionInfo> = sessions
        .iter()
        .filter(|s| s.id.starts_with(query))
        .collect();
    match matches.len() {
        0 => Err(StoreError::NotFound {
            dir: dir.to_path_buf(),
            query: query.into(),
        }),
        1 => Ok(matches[0].path.clone()),
        _ => Err(StoreError::Ambiguous {
            query: query.into(),
            candidates: matches.iter().map(|s| s.id.clone()).collect(),
        }),
    }
}

/// What the `/resume` picker shows of one log besides its id, size and time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogSummary {
    /// The first user message, on one line, at most [`SUMMARY_PROMPT_CHARS`] characters;
    /// `None` before the first one.
    pub first_prompt: Option<String>,
    /// User and assistant messages in the log.
    pub messages: usize,
    /// The workspace the session was started in (`session/start`'s `cwd`, SPEC §14.4).
    pub workspace: Option<String>,
    /// The parent's id when the log is a fork (SPEC §14.3).
    pub forked_from: Option<String>,
    /// The log is longer than [`SUMMARY_SCAN_BYTES`]: `messages` counts its first bytes
    /// only, so there are at least that many.
    pub messages_partial: bool,
}

/// The bytes [`summarize_log`] reads of a log at most, from its start (4 MiB): the
/// workspace, the parent and the first prompt are at the start, and listing 2,000 sessions
/// must not read whole logs of gigabytes.
pub const SUMMARY_SCAN_BYTES: u64 = 4 << 20;

/// The longest first prompt [`summarize_log`] keeps, in characters.
pub const SUMMARY_PROMPT_CHARS: usize = 200;

/// Summarizes one log in one pass over its lines, within its first [`SUMMARY_SCAN_BYTES`]:
/// only the first user message is parsed; the others are recognized by their type tag (a
/// string in a payload has its quotes escaped, so it cannot look like one), which a line
/// over [`LISTING_LINE_CAP`] still shows in its first bytes. A log that cannot be read, or
/// is not a regular file, summarizes as empty.
pub fn summarize_log(path: &Path) -> LogSummary {
    let mut out = LogSummary::default();
    let Ok(file) = open_regular(path, false) else {
        return out;
    };
    out.messages_partial = file.metadata().is_ok_and(|m| m.len() > SUMMARY_SCAN_BYTES);
    let head = std::io::Read::take(file, SUMMARY_SCAN_BYTES);
    let reader = std::io::BufReader::with_capacity(SCAN_BUFFER, head);
    let mut lines = LineReader::new(reader, LISTING_LINE_CAP, Overlong::Skip);
    let mut cut = 0usize;
    while let Ok(Some(line)) = lines.next_line() {
        // The first event names the workspace (SPEC §14.4) and, for a fork, its parent
        // (SPEC §14.3).
        if out.workspace.is_none()
            && !line.is_cut()
            && contains(line.bytes, br#""type":"session/start""#)
            && let Ok(ev) = serde_json::from_slice::<Event>(line.bytes)
            && let EventKind::SessionStart(s) = &ev.kind
        {
            if !s.cwd.is_empty() {
                out.workspace = Some(s.cwd.clone());
            }
            out.forked_from = s.forked_from.as_ref().map(|f| f.id.clone());
            continue;
        }
        let user = contains(line.bytes, br#""type":"user/message""#);
        if !user && !contains(line.bytes, br#""type":"assistant/message""#) {
            continue;
        }
        out.messages += 1;
        if line.is_cut() {
            cut += 1;
            continue;
        }
        if user
            && out.first_prompt.is_none()
            && let Ok(ev) = serde_json::from_slice::<Event>(line.bytes)
            && let EventKind::UserMessage(m) = &ev.kind
        {
            let t = m.message.typed_text();
            let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
            out.first_prompt = Some(t.chars().take(SUMMARY_PROMPT_CHARS).collect());
        }
    }
    if cut > 0 {
        tracing::warn!(
            "{}: {cut} message line(s) longer than {LISTING_LINE_CAP} bytes not read for the summary",
            path.display()
        );
    }
    out
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

/// Summaries already made, by log path, each valid while the log keeps its size and
/// modification time: opening the picker again reads only the logs that changed.
#[derive(Debug, Default)]
pub struct SummaryCache {
    entries: Mutex<HashMap<PathBuf, Cached>>,
}

#[derive(Debug)]
struct Cached {
    bytes: u64,
    modified: SystemTime,
    summary: LogSummary,
}

impl SummaryCache {
    /// The summary of each of `sessions`, in order, from the cache where the log is
    /// unchanged and read otherwise. Entries of logs not in `sessions` are dropped, so the
    /// cache never holds more than one listing.
    pub fn summaries(&self, sessions: &[SessionInfo]) -> Vec<LogSummary> {
        let out = sessions.iter().map(|s| self.summary(s)).collect();
        self.retain(sessions);
        out
    }

    /// The summary of `s`, from the cache if its log is unchanged, else read (and cached).
    pub fn summary(&self, s: &SessionInfo) -> LogSummary {
        let lock = || self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = lock().get(&s.path)
            && c.bytes == s.bytes
            && c.modified == s.modified
        {
            return c.summary.clone();
        }
        // Read without the lock: another listing may use the cache meanwhile.
        let summary = summarize_log(&s.path);
        lock().insert(
            s.path.clone(),
            Cached {
                bytes: s.bytes,
                modified: s.modified,
                summary: summary.clone(),
            },
        );
        summary
    }

    /// Drops the entries of logs not in `sessions`.
    pub fn retain(&self, sessions: &[SessionInfo]) {
        let listed: std::collections::HashSet<&Path> =
            sessions.iter().map(|s| s.path.as_path()).collect();
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.retain(|p, _| listed.contains(p.as_path()));
    }

    /// How many summaries the cache holds.
    pub fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
