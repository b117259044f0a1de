//! Render cost vs history length (SPEC §10 "long sessions"): a full 120×40 frame for
//! transcripts of 100, 1k and 10k messages, one composer keystroke plus its frame, and
//! opening the Ctrl+T transcript overlay (its first frame) and closing it.
//!
//! Streaming and resizing (group `stream_resize`): the per-delta cost (apply + 120×40 frame) at the start vs the end of a
//! 50,000-character reply streamed in 20-character deltas, the first frame after resizing a
//! 10,000-message transcript from 120 to 100 columns, and warm frames at 100 vs 10,000.
//!
//! Run: `cargo bench --bench render`

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use deepterm::agent::protocol::AgentEvent;
use deepterm::i18n::Locale;
use deepterm::llm::types::StreamEvent;
use deepterm::ui::App;
use deepterm::ui::sample::long_session;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::hint::black_box;
use std::time::{Duration, Instant};

fn app(messages: usize) -> App {
    let mut app = App::new(Locale::ZhCn, false);
    for e in long_session(messages) {
        app.on_agent_event(e);
    }
    app
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("render");
    g.sample_size(30)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500));
    for n in [100usize, 1_000, 10_000] {
        let mut a = app(n);
        let mut term = Terminal::new(TestBackend::new(120, 40)).expect("test backend");
        // First frame lays out every cell once at this width; later frames reuse the caches.
        term.draw(|f| a.render(f)).expect("draw");
        g.bench_with_input(BenchmarkId::new("frame_120x40", n), &n, |b, _| {
            b.iter(|| {
                term.draw(|f| a.render(f)).expect("draw");
                black_box(term.backend().buffer().area);
            })
        });
        g.bench_with_input(BenchmarkId::new("keystroke_frame", n), &n, |b, _| {
            b.iter(|| {
                a.on_key(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE));
                a.on_key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE));
                term.draw(|f| a.render(f)).expect("draw");
            })
        });
        // Ctrl+T: the transcript overlay copies Chat's cells and lays every one out in
        // full on its first frame; Esc closes it again.
        g.bench_with_input(BenchmarkId::new("transcript_open_frame", n), &n, |b, _| {
            b.iter(|| {
                a.on_key(KeyEvent::new(KeyCode::Char('t'), KeyModifiers::CONTROL));
                term.draw(|f| a.render(f)).expect("draw");
                a.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
            })
        });
    }
    g.finish();
}

/// A 50,000-character markdown reply: paragraphs of prose, lists and a code block.
fn long_reply() -> String {
    let mut s = String::new();
    let mut k = 0;
    while s.len() < 50_000 {
        k += 1;
        s.push_str(&format!(
            "Paragraph {k}: the renderer caches committed rows and only re-renders the \
             open tail line, so a long reply costs the same per delta as a short one.\n\n\
             - point one about **streaming**\n- point two with `code`\n\n"
        ));
        if k % 10 == 0 {
            s.push_str("```rust\nfn main() { println!(\"hi\"); }\n```\n\n");
        }
    }
    s.truncate(50_000);
    s
}

fn delta(text: &str) -> AgentEvent {
    AgentEvent::Stream {
        turn: 1,
        step: 1,
        event: StreamEvent::TextDelta(text.to_string()),
    }
}

fn bench_stream_resize(c: &mut Criterion) {
    let mut g = c.benchmark_group("stream_resize");
    g.sample_size(30);
    // (a) per-delta cost at the start vs the end of a long streamed reply.
    let reply = long_reply();
    let chunks: Vec<String> = reply
        .chars()
        .collect::<Vec<_>>()
        .chunks(20)
        .map(|c| c.iter().collect())
        .collect();
    // Each measured delta is one of the 200 that follow the streamed prefix; the App is
    // rebuilt (untimed) every 200 deltas so "start" stays at the start of the reply.
    const WINDOW: usize = 200;
    for (label, streamed) in [("start", 0usize), ("end", chunks.len() - WINDOW)] {
        let prepare = || {
            let mut a = app(100);
            for ch in &chunks[..streamed] {
                a.on_agent_event(delta(ch));
            }
            let mut term = Terminal::new(TestBackend::new(120, 40)).expect("test backend");
            term.draw(|f| a.render(f)).expect("draw");
            (a, term)
        };
        g.bench_function(BenchmarkId::new("delta_apply_frame_120x40", label), |b| {
            b.iter_custom(|iters| {
                let mut spent = Duration::ZERO;
                let mut done = 0u64;
                while done < iters {
                    let (mut a, mut term) = prepare();
                    for ch in chunks[streamed..].iter().take(WINDOW) {
                        if done == iters {
                            break;
                        }
                        let t0 = Instant::now();
                        a.on_agent_event(delta(ch));
                        term.draw(|f| a.render(f)).expect("draw");
                        black_box(term.backend().buffer().area);
                        spent += t0.elapsed();
                        done += 1;
                    }
                }
                spent
            })
        });
    }
    // (b) first frame after a resize of a 10,000-message transcript (120 -> 100 columns).
    let mut a = app(10_000);
    let mut wide = Terminal::new(TestBackend::new(120, 40)).expect("test backend");
    wide.draw(|f| a.render(f)).expect("draw");
    let mut narrow = Terminal::new(TestBackend::new(100, 40)).expect("test backend");
    g.bench_function("resize_first_frame_10000_120_to_100", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                // Back to a warm, fully exact layout at 120 columns (untimed).
                wide.draw(|f| a.render(f)).expect("draw");
                while a.transcript().estimated() > 0 {
                    wide.draw(|f| a.render(f)).expect("draw");
                }
                let t0 = Instant::now();
                narrow.draw(|f| a.render(f)).expect("draw");
                black_box(narrow.backend().buffer().area);
                spent += t0.elapsed();
            }
            spent
        })
    });
    // (c) warm frames at 100 vs 10,000 messages (also in group `render`).
    for n in [100usize, 10_000] {
        let mut a = app(n);
        let mut term = Terminal::new(TestBackend::new(120, 40)).expect("test backend");
        for _ in 0..60 {
            term.draw(|f| a.render(f)).expect("draw");
        }
        g.bench_with_input(BenchmarkId::new("warm_frame_120x40", n), &n, |b, _| {
            b.iter(|| {
                term.draw(|f| a.render(f)).expect("draw");
                black_box(term.backend().buffer().area);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench, bench_stream_resize);
criterion_main!(benches);
