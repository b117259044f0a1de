//! JSONL session store (SPEC §4): one event per line, flushed per event, fsynced on
//! demand, an exclusive lock while open, torn-tail recovery. Listing the session
//! directory is [`super::listing`].
//!
//! Loading never changes a log it cannot load: [`parse_log_from`] parses and validates
//! the whole file first and names the 1-based line of the first bad event. Only a
//! successful load repairs the file: bytes after the last newline that do not parse as
//! an event are a torn final line (a crash mid-write), cut off, saved next to the log and
//! reported once (every cut tail is kept: `<id>.jsonl.torn`, then `.torn.1`, `.torn.2`,
//! …); a complete last event without its newline is kept and terminated.
//! See docs/decisions/0008-session-load-repairs-only-after-success.md.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use crate::session::event::{Event, LOG_FORMAT};
use crate::session::open::{LineReader, OpenError, Overlong, open_regular};
use crate::session::{EventSink, Session, SessionError, SinkError};

/// Errors of the session store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// I/O failure on the log file.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// Another process holds the session.
    #[error("{path}: session is open in another process")]
    Locked {
        /// File.
        path: PathBuf,
    },
    /// A line that is not a valid event (not the torn final line).
    #[error("{path}:{line}: {message}")]
    Corrupt {
        /// File.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The log is not a regular file (a directory, FIFO, socket or device named `*.jsonl`).
    #[error("{path}: not a regular file")]
    NotAFile {
        /// File.
        path: PathBuf,
    },
    /// The log starts with a `session/start` of a newer format than this build reads.
    #[error("{path}: written by a newer deepterm (log format {found}; this one reads {supported})")]
    NewerFormat {
        /// File.
        path: PathBuf,
        /// The format the log declares.
        found: u64,
        /// The format this build reads ([`LOG_FORMAT`]).
        supported: u32,
    },
    /// The session directory exists but is not a directory (`--session-dir FILE`).
    #[error("{path}: not a directory")]
    NotADirectory {
        /// The path given as the session directory.
        path: PathBuf,
    },
    /// No session matches the id given to `--resume`.
    #[error("no session matches {query:?} in {dir}")]
    NotFound {
        /// Session directory.
        dir: PathBuf,
        /// What the user asked for.
        query: String,
    },
    /// Several sessions match an id prefix.
    #[error("{query:?} matches several sessions: {}", candidates.join(", "))]
    Ambiguous {
        /// What the user asked for.
        query: String,
        /// Matching ids.
        candidates: Vec<String>,
    },
}

impl StoreError {
    fn io(path: &Path, source: std::io::Error) -> Self {
        StoreError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// A localized one-line description.
    pub fn localized(&self, l: crate::i18n::Localizer) -> String {
        use crate::i18n::Arg;
        match self {
            StoreError::Io { path, source } => l.tra(
                "store-io",
                &[
                    ("path", Arg::from(path.display().to_string())),
                    ("error", Arg::from(source.to_string())),
                ],
            ),
            StoreError::Locked { path } => l.tra(
                "store-locked",
                &[("path", Arg::from(path.display().to_string()))],
            ),
            StoreError::Corrupt {
                path,
                line,
                message,
            } => l.tra(
                "store-corrupt",
                &[
                    ("path", Arg::from(path.display().to_string())),
                    ("line", Arg::from(*line)),
                    ("error", Arg::from(message.as_str())),
                ],
            ),
            StoreError::NotAFile { path } => l.tra(
                "store-not-a-file",
                &[("path", Arg::from(path.display().to_string()))],
            ),
            StoreError::NewerFormat {
                path,
                found,
                supported,
            } => l.tra(
                "store-newer-format",
                &[
                    ("path", Arg::from(path.display().to_string())),
                    ("found", Arg::from(found.to_string())),
                    ("supported", Arg::from(supported.to_string())),
                ],
            ),
            StoreError::NotADirectory { path } => l.tra(
                "store-not-a-directory",
                &[("path", Arg::from(path.display().to_string()))],
            ),
            StoreError::NotFound { dir, query } => l.tra(
                "store-not-found",
                &[
                    ("dir", Arg::from(dir.display().to_string())),
                    ("query", Arg::from(query.as_str())),
                ],
            ),
            StoreError::Ambiguous { query, candidates } => l.tra(
                "store-ambiguous",
                &[
                    ("query", Arg::from(query.as_str())),
                    ("candidates", Arg::List(candidates.clone())),
                ],
            ),
        }
    }
}

/// A torn final line that was cut off on load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornTail {
    /// 1-based line number of the torn line.
    pub line: usize,
    /// Number of bytes cut.
    pub bytes: usize,
    /// Where the cut bytes were saved.
    pub saved_to: PathBuf,
}

