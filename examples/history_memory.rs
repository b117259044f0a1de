//! First frame and memory of the TUI on a large session directory (decision 0101), against
//! an empty start, in one run: `cargo run --release --example history_memory [MiB]`.
//!
//! Generates, in a temporary directory (streaming writes; removed at the end):
//!
//! - 2,000 session logs of 12 user messages of ~300 bytes each;
//! - one log of distinct user messages of ~1 KiB, `MiB` mebibytes long (default 1024),
//!   the newest entry, so the history reader meets it first;
//! - corrupt entries: random bytes, a torn last line, one 8 MiB line without a newline, a
//!   FIFO, a symlink to `/dev/zero` and a directory, all named `*.jsonl`.
//!
//! Then, twice — on an empty session directory, then on the large one — it starts the UI
//! as the TUI does (`App::new`, the `SessionOpened` event that starts the history reader,
//! a 120×40 frame), times the first frame, keeps drawing a frame every 16 ms while the
//! reader runs (the slowest of those frames shows whether the UI waits on it), and samples
//! the resident set (`VmRSS`) every frame: its peak during the reading and its level once
//! the reader is done. The `/resume` picker's listing (`list_sessions` and a summary of
//! each of the newest 2,000 logs) is timed after that. The last line is the ratio line
//! `history memory: first frame X ms vs Y ms empty (Z×), RSS +N MB peak, +M MB settled`.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use deepterm::agent::protocol::AgentEvent;
use deepterm::i18n::Locale;
use deepterm::session::Session;
use deepterm::session::event::{EventKind, Message, Role, Source, UserMessageData};
use deepterm::ui::App;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// A small deterministic generator (xorshift), so the messages are distinct and the run
/// repeatable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

const WORDS: [&str; 16] = [
    "refactor", "the", "parser", "test", "deploy", "api", "cache", "footer", "session", "rust",
    "config", "error", "stream", "tool", "fix", "docs",
];

fn sentence(rng: &mut Rng, i: usize, len: usize) -> String {
    let mut s = format!("message {i}:");
    while s.len() < len {
        s.push(' ');
        s.push_str(WORDS[(rng.next() % 16) as usize]);
    }
    s
}

fn user(text: String) -> EventKind {
    EventKind::UserMessage(UserMessageData {
        message: Message::text(Role::User, text, Source::kind("user")),
    })
}

fn write_session(dir: &Path, id: &str, rng: &mut Rng, n: usize) -> std::io::Result<()> {
    let mut s = Session::new(id, "/tmp/project");
    for i in 0..n {
        s.push(user(sentence(rng, i, 300))).expect("append");
    }
    let mut f = std::io::BufWriter::new(std::fs::File::create(dir.join(format!("{id}.jsonl")))?);
    for e in s.events() {
        serde_json::to_writer(&mut f, &**e)?;
        f.write_all(b"\n")?;
    }
    f.flush()
}

/// One log of `mib` MiB of distinct user messages, written line by line.
fn write_big(dir: &Path, id: &str, mib: u64) -> std::io::Result<()> {
    let mut s = Session::new(id, "/tmp/project");
    s.push(user("placeholder".into())).expect("append");
    let start = serde_json::to_string(&*s.events()[0])?;
    let template = serde_json::to_string(&*s.events()[1])?;
    let (head, tail) = template
        .split_once("placeholder")
        .expect("the text is in the line");
    let mut f = std::io::BufWriter::with_capacity(
        1 << 20,
        std::fs::File::create(dir.join(format!("{id}.jsonl")))?,
    );
    writeln!(f, "{start}")?;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut written = 0u64;
    let mut i = 0usize;
    while written < mib << 20 {
        let line = format!("{head}{}{tail}\n", sentence(&mut rng, i, 1000));
        f.write_all(line.as_bytes())?;
        written += line.len() as u64;
        i += 1;
    }
    f.flush()
}

fn write_corrupt(dir: &Path) -> std::io::Result<()> {
    let mut rng = Rng(7);
    let garbage: Vec<u8> = (0..1 << 20).map(|_| rng.next() as u8).collect();
    std::fs::write(dir.join("20251101-000000-0badbad1.jsonl"), garbage)?;
    std::fs::write(
        dir.join("20251101-000000-0badbad2.jsonl"),
        "{\"type\":\"user/message\",\"seq\":1,\"data\":{\"message\":{\"ro",
    )?;
    std::fs::write(
        dir.join("20251101-000000-0badbad3.jsonl"),
        vec![b'x'; 8 << 20],
    )?;
    let fifo = dir.join("20251101-000000-0badbad4.jsonl");
    let _ = std::process::Command::new("mkfifo").arg(&fifo).status();
    std::os::unix::fs::symlink("/dev/zero", dir.join("20251101-000000-0badbad5.jsonl"))?;
    std::fs::create_dir(dir.join("20251101-000000-0badbad6.jsonl"))
}

