//! Incremental Server-Sent Events parser shared by both provider routes.
//!
//! Accepts bytes split at any position (inside UTF-8 characters, between `\r` and `\n`,
//! inside field names). Comment lines (`: keep-alive`) produce nothing, so callers can
//! reset idle timers only on real events. A partial trailing frame is never an event.

use thiserror::Error;

/// One dispatched SSE event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseFrame {
    /// The `event:` field, when the frame had one.
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

impl SseFrame {
    /// Whether this is the OpenAI `[DONE]` sentinel.
    pub fn is_done(&self) -> bool {
        self.data == "[DONE]"
    }
}

/// A frame that cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SseError {
    /// A line was not valid UTF-8.
    #[error("malformed SSE line: invalid UTF-8")]
    InvalidUtf8,
    /// A single line grew beyond the parser's limit without a line break.
    #[error("malformed SSE stream: line longer than {0} bytes")]
    LineTooLong(usize),
    /// One event's data (all its `data:` lines together) grew beyond the event cap.
    #[error("one stream event is larger than {0} bytes")]
    EventTooLarge(usize),
}

/// Default cap on one event's data, across all its `data:` lines (16 MiB).
pub const DEFAULT_MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// Room on top of the event cap for one line's field name and separator.
const LINE_SLACK: usize = 64;

/// Incremental SSE parser (WHATWG event-stream rules, minus `id`/`retry` handling).
///
/// Memory is bounded: the unterminated line and the event's data never hold more than
/// the event cap (plus a few bytes for a field name).
#[derive(Debug)]
pub struct SseParser {
    /// Cap on one event's data, in bytes.
    max_event: usize,
    /// Bytes of the current, not yet terminated line.
    line: Vec<u8>,
    /// The previous chunk ended with `\r`; a leading `\n` of the next chunk belongs to it.
    pending_cr: bool,
    /// `event:` of the frame being built.
    event: Option<String>,
    /// `data:` of the frame being built.
    data: String,
    /// Whether any `data:` line was seen in the frame being built.
    has_data: bool,
}

impl Default for SseParser {
    fn default() -> Self {
        SseParser::with_max_event_bytes(DEFAULT_MAX_EVENT_BYTES)
    }
}

impl SseParser {
    /// A fresh parser with the default event cap.
    pub fn new() -> Self {
        SseParser::default()
    }

    /// A fresh parser whose events may hold at most `max_event` bytes of data.
    pub fn with_max_event_bytes(max_event: usize) -> Self {
        SseParser {
            max_event,
            line: Vec::new(),
            pending_cr: false,
            event: None,
            data: String::new(),
            has_data: false,
        }
    }

    /// Bytes currently held for the unfinished line and event (for tests of the cap).
    pub fn buffered_bytes(&self) -> usize {
        self.line.len() + self.data.len() + self.event.as_ref().map_or(0, String::len)
    }

    fn max_line(&self) -> usize {
        self.max_event.saturating_add(LINE_SLACK)
    }

