//! SSE parse + stream assembly throughput (docs/benchmarks.md, `## SSE stream`).
//!
//! Run: `cargo bench --bench stream`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use deepterm::llm::adapter::Assemble;
use deepterm::llm::deepseek::stream::MessagesAssembler;
use deepterm::llm::openai::stream::ChatAssembler;
use deepterm::llm::sse::SseParser;

/// Delta texts of realistic size (a few tokens each), mixed ASCII and CJK.
const WORDS: [&str; 8] = [
    "The ",
    "parser ",
    "handles ",
    "chunked ",
    "input, ",
    "including ",
    "多字节文本",
    " and \"quotes\".\n",
];

const DELTAS: usize = 20_000;

fn anthropic_stream() -> Vec<u8> {
    let mut s = String::new();
    s.push_str("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"deepseek-flash\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":212,\"output_tokens\":0,\"cache_read_input_tokens\":1920,\"cache_creation_input_tokens\":0}}}\n\n");
    s.push_str("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n");
    for i in 0..DELTAS / 4 {
        let t = serde_json::to_string(WORDS[i % WORDS.len()]).unwrap();
        s.push_str(&format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"thinking_delta\",\"thinking\":{t}}}}}\n\n"));
    }
    s.push_str("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"c2lnbmF0dXJl\"}}\n\n");
    s.push_str(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    );
    s.push_str("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
    for i in 0..DELTAS * 3 / 4 {
        if i % 500 == 0 {
            s.push_str("event: ping\ndata: {\"type\":\"ping\"}\n\n: keep-alive\n\n");
        }
        let t = serde_json::to_string(WORDS[i % WORDS.len()]).unwrap();
        s.push_str(&format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{{\"type\":\"text_delta\",\"text\":{t}}}}}\n\n"));
    }
    s.push_str(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
    );
    s.push_str("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":20000}}\n\n");
    s.push_str("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    s.into_bytes()
}

fn openai_stream() -> Vec<u8> {
    let mut s = String::new();
    s.push_str("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1790000000,\"model\":\"deepseek-flash\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"reasoning_content\":\"\"},\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n");
    for i in 0..DELTAS {
        let t = serde_json::to_string(WORDS[i % WORDS.len()]).unwrap();
        let field = if i < DELTAS / 4 {
            "reasoning_content"
        } else {
            "content"
        };
        s.push_str(&format!("data: {{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1790000000,\"model\":\"deepseek-flash\",\"system_fingerprint\":\"fp_1\",\"choices\":[{{\"index\":0,\"delta\":{{\"{field}\":{t}}},\"logprobs\":null,\"finish_reason\":null}}],\"usage\":null}}\n\n"));
    }
    s.push_str("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":2132,\"completion_tokens\":20000,\"total_tokens\":22132,\"prompt_cache_hit_tokens\":1920,\"prompt_cache_miss_tokens\":212}}\n\n");
    s.push_str("data: [DONE]\n\n");
    s.into_bytes()
}

/// Network-like chunking: ~1.4 KB reads that split frames and characters anywhere.
const CHUNK: usize = 1397;

fn bench(c: &mut Criterion) {
    let anthropic = anthropic_stream();
    let openai = openai_stream();
    let mut group = c.benchmark_group("sse_stream");

    group.throughput(Throughput::Bytes(anthropic.len() as u64));
    group.bench_function("anthropic_parse_assemble", |b| {
        b.iter(|| {
            let mut parser = SseParser::new();
            let mut asm = MessagesAssembler::new();
            let mut frames = Vec::new();
            let mut events = 0usize;
            for chunk in anthropic.chunks(CHUNK) {
                frames.clear();
                parser.push(chunk, &mut frames).unwrap();
                for f in &frames {
                    asm.on_frame(f, &mut |_| events += 1).unwrap();
                }
            }
            let done = asm.finish().unwrap();
            assert_eq!(done.content.len(), 2);
            events
        })
    });

    group.throughput(Throughput::Bytes(openai.len() as u64));
    group.bench_function("openai_parse_assemble", |b| {
        b.iter(|| {
            let mut parser = SseParser::new();
            let mut asm = ChatAssembler::new();
            let mut frames = Vec::new();
            let mut events = 0usize;
            for chunk in openai.chunks(CHUNK) {
                frames.clear();
                parser.push(chunk, &mut frames).unwrap();
                for f in &frames {
                    asm.on_frame(f, &mut |_| events += 1).unwrap();
                }
            }
            let done = asm.finish().unwrap();
            assert_eq!(done.content.len(), 2);
            events
        })
    });

    group.throughput(Throughput::Bytes(anthropic.len() as u64));
    group.bench_function("sse_parse_only", |b| {
        b.iter(|| {
            let mut parser = SseParser::new();
            let mut frames = Vec::new();
            let mut n = 0usize;
            for chunk in anthropic.chunks(CHUNK) {
                frames.clear();
                parser.push(chunk, &mut frames).unwrap();
                n += frames.len();
            }
            n
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(4));
    targets = bench
}
criterion_main!(benches);
