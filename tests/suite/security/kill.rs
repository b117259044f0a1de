//! Kill test: a release-mode `deepterm exec` run
//! against the simulator is killed with SIGKILL at random moments. After each kill:
//!
//! - every acknowledged turn is in the log: an answer that `exec` printed on stdout has
//!   its `assistant/message` and its `turn/end` on complete lines of the log (exec prints
//!   a turn's answer only after `handle_line` returned, which is after the `turn/end` was
//!   appended and the log fsynced; see `Agent::run_turn`);
//! - the log resumes: `exec --resume <id>` with one more line succeeds and answers.
//!
//! The binary: `$DEEPTERM_RELEASE_BIN` when set, else `target/release/deepterm` (under
//! `$CARGO_TARGET_DIR` when set). When neither exists the test builds it once with
//! `cargo build --release --bin deepterm`; `.ci/run` builds it before `cargo test`, so CI
//! always tests a fresh release binary. Iterations: `$DEEPTERM_KILL_ITERATIONS` (default
//! 50); `$DEEPTERM_KILL_SEED` replays a run (the seed is printed).

use crate::common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{KEY_VAR, TEST_KEY, routes_config};
use deepterm::sim::SimConfig;
use serde_json::Value;

/// Turns in the killed script: more than fit in the longest run before a kill.
const TURNS: usize = 2000;

fn release_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("DEEPTERM_RELEASE_BIN") {
        let p = PathBuf::from(p);
        assert!(
            p.is_file(),
            "DEEPTERM_RELEASE_BIN={} is not a file",
            p.display()
        );
        return p;
    }
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| if t.is_absolute() { t } else { manifest.join(t) })
        .unwrap_or_else(|| manifest.join("target"));
    let bin = target.join("release").join("deepterm");
    if !bin.is_file() {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "--release", "--bin", "deepterm"])
            .current_dir(&manifest)
            .status()
            .expect("run cargo build --release");
        assert!(status.success(), "cargo build --release failed");
    }
    assert!(bin.is_file(), "no release binary at {}", bin.display());
    bin
}

/// The only `.jsonl` file in `dir`, if any (none when the kill came before its creation).
fn session_file(dir: &Path) -> Option<PathBuf> {
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    assert!(files.len() <= 1, "one session per run: {files:?}");
    files.into_iter().next()
}

/// The events on complete (newline-terminated) lines of the log.
fn complete_events(path: &Path) -> Vec<Value> {
    let bytes = std::fs::read(path).unwrap();
    let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    String::from_utf8_lossy(&bytes[..end])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l:?}: {e}")))
        .collect()
}

fn message_text(ev: &Value) -> String {
    ev["data"]["message"]["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("")
        })
        .unwrap_or_default()
}

/// Asserts that the answer quoting `marker` and its `turn/end` are in `events`.
fn assert_turn_durable(events: &[Value], marker: &str, context: &str) {
    let quoted = format!("> {marker}\n");
    let (idx, turn) = events
        .iter()
        .enumerate()
        .find(|(_, e)| e["type"] == "assistant/message" && message_text(e).contains(&quoted))
        .map(|(i, e)| (i, e["data"]["turn"].clone()))
        .unwrap_or_else(|| panic!("{context}: acknowledged answer for {marker} not in the log"));
    assert!(
        events[idx..]
            .iter()
            .any(|e| e["type"] == "turn/end" && e["data"]["turn"] == turn),
        "{context}: turn/end of the acknowledged turn {marker} not in the log"
    );
}

fn exec_command(bin: &Path, home: &Path, config: &Path, script: &Path, dir: &Path) -> Command {
    let mut cmd = Command::new(bin);
    cmd.arg("exec")
        .arg("--script")
        .arg(script)
        .arg("--config")
        .arg(config)
        .arg("--session-dir")
        .arg(dir)
        .arg("--locale")
        .arg("en-US")
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", home)
        .stdin(Stdio::null());
    cmd
}

/// What one iteration saw: whether the run was killed before it finished, and how many
/// of its turns it had acknowledged.
struct Kill {
    mid_run: bool,
    acked: usize,
}