    /// Feeds one chunk of bytes; complete frames are appended to `out` in order.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<SseFrame>) -> Result<(), SseError> {
        let mut rest = chunk;
        // An empty chunk must not forget a `\r` that ended the previous one.
        if self.pending_cr && !rest.is_empty() {
            self.pending_cr = false;
            if let [b'\n', tail @ ..] = rest {
                rest = tail;
            }
        }
        while !rest.is_empty() {
            match rest.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(i) => {
                    let terminator = rest[i];
                    let line_bytes = &rest[..i];
                    if self.line.len() + line_bytes.len() > self.max_line() {
                        return Err(SseError::LineTooLong(self.max_line()));
                    }
                    if self.line.is_empty() {
                        self.process_line(line_bytes, out)?;
                    } else {
                        self.line.extend_from_slice(line_bytes);
                        let line = std::mem::take(&mut self.line);
                        let result = self.process_line(&line, out);
                        // Keep the allocation for the next long line.
                        self.line = line;
                        self.line.clear();
                        result?;
                    }
                    rest = &rest[i + 1..];
                    if terminator == b'\r' {
                        match rest.first() {
                            Some(b'\n') => rest = &rest[1..],
                            Some(_) => {}
                            None => self.pending_cr = true,
                        }
                    }
                }
                None => {
                    if self.line.len() + rest.len() > self.max_line() {
                        return Err(SseError::LineTooLong(self.max_line()));
                    }
                    self.line.extend_from_slice(rest);
                    rest = &[];
                }
            }
        }
        Ok(())
    }

    /// Whether bytes of an unfinished frame are buffered (used to describe cut streams).
    pub fn has_partial(&self) -> bool {
        !self.line.is_empty() || self.has_data || self.event.is_some()
    }

    fn process_line(&mut self, line: &[u8], out: &mut Vec<SseFrame>) -> Result<(), SseError> {
        if line.is_empty() {
            if self.has_data {
                out.push(SseFrame {
                    event: self.event.take(),
                    data: std::mem::take(&mut self.data),
                });
            }
            self.event = None;
            self.has_data = false;
            self.data.clear();
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        let line = std::str::from_utf8(line).map_err(|_| SseError::InvalidUtf8)?;
        let (field, value) = match line.find(':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (line, ""),
        };
        match field {
            "data" => {
                let sep = usize::from(self.has_data);
                if self.data.len() + sep + value.len() > self.max_event {
                    return Err(SseError::EventTooLarge(self.max_event));
                }
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_string()),
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse_all(chunks: &[&[u8]]) -> Vec<SseFrame> {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        for c in chunks {
            p.push(c, &mut out).unwrap();
        }
        out
    }

    const SAMPLE: &str = "event: message_start\r\ndata: {\"type\":\"message_start\"}\r\n\r\n\
: keep-alive\n\n\
event: content_block_delta\ndata: {\"text\":\"héllo 世界\"}\n\n\
data: line one\ndata: line two\r\rdata:[DONE]\n\n\
event: trailing\ndata: partial";

    #[test]
    fn frames_events_comments_multiline_and_done() {
        let frames = parse_all(&[SAMPLE.as_bytes()]);
        assert_eq!(frames.len(), 4, "{frames:?}");
        assert_eq!(frames[0].event.as_deref(), Some("message_start"));
        assert_eq!(frames[0].data, "{\"type\":\"message_start\"}");
        assert_eq!(frames[1].data, "{\"text\":\"héllo 世界\"}");
        assert_eq!(frames[2].event, None);
        assert_eq!(frames[2].data, "line one\nline two");
        assert!(frames[3].is_done());
    }

    #[test]
    fn partial_trailing_frame_is_not_an_event() {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        p.push(b"event: x\ndata: {}\n", &mut out).unwrap();
        assert!(out.is_empty());
        assert!(p.has_partial());
        p.push(b"\n", &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert!(!p.has_partial());
    }

    #[test]
    fn comment_only_stream_yields_nothing() {
        assert!(parse_all(&[b": keep-alive\n\n: ping\r\n\r\n"]).is_empty());
    }

    #[test]
    fn invalid_utf8_is_malformed() {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        assert_eq!(
            p.push(b"data: \xff\xfe\n\n", &mut out),
            Err(SseError::InvalidUtf8)
        );
    }

    #[test]
    fn empty_chunk_between_cr_and_lf_keeps_one_line_break() {
        // Found by the arbitrary-chunking property: `\r`, an empty chunk, `\n` used to
        // count as two line breaks and dispatch an event early.
        let frames = parse_all(&[b"data: a\r", b"", b"\nevent: x\n"]);
        assert!(frames.is_empty(), "{frames:?}");
    }

    #[test]
    fn split_crlf_counts_as_one_line_break() {
        let frames = parse_all(&[b"data: a\r", b"\n", b"\r", b"\ndata: b\n\n"]);
        assert_eq!(frames.len(), 2, "{frames:?}");
        assert_eq!(frames[0].data, "a");
        assert_eq!(frames[1].data, "b");
    }

    proptest! {
        #[test]
        fn rechunking_yields_identical_frames(cuts in proptest::collection::vec(0usize..SAMPLE.len(), 0..40)) {
            let bytes = SAMPLE.as_bytes();
            let whole = parse_all(&[bytes]);
            let mut cuts = cuts;
            cuts.sort_unstable();
            cuts.dedup();
            let mut chunks: Vec<&[u8]> = Vec::new();
            let mut start = 0;
            for c in cuts {
                chunks.push(&bytes[start..c]);
                start = c;
            }
            chunks.push(&bytes[start..]);
            prop_assert_eq!(parse_all(&chunks), whole);
        }
    }

    #[test]
    fn sse_event_cap_bounds_data_across_lines() {
        // 17 MB of `data:` lines without the blank line that would end the event,
        // fed in small chunks: the default 16 MB cap stops it, holding no more than that.
        let line = format!("data: {}\n", "x".repeat(1000));
        let mut p = SseParser::new();
        let mut out = Vec::new();
        let mut sent = 0usize;
        let mut failure = None;
        'feed: while sent < 17 * 1024 * 1024 {
            for chunk in line.as_bytes().chunks(333) {
                sent += chunk.len();
                if let Err(e) = p.push(chunk, &mut out) {
                    failure = Some(e);
                    break 'feed;
                }
                assert!(
                    p.buffered_bytes() <= DEFAULT_MAX_EVENT_BYTES + line.len(),
                    "{} bytes buffered",
                    p.buffered_bytes()
                );
            }
        }
        assert_eq!(
            failure,
            Some(SseError::EventTooLarge(DEFAULT_MAX_EVENT_BYTES))
        );
        assert!(out.is_empty());
        // Stopped as soon as the data (without the `data: ` prefixes) passed 16 MB.
        assert!(
            sent <= DEFAULT_MAX_EVENT_BYTES + DEFAULT_MAX_EVENT_BYTES / 100,
            "{sent}"
        );
    }

    #[test]
    fn sse_event_cap_allows_events_up_to_the_cap() {
        let mut p = SseParser::with_max_event_bytes(10);
        let mut out = Vec::new();
        // "12345\n6789" is 10 bytes of data: accepted.
        p.push(b"data: 12345\ndata: 6789\n\n", &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].data, "12345\n6789");
        assert_eq!(
            p.push(b"data: 12345\ndata: 67890\n", &mut out),
            Err(SseError::EventTooLarge(10))
        );
        // A single unterminated line cannot outgrow the cap either.
        let mut p = SseParser::with_max_event_bytes(10);
        let long = vec![b'a'; 200];
        assert_eq!(
            p.push(&long, &mut out),
            Err(SseError::LineTooLong(10 + LINE_SLACK))
        );
    }

    /// Frames (and the first error) of `bytes` fed in the given pieces.
    fn parse_pieces(
        max_event: usize,
        bytes: &[u8],
        cuts: &[usize],
    ) -> (Vec<SseFrame>, Option<SseError>, usize) {
        let mut p = SseParser::with_max_event_bytes(max_event);
        let mut out = Vec::new();
        let mut start = 0;
        let mut peak = 0;
        let mut ends: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        ends.sort_unstable();
        ends.push(bytes.len());
        for end in ends {
            if end < start {
                continue;
            }
            let r = p.push(&bytes[start..end], &mut out);
            peak = peak.max(p.buffered_bytes());
            if let Err(e) = r {
                return (out, Some(e), peak);
            }
            start = end;
        }
        (out, None, peak)
    }

    /// Bytes biased towards SSE syntax so that frames actually form.
    fn sse_bytes() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b"data: ".to_vec()),
            Just(b"data:".to_vec()),
            Just(b"event: x".to_vec()),
            Just(b": c".to_vec()),
            Just(b"\n".to_vec()),
            Just(b"\r".to_vec()),
            Just(b"\r\n".to_vec()),
            Just("é世".as_bytes().to_vec()),
            proptest::collection::vec(any::<u8>(), 0..8),
            "[a-z{}\":]{0,12}".prop_map(String::into_bytes),
        ];
        proptest::collection::vec(piece, 0..60).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: crate::testing::proptest_cases(10_000),
            ..ProptestConfig::default()
        })]

        #[test]
        fn sse_arbitrary_bytes_and_chunking(
            bytes in prop_oneof![sse_bytes(), proptest::collection::vec(any::<u8>(), 0..200)],
            cuts in proptest::collection::vec(any::<usize>(), 0..12),
            max_event in prop_oneof![Just(DEFAULT_MAX_EVENT_BYTES), 0usize..40],
        ) {
            let (whole, whole_err, _) = parse_pieces(max_event, &bytes, &[]);
            let (chunked, chunked_err, peak) = parse_pieces(max_event, &bytes, &cuts);
            prop_assert_eq!(&chunked, &whole);
            prop_assert_eq!(&chunked_err, &whole_err);
            // Line, data and event name are each bounded by the cap (plus a field name).
            prop_assert!(peak <= 3 * (max_event + LINE_SLACK), "peak {} cap {}", peak, max_event);
            for f in &whole {
                prop_assert!(f.data.len() <= max_event);
            }
        }
    }
}
