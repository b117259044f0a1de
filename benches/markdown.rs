//! Per-delta cost of the markdown stream collector (docs/benchmarks.md, `## Markdown stream`):
//! 20-character deltas at the start and at the end of a 50,000-character reply that mixes
//! paragraphs, lists and a long code block; each delta is push + committed rows + open tail
//! at width 120. Also the one-time syntax-set load.
//!
//! Run: `cargo bench --bench markdown`.

use std::hint::black_box;
use std::time::Instant;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use deepterm::ui::markdown::StreamCollector;

const REPLY_CHARS: usize = 50_000;
const DELTA: usize = 20;
/// Deltas timed per sample (1,000 characters).
const RUN: usize = 50;
const WIDTH: usize = 120;

/// Paragraphs and lists for the first half, then one long fenced code block to the end.
fn reply() -> String {
    let mut s = String::new();
    let mut i = 0;
    while s.len() < REPLY_CHARS / 2 {
        s.push_str(&format!(
            "## Section {i}\n\nThe tool **fx__echo** returns its input; see [docs](https://example.com/{i}) \
             and `cargo test` for details. This paragraph is long enough to wrap at narrow \
             widths and carries *emphasis* and ~~strikes~~ like real replies do.\n\n\
             - first point about the change\n- second point\n  - nested detail with `code`\n\
             1. step one\n2. step two\n\n> A short quoted note.\n\n"
        ));
        i += 1;
    }
    s.push_str("```rust\n");
    let mut n = 0;
    while s.len() < REPLY_CHARS - 4 {
        s.push_str(&format!(
            "fn handler_{n}(x: u32) -> String {{ let url = \"https://example.com//{n}\"; format!(\"{{url}}{{x}}\") }} // #{n}\n"
        ));
        n += 1;
    }
    s.push_str("```\n");
    s
}

fn deltas(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    chars.chunks(DELTA).map(|c| c.iter().collect()).collect()
}

fn fed(deltas: &[String], upto: usize) -> StreamCollector {
    let mut c = StreamCollector::new();
    for d in &deltas[..upto] {
        c.push(d);
    }
    let _ = c.committed_ref(WIDTH);
    c
}

fn bench(c: &mut Criterion) {
    let t = Instant::now();
    let set = two_face::syntax::extra_newlines();
    eprintln!(
        "syntax set load: {:?} ({} syntaxes)",
        t.elapsed(),
        set.syntaxes().len()
    );
    let src = reply();
    let ds = deltas(&src);
    let mut g = c.benchmark_group("markdown_stream");
    // Where the long code block starts, to show its per-line cost does not grow either.
    let code_at = src[..src.find("```rust").unwrap_or(0)].chars().count() / DELTA + 2;
    for (name, at) in [
        ("start", 0),
        ("code_start", code_at),
        ("end", ds.len() - RUN),
    ] {
        let base = fed(&ds, at);
        let run = &ds[at..at + RUN];
        g.bench_function(format!("{RUN}_deltas_at_{name}"), |b| {
            b.iter_batched(
                || base.clone(),
                |mut col| {
                    for d in run {
                        col.push(d);
                        black_box(col.committed_ref(WIDTH).len());
                        black_box(col.tail(WIDTH, "table"));
                    }
                    col
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
    c.bench_function("syntax_set_load", |b| {
        b.iter(|| black_box(two_face::syntax::extra_newlines().syntaxes().len()))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
