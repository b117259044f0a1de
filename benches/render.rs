//! Render cost vs history length (SPEC §10 "long sessions"): a full 120×40 frame for
//! transcripts of 100, 1k and 10k messages, and one composer keystroke plus its frame.
//!
//! Run: `cargo bench --bench render`

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use deepterm::i18n::Locale;
use deepterm::ui::App;
use deepterm::ui::sample::long_session;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::hint::black_box;
use std::time::Duration;

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
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