/// An open, locked session log.
#[derive(Debug)]
pub struct Store {
    path: PathBuf,
    file: File,
}

/// How many fresh ids [`Store::create_unique`] tries before it gives up.
const CREATE_ATTEMPTS: usize = 16;

/// What loading an existing log produced.
#[derive(Debug)]
pub struct Loaded {
    /// The open store (lock held).
    pub store: Store,
    /// The restored session, every event validated as on live append (no sink set yet).
    pub session: Session,
    /// The torn tail that was cut, if any (report it once).
    pub torn: Option<TornTail>,
}

/// Makes sure `dir` is a directory, creating it when it is missing.
fn ensure_dir(dir: &Path) -> Result<(), StoreError> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(StoreError::NotADirectory {
            path: dir.to_path_buf(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir).map_err(|e| dir_error(dir, e))
        }
        Err(e) => Err(dir_error(dir, e)),
    }
}

/// An I/O error on the session directory; "not a directory" gets its own message.
pub(super) fn dir_error(dir: &Path, e: std::io::Error) -> StoreError {
    if e.kind() == std::io::ErrorKind::NotADirectory {
        StoreError::NotADirectory {
            path: dir.to_path_buf(),
        }
    } else {
        StoreError::io(dir, e)
    }
}

/// fsyncs a directory so that a file just created in it survives a crash. Filesystems
/// that cannot sync a directory (they report it as invalid or unsupported) are skipped.
fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    let res = File::open(dir).and_then(|d| d.sync_all());
    match res {
        Err(e)
            if !matches!(
                e.kind(),
                std::io::ErrorKind::InvalidInput | std::io::ErrorKind::Unsupported
            ) =>
        {
            Err(StoreError::io(dir, e))
        }
        _ => Ok(()),
    }
}

/// How long a lock another holder has is tried again before the log counts as in use.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_millis(250);

fn lock(file: &File, path: &Path) -> Result<(), StoreError> {
    // The lock belongs to the open file, and a child process being started (a tool, a
    // hook, an MCP server) holds a copy of every descriptor from its fork until its exec
    // closes them. A log this process has just closed can therefore stay locked for that
    // moment: try again briefly before saying another deepterm has it. A real second
    // holder keeps it far longer.
    let deadline = std::time::Instant::now() + LOCK_PATIENCE;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(StoreError::Locked {
                    path: path.to_path_buf(),
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(StoreError::io(path, e)),
        }
    }
}

