//! SSE parser on arbitrary bytes and chunking: never panics, chunking does not change the
//! frames or the first error, events stay within the cap.
#![no_main]

use deepterm::llm::sse::{SseFrame, SseParser};
use libfuzzer_sys::fuzz_target;

const CAP: usize = 64;

fn parse(data: &[u8], chunk: usize) -> (Vec<SseFrame>, Option<String>) {
    let mut p = SseParser::with_max_event_bytes(CAP);
    let mut out = Vec::new();
    for piece in data.chunks(chunk.max(1)) {
        if let Err(e) = p.push(piece, &mut out) {
            return (out, Some(e.to_string()));
        }
        assert!(p.buffered_bytes() <= 3 * (CAP + 64));
    }
    (out, None)
}

fuzz_target!(|input: &[u8]| {
    let Some((&chunk, data)) = input.split_first() else {
        return;
    };
    let whole = parse(data, data.len());
    let chunked = parse(data, usize::from(chunk % 17));
    assert_eq!(whole, chunked);
    assert!(whole.0.iter().all(|f| f.data.len() <= CAP));
});
