//! What an MCP server wrote to stderr: its first [`STDERR_HEAD_BYTES`] and a ring buffer of
//! its last bytes, both with a fixed cap, so a server that floods stderr (with or without
//! newlines) cannot grow deepterm's memory. Error messages quote the lines that carry the
//! cause ([`StderrTail::cause`]): a crash's own explanation often comes well before its last
//! lines (node prints `Error: Cannot find module …`, then a stack, then its version).

use std::collections::VecDeque;

/// How much of a server's stderr is kept.
pub const STDERR_TAIL_BYTES: usize = 64 * 1024;

/// Longest stderr excerpt quoted in an error message (characters, from the end).
pub const HINT_CHARS: usize = 500;

/// How much of the start of a server's stderr is kept besides the tail.
pub const STDERR_HEAD_BYTES: usize = 8 * 1024;

/// The first [`STDERR_HEAD_BYTES`] and the last [`STDERR_TAIL_BYTES`] (or a given cap) of a
/// byte stream.
#[derive(Debug, Clone)]
pub struct StderrTail {
    buf: VecDeque<u8>,
    cap: usize,
    head: Vec<u8>,
    /// Bytes pushed since the last clear.
    total: u64,
}

impl Default for StderrTail {
    fn default() -> Self {
        StderrTail::new(STDERR_TAIL_BYTES)
    }
}

impl StderrTail {
    /// An empty buffer keeping the last `cap` bytes.
    pub fn new(cap: usize) -> Self {
        StderrTail {
            buf: VecDeque::new(),
            cap: cap.max(1),
            head: Vec::new(),
            total: 0,
        }
    }

    /// Appends bytes, dropping the oldest beyond the cap (the head keeps the first ones).
    pub fn push(&mut self, bytes: &[u8]) {
        let room = STDERR_HEAD_BYTES.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..bytes.len().min(room)]);
        self.total = self.total.saturating_add(bytes.len() as u64);
        if bytes.len() >= self.cap {
            self.buf.clear();
            self.buf.extend(&bytes[bytes.len() - self.cap..]);
            return;
        }
        let over = (self.buf.len() + bytes.len()).saturating_sub(self.cap);
        self.buf.drain(..over);
        self.buf.extend(bytes);
    }

    /// Bytes held.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Bytes allocated for the buffer (stays near the cap).
    pub fn allocated(&self) -> usize {
        self.buf.capacity()
    }

    /// Forgets everything (a new process starts).
    pub fn clear(&mut self) {
        self.buf.clear();
        self.head.clear();
        self.total = 0;
    }

    /// The held bytes as text (invalid UTF-8 replaced; a character cut at the front by the
    /// ring is dropped).
    pub fn text(&self) -> String {
        let (a, b) = self.buf.as_slices();
        let mut bytes = Vec::with_capacity(a.len() + b.len());
        bytes.extend_from_slice(a);
        bytes.extend_from_slice(b);
        // Skip UTF-8 continuation bytes at the front (the rest of a cut character).
        let start = bytes
            .iter()
            .take(3)
            .take_while(|b| (**b & 0xC0) == 0x80)
            .count();
        String::from_utf8_lossy(&bytes[start..]).into_owned()
    }

    /// The lines that carry the cause of a failure, in plain words: the error lines from
    /// the start and the end of stderr (stack frames, source excerpts and version banners
    /// left out), at most [`CAUSE_LINES`] of them joined with ` · `, each cut to
    /// [`HINT_CHARS`]; else the last line that is not such noise; else the last line.
    pub fn cause(&self) -> Option<String> {
        let tail = self.text();
        // The head adds something only when the ring no longer holds the start.
        let head = if self.total > self.buf.len() as u64 {
            String::from_utf8_lossy(&self.head).into_owned()
        } else {
            String::new()
        };
        let mut head_lines: Vec<&str> = head.lines().collect();
        if self.total > self.head.len() as u64 {
            // The head's last line may be cut: keep it only if it ended.
            if !head.ends_with('\n') {
                head_lines.pop();
            }
        }
        // The ring's first line may be the rest of a cut one: still the server's words.
        let tail_lines = tail.lines();
        let lines: Vec<&str> = head_lines
            .into_iter()
            .chain(tail_lines)
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let mut picked: Vec<&str> = Vec::new();
        for l in lines.iter().copied().filter(|l| is_cause(l)) {
            if !picked.contains(&l) && picked.len() < CAUSE_LINES {
                picked.push(l);
            }
        }
        if picked.is_empty() {
            let fallback = lines.iter().rev().find(|l| !is_noise(l)).or(lines.last())?;
            picked.push(*fallback);
        }
        let cut: Vec<String> = picked.into_iter().map(cut_line).collect();
        Some(cut.join(" · "))
    }

    /// The last non-empty line, trimmed, cut to its last [`HINT_CHARS`] characters (with a
    /// leading `…` when cut): what error messages quote.
    pub fn hint(&self) -> Option<String> {
        let text = self.text();
        let line = text.lines().map(str::trim).rfind(|l| !l.is_empty())?;
        let n = line.chars().count();
        if n <= HINT_CHARS {
            return Some(line.to_string());
        }
        let tail: String = line.chars().skip(n - HINT_CHARS).collect();
        Some(format!("…{tail}"))
    }
}

/// Most lines [`StderrTail::cause`] quotes.
pub const CAUSE_LINES: usize = 3;

