//! Built-in read-only tools: `read_file`, `list_dir`, `grep`, confined to a workspace root.
//!
//! Every path is resolved against the root, normalized, canonicalized (following
//! symlinks) and refused unless it stays inside the root. Only regular files are read: a
//! FIFO, socket or device is refused from its metadata, before anything opens it (opening
//! a FIFO for reading blocks until a writer appears). Each call runs under the same
//! cancellable timeout as command tools ([`super::run_guarded`]). The descriptions and
//! schemas are part of the cached prompt prefix, so they are fixed text with a stable key
//! order.

use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::{
    Approval, Interrupted, RegisteredTool, ToolExecutor, ToolOutcome, run_guarded, truncate_utf8,
};
use crate::config::DEFAULT_COMMAND_TIMEOUT_SECS;
use crate::fs_guard::{self, OpenError, SpecialKind};
use crate::session::event::ToolSchema;

/// Timeout of one built-in tool call: the command tools' default.
pub const DEFAULT_BUILTIN_TIMEOUT: Duration = Duration::from_secs(DEFAULT_COMMAND_TIMEOUT_SECS);

/// Largest file `read_file` returns whole; larger files need `offset`/`limit`.
pub const MAX_FILE_BYTES: u64 = 256 * 1024;
/// Longest line a windowed `read_file` returns; a longer line is cut, with a note.
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// Lines returned by `read_file` when `limit` is absent on a partial read.
pub const DEFAULT_LINE_LIMIT: usize = 2000;
/// Entries `list_dir` returns at most.
pub const MAX_DIR_ENTRIES: usize = 1000;
/// Matches `grep` returns at most.
pub const MAX_GREP_MATCHES: usize = 200;
/// Files `grep` looks at, at most.
const MAX_GREP_FILES: usize = 20_000;
/// Files larger than this are skipped by `grep`.
const MAX_GREP_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// Longest matching line `grep` prints.
const MAX_GREP_LINE: usize = 300;

/// The workspace a built-in tool may read.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
}

type ToolResult = Result<String, String>;

impl Workspace {
    /// A workspace rooted at `root` (canonicalized when possible).
    pub fn new(root: &Path) -> Self {
        let root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        Workspace { root }
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a model-given path to an existing canonical path inside the root.
    pub fn resolve(&self, given: &str) -> ToolResult {
        self.resolve_path(given).map(|p| p.display().to_string())
    }

    fn resolve_path(&self, given: &str) -> Result<PathBuf, String> {
        let outside = || format!("path \"{given}\" is outside the workspace");
        let p = Path::new(given);
        let joined = if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.root.join(p)
        };
        let mut norm = PathBuf::new();
        for c in joined.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir => {
                    norm.pop();
                }
                other => norm.push(other.as_os_str()),
            }
        }
        let canonical = match fs::canonicalize(&norm) {
            Ok(c) => c,
            Err(_) if !norm.starts_with(&self.root) => return Err(outside()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(format!("no such file or directory: \"{given}\""));
            }
            Err(e) => return Err(format!("cannot access \"{given}\": {e}")),
        };
        if canonical.starts_with(&self.root) {
            Ok(canonical)
        } else {
            Err(outside())
        }
    }

    /// `root`-relative display form with forward slashes.
    fn relative(&self, p: &Path) -> String {
        let rel = p.strip_prefix(&self.root).unwrap_or(p);
        let s = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        if s.is_empty() { ".".to_string() } else { s }
    }
}

fn str_arg<'a>(args: &'a Value, key: &str) -> Result<Option<&'a str>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("argument \"{key}\" must be a string")),
    }
}

fn positive_arg(args: &Value, key: &str) -> Result<Option<usize>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if n >= 1 => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX))),
            _ => Err(format!("argument \"{key}\" must be a positive integer")),
        },
    }
}

fn looks_binary(bytes: &[u8]) -> bool {
    bytes.contains(&0)
}