/// One iteration: a fresh simulator (its request record stays small), a run killed after
/// `delay`, every turn it acknowledged checked in the log, then the log resumed for one
/// more turn.
fn kill_once(
    bin: &Path,
    home: &Path,
    rt: &tokio::runtime::Runtime,
    i: usize,
    delay: Duration,
    seed: u64,
) -> Kill {
    let context = format!("iteration {i} (DEEPTERM_KILL_SEED={seed})");
    let sim = rt
        .block_on(deepterm::sim::start(SimConfig::default()))
        .unwrap();
    let config = home.join(format!("config-{i}.toml"));
    std::fs::write(&config, routes_config(&sim.base_url(), "")).unwrap();
    let dir = home.join(format!("sessions-{i}"));
    let script = home.join(format!("script-{i}.txt"));
    let markers: Vec<String> = (0..TURNS).map(|n| format!("kill-{i}-{n:04}")).collect();
    std::fs::write(&script, markers.join("\n") + "\n").unwrap();

    let mut child = exec_command(bin, home, &config, &script, &dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out);
        out
    });
    std::thread::sleep(delay);
    // `Child::kill` sends SIGKILL on Unix.
    let _ = child.kill();
    let status = child.wait().unwrap();
    let printed = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
    let acked: Vec<&String> = markers
        .iter()
        .filter(|m| printed.contains(&format!("> {m}\n")))
        .collect();
    let kill = Kill {
        mid_run: !status.success(),
        acked: acked.len(),
    };

    let Some(log) = session_file(&dir) else {
        assert!(acked.is_empty(), "{context}: answers printed but no log");
        return kill;
    };
    let events = complete_events(&log);
    for m in &acked {
        assert_turn_durable(&events, m, &context);
    }

    // The log resumes and takes one more turn.
    let id = log.file_stem().unwrap().to_str().unwrap().to_string();
    let more = home.join(format!("more-{i}.txt"));
    let after = format!("after-kill-{i}");
    std::fs::write(&more, format!("{after}\n")).unwrap();
    let out = exec_command(bin, home, &config, &more, &dir)
        .arg("--resume")
        .arg(&id)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{context}: resume failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!("> {after}\n")),
        "{context}: resumed run did not answer"
    );
    let events = complete_events(&log);
    for m in acked.iter().map(|m| m.as_str()).chain([after.as_str()]) {
        assert_turn_durable(&events, m, &context);
    }
    kill
}

/// Iterations running at once: each mostly waits (for its kill, then for the resumed
/// run), so a few overlap without starving each other on two cores.
const AT_ONCE: usize = 4;

#[test]
fn kill_exec_at_random_moments_loses_no_acknowledged_turn_and_resumes() {
    let bin = release_binary();
    let iterations: usize = std::env::var("DEEPTERM_KILL_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let seed: u64 = std::env::var("DEEPTERM_KILL_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    println!("kill test: {iterations} iterations, DEEPTERM_KILL_SEED={seed}");
    // Every kill moment is drawn up front, so a seed names the same moments however the
    // iterations interleave.
    let mut rng = fastrand::Rng::with_seed(seed);
    let delays: Vec<(usize, Duration)> = (0..iterations)
        .map(|i| (i, Duration::from_millis(rng.u64(0..600))))
        .collect();

    // The simulators run on the runtime's worker threads while the iterations' threads
    // drive processes.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let kills = std::sync::Mutex::new(Vec::new());
    common::concurrent::each_on_threads(AT_ONCE, &delays, |&(i, delay)| {
        let kill = kill_once(&bin, home, &rt, i, delay, seed);
        kills.lock().unwrap().push(kill);
    });
    let kills = kills.into_inner().unwrap();
    let killed_mid_run = kills.iter().filter(|k| k.mid_run).count();
    let total_acked: usize = kills.iter().map(|k| k.acked).sum();
    println!(
        "kill test: {killed_mid_run} runs killed mid-way, {total_acked} acknowledged turns checked"
    );
    assert!(
        iterations < 10 || killed_mid_run * 2 >= iterations,
        "most runs must be killed before they finish ({killed_mid_run} of {iterations}); \
         raise TURNS"
    );
}
