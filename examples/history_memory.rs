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
//! `history memory: first frame (median of 7) X ms vs Y ms empty (Z×), RSS +N MB peak, +M MB
//! settled`; the first frames there are medians of 7 starts on each directory.
//!
//! The history reader alone (`history::load` on this thread, median of 5) and the UI's
//! work per batch are timed last, on generated data: the `/resume` picker fed 2,000
//! sessions in 100 batches of 20 (this workspace's and another's alternating, so the
//! workspace order applies), and the composer fed 5,000 history entries in 100 batches of
//! 50 after 50 prompts of its own; each line gives the total, the mean of the first and of
//! the last ten batches (a cost that grows with what came before shows as a rise) and the
//! slowest batch.
//!
//! With `DEEPTERM_BIN=target/release/deepterm` (and tmux), it then runs the real TUI in a
//! 120×40 tmux pane on both directories: the median time from launch to the exit right
//! after its first frame (`DEEPTERM_EXIT_AFTER_FIRST_FRAME`, 5 runs each; the pane's end
//! polled every 2 ms), and, left
//! running for 3 s while it reads the history, its peak (`VmHWM`) and last resident set.

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

/// The UI started on `dir` as the TUI starts it, up to its first frame, and how long that
/// took (the history reader runs on from there).
fn first_frame(dir: &Path) -> (App, Terminal<TestBackend>, Duration) {
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
    (app, term, t0.elapsed())
}

/// The median first frame of 7 starts on `dir` (the UI is dropped after each; its reader
/// stops at its next batch).
fn median_first_frame(dir: &Path) -> Duration {
    let mut v: Vec<Duration> = (0..7)
        .map(|_| {
            let (app, _, t) = first_frame(dir);
            drop(app);
            std::thread::sleep(Duration::from_millis(100));
            t
        })
        .collect();
    v.sort();
    v[3]
}