/// The refusal of a non-regular file.
fn not_regular(given: &str, t: fs::FileType) -> String {
    not_regular_kind(given, SpecialKind::of(t))
}

fn not_regular_kind(given: &str, kind: SpecialKind) -> String {
    format!(
        "\"{given}\" is not a regular file (it is {}); only regular files can be read",
        kind.describe()
    )
}

/// Opens a file for reading only if it is a regular file, without blocking on a FIFO
/// swapped in after the check ([`crate::fs_guard::open_regular`]).
fn open_regular(path: &Path, given: &str) -> Result<fs::File, String> {
    fs_guard::open_regular(path).map_err(|e| match e {
        OpenError::NotRegular(kind) => not_regular_kind(given, kind),
        OpenError::Io(e) => format!("cannot read \"{given}\": {e}"),
    })
}

/// `read_file`.
fn read_file(ws: &Workspace, args: &Value, cancel: &CancellationToken) -> ToolResult {
    let given = str_arg(args, "path")?.ok_or("missing required argument \"path\"")?;
    let offset = positive_arg(args, "offset")?;
    let limit = positive_arg(args, "limit")?;
    let path = ws.resolve_path(given)?;
    let meta = fs::metadata(&path).map_err(|e| format!("cannot read \"{given}\": {e}"))?;
    if meta.is_dir() {
        return Err(format!("\"{given}\" is a directory; use list_dir"));
    }
    let file = open_regular(&path, given)?;
    let binary = || format!("\"{given}\" is a binary file; read_file only reads text");
    if offset.is_none() && limit.is_none() {
        if meta.len() > MAX_FILE_BYTES {
            return Err(format!(
                "\"{given}\" is too large ({} bytes; the limit is {MAX_FILE_BYTES}); \
                 pass offset and limit to read it in parts",
                meta.len()
            ));
        }
        let mut bytes = Vec::new();
        // A file that grew since its metadata was read is still read up to the limit only.
        file.take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read \"{given}\": {e}"))?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(format!(
                "\"{given}\" is too large (over {MAX_FILE_BYTES} bytes); \
                 pass offset and limit to read it in parts"
            ));
        }
        if looks_binary(&bytes) {
            return Err(binary());
        }
        let text = String::from_utf8(bytes).map_err(|_| binary())?;
        return Ok(if text.is_empty() {
            "(empty file)".to_string()
        } else {
            text
        });
    }
    // A windowed read streams with bounded buffers, so huge files (and huge lines) work.
    let start = offset.unwrap_or(1);
    let limit = limit.unwrap_or(DEFAULT_LINE_LIMIT);
    let mut reader = BufReader::with_capacity(READ_CHUNK, file);
    let w = read_window(&mut reader, start, limit, cancel)
        .map_err(|e| format!("cannot read \"{given}\": {e}"))?;
    if w.lines.is_empty() {
        return Err(format!(
            "\"{given}\" has {} lines; offset {start} is past the end",
            w.total
        ));
    }
    let mut out = String::new();
    for (i, line) in w.lines.iter().enumerate() {
        if looks_binary(&line.text) {
            return Err(binary());
        }
        match std::str::from_utf8(&line.text) {
            Ok(t) => out.push_str(t),
            // The cut may fall inside a character: end before it.
            Err(e) if line.cut && e.error_len().is_none() => out.push_str(
                std::str::from_utf8(&line.text[..e.valid_up_to()]).map_err(|_| binary())?,
            ),
            Err(_) => return Err(binary()),
        }
        if line.cut {
            let kept = out.len() - out.rfind('\n').map_or(0, |p| p + 1);
            out.push_str(&format!(
                " [line {} cut: first {kept} of {} bytes shown]",
                start + i,
                line.len
            ));
        }
        out.push('\n');
    }
    let last = start + w.lines.len() - 1;
    out.push_str(&format!("[lines {start}-{last} of {}", w.total));
    if w.capped {
        out.push_str(&format!("; output capped at {MAX_FILE_BYTES} bytes"));
    }
    out.push(']');
    Ok(out)
}

