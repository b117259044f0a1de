//! Peak heap memory of parsing + assembling one Anthropic-format stream, for the same final
//! message delivered in 20,000 deltas and in 200,000 deltas (the target: peak memory per
//! stream bounded by the message size, not by the number of deltas). A counting global allocator
//! records the peak of live heap bytes above the baseline while the stream is consumed in
//! 1,397-byte reads; the stream bytes themselves are allocated before the baseline.
//!
//! Run: `cargo run --release --example stream_memory`

use deepterm::llm::adapter::Assemble;
use deepterm::llm::deepseek::stream::MessagesAssembler;
use deepterm::llm::sse::SseParser;

#[path = "../tests/support/counting_alloc.rs"]
mod counting_alloc;

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

/// A text stream whose message is `total` bytes of text, split into `deltas` deltas.
fn stream(total: usize, deltas: usize) -> Vec<u8> {
    let piece = "abcdefghij".repeat(total / deltas / 10 + 1);
    let piece = &piece[..total / deltas];
    let mut s = String::from(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"deepseek-flash\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":0}}}\n\n\
         event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    );
    for _ in 0..deltas {
        s.push_str("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"");
        s.push_str(piece);
        s.push_str("\"}}\n\n");
    }
    s.push_str("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
                event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\n\
                event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    s.into_bytes()
}

fn peak_while_assembling(bytes: &[u8]) -> usize {
    let base = counting_alloc::reset_peak();
    let mut parser = SseParser::new();
    let mut asm = MessagesAssembler::new();
    let mut frames = Vec::new();
    for chunk in bytes.chunks(1397) {
        parser.push(chunk, &mut frames).expect("valid SSE");
        for f in frames.drain(..) {
            // The live deltas go to the UI; nothing here keeps them.
            asm.on_frame(&f, &mut |ev| drop(ev)).expect("valid frame");
        }
    }
    let done = asm.finish().expect("complete");
    let peak = counting_alloc::peak_above(base);
    drop(done);
    peak
}

fn main() {
    let total = 200_000;
    for deltas in [20_000usize, 200_000] {
        let bytes = stream(total, deltas);
        let peak = peak_while_assembling(&bytes);
        println!(
            "message {total} B in {deltas:>7} deltas (stream {:>6} KiB): peak heap while assembling {:>6} KiB",
            bytes.len() / 1024,
            peak / 1024
        );
    }
}
