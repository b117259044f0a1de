//! The cross-session message history and the `/resume` listing on large or damaged
//! session directories (decision 0101): the index stays within its bounds, the newest
//! entries are whole and older ones cut, a corrupt log does not stop the reader, and
//! Ctrl+R and the picker say they are still reading, then show what was read.

use std::path::Path;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use deepterm::agent::protocol::{AgentEvent, SessionSummary};
use deepterm::i18n::Locale;
use deepterm::session::Session;
use deepterm::session::event::{EventKind, Message, Role, Source, UserMessageData};
use deepterm::ui::App;
use deepterm::ui::history::{BOUNDS, Bounds, HistoryBatch, load_within};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn write_log(dir: &Path, id: &str, texts: &[String]) {
    let mut s = Session::new(id, "/tmp");
    for t in texts {
        s.push(EventKind::UserMessage(UserMessageData {
            message: Message::text(Role::User, t.as_str(), Source::kind("user")),
        }))
        .unwrap();
    }
    let body: String = s
        .events()
        .iter()
        .map(|e| serde_json::to_string(&**e).unwrap() + "\n")
        .collect();
    std::fs::write(dir.join(format!("{id}.jsonl")), body).unwrap();
}

/// `sessions` logs of `per` distinct prompts of about `len` bytes, oldest first (ids and
/// modification times in order).
fn directory(sessions: usize, per: usize, len: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for s in 0..sessions {
        let texts: Vec<String> = (0..per)
            .map(|i| format!("{s}/{i} {}", "p".repeat(len)))
            .collect();
        let id = format!("20260101-{s:06}-aaaaaaaa");
        write_log(dir.path(), &id, &texts);
        let t = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + s as u64);
        std::fs::File::options()
            .append(true)
            .open(dir.path().join(format!("{id}.jsonl")))
            .unwrap()
            .set_modified(t)
            .unwrap();
    }
    dir
}

#[test]
fn the_history_index_stays_within_its_entry_and_byte_bounds() {
    // 40 sessions of 50 prompts: 2,000 entries, about 420 KB.
    let dir = directory(40, 50, 200);
    let by_entries = Bounds {
        entries: 300,
        ..BOUNDS
    };
    let h = load_within(dir.path(), by_entries);
    assert_eq!(h.len(), 300);
    assert!(h[0].starts_with("39/49 "), "newest first: {}", h[0]);

    let by_bytes = Bounds {
        bytes: 50_000,
        ..BOUNDS
    };
    let h = load_within(dir.path(), by_bytes);
    let total: usize = h.iter().map(String::len).sum();
    assert!(total <= 50_000, "{total} bytes kept");
    assert!(total > 40_000, "the budget is used: {total}");
}

#[test]
fn recent_entries_are_kept_in_full_and_older_ones_cut() {
    let dir = directory(3, 10, 300);
    let b = Bounds {
        full_entries: 12,
        cut_bytes: 40,
        ..BOUNDS
    };
    let h = load_within(dir.path(), b);
    assert_eq!(h.len(), 30);
    let full = |s: usize, i: usize| format!("{s}/{i} {}", "p".repeat(300));
    // The newest session, then the two newest prompts of the next one, whole.
    assert_eq!(h[0], full(2, 9));
    assert_eq!(h[11], full(1, 8));
    for (e, (s, i)) in h[12..].iter().zip([(1, 7), (1, 6)]) {
        assert!(e.len() <= 40, "{e}");
        assert!(e.ends_with('…'), "{e}");
        assert!(full(s, i).starts_with(e.trim_end_matches('…')), "{e}");
    }
    assert!(h[29].starts_with("0/0 p") && h[29].len() <= 40, "{}", h[29]);
}