struct Run {
    first_frame: Duration,
    read: Duration,
    slowest_frame: Duration,
    base_kib: u64,
    peak_kib: u64,
    settled_kib: u64,
}

/// Starts the UI on `dir` as the TUI does and watches it until the history is read.
fn start(dir: &Path) -> Run {
    let base_kib = rss_kib();
    let t0 = Instant::now();
    let mut app = App::new(Locale::EnUs, false);
    app.on_agent_event(AgentEvent::SessionOpened {
        id: "20270101-000000-00000000".into(),
        path: dir
            .join("20270101-000000-00000000.jsonl")
            .display()
            .to_string(),
        history: Vec::new(),
    });
    let mut term = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
    term.draw(|f| app.render(f)).expect("draw");
    let first_frame = t0.elapsed();
    let mut peak_kib = rss_kib();
    let mut slowest_frame = Duration::ZERO;
    while app.history_reading().is_some() {
        std::thread::sleep(Duration::from_millis(16));
        let t = Instant::now();
        term.draw(|f| app.render(f)).expect("draw");
        slowest_frame = slowest_frame.max(t.elapsed());
        peak_kib = peak_kib.max(rss_kib());
    }
    let read = t0.elapsed();
    // Let the reader thread end and the allocator settle.
    std::thread::sleep(Duration::from_millis(200));
    let settled_kib = rss_kib();
    drop(app);
    Run {
        first_frame,
        read,
        slowest_frame,
        base_kib,
        peak_kib: peak_kib.max(settled_kib),
        settled_kib,
    }
}

fn report(name: &str, r: &Run) {
    println!(
        "{name:>6}: first frame {:.2} ms, history read in {:.0} ms, slowest frame while reading {:.2} ms, \
         RSS before {} MB, peak {} MB, settled {} MB",
        r.first_frame.as_secs_f64() * 1e3,
        r.read.as_secs_f64() * 1e3,
        r.slowest_frame.as_secs_f64() * 1e3,
        r.base_kib / 1024,
        r.peak_kib / 1024,
        r.settled_kib / 1024,
    );
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mib: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1024);
    let root = tempfile::tempdir()?;
    let empty = root.path().join("empty");
    let large = root.path().join("large");
    std::fs::create_dir_all(&empty)?;
    std::fs::create_dir_all(&large)?;

    let t = Instant::now();
    write_corrupt(&large)?;
    let mut rng = Rng(42);
    for i in 0..2000 {
        // Ids in time order: the modification times follow the writing order.
        write_session(&large, &format!("20260101-{i:06}-{i:08x}"), &mut rng, 12)?;
    }
    write_big(&large, "20261231-235959-b16b16b1", mib)?;
    let bytes: u64 = std::fs::read_dir(&large)?
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum();
    println!(
        "generated 2,000 sessions + a {mib} MiB log + 6 corrupt entries: {} MB in {:.1} s",
        bytes >> 20,
        t.elapsed().as_secs_f64()
    );

    let e = start(&empty);
    report("empty", &e);
    let l = start(&large);
    report("large", &l);

    let t = Instant::now();
    let sessions = deepterm::session::listing::list_sessions(&large)?;
    let cache = deepterm::session::listing::SummaryCache::default();
    let summaries: Vec<_> = sessions
        .iter()
        .take(2000)
        .map(|s| cache.summary(s))
        .collect();
    let partial = summaries.iter().filter(|s| s.messages_partial).count();
    println!(
        "picker listing: {} sessions summarized in {:.0} ms ({partial} counted from their first {} MiB), RSS {} MB",
        summaries.len(),
        t.elapsed().as_secs_f64() * 1e3,
        deepterm::session::listing::SUMMARY_SCAN_BYTES >> 20,
        rss_kib() / 1024
    );

    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "history memory: first frame {:.2} ms vs {:.2} ms empty ({:.2}×), RSS +{} MB peak, +{} MB settled (against the empty start)",
        ms(l.first_frame),
        ms(e.first_frame),
        ms(l.first_frame) / ms(e.first_frame),
        l.peak_kib.saturating_sub(e.peak_kib) / 1024,
        l.settled_kib.saturating_sub(e.settled_kib) / 1024,
    );
    drop(root);
    Ok(())
}