/// Read buffer of a windowed `read_file`.
const READ_CHUNK: usize = 64 * 1024;

/// One line of a window: its first bytes (without the newline) and its full length.
#[derive(Debug, Default, PartialEq)]
struct WindowLine {
    /// At most [`MAX_LINE_BYTES`] bytes.
    text: Vec<u8>,
    /// Length of the whole line in bytes, without the newline.
    len: u64,
    /// The line was longer than [`MAX_LINE_BYTES`].
    cut: bool,
}

/// The lines of a window and what the whole file held.
#[derive(Debug, Default, PartialEq)]
struct Window {
    /// Lines `start..start + limit` (fewer at the end or when capped).
    lines: Vec<WindowLine>,
    /// Lines in the file (a last line without a newline counts).
    total: usize,
    /// The window stopped early because the output reached [`MAX_FILE_BYTES`].
    capped: bool,
}

/// Reads lines `start..start + limit` (1-based) and counts all lines, holding at most one
/// buffer of the reader plus [`MAX_LINE_BYTES`] per kept line (and [`MAX_FILE_BYTES`] in
/// all): no line is ever held whole, however long it is. Stops when `cancel` fires.
fn read_window<R: BufRead>(
    reader: &mut R,
    start: usize,
    limit: usize,
    cancel: &CancellationToken,
) -> std::io::Result<Window> {
    let mut w = Window::default();
    let mut kept_bytes = 0usize;
    // The line being read, when it is inside the window.
    let mut current: Option<WindowLine> = None;
    let mut current_len = 0u64;
    let mut in_line = false;
    let mut finish = |w: &mut Window, line: Option<WindowLine>, len: u64| {
        w.total += 1;
        if let Some(mut line) = line {
            line.len = len;
            let size = line.text.len() + 1;
            if kept_bytes + size > MAX_FILE_BYTES as usize {
                w.capped = true;
            } else {
                kept_bytes += size;
                w.lines.push(line);
            }
        }
    };
    loop {
        if cancel.is_cancelled() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "the call was stopped",
            ));
        }
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let newline = buf.iter().position(|&b| b == b'\n');
        let used = newline.map_or(buf.len(), |i| i + 1);
        let content = &buf[..newline.unwrap_or(buf.len())];
        let in_window = w.total + 1 >= start && w.lines.len() < limit && !w.capped;
        if in_window {
            let line = current.get_or_insert_with(WindowLine::default);
            let room = MAX_LINE_BYTES - line.text.len();
            if content.len() > room {
                line.cut = true;
            }
            line.text
                .extend_from_slice(&content[..content.len().min(room)]);
        }
        current_len += content.len() as u64;
        in_line = true;
        reader.consume(used);
        if newline.is_some() {
            finish(&mut w, current.take(), current_len);
            current_len = 0;
            in_line = false;
        }
    }
    if in_line {
        finish(&mut w, current.take(), current_len);
    }
    Ok(w)
}

/// `list_dir`.
fn list_dir(ws: &Workspace, args: &Value) -> ToolResult {
    let given = str_arg(args, "path")?.unwrap_or(".");
    let path = ws.resolve_path(given)?;
    if !path.is_dir() {
        return Err(format!("\"{given}\" is not a directory"));
    }
    let mut entries: Vec<String> = fs::read_dir(&path)
        .map_err(|e| format!("cannot list \"{given}\": {e}"))?
        .filter_map(Result::ok)
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            match e.file_type() {
                Ok(t) if t.is_symlink() => format!("{name}@"),
                Ok(t) if t.is_dir() => format!("{name}/"),
                _ => name,
            }
        })
        .collect();
    entries.sort();
    if entries.is_empty() {
        return Ok("(empty directory)".to_string());
    }
    let total = entries.len();
    entries.truncate(MAX_DIR_ENTRIES);
    let mut out = entries.join("\n");
    if total > MAX_DIR_ENTRIES {
        out.push_str(&format!("\n[{MAX_DIR_ENTRIES} of {total} entries shown]"));
    }
    Ok(out)
}