/// Starts the UI on `dir` as the TUI does and watches it until the history is read.
fn start(dir: &Path) -> Run {
    let base_kib = rss_kib();
    let t0 = Instant::now();
    let (mut app, mut term, first_frame) = first_frame(dir);
    let mut peak_kib = rss_kib();
    let mut slowest_frame = Duration::ZERO;
    while app.history_reading().is_some() {
        std::thread::sleep(Duration::from_millis(16));
        let t = Instant::now();
        // What the reader sent meanwhile, handed to the App as the event loop does.
        app.take_events();
        term.draw(|f| app.render(f)).expect("draw");
        slowest_frame = slowest_frame.max(t.elapsed());
        if std::env::var_os("HM_DEBUG").is_some() && t.elapsed() > Duration::from_millis(5) {
            eprintln!(
                "slow frame {:?} reading {:?}",
                t.elapsed(),
                app.history_reading()
            );
        }
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

/// `VmRSS`/`VmHWM` of process `pid`, in KiB.
fn status_kib(pid: &str, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn tmux(args: &[&str]) -> String {
    let out = std::process::Command::new("tmux")
        .args(["-L", "deepterm-history-memory"])
        .args(args)
        .output()
        .expect("tmux runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The release binary in a 120×40 tmux pane on `sessions`: the median wall time to its
/// first frame (`DEEPTERM_EXIT_AFTER_FIRST_FRAME`, 5 runs), then, left running for 3 s
/// (the history is read meanwhile), its peak (`VmHWM`) and last resident set, in KiB.
fn binary_run(bin: &str, home: &Path, sessions: &Path) -> (Duration, u64, u64) {
    let base = format!(
        "env -u DEEPSEEK_API_KEY HOME={h} XDG_CONFIG_HOME={h}/c XDG_DATA_HOME={h}/d {bin} \
         --demo --session-dir {s} --config {h}/config.toml --locale en-US",
        h = home.display(),
        s = sessions.display(),
    );
    let mut times = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let cmd = format!("DEEPTERM_EXIT_AFTER_FIRST_FRAME=1 {base}");
        tmux(&[
            "new-session",
            "-d",
            "-s",
            "f",
            "-x",
            "120",
            "-y",
            "40",
            &cmd,
        ]);
        // The session ends with the process; polled, with a cap, so a run that never
        // draws cannot hang the benchmark.
        while t.elapsed() < Duration::from_secs(20) {
            let alive = std::process::Command::new("tmux")
                .args(["-L", "deepterm-history-memory", "has-session", "-t", "f"])
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if !alive {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        times.push(t.elapsed());
        tmux(&["kill-session", "-t", "f"]);
    }
    times.sort();
    tmux(&[
        "new-session",
        "-d",
        "-s",
        "r",
        "-x",
        "120",
        "-y",
        "40",
        &format!("exec {base}"),
    ]);
    let pid = tmux(&["list-panes", "-t", "r", "-F", "#{pane_pid}"])
        .trim()
        .to_string();
    std::thread::sleep(Duration::from_secs(3));
    let (peak, now) = (status_kib(&pid, "VmHWM:"), status_kib(&pid, "VmRSS:"));
    tmux(&["kill-session", "-t", "r"]);
    (times[2], peak, now)
}

/// Total, mean of the first ten, mean of the last ten and slowest of `times`.
fn batch_line(what: &str, times: &[Duration]) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mean = |s: &[Duration]| ms(s.iter().sum::<Duration>()) / s.len().max(1) as f64;
    let n = times.len();
    println!(
        "{what}: {n} batches in {:.2} ms, first ten {:.3} ms/batch, last ten {:.3} ms/batch, slowest {:.3} ms",
        ms(times.iter().sum()),
        mean(&times[..n.min(10)]),
        mean(&times[n.saturating_sub(10)..]),
        ms(times.iter().copied().max().unwrap_or_default()),
    );
}

/// The UI's work per batch of the `/resume` listing and of the history reader.
fn ui_batches(here: &Path, other: &Path) {
    use deepterm::agent::protocol::SessionSummary;
    let summary = |i: usize| SessionSummary {
        id: format!("20260101-{i:06}-{i:08x}"),
        modified: 1_800_000_000 - i as i64,
        first_prompt: Some(format!("prompt of session {i}")),
        messages: 12,
        bytes: 4000,
        workspace: Some(
            if i.is_multiple_of(2) { here } else { other }
                .display()
                .to_string(),
        ),
        forked_from: None,
        messages_partial: false,
    };
    let mut app = App::new(Locale::EnUs, false);
    let current = summary(0).id;
    let mut times = Vec::new();
    for b in 0..100 {
        let sessions: Vec<SessionSummary> = (b * 20..b * 20 + 20).map(summary).collect();
        let t = Instant::now();
        app.on_agent_event(AgentEvent::Sessions {
            listing: 1,
            current: current.clone(),
            sessions,
            done: false,
        });
        times.push(t.elapsed());
    }
    batch_line("picker fill (2,000 sessions)", &times);

    let mut c = deepterm::ui::bottom::composer::Composer::new();
    for i in 0..50 {
        c.set_text(&format!("a prompt of this session, number {i}"));
        c.submit();
    }
    let mut rng = Rng(7);
    let mut times = Vec::new();
    for b in 0..100 {
        let batch: Vec<String> = (0..50)
            .map(|i| sentence(&mut rng, b * 50 + i, 300))
            .collect();
        let t = Instant::now();
        c.add_older_history(batch);
        times.push(t.elapsed());
    }
    batch_line("composer history (5,000 entries)", &times);
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

    // Untimed: the first start pays one-time costs (locales, lazy tables).
    drop(first_frame(&empty));
    let e = start(&empty);
    report("empty", &e);
    let l = start(&large);
    report("large", &l);
    let (ef, lf) = (median_first_frame(&empty), median_first_frame(&large));

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
        "history memory: first frame (median of 7) {:.2} ms vs {:.2} ms empty ({:.2}×), RSS +{} MB peak, +{} MB settled (against the empty start)",
        ms(lf),
        ms(ef),
        ms(lf) / ms(ef),
        l.peak_kib.saturating_sub(e.peak_kib) / 1024,
        l.settled_kib.saturating_sub(e.settled_kib) / 1024,
    );
    // The reader alone, on this thread (no frames between its batches): median of 5.
    let mut reads: Vec<(Duration, usize)> = (0..5)
        .map(|_| {
            let t = Instant::now();
            let n = deepterm::ui::history::load(&large).len();
            (t.elapsed(), n)
        })
        .collect();
    reads.sort();
    println!(
        "history reader alone: {} entries in {:.1} ms (median of 5)",
        reads[2].1,
        ms(reads[2].0)
    );
    let (here, other) = (root.path().join("here"), root.path().join("other"));
    std::fs::create_dir_all(&here)?;
    std::fs::create_dir_all(&other)?;
    ui_batches(&here, &other);
    // The real TUI: `DEEPTERM_BIN=target/release/deepterm` (built with
    // `cargo build --release --bin deepterm`) and tmux.
    if let Some(bin) = std::env::var_os("DEEPTERM_BIN") {
        let bin = bin.to_string_lossy().into_owned();
        std::fs::write(root.path().join("config.toml"), "")?;
        // Keep one tmux server alive between the runs.
        tmux(&["new-session", "-d", "-s", "keep", "sleep 600"]);
        let (et, ep, en) = binary_run(&bin, root.path(), &empty);
        let (lt, lp, ln) = binary_run(&bin, root.path(), &large);
        tmux(&["kill-server"]);
        println!(
            "binary in tmux: first frame (process start to exit after it, median of 5) {:.1} ms vs {:.1} ms empty ({:.2}×); \
             RSS peak {} MB vs {} MB (+{} MB), after 3 s {} MB vs {} MB (+{} MB)",
            ms(lt),
            ms(et),
            ms(lt) / ms(et),
            lp / 1024,
            ep / 1024,
            lp.saturating_sub(ep) / 1024,
            ln / 1024,
            en / 1024,
            ln.saturating_sub(en) / 1024,
        );
    }
    drop(root);
    Ok(())
}
