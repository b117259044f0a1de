//! A session directory holding entries that are no logs, or huge ones
//! (docs/decisions/0034-hostile-session-directory.md): a FIFO, a symlink to `/dev/zero`, a
//! directory, a 1 GB file of zeros without a newline and a 256 MiB log of valid user
//! messages, next to one good session.
//!
//! - The TUI draws its first frame, stays within 200 MB of memory while its history loader
//!   and the `/resume` picker read the directory, lists the good session in the picker,
//!   finds its prompt with Ctrl+R, and restores the terminal on `/quit`.
//! - `exec --resume last` resumes the good session when the hostile entries are newer, and
//!   stops with a clear error when the newest log is the 1 GB file.

use std::io::Write;
use std::path::{Path, PathBuf};

use deepterm::session::Session;
use deepterm::session::event::{EventKind, Message, Role, Source, UserMessageData};
use deepterm::sim::SimConfig;

mod common;

use common::tmux::Tmux;
use common::*;

const GOOD_ID: &str = "20260101-000000-a0a0a0a0";
const GOOD_PROMPT: &str = "Alpha apples orchard";

fn user(text: &str) -> EventKind {
    EventKind::UserMessage(UserMessageData {
        message: Message::text(Role::User, text, Source::kind("user")),
    })
}

/// Writes a valid log of `id` with these user messages.
fn write_session(dir: &Path, id: &str, texts: &[&str]) -> PathBuf {
    let mut s = Session::new(id, "/tmp");
    for t in texts {
        s.push(user(t)).unwrap();
    }
    let body: String = s
        .events()
        .iter()
        .map(|e| serde_json::to_string(&**e).unwrap() + "\n")
        .collect();
    let path = dir.join(format!("{id}.jsonl"));
    std::fs::write(&path, body).unwrap();
    path
}

/// Sets a file's modification time `secs` seconds from now (negative: in the past).
fn touch(path: &Path, secs: i64) {
    let now = std::time::SystemTime::now();
    let t = if secs >= 0 {
        now + std::time::Duration::from_secs(secs as u64)
    } else {
        now - std::time::Duration::from_secs(secs.unsigned_abs())
    };
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}

/// One gigabyte of zeros without a newline (sparse: no disk is used).
fn gigabyte_of_zeros(path: &Path) {
    std::fs::File::create(path)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
}

/// A log of 4,096 user messages of 64 KiB each (256 MiB), unlike each other.
fn many_big_messages(path: &Path) {
    let mut s = Session::new("20260102-000000-b1b1b1b1", "/tmp");
    s.push(user("x")).unwrap();
    let start = serde_json::to_string(&*s.events()[0]).unwrap();
    let template = serde_json::to_string(&*s.events()[1]).unwrap();
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(f, "{start}").unwrap();
    let pad = "p".repeat(64 * 1024);
    for i in 0..4096u32 {
        let line = template
            .replace("\"seq\":1", &format!("\"seq\":{}", i + 1))
            .replace("\"text\":\"x\"", &format!("\"text\":\"big {i} {pad}\""));
        writeln!(f, "{line}").unwrap();
    }
    f.flush().unwrap();
}

/// The session directory: the good session (oldest), then every hostile entry.
fn hostile_sessions(sessions: &Path) -> PathBuf {
    std::fs::create_dir_all(sessions).unwrap();
    let good = write_session(sessions, GOOD_ID, &[GOOD_PROMPT]);
    touch(&good, -3600);
    mkfifo(&sessions.join("20270101-000000-f1f0f1f0.jsonl"));
    std::os::unix::fs::symlink("/dev/zero", sessions.join("20270101-000000-2e202e20.jsonl"))
        .unwrap();
    std::fs::create_dir(sessions.join("20270101-000000-d1d1d1d1.jsonl")).unwrap();
    good
}

/// The pid of the one child of the tmux pane's shell (`env` execs deepterm in place).
fn deepterm_pid(tmux: &Tmux) -> u32 {
    let pane = stdout(&tmux.run(&["display-message", "-p", "-t", "t", "#{pane_pid}"]));
    let pane = pane.trim();
    let children =
        std::fs::read_to_string(format!("/proc/{pane}/task/{pane}/children")).unwrap_or_default();
    let pid: u32 = children
        .split_whitespace()
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no child of the pane's shell {pane}"));
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    assert_eq!(comm.trim(), "deepterm", "pid {pid}");
    pid
}