struct GrepState<'a> {
    ws: &'a Workspace,
    re: regex::Regex,
    out: Vec<String>,
    files: usize,
    cancel: &'a CancellationToken,
}

impl GrepState<'_> {
    fn full(&self) -> bool {
        self.out.len() >= MAX_GREP_MATCHES
            || self.files >= MAX_GREP_FILES
            || self.cancel.is_cancelled()
    }

    fn file(&mut self, path: &Path) {
        self.files += 1;
        let Ok(meta) = fs::metadata(path) else { return };
        if meta.len() > MAX_GREP_FILE_BYTES {
            return;
        }
        let Ok(f) = open_regular(path, "") else {
            return;
        };
        let mut f = f.take(MAX_GREP_FILE_BYTES);
        let mut bytes = Vec::new();
        if f.read_to_end(&mut bytes).is_err() || looks_binary(&bytes) {
            return;
        }
        let Ok(text) = String::from_utf8(bytes) else {
            return;
        };
        let rel = self.ws.relative(path);
        for (i, line) in text.lines().enumerate() {
            if self.re.is_match(line) {
                let mut line = line.to_string();
                if truncate_utf8(&mut line, MAX_GREP_LINE) {
                    line.push('…');
                }
                self.out.push(format!("{rel}:{}:{line}", i + 1));
                if self.out.len() >= MAX_GREP_MATCHES {
                    return;
                }
            }
        }
    }

    /// Walks `dir` with the shared gitignore-aware walker ([`super::walk::walker`]):
    /// sorted by name, symlinks not followed (they could lead outside the workspace or
    /// loop), `.gitignore`d files and the [`super::walk::SKIP_DIRS`] skipped. Hidden files are searched.
    fn dir(&mut self, dir: &Path) {
        for e in super::walk::walker(dir, false).filter_map(Result::ok) {
            if self.full() {
                return;
            }
            if e.file_type().is_some_and(|t| t.is_file()) {
                self.file(e.path());
            }
        }
    }
}

/// `grep`.
fn grep(ws: &Workspace, args: &Value, cancel: &CancellationToken) -> ToolResult {
    let pattern = str_arg(args, "pattern")?.ok_or("missing required argument \"pattern\"")?;
    if pattern.is_empty() {
        return Err("argument \"pattern\" must not be empty".to_string());
    }
    let given = str_arg(args, "path")?.unwrap_or(".");
    let path = ws.resolve_path(given)?;
    // A pattern that is not a valid regex is searched for literally.
    let re = regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
        .or_else(|_| regex::Regex::new(&regex::escape(pattern)))
        .map_err(|e| format!("invalid pattern: {e}"))?;
    let mut st = GrepState {
        ws,
        re,
        out: vec![],
        files: 0,
        cancel,
    };
    let meta = fs::metadata(&path).map_err(|e| format!("cannot read \"{given}\": {e}"))?;
    if meta.is_dir() {
        st.dir(&path);
    } else if meta.is_file() {
        st.file(&path);
    } else {
        return Err(not_regular(given, meta.file_type()));
    }
    if cancel.is_cancelled() {
        return Err("grep cancelled".to_string());
    }
    if st.out.is_empty() {
        return Ok("no matches".to_string());
    }
    let mut out = st.out.join("\n");
    if st.out.len() >= MAX_GREP_MATCHES {
        out.push_str(&format!(
            "\n[stopped after {MAX_GREP_MATCHES} matches; narrow the pattern or path]"
        ));
    } else if st.files >= MAX_GREP_FILES {
        out.push_str(&format!(
            "\n[stopped after {MAX_GREP_FILES} files; narrow the path]"
        ));
    }
    Ok(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    ReadFile,
    ListDir,
    Grep,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::ReadFile => "read_file",
            Kind::ListDir => "list_dir",
            Kind::Grep => "grep",
        }
    }
}

