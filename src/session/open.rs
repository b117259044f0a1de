//! Opening session logs safely, and reading them line by line with a length cap.
//!
//! The session directory may hold anything: a FIFO (opening it blocks until a writer
//! comes, and reading it blocks for ever), a symlink to `/dev/zero` (one endless line), a
//! directory named `*.jsonl`, a log of gigabytes. Every log is opened non-blocking and
//! without taking a controlling terminal, and the open handle is checked with `fstat` to
//! be a regular file before a byte is read (checking the handle, not a `stat` of the
//! path, leaves no gap for a swap). Lines are read with a cap, so a huge line costs a
//! scan of its bytes, never their size in memory.
//! See docs/decisions/0034-hostile-session-directory.md.

use std::fs::File;
use std::io::BufRead;
use std::path::Path;

/// Why a log could not be opened.
#[derive(Debug)]
pub enum OpenError {
    /// The path is not a regular file (a directory, FIFO, socket or device).
    NotRegular,
    /// The open or the `fstat` failed.
    Io(std::io::Error),
}

/// Opens `path` for reading (and appending, with `append`) if it is a regular file, through
/// the one guarded open ([`crate::fs_guard::open_regular_for`]: no blocking, `fstat`-checked).
pub fn open_regular(path: &Path, append: bool) -> Result<File, OpenError> {
    crate::fs_guard::open_regular_for(path, append).map_err(|e| match e {
        crate::fs_guard::OpenError::NotRegular(_) => OpenError::NotRegular,
        crate::fs_guard::OpenError::Io(e) if e.kind() == std::io::ErrorKind::IsADirectory => {
            OpenError::NotRegular
        }
        crate::fs_guard::OpenError::Io(e) => OpenError::Io(e),
    })
}

/// What [`LineReader`] does with a line longer than its cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlong {
    /// Keep the first `cap` bytes, scan on to the newline, and go on with the next line.
    Skip,
    /// Return the first bytes as soon as the cap is passed; the reader is left inside the
    /// line and must not be read further (for a file that is refused at once).
    Stop,
}

/// One line from a [`LineReader`].
#[derive(Debug)]
pub struct RawLine<'a> {
    /// 1-based line number.
    pub number: usize,
    /// The line without its newline, or only its first bytes when it is longer than the cap
    /// (see [`RawLine::is_cut`]).
    pub bytes: &'a [u8],
    /// The line's length without its newline (with [`Overlong::Stop`], as far as it was read).
    pub len: u64,
    /// The line ended with a newline (`false` for the bytes after the file's last newline).
    pub terminated: bool,
}

impl RawLine<'_> {
    /// Whether the line was longer than the cap, so `bytes` holds only its start.
    pub fn is_cut(&self) -> bool {
        self.len > self.bytes.len() as u64
    }
}

/// Reads lines of at most `cap` bytes from a buffered reader; a longer line is cut and
/// reported as such ([`RawLine::is_cut`]), never held whole.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    cap: usize,
    overlong: Overlong,
    buf: Vec<u8>,
    number: usize,
}

impl<R: BufRead> LineReader<R> {
    /// A reader keeping at most `cap` bytes of a line.
    pub fn new(inner: R, cap: usize, overlong: Overlong) -> Self {
        LineReader {
            inner,
            cap,
            overlong,
            buf: Vec::new(),
            number: 0,
        }
    }

    /// Changes the cap for the lines read from now on.
    pub fn set_cap(&mut self, cap: usize) {
        self.cap = cap;
    }

    /// The next line, or `None` at the end of the input.
    pub fn next_line(&mut self) -> std::io::Result<Option<RawLine<'_>>> {
        self.buf.clear();
        let mut len: u64 = 0;
        let mut terminated = false;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break;
            }
            let newline = memchr::memchr(b'\n', chunk);
            let take = newline.unwrap_or(chunk.len());
            let room = self.cap.saturating_sub(self.buf.len());
            self.buf.extend_from_slice(&chunk[..take.min(room)]);
            len += take as u64;
            self.inner.consume(take + usize::from(newline.is_some()));
            if newline.is_some() {
                terminated = true;
                break;
            }
            if self.overlong == Overlong::Stop && len > self.cap as u64 {
                break;
            }
        }
        if !terminated && len == 0 {
            return Ok(None);
        }
        self.number += 1;
        Ok(Some(RawLine {
            number: self.number,
            bytes: &self.buf,
            len,
            terminated,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], cap: usize, overlong: Overlong) -> Vec<(Vec<u8>, u64, bool)> {
        let mut r = LineReader::new(std::io::BufReader::with_capacity(4, input), cap, overlong);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push((l.bytes.to_vec(), l.len, l.terminated));
            if overlong == Overlong::Stop && out.last().is_some_and(|(b, n, _)| *n > b.len() as u64)
            {
                break;
            }
        }
        out
    }

    #[test]
    fn lines_split_on_newlines_and_the_last_may_lack_one() {
        assert_eq!(
            lines(b"ab\n\ncdef", 100, Overlong::Skip),
            vec![
                (b"ab".to_vec(), 2, true),
                (vec![], 0, true),
                (b"cdef".to_vec(), 4, false)
            ]
        );
        assert!(lines(b"", 100, Overlong::Skip).is_empty());
        assert_eq!(lines(b"x\n", 100, Overlong::Skip).len(), 1);
    }

    #[test]
    fn a_line_over_the_cap_keeps_only_its_start_and_the_next_line_follows() {
        let got = lines(b"0123456789\nok\n", 3, Overlong::Skip);
        assert_eq!(
            got,
            vec![(b"012".to_vec(), 10, true), (b"ok".to_vec(), 2, true)]
        );
    }

    #[test]
    fn stop_returns_a_long_line_once_it_passes_the_cap() {
        let input = vec![0u8; 10_000];
        let mut r = LineReader::new(
            std::io::BufReader::with_capacity(64, &input[..]),
            100,
            Overlong::Stop,
        );
        let l = r.next_line().unwrap().unwrap();
        assert!(l.is_cut());
        assert_eq!(l.bytes.len(), 100);
        assert!(
            l.len <= 164,
            "read at most one buffer past the cap: {}",
            l.len
        );
    }

    #[test]
    fn only_regular_files_open() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.jsonl");
        std::fs::write(&file, "x").unwrap();
        assert!(open_regular(&file, false).is_ok());
        assert!(matches!(
            open_regular(dir.path(), false),
            Err(OpenError::NotRegular)
        ));
        assert!(matches!(
            open_regular(Path::new("/dev/zero"), true),
            Err(OpenError::NotRegular)
        ));
        let fifo = dir.path().join("f.jsonl");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        // Without a writer, a blocking open of a FIFO would never return.
        assert!(matches!(
            open_regular(&fifo, false),
            Err(OpenError::NotRegular)
        ));
        assert!(matches!(
            open_regular(&fifo, true),
            Err(OpenError::NotRegular)
        ));
    }
}