/// A `VmHWM`-style line of `/proc/PID/status`, in kB.
fn status_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("{field} in {status}"))
}

fn pane_flag(tmux: &Tmux, flag: &str) -> String {
    stdout(&tmux.run(&["display-message", "-p", "-t", "t", flag]))
        .trim()
        .to_string()
}

#[test]
fn the_tui_survives_a_hostile_session_directory_within_bounded_memory() {
    if !require_external("tmux", tmux_available()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    hostile_sessions(&sessions);
    gigabyte_of_zeros(&sessions.join("20270101-000000-9b9b9b9b.jsonl"));
    many_big_messages(&sessions.join("20260102-000000-b1b1b1b1.jsonl"));
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "").unwrap();
    let cmd = format!(
        "env -u DEEPSEEK_API_KEY HOME={home} XDG_CONFIG_HOME={home}/c XDG_DATA_HOME={home}/d \
         {bin} --demo --session-dir {sessions} --config {config} --locale en-US; echo EXITED; sleep 60",
        home = shell_quote(dir.path()),
        bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        sessions = shell_quote(&sessions),
        config = shell_quote(&config),
    );
    let tmux = Tmux::start("hostile-dir", 100, 30, &cmd);
    tmux.wait_for("the first frame", |s| s.contains("? for keys"));
    let pid = deepterm_pid(&tmux);
    assert_eq!(pane_flag(&tmux, "#{alternate_on}"), "1", "the TUI runs");
    // The picker opens and lists the good session (and the big one, which has messages).
    tmux.type_line("/resume");
    let screen = tmux.wait_for("the picker with the good session", |s| {
        s.contains("Resume a session") && s.contains(GOOD_PROMPT)
    });
    assert!(!screen.contains("f1f0f1f0"), "no FIFO listed: {screen}");
    tmux.key("Escape");
    tmux.wait_for("the picker closed", |s| !s.contains("Resume a session"));
    // Ctrl+R finds the good prompt once the history loader has read the whole directory.
    let deadline = std::time::Instant::now() + common::tmux::TIMEOUT;
    loop {
        tmux.key("C-r");
        tmux.run(&["send-keys", "-t", "t", "-l", "alpha apples"]);
        std::thread::sleep(std::time::Duration::from_millis(300));
        let s = tmux.capture();
        tmux.key("Escape");
        if s.contains("(reverse-i-search) `alpha apples`:") && s.contains(GOOD_PROMPT) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the history never found the prompt:\n{s}"
        );
    }
    // Everything was read; the peak stayed far below the 1.25 GiB of logs.
    let peak_kb = status_kb(pid, "VmHWM:");
    eprintln!("peak memory of the TUI: {peak_kb} kB");
    assert!(peak_kb < 200 * 1024, "peak memory {peak_kb} kB");
    tmux.type_line("/quit");
    tmux.wait_for("exit", |s| s.contains("EXITED"));
    assert_eq!(
        pane_flag(&tmux, "#{alternate_on}"),
        "0",
        "normal screen back"
    );
    assert_eq!(pane_flag(&tmux, "#{mouse_any_flag}"), "0", "mouse released");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_resume_last_skips_entries_that_are_no_logs() {
    let env = TestEnv::new(SimConfig::default()).await;
    let good = hostile_sessions(&env.sessions());
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""));
    let out = env.exec(&cfg, "Hello again\n", &["--resume", "last"]).await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains(GOOD_ID), "resumed the good session: {err}");
    let log = std::fs::read_to_string(&good).unwrap();
    assert!(log.contains("Hello again"), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_resume_last_of_a_gigabyte_without_newlines_fails_clearly() {
    let env = TestEnv::new(SimConfig::default()).await;
    hostile_sessions(&env.sessions());
    let zeros = env.sessions().join("20270102-000000-9b9b9b9b.jsonl");
    gigabyte_of_zeros(&zeros);
    touch(&zeros, 60);
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""));
    let out = env.exec(&cfg, "Hello again\n", &["--resume", "last"]).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("is damaged at line 1"), "{err}");
    assert!(err.contains("not a deepterm session log"), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert_eq!(std::fs::metadata(&zeros).unwrap().len(), 1 << 30, "kept");
    assert!(env.requests().is_empty(), "nothing was sent");
}