impl Store {
    /// Creates `<dir>/<id>.jsonl` (and `dir`), failing if it exists, and locks it. The
    /// directory is fsynced so the new entry survives a crash.
    pub fn create(dir: &Path, id: &str) -> Result<Store, StoreError> {
        ensure_dir(dir)?;
        let path = dir.join(format!("{id}.jsonl"));
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| StoreError::io(&path, e))?;
        lock(&file, &path)?;
        sync_dir(dir)?;
        Ok(Store { path, file })
    }

    /// Creates a new log under a fresh id from `next_id`, retrying with another id while
    /// the file exists already (the create is `O_EXCL`, so concurrent starts never share a
    /// file). Returns the id used and the locked store.
    pub fn create_unique(
        dir: &Path,
        mut next_id: impl FnMut() -> String,
    ) -> Result<(String, Store), StoreError> {
        let mut last = None;
        for _ in 0..CREATE_ATTEMPTS {
            let id = next_id();
            match Store::create(dir, &id) {
                Ok(store) => return Ok((id, store)),
                Err(StoreError::Io { path, source })
                    if source.kind() == std::io::ErrorKind::AlreadyExists =>
                {
                    last = Some(StoreError::Io { path, source });
                }
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| {
            StoreError::io(
                dir,
                std::io::Error::new(std::io::ErrorKind::AlreadyExists, "no free session id"),
            )
        }))
    }

    /// Opens and locks an existing log and loads it. The whole file is parsed and
    /// validated first ([`parse_log_from`], line by line as it is read); only when that
    /// succeeds is it repaired: a torn tail is saved aside and cut, a missing final newline
    /// is added, and a log without any complete event gets a fresh `session/start`
    /// (id = file stem). A failed load changes nothing. Only a regular file is opened, and
    /// without blocking: a FIFO or a device named `*.jsonl` is refused, not read.
    pub fn open(path: &Path) -> Result<Loaded, StoreError> {
        let file = open_regular(path, true).map_err(|e| match e {
            OpenError::NotRegular => StoreError::NotAFile {
                path: path.to_path_buf(),
            },
            OpenError::Io(e) => StoreError::io(path, e),
        })?;
        lock(&file, path)?;
        let reader = std::io::BufReader::with_capacity(64 * 1024, &file);
        let parsed = parse_log_from(reader).map_err(|e| match e {
            LoadError::Io(e) => StoreError::io(path, e),
            LoadError::Line(e) => line_error(path, e),
        })?;
        let torn = match parsed.torn_line {
            Some(line) => {
                let tail = &parsed.torn_bytes;
                let saved_to = save_torn(path, tail)?;
                file.set_len(parsed.keep as u64)
                    .map_err(|e| StoreError::io(path, e))?;
                file.sync_all().map_err(|e| StoreError::io(path, e))?;
                Some(TornTail {
                    line,
                    bytes: tail.len(),
                    saved_to,
                })
            }
            None => None,
        };
        let mut store = Store {
            path: path.to_path_buf(),
            file,
        };
        if parsed.missing_newline {
            // The last event is complete; terminate its line so the next one starts fresh.
            store
                .file
                .write_all(b"\n")
                .and_then(|_| store.file.sync_data())
                .map_err(|e| StoreError::io(path, e))?;
        }
        let session = match parsed.session {
            Some(s) => s,
            None => {
                // Nothing complete survived (a crash between creating the file and writing
                // its first line): start the session afresh under the same id.
                let id = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let cwd = std::env::current_dir()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default();
                let s = Session::new(id, cwd);
                for ev in s.events() {
                    store.append(ev)?;
                }
                store.sync()?;
                s
            }
        };
        Ok(Loaded {
            store,
            session,
            torn,
        })
    }

    /// Path of the log file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one event as one line with a single write (committed once it returns).
    /// A write that fails part-way (a full disk) is rolled back to the previous end of
    /// file, so the next append does not glue onto a fragment.
    pub fn append(&mut self, event: &Event) -> Result<(), StoreError> {
        // Measure the line first so its buffer is allocated once at its final size: a
        // growing buffer holds up to three times a large reply while it doubles (the exec memory figures in docs/benchmarks.md).
        let invalid = |e: serde_json::Error| {
            StoreError::io(
                &self.path,
                std::io::Error::new(std::io::ErrorKind::InvalidData, e),
            )
        };
        let mut size = ByteCount(0);
        serde_json::to_writer(&mut size, event).map_err(invalid)?;
        let mut line = Vec::with_capacity(size.0 + 1);
        serde_json::to_writer(&mut line, event).map_err(invalid)?;
        line.push(b'\n');
        let end = self
            .file
            .metadata()
            .map(|m| m.len())
            .map_err(|e| StoreError::io(&self.path, e))?;
        if let Err(e) = self.file.write_all(&line).and_then(|_| self.file.flush()) {
            let _ = self.file.set_len(end);
            return Err(StoreError::io(&self.path, e));
        }
        Ok(())
    }

    /// fsyncs the file (before each provider request and at turn end).
    pub fn sync(&mut self) -> Result<(), StoreError> {
        self.file
            .sync_data()
            .map_err(|e| StoreError::io(&self.path, e))
    }
}

/// The session writes each committed event through its store.
impl EventSink for Store {
    fn write(&mut self, ev: &Event) -> Result<(), SinkError> {
        self.append(ev).map_err(|e| SinkError::Write(e.to_string()))
    }
    fn sync(&mut self) -> Result<(), SinkError> {
        Store::sync(self).map_err(|e| SinkError::Sync(e.to_string()))
    }
}

/// A writer that only counts the bytes written to it.
struct ByteCount(usize);

