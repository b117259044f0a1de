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

use deepterm::agent::env_error::EnvError;
use deepterm::agent::protocol::AgentEvent;
use deepterm::session::Session;
use deepterm::session::event::{EventKind, Message, Role, Source, UserMessageData};
use deepterm::sim::SimConfig;

use crate::common;

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
        // An Escape and the keys after it in one read are Alt+key (the terminal's own
        // convention): wait until the search has closed before typing anything else.
        tmux.wait_for("the search closed", |s| !s.contains("(reverse-i-search)"));
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

/// The `/resume` picker's list comes through the real environment, past every hostile
/// entry, while the loop stays responsive.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_resume_picker_lists_the_good_session_past_hostile_entries() {
    let env = TestEnv::new(SimConfig::default()).await;
    hostile_sessions(&env.sessions());
    gigabyte_of_zeros(&env.sessions().join("20270101-000000-9b9b9b9b.jsonl"));
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""));
    let mut agent = env.start_interactive(cfg);
    agent.submit("/resume");
    // The list comes in batches; the last one is done.
    let mut sessions = Vec::new();
    loop {
        if let AgentEvent::Sessions {
            sessions: batch,
            done,
            ..
        } = agent.next_event().await
        {
            sessions.extend(batch);
            if done {
                break;
            }
        }
    }
    let ids: Vec<&str> = sessions.iter().map(|s| s.id.as_str()).collect();
    assert!(ids.contains(&GOOD_ID), "{ids:?}");
    for hostile in ["f1f0f1f0", "2e202e20", "d1d1d1d1"] {
        assert!(!ids.iter().any(|i| i.contains(hostile)), "{ids:?}");
    }
    let good = sessions.iter().find(|s| s.id == GOOD_ID).unwrap();
    assert_eq!(good.first_prompt.as_deref(), Some(GOOD_PROMPT));
    assert_eq!(good.messages, 1);
    agent.shutdown().await;
}

/// An environment whose `/resume` list takes until the test releases it.
struct SlowListing {
    release: std::sync::Arc<std::sync::Mutex<Option<std::sync::mpsc::Receiver<()>>>>,
}

impl deepterm::agent::run::Environment for SlowListing {
    fn resolve_route(
        &self,
        _spec: &str,
    ) -> Result<
        (
            deepterm::llm::types::Route,
            Option<deepterm::config::ApiKey>,
        ),
        EnvError,
    > {
        Err(EnvError::Unsupported)
    }
    fn save_locale(&self, _locale: deepterm::i18n::Locale) -> Result<(), EnvError> {
        Err(EnvError::Unsupported)
    }
    fn base_prompt(&self) -> String {
        "test".into()
    }
    fn new_session(&self) -> Result<(Session, PathBuf), EnvError> {
        Err(EnvError::Unsupported)
    }
    fn open_session(
        &self,
        _query: &str,
        _current_id: &str,
    ) -> Result<(Session, PathBuf, Option<deepterm::session::store::TornTail>), EnvError> {
        Err(EnvError::Unsupported)
    }
    fn list_sessions(&self, _current_id: &str) -> Vec<String> {
        vec![]
    }
    fn session_summaries(&self) -> deepterm::agent::run::SummaryJob {
        let release = self.release.lock().unwrap().take();
        Box::new(move |sink| {
            if let Some(r) = release {
                let _ = r.recv_timeout(std::time::Duration::from_secs(30));
            }
            let _ = sink(vec![deepterm::agent::protocol::SessionSummary {
                id: "listed".into(),
                modified: 0,
                first_prompt: None,
                messages: 1,
                bytes: 1,
                workspace: None,
                forked_from: None,
                messages_partial: false,
            }]);
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_loop_answers_other_commands_while_the_picker_list_is_read() {
    let config = deepterm::config::Config::parse(
        &ConfigBuilder::with_provider("sim", "deepseek-messages", "http://127.0.0.1:9/anthropic")
            .key_env("UNUSED_KEY_VAR")
            .text(),
        None,
    )
    .unwrap();
    let (release_tx, release_rx) = std::sync::mpsc::channel();
    let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let agent = deepterm::agent::run::Agent::builder(
        Session::new("slow", "/tmp"),
        config.resolve_route(None).unwrap(),
        Box::new(SlowListing {
            release: std::sync::Arc::new(std::sync::Mutex::new(Some(release_rx))),
        }),
        deepterm::i18n::Localizer::new(deepterm::i18n::Locale::EnUs),
        tx,
    )
    .key(Some(deepterm::config::ApiKey::new("sk-unused")))
    .tools(deepterm::tools::ToolRegistry::new())
    .approval(deepterm::agent::run::ApprovalMode::Interactive)
    .build()
    .unwrap();
    let (commands, cmd_rx) = tokio::sync::mpsc::unbounded_channel();
    let task = tokio::spawn(agent.run_interactive(cmd_rx));
    let submit = |line: &str| {
        commands
            .send(deepterm::agent::protocol::AgentCommand::Submit(line.into()))
            .unwrap()
    };
    let next = async |events: &mut tokio::sync::mpsc::UnboundedReceiver<AgentEvent>| {
        tokio::time::timeout(std::time::Duration::from_secs(20), events.recv())
            .await
            .expect("an event within 20 s")
            .expect("the loop runs")
    };
    submit("/resume");
    submit("/help");
    // The help arrives while the list is still being read.
    loop {
        match next(&mut events).await {
            AgentEvent::Output(_) => break,
            AgentEvent::Sessions { .. } => panic!("the list came before it was released"),
            _ => {}
        }
    }
    release_tx.send(()).unwrap();
    loop {
        if let AgentEvent::Sessions {
            current, sessions, ..
        } = next(&mut events).await
        {
            assert_eq!(current, "slow");
            assert_eq!(sessions[0].id, "listed");
            break;
        }
    }
    commands
        .send(deepterm::agent::protocol::AgentCommand::Shutdown)
        .unwrap();
    task.await.unwrap();
}

/// The line the normal screen shows after the TUI closes names the session by its id, a
/// file name from the session directory: its control characters are escaped.
#[test]
fn the_resume_hint_escapes_a_hostile_session_id() {
    let mut app = deepterm::ui::app::App::new(deepterm::i18n::Locale::EnUs, false);
    app.on_agent_event(AgentEvent::SessionOpened {
        id: "\u{1b}]0;pwned\u{7}\u{9b}2J".into(),
        path: String::new(),
        // A session with a message: one without has no hint at all.
        history: vec![std::sync::Arc::new(deepterm::session::event::Event {
            kind: EventKind::UserMessage(UserMessageData {
                message: Message::text(Role::User, "hi", Source::kind("user")),
            }),
            seq: 1,
            time: "2026-12-01T00:00:00Z".into(),
            surface_op: None,
            source_event_seqs: None,
        })],
    });
    let hint = app.resume_hint().unwrap();
    assert!(hint.contains(r"\x1B]0;pwned\x07\x9B2J"), "{hint}");
    assert!(!hint.chars().any(char::is_control), "{hint:?}");
}