#[test]
fn a_corrupt_log_among_others_does_not_stop_the_reader() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_log(d, "20260101-000000-aaaaaaaa", &["the oldest prompt".into()]);
    // Random bytes, a torn line, one line longer than any read, a FIFO, an endless
    // symlink and a directory, all named like logs.
    let garbage: Vec<u8> = (0u32..200_000)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(d.join("20260102-000000-bbbbbbbb.jsonl"), garbage).unwrap();
    std::fs::write(
        d.join("20260103-000000-cccccccc.jsonl"),
        r#"{"type":"user/message","seq":1,"data":{"mess"#,
    )
    .unwrap();
    std::fs::write(
        d.join("20260104-000000-dddddddd.jsonl"),
        vec![b'{'; 3 << 20],
    )
    .unwrap();
    let fifo = d.join("20260105-000000-eeeeeeee.jsonl");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    std::os::unix::fs::symlink("/dev/zero", d.join("20260106-000000-ffffffff.jsonl")).unwrap();
    std::fs::create_dir(d.join("20260107-000000-99999999.jsonl")).unwrap();
    std::thread::sleep(Duration::from_millis(20));
    write_log(d, "20260108-000000-11111111", &["the newest prompt".into()]);

    let (tx, rx) = std::sync::mpsc::channel();
    let path = d.to_path_buf();
    std::thread::spawn(move || tx.send(load_within(&path, BOUNDS)));
    let h = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("the history is read within 10 s");
    assert_eq!(h, ["the newest prompt", "the oldest prompt"]);
}

fn screen(app: &mut App) -> String {
    // The event loop hands `App` what arrived on its channel before it draws.
    app.take_events();
    let mut term = Terminal::new(TestBackend::new(100, 24)).unwrap();
    term.draw(|f| app.render(f)).unwrap();
    deepterm::ui::snapshot::symbols(term.backend().buffer())
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

#[test]
fn ctrl_r_says_the_history_is_still_read_then_shows_the_entries() {
    for (locale, reading) in [
        (Locale::EnUs, "reading history… (3 sessions so far)"),
        (Locale::ZhCn, "正在读取历史…（已读 3 个会话）"),
    ] {
        let mut app = App::new(locale, false);
        let mut reader = app.history_sink();
        app.on_key(ctrl('r'));
        for c in "deploy".chars() {
            app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
        }
        assert!(reader(HistoryBatch {
            older: vec!["write the docs".into()],
            sessions: 3,
            done: false,
        }));
        let s = screen(&mut app);
        assert!(s.contains(reading), "{s}");
        // Nothing matches yet, but the reading is not over: no failed search.
        assert!(!s.contains("failing") && !s.contains("无结果"), "{s}");
        assert_eq!(app.history_reading(), Some(3));

        assert!(reader(HistoryBatch {
            older: vec!["deploy the api to staging".into()],
            sessions: 9,
            done: true,
        }));
        let s = screen(&mut app);
        assert!(s.contains("deploy the api to staging"), "{s}");
        assert!(!s.contains(reading), "{s}");
        assert_eq!(app.history_reading(), None);
    }
}

fn summary(id: &str, modified: i64, prompt: &str) -> SessionSummary {
    SessionSummary {
        id: id.into(),
        modified,
        first_prompt: Some(prompt.into()),
        messages: 2,
        bytes: 100,
        workspace: None,
        forked_from: None,
        messages_partial: false,
    }
}

#[test]
fn the_resume_picker_fills_in_while_the_listing_is_read() {
    let mut app = App::new(Locale::EnUs, false);
    let batch = |sessions, done| AgentEvent::Sessions {
        listing: 1,
        current: "now".into(),
        sessions,
        done,
    };
    app.on_agent_event(batch(vec![summary("a", 200, "newer prompt")], false));
    let s = screen(&mut app);
    assert!(s.contains("newer prompt"), "{s}");
    assert!(s.contains("reading history… (1 session so far)"), "{s}");

    app.on_agent_event(batch(vec![summary("b", 100, "older prompt")], false));
    app.on_agent_event(batch(vec![], true));
    let s = screen(&mut app);
    assert!(
        s.contains("newer prompt") && s.contains("older prompt"),
        "{s}"
    );
    assert!(!s.contains("reading history"), "{s}");

    // Closed while still reading: the rest of that listing does not open it again.
    app.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    app.on_agent_event(batch(vec![summary("c", 300, "first")], false));
    app.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    assert!(app.resume_picker().is_none());
    app.on_agent_event(batch(vec![summary("d", 50, "late")], true));
    assert!(app.resume_picker().is_none());
}

/// Two `/resume`s in a row: the second listing replaces the first, whose late batches
/// (and its end) are dropped, so each session shows once and "still reading" lasts until
/// the listing shown is done.
#[test]
fn a_second_resume_shows_its_own_listing_without_the_first_one_s_batches() {
    let mut app = App::new(Locale::EnUs, false);
    app.on_agent_event(sessions_batch(
        1,
        vec![summary("a", 300, "alpha prompt")],
        false,
    ));
    // The second listing starts over from the newest session.
    app.on_agent_event(sessions_batch(
        2,
        vec![
            summary("a", 300, "alpha prompt"),
            summary("b", 200, "bravo prompt"),
        ],
        false,
    ));
    // The first listing's reader had one more batch on its way, then its end.
    app.on_agent_event(sessions_batch(
        1,
        vec![summary("b", 200, "bravo prompt")],
        false,
    ));
    app.on_agent_event(sessions_batch(1, vec![], true));
    let p = app.resume_picker().expect("the picker stays open");
    let ids: Vec<&str> = p.visible().iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["a", "b"], "each session once");
    assert_eq!(
        p.reading_count(),
        Some(2),
        "the second listing is still read"
    );
    let s = screen(&mut app);
    assert!(s.contains("reading history… (2 sessions so far)"), "{s}");

    app.on_agent_event(sessions_batch(
        2,
        vec![summary("c", 100, "charlie prompt")],
        false,
    ));
    app.on_agent_event(sessions_batch(2, vec![], true));
    let p = app.resume_picker().expect("the picker stays open");
    let ids: Vec<&str> = p.visible().iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c"]);
    assert_eq!(p.reading_count(), None);
}

