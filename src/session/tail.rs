//! Reading a log's lines from its end, newest first, within a byte window: what the
//! message history needs of a log (its last prompts) costs the window, never the log's
//! size, so a log of gigabytes reads as fast as a small one (decision 0101).
//!
//! The file must already be open through [`super::open::open_regular`] (a FIFO or a
//! device never reaches here). A line that starts before the window is
//! torn by it and is not passed on; a line longer than the cap is skipped.

use std::fs::File;
use std::os::unix::fs::FileExt;

/// The read step, from the end backwards.
const CHUNK: usize = 64 * 1024;

/// A reusable reader of the last lines of logs: one buffer serves every log, grown to the
/// largest window read and zero-filled only as it grows (a read overwrites the bytes it
/// uses), so a log costs the bytes read from it.
#[derive(Debug, Default)]
pub struct TailLines {
    buf: Vec<u8>,
}

/// What [`TailLines::read`] read of one log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TailRead {
    /// Bytes read from the file.
    pub bytes: u64,
    /// Lines skipped for being longer than the cap.
    pub overlong: usize,
}

impl TailLines {
    /// Calls `each` with the complete lines of the last `window` bytes of `file` (of
    /// length `len`), newest first, without their newline, until it returns `false`.
    /// Bytes after the last newline (a torn write) count as a line. A line longer than
    /// `cap` bytes is counted in [`TailRead::overlong`] and not passed. Reading stops at
    /// the first I/O error (a file cut short while read ends like its window).
    pub fn read(
        &mut self,
        file: &File,
        len: u64,
        window: usize,
        cap: usize,
        mut each: impl FnMut(&[u8]) -> bool,
    ) -> TailRead {
        let window = (window as u64).min(len) as usize;
        let floor = len - window as u64;
        if self.buf.len() < window {
            self.buf.resize(window, 0);
        }
        let buf = &mut self.buf[..window];
        let mut out = TailRead::default();
        // `buf[start..]` holds the file's bytes `floor + start..len`; `buf[start..end]`
        // holds those not yet passed on (the start of the line being assembled).
        let mut start = window;
        let mut end = window;
        while start > 0 {
            let step = start.min(CHUNK);
            let at = start - step;
            if file
                .read_exact_at(&mut buf[at..start], floor + at as u64)
                .is_err()
            {
                return out;
            }
            out.bytes += step as u64;
            start = at;
            while let Some(nl) = memchr::memrchr(b'\n', &buf[start..end]) {
                let nl = start + nl;
                let line = &buf[nl + 1..end];
                end = nl;
                // The file's last newline ends the last line; nothing follows it.
                if nl + 1 == window && line.is_empty() {
                    continue;
                }
                if line.len() > cap {
                    out.overlong += 1;
                } else if !each(line) {
                    return out;
                }
            }
        }
        // What is left starts the window: a whole line only when the window starts the file.
        if floor == 0 && end > 0 {
            if end > cap {
                out.overlong += 1;
            } else {
                each(&buf[..end]);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(content: &[u8], window: usize, cap: usize) -> (Vec<String>, TailRead) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.jsonl");
        std::fs::write(&p, content).unwrap();
        let f = File::open(&p).unwrap();
        let mut out = Vec::new();
        let r = TailLines::default().read(&f, content.len() as u64, window, cap, |l| {
            out.push(String::from_utf8_lossy(l).into_owned());
            true
        });
        (out, r)
    }

    #[test]
    fn lines_come_newest_first_and_a_torn_tail_is_a_line() {
        let (l, r) = lines(b"one\ntwo\n\nthree\n", 1 << 20, 100);
        assert_eq!(l, ["three", "", "two", "one"]);
        assert_eq!(r.bytes, 15);
        let (l, _) = lines(b"one\ntwo", 1 << 20, 100);
        assert_eq!(l, ["two", "one"]);
        assert!(lines(b"", 100, 100).0.is_empty());
    }

    #[test]
    fn the_window_bounds_the_bytes_read_and_drops_the_line_it_cuts() {
        let mut content = Vec::new();
        for i in 0..100_000 {
            content.extend_from_slice(format!("line {i}\n").as_bytes());
        }
        let (l, r) = lines(&content, 200 * 1024, 100);
        assert_eq!(r.bytes, 200 * 1024);
        assert_eq!(l[0], "line 99999");
        let last = l.last().unwrap();
        // Every line passed on is whole: the oldest one starts after a newline.
        let n: usize = last.trim_start_matches("line ").parse().unwrap();
        assert!(n > 70_000, "{last}");
        assert_eq!(l.len(), 100_000 - n);
    }

    #[test]
    fn a_line_over_the_cap_is_skipped_and_counted() {
        let mut content = b"first\n".to_vec();
        content.extend(std::iter::repeat_n(b'x', 300_000));
        content.extend_from_slice(b"\nlast\n");
        let (l, r) = lines(&content, 1 << 20, 1000);
        assert_eq!(l, ["last", "first"]);
        assert_eq!(r.overlong, 1);
    }

    #[test]
    fn one_buffer_serves_every_log_and_a_smaller_one_is_not_filled_again() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, lines: std::ops::Range<usize>| {
            let body: String = lines.map(|i| format!("line {i}\n")).collect();
            let p = dir.path().join(name);
            std::fs::write(&p, &body).unwrap();
            (File::open(&p).unwrap(), body.len() as u64)
        };
        let (big, big_len) = write("big.jsonl", 0..40_000);
        let (small, small_len) = write("small.jsonl", 0..3);
        let mut t = TailLines::default();
        let mut first = String::new();
        t.read(&big, big_len, 1 << 20, 100, |_| true);
        let (at, filled) = (t.buf.as_ptr(), t.buf.len());
        assert_eq!(filled as u64, big_len);
        // The small log reads through the same bytes: no new buffer, none zeroed again,
        // and nothing of the big log shows through.
        let mut seen = Vec::new();
        t.read(&small, small_len, 1 << 20, 100, |l| {
            seen.push(String::from_utf8_lossy(l).into_owned());
            true
        });
        assert_eq!(seen, ["line 2", "line 1", "line 0"]);
        assert_eq!((t.buf.as_ptr(), t.buf.len()), (at, filled));
        t.read(&big, big_len, 1 << 20, 100, |l| {
            first = String::from_utf8_lossy(l).into_owned();
            false
        });
        assert_eq!(first, "line 39999");
    }

    #[test]
    fn the_caller_stops_the_reading() {
        let mut content = Vec::new();
        for i in 0..50_000 {
            content.extend_from_slice(format!("line {i}\n").as_bytes());
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.jsonl");
        std::fs::write(&p, &content).unwrap();
        let f = File::open(&p).unwrap();
        let mut n = 0;
        let r = TailLines::default().read(&f, content.len() as u64, 1 << 30, 100, |_| {
            n += 1;
            n < 3
        });
        assert_eq!(n, 3);
        assert_eq!(r.bytes, CHUNK as u64, "one step read");
    }
}