/// Test hook (inert unless set): `DEEPTERM_TEST_PANIC_IN_TASK=<built-in tool name>` makes
/// that tool's task panic, so the secrets test can check what a panic prints and logs.
pub const TEST_PANIC_ENV: &str = "DEEPTERM_TEST_PANIC_IN_TASK";

fn panic_if_asked(kind: Kind) {
    if std::env::var(TEST_PANIC_ENV).is_ok_and(|v| v == kind.name()) {
        panic!(
            "{TEST_PANIC_ENV}: deliberate panic in the {} task",
            kind.name()
        );
    }
}

/// One built-in tool bound to a workspace.
struct Builtin {
    kind: Kind,
    ws: Arc<Workspace>,
    timeout: Duration,
}

impl ToolExecutor for Builtin {
    fn call<'a>(
        &'a self,
        arguments: Value,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, ToolOutcome> {
        let ws = self.ws.clone();
        let kind = self.kind;
        // The blocking work watches its own token: cancelled with the call, and when the
        // call ends early (timeout, or the caller went away) so it stops reading.
        let work_token = cancel.child_token();
        let token = work_token.clone();
        async move {
            let _stop_work = work_token.drop_guard();
            let work = tokio::task::spawn_blocking(move || {
                panic_if_asked(kind);
                match kind {
                    Kind::ReadFile => read_file(&ws, &arguments, &token),
                    Kind::ListDir => list_dir(&ws, &arguments),
                    Kind::Grep => grep(&ws, &arguments, &token),
                }
            });
            match run_guarded(work, self.timeout, cancel).await {
                Ok(Ok(Ok(text))) => ToolOutcome::ok(text),
                Ok(Ok(Err(e))) => ToolOutcome::error(e),
                Ok(Err(e)) => ToolOutcome::error(format!("tool failed: {e}")),
                Err(Interrupted::Cancelled) => ToolOutcome::error("tool call cancelled"),
                Err(Interrupted::TimedOut) => ToolOutcome::error(format!(
                    "tool \"{}\" timed out after {} s",
                    kind.name(),
                    self.timeout.as_secs_f64()
                )),
            }
        }
        .boxed()
    }
}

fn schema(name: &str, description: &str, parameters: Value) -> ToolSchema {
    ToolSchema {
        name: name.to_string(),
        description: description.to_string(),
        parameters,
        defer_loading: None,
    }
}

/// The declarations of the built-in tools, in name order.
pub fn schemas() -> Vec<ToolSchema> {
    vec![
        schema(
            "grep",
            "Search file contents in the workspace. `pattern` is a regular expression (Rust \
             regex syntax; an invalid regex is searched for literally). `path` is a file or \
             directory relative to the workspace root (default: the root). Binary files, files \
             ignored by .gitignore/.ignore, and the .git, target and node_modules directories \
             are skipped. Returns up to 200 \
             matches as `path:line:text`.",
            json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "Regular expression or plain text to search for."},
                    "path": {"type": "string", "description": "File or directory to search, relative to the workspace root."}
                },
                "required": ["pattern"]
            }),
        ),
        schema(
            "list_dir",
            "List the entries of a directory in the workspace, sorted by name. Directories \
             end with `/`, symbolic links with `@`. `path` is relative to the workspace root \
             (default: the root).",
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Directory to list, relative to the workspace root."}
                }
            }),
        ),
        schema(
            "read_file",
            "Read a UTF-8 text file in the workspace. `path` is relative to the workspace root. \
             Without `offset`/`limit` the whole file is returned (at most 256 KiB). With them, \
             returns `limit` lines (default 2000) starting at line `offset` (1-based), followed \
             by a `[lines A-B of N]` note; a line longer than 64 KiB is cut, with a note. Binary \
             files are refused.",
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File to read, relative to the workspace root."},
                    "offset": {"type": "integer", "minimum": 1, "description": "First line to return (1-based)."},
                    "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of lines to return."}
                },
                "required": ["path"]
            }),
        ),
    ]
}