/// A line cut to its last [`HINT_CHARS`] characters, with a leading `…` when cut.
fn cut_line(line: &str) -> String {
    let n = line.chars().count();
    if n <= HINT_CHARS {
        return line.to_string();
    }
    let tail: String = line.chars().skip(n - HINT_CHARS).collect();
    format!("…{tail}")
}

/// A line that states an error (what a person reading the log would look for).
fn is_cause(line: &str) -> bool {
    if is_noise(line) {
        return false;
    }
    let l = line.to_lowercase();
    [
        "error",
        "cannot",
        "can't",
        "could not",
        "couldn't",
        "not found",
        "no such",
        "failed",
        "fatal",
        "panic",
        "denied",
        "refus",
        "exception",
        "invalid",
        "missing",
        "unable",
    ]
    .iter()
    .any(|w| l.contains(w))
}

/// Stack frames, source excerpts, banners and object dumps: never the cause.
fn is_noise(line: &str) -> bool {
    let l = line.trim();
    l.starts_with("at ")
        || l.starts_with("File \"")
        || l.starts_with("Traceback (most recent call last)")
        || l.starts_with("Node.js v")
        || l.starts_with("node:internal/")
        || l.starts_with("requireStack")
        || l.starts_with("code: ")
        || l == "throw err;"
        || l.chars().all(|c| "^~{}[](),; ".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_tail_keeps_the_last_64_kib_of_megabytes_without_growing() {
        let mut t = StderrTail::default();
        let chunk = vec![b'x'; 8191];
        for _ in 0..1024 {
            // ~8 MB, no newline at all.
            t.push(&chunk);
            assert!(t.len() <= STDERR_TAIL_BYTES);
            assert!(t.allocated() <= 2 * STDERR_TAIL_BYTES, "{}", t.allocated());
        }
        t.push(b" the end: fatal error");
        assert_eq!(t.len(), STDERR_TAIL_BYTES);
        let hint = t.hint().unwrap();
        assert!(hint.ends_with("xxx the end: fatal error"), "{hint}");
        assert!(hint.starts_with('…'));
        assert_eq!(hint.chars().count(), HINT_CHARS + 1);
        // One push larger than the cap keeps its end.
        let mut big = vec![b'y'; 3 * STDERR_TAIL_BYTES];
        big.extend_from_slice(b"\nlast line\n\n");
        t.push(&big);
        assert_eq!(t.len(), STDERR_TAIL_BYTES);
        assert_eq!(t.hint().as_deref(), Some("last line"));
    }

    #[test]
    fn stderr_tail_quotes_the_last_line_and_drops_a_cut_character() {
        let mut t = StderrTail::new(8);
        assert_eq!(t.hint(), None);
        t.push("ab\n错误".as_bytes());
        // 9 bytes into a cap of 8: `a` goes, the rest stays.
        assert_eq!(t.text(), "b\n错误");
        t.push(b"!?");
        assert_eq!(t.text(), "错误!?");
        t.push(b".");
        // The first byte of 错 goes: the rest of that character is skipped.
        assert_eq!(t.text(), "误!?.");
        assert_eq!(t.hint().as_deref(), Some("误!?."));
        t.clear();
        assert!(t.is_empty());
    }

    /// What `node /nonexistent.js` writes (node 20).
    const NODE_MISSING: &str = "node:internal/modules/cjs/loader:1210\n  throw err;\n  ^\n\n\
        Error: Cannot find module '/nonexistent.js'\n    \
        at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)\n    \
        at Module._load (node:internal/modules/cjs/loader:1038:27)\n    \
        at node:internal/main/run_main_module:28:49 {\n  code: 'MODULE_NOT_FOUND',\n  \
        requireStack: []\n}\n\nNode.js v20.20.2\n";

    #[test]
    fn the_cause_is_nodes_cannot_find_module_line_not_its_version_banner() {
        let mut t = StderrTail::default();
        t.push(NODE_MISSING.as_bytes());
        assert_eq!(t.hint().as_deref(), Some("Node.js v20.20.2"));
        assert_eq!(
            t.cause().as_deref(),
            Some("Error: Cannot find module '/nonexistent.js'")
        );
    }

    #[test]
    fn the_cause_comes_from_the_head_when_the_tail_is_a_flood_of_other_lines() {
        let mut t = StderrTail::new(1024);
        t.push(b"Traceback (most recent call last):\n  File \"x.py\", line 1\n");
        t.push(b"ModuleNotFoundError: No module named 'mcp'\n");
        for i in 0..2000 {
            t.push(format!("debug line {i}\n").as_bytes());
        }
        assert_eq!(
            t.cause().as_deref(),
            Some("ModuleNotFoundError: No module named 'mcp'")
        );
        // Without an error line anywhere, the last line that is not noise.
        let mut t = StderrTail::new(64);
        t.push(b"starting\nfixture: final words\n  at x\nNode.js v20\n");
        assert_eq!(t.cause().as_deref(), Some("fixture: final words"));
        assert_eq!(StderrTail::default().cause(), None);
    }

    #[test]
    fn the_cause_quotes_at_most_three_distinct_error_lines() {
        let mut t = StderrTail::default();
        for _ in 0..3 {
            t.push(b"error: one\n");
        }
        t.push(b"error: two\nfatal: three\npanic: four\n");
        assert_eq!(
            t.cause().as_deref(),
            Some("error: one · error: two · fatal: three")
        );
    }
}