impl Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A line the loader rejects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong (English, internal; shown inside a localized frame).
    pub message: String,
    /// The line is a `session/start` of this newer log format ([`LOG_FORMAT`] is older):
    /// not damage, and said so.
    pub newer_format: Option<u64>,
}

impl LineError {
    fn new(line: usize, message: impl Into<String>) -> Self {
        LineError {
            line,
            message: message.into(),
            newer_format: None,
        }
    }
}

/// The store error for a line the loader rejects.
fn line_error(path: &Path, e: LineError) -> StoreError {
    match e.newer_format {
        Some(found) => StoreError::NewerFormat {
            path: path.to_path_buf(),
            found,
            supported: LOG_FORMAT,
        },
        None => StoreError::Corrupt {
            path: path.to_path_buf(),
            line: e.line,
            message: e.message,
        },
    }
}

/// Why [`parse_log_from`] failed.
#[derive(Debug)]
pub enum LoadError {
    /// Reading failed.
    Io(std::io::Error),
    /// A line is not a valid event.
    Line(LineError),
}

/// What [`parse_log`] found in a log's bytes. Nothing has been changed anywhere yet.
#[derive(Debug)]
pub struct ParsedLog {
    /// The restored session, validated as on live append; `None` when the log holds no
    /// complete event (a crash between creating the file and writing `session/start`).
    pub session: Option<Session>,
    /// Length of the prefix to keep: everything before a torn final line.
    pub keep: usize,
    /// 1-based line number of a torn final line (its bytes are `torn_bytes`).
    pub torn_line: Option<usize>,
    /// The torn final line's bytes (empty without one).
    pub torn_bytes: Vec<u8>,
    /// The kept bytes end with a complete event whose newline was never written.
    pub missing_newline: bool,
}

/// The longest first line a log may have. A log starts with its `session/start`, a few
/// hundred bytes, so a longer first line means the file is no deepterm log (a file of
/// zeros, a binary): it is refused after reading this much, not read whole.
pub const MAX_FIRST_LINE_BYTES: usize = 64 * 1024;

/// Parses and validates a whole log in memory (SPEC §4). Every newline-terminated line
/// must be a valid event. Bytes after the last newline are either a complete event whose
/// newline is missing (kept) or, when they do not parse as an event, a torn final line
/// (a crash mid-write) that the caller cuts. Blank trailing bytes are ignored.
pub fn parse_log(bytes: &[u8]) -> Result<ParsedLog, LineError> {
    parse_log_from(bytes).map_err(|e| match e {
        LoadError::Line(e) => e,
        // Reading a byte slice cannot fail; should it, the first line is what was not read.
        LoadError::Io(e) => LineError::new(1, e.to_string()),
    })
}

/// [`parse_log`] over a reader, one line at a time, so the file's bytes are never held
/// whole next to the events parsed from them. The first line may be at most
/// [`MAX_FIRST_LINE_BYTES`] long; a `session/start` of a newer format is reported as such
/// ([`LineError::newer_format`]) before anything else is checked.
pub fn parse_log_from(reader: impl BufRead) -> Result<ParsedLog, LoadError> {
    let mut lines = LineReader::new(reader, MAX_FIRST_LINE_BYTES, Overlong::Stop);
    let mut events = Vec::new();
    let mut offset: usize = 0;
    let mut parsed = ParsedLog {
        session: None,
        keep: 0,
        torn_line: None,
        torn_bytes: Vec::new(),
        missing_newline: false,
    };
    while let Some(line) = lines.next_line().map_err(LoadError::Io)? {
        let number = line.number;
        if number == 1 {
            if line.is_cut() {
                return Err(LoadError::Line(LineError::new(
                    1,
                    format!(
                        "the line is longer than {MAX_FIRST_LINE_BYTES} bytes, so the file is \
                         not a deepterm session log"
                    ),
                )));
            }
            if let Some(found) = newer_format(line.bytes) {
                return Err(LoadError::Line(LineError {
                    newer_format: Some(found),
                    ..LineError::new(1, format!("log format {found}"))
                }));
            }
        }
        let len = usize::try_from(line.len).unwrap_or(usize::MAX);
        if line.terminated {
            let ev = parse_line(line.bytes)
                .map_err(|e| LoadError::Line(LineError::new(number, e.to_string())))?;
            events.push(ev);
            offset = offset.saturating_add(len).saturating_add(1);
            parsed.keep = offset;
        } else {
            // The bytes after the last newline (the loop ends after them).
            parsed.keep = offset.saturating_add(len);
            if !line.bytes.iter().all(u8::is_ascii_whitespace) {
                match parse_line(line.bytes) {
                    Ok(ev) => {
                        events.push(ev);
                        parsed.missing_newline = true;
                    }
                    Err(_) => {
                        parsed.keep = offset;
                        parsed.torn_line = Some(number);
                        parsed.torn_bytes = line.bytes.to_vec();
                    }
                }
            }
        }
        if number == 1 {
            // Later lines may be as long as a reply (the stream limits are configurable).
            lines.set_cap(usize::MAX);
        }
    }
    if !events.is_empty() {
        let s = Session::from_events_indexed(events).map_err(|(i, e)| {
            LoadError::Line(LineError::new(
                i + 1,
                match e {
                    SessionError::Invalid(v) => v.to_string(),
                    other => other.to_string(),
                },
            ))
        })?;
        parsed.session = Some(s);
    }
    Ok(parsed)
}