/// The built-in tools confined to `root`, enabled, needing no approval (read-only), with
/// [`DEFAULT_BUILTIN_TIMEOUT`].
pub fn tools(root: &Path) -> Vec<RegisteredTool> {
    tools_with_timeout(root, DEFAULT_BUILTIN_TIMEOUT)
}

/// [`tools`] with another per-call timeout.
pub fn tools_with_timeout(root: &Path, timeout: Duration) -> Vec<RegisteredTool> {
    let ws = Arc::new(Workspace::new(root));
    schemas()
        .into_iter()
        .map(|s| {
            let kind = match s.name.as_str() {
                "grep" => Kind::Grep,
                "list_dir" => Kind::ListDir,
                _ => Kind::ReadFile,
            };
            RegisteredTool {
                schema: s,
                approval: Approval::Never,
                enabled: true,
                executor: Arc::new(Builtin {
                    kind,
                    ws: ws.clone(),
                    timeout,
                }),
                // Read-only: calls may overlap.
                parallel_safe: true,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window as a naive reader would see it (whole lines in memory).
    fn naive(input: &[u8], start: usize, limit: usize) -> Window {
        let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
        if input.is_empty() || input.ends_with(b"\n") {
            lines.pop();
        }
        let mut w = Window {
            total: lines.len(),
            ..Window::default()
        };
        for l in lines.iter().skip(start - 1).take(limit) {
            w.lines.push(WindowLine {
                text: l[..l.len().min(MAX_LINE_BYTES)].to_vec(),
                len: l.len() as u64,
                cut: l.len() > MAX_LINE_BYTES,
            });
        }
        w
    }

    #[test]
    fn window_matches_whole_line_reading_for_any_buffer_size() {
        let long = "y".repeat(MAX_LINE_BYTES + 5);
        let inputs: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"\n".to_vec(),
            b"one".to_vec(),
            b"one\ntwo\n\nfour".to_vec(),
            b"a\nbb\nccc\n".to_vec(),
            format!("x\n{long}\nz").into_bytes(),
            format!("{long}{long}").into_bytes(),
        ];
        let never = CancellationToken::new();
        for input in &inputs {
            for cap in [1, 2, 3, 7, 4096, READ_CHUNK] {
                for (start, limit) in [(1, 1), (1, 10), (2, 1), (2, 2), (3, 5), (9, 1)] {
                    let mut r = BufReader::with_capacity(cap, &input[..]);
                    let got = read_window(&mut r, start, limit, &never).unwrap();
                    assert_eq!(
                        got,
                        naive(input, start, limit),
                        "input {:?}, buffer {cap}, window {start}+{limit}",
                        String::from_utf8_lossy(&input[..input.len().min(20)])
                    );
                }
            }
        }
    }

    #[test]
    fn window_streams_a_huge_line_keeping_only_its_capped_start() {
        // 256 MiB of one line, produced on the fly and never held: the window keeps only
        // its capped first bytes.
        let size: u64 = 256 << 20;
        let mut r = BufReader::with_capacity(READ_CHUNK, std::io::repeat(b'q').take(size));
        let t = std::time::Instant::now();
        let w = read_window(&mut r, 1, 1, &CancellationToken::new()).unwrap();
        assert_eq!(w.total, 1);
        assert_eq!(w.lines.len(), 1);
        assert_eq!(w.lines[0].text.len(), MAX_LINE_BYTES);
        assert_eq!(w.lines[0].len, size);
        assert!(w.lines[0].cut);
        assert!(t.elapsed() < std::time::Duration::from_secs(60));
    }

    #[test]
    fn window_stops_when_cancelled() {
        let stop = CancellationToken::new();
        stop.cancel();
        let mut r = BufReader::new(std::io::repeat(b'q').take(1 << 20));
        let e = read_window(&mut r, 1, 1, &stop).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::Interrupted);
    }
}