/// Closed while its listing is still read, then `/resume` again: the new listing opens the
/// picker with its first batch, and the old one's end does not cut it short.
#[test]
fn resume_again_after_closing_a_picker_still_reading_opens_the_new_listing() {
    let mut app = App::new(Locale::EnUs, false);
    app.on_agent_event(sessions_batch(
        1,
        vec![summary("a", 300, "alpha prompt")],
        false,
    ));
    app.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    assert!(app.resume_picker().is_none());
    app.on_agent_event(sessions_batch(
        2,
        vec![summary("a", 300, "alpha prompt")],
        false,
    ));
    app.on_agent_event(sessions_batch(1, vec![], true));
    app.on_agent_event(sessions_batch(
        2,
        vec![summary("b", 200, "bravo prompt")],
        false,
    ));
    let p = app.resume_picker().expect("the second listing opened it");
    let ids: Vec<&str> = p.visible().iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["a", "b"]);
    assert_eq!(p.reading_count(), Some(2));
}

/// Closing a picker whose listing is still read asks the loop to stop reading it; closing
/// one whose listing is complete asks nothing.
#[test]
fn closing_a_picker_still_reading_stops_its_listing() {
    let mut app = App::new(Locale::EnUs, false);
    app.on_agent_event(sessions_batch(
        4,
        vec![summary("a", 300, "alpha prompt")],
        false,
    ));
    app.take_commands();
    app.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    assert!(app.resume_picker().is_none());
    assert_eq!(
        app.take_commands(),
        [deepterm::agent::protocol::AgentCommand::StopListing { listing: 4 }]
    );
    app.on_agent_event(sessions_batch(
        5,
        vec![summary("a", 300, "alpha prompt")],
        true,
    ));
    app.take_commands();
    app.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    assert!(app.resume_picker().is_none());
    assert!(
        app.take_commands().is_empty(),
        "a complete listing has nothing to stop"
    );
}

/// One batch of `/resume` listing `listing`, listed from the session "now".
fn sessions_batch(listing: u64, sessions: Vec<SessionSummary>, done: bool) -> AgentEvent {
    AgentEvent::Sessions {
        listing,
        current: "now".into(),
        sessions,
        done,
    }
}