/// The format of a `session/start` line newer than [`LOG_FORMAT`], read loosely (a newer
/// format may not parse as this build's event at all).
fn newer_format(raw: &[u8]) -> Option<u64> {
    #[derive(serde::Deserialize)]
    struct Start {
        #[serde(rename = "type")]
        kind: String,
        data: StartData,
    }
    #[derive(serde::Deserialize)]
    struct StartData {
        format: u64,
    }
    let start: Start = serde_json::from_slice(raw).ok()?;
    (start.kind == "session/start" && start.data.format > u64::from(LOG_FORMAT))
        .then_some(start.data.format)
}

/// Why a log line is not an event (its text goes into the load error with the line number).
#[derive(Debug, thiserror::Error)]
enum LineFault {
    /// The bytes are not UTF-8.
    #[error("not valid UTF-8")]
    NotUtf8,
    /// Nothing but white space.
    #[error("empty line")]
    Empty,
    /// Not the JSON of an event.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
}

fn parse_line(raw: &[u8]) -> Result<Event, LineFault> {
    let text = std::str::from_utf8(raw).map_err(|_| LineFault::NotUtf8)?;
    if text.trim().is_empty() {
        return Err(LineFault::Empty);
    }
    Ok(serde_json::from_str(text)?)
}

/// How many saved torn tails one log may collect (`.torn`, `.torn.1`, …).
const MAX_TORN_FILES: u32 = 10_000;

/// Saves a torn tail next to the log without overwriting an earlier one: the first as
/// `<id>.jsonl.torn`, later ones as `<id>.jsonl.torn.1`, `.torn.2`, … (created with
/// `O_EXCL`). The saved file and its directory are fsynced.
fn save_torn(path: &Path, tail: &[u8]) -> Result<PathBuf, StoreError> {
    let base = path.with_extension("jsonl.torn");
    for n in 0..MAX_TORN_FILES {
        let candidate = if n == 0 {
            base.clone()
        } else {
            let mut name = base.clone().into_os_string();
            name.push(format!(".{n}"));
            PathBuf::from(name)
        };
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&candidate)
        {
            Ok(mut f) => {
                f.write_all(tail)
                    .and_then(|_| f.sync_all())
                    .map_err(|e| StoreError::io(&candidate, e))?;
                if let Some(dir) = candidate.parent() {
                    sync_dir(dir)?;
                }
                return Ok(candidate);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(StoreError::io(&candidate, e)),
        }
    }
    Err(StoreError::io(
        &base,
        std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            "too many saved torn tails; remove old .torn files",
        ),
    ))
}

/// A new sortable session id: `YYYYMMDD-HHMMSS-xxxxxxxx` (32 random bits, so parallel
/// starts in the same second rarely collide; [`Store::create_unique`] retries when they do).
pub fn new_session_id() -> String {
    let now = chrono::Utc::now();
    format!("{}-{:08x}", now.format("%Y%m%d-%H%M%S"), fastrand::u32(..))
}

#[cfg(test)]
#[path = "store_tests.rs"]
pub(crate) mod tests;
