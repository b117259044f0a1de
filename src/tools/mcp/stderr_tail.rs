//! The last bytes an MCP server wrote to stderr: a ring buffer with a fixed cap, so a
//! server that floods stderr (with or without newlines) cannot grow deepterm's memory.
//! Error messages quote its last line.

use std::collections::VecDeque;

/// How much of a server's stderr is kept.
pub const STDERR_TAIL_BYTES: usize = 64 * 1024;

/// Longest stderr excerpt quoted in an error message (characters, from the end).
pub const HINT_CHARS: usize = 500;

/// The last [`STDERR_TAIL_BYTES`] (or a given cap) of a byte stream.
#[derive(Debug, Clone)]
pub struct StderrTail {
    buf: VecDeque<u8>,
    cap: usize,
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
        }
    }

    /// Appends bytes, dropping the oldest beyond the cap.
    pub fn push(&mut self, bytes: &[u8]) {
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
}
