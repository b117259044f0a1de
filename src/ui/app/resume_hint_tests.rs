//! The `Resume with:` line printed after the TUI closes works when pasted back: it repeats
//! `--session-dir` and `--config`, shell-quoted.

use super::resume_command;

fn args(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn the_hint_alone_names_the_session() {
    assert_eq!(
        resume_command("20261201-120000-ab12", &[]),
        "deepterm --resume 20261201-120000-ab12"
    );
}

#[test]
fn the_hint_repeats_the_session_dir_and_config_it_needs() {
    let cmd = resume_command(
        "s1",
        &args(&[
            "--session-dir",
            "/tmp/my sessions",
            "--config",
            "/etc/it's.toml",
        ]),
    );
    assert_eq!(
        cmd,
        r#"deepterm --resume s1 --session-dir '/tmp/my sessions' --config "/etc/it's.toml""#
    );
    // Pasted into a shell, it splits back into exactly those words.
    assert_eq!(
        shlex::split(&cmd).unwrap(),
        args(&[
            "deepterm",
            "--resume",
            "s1",
            "--session-dir",
            "/tmp/my sessions",
            "--config",
            "/etc/it's.toml"
        ])
    );
}

#[test]
fn control_characters_in_a_path_are_escaped_not_printed() {
    let cmd = resume_command("s1", &args(&["--session-dir", "/tmp/\x1b[2Jx"]));
    assert!(!cmd.contains('\x1b'), "{cmd:?}");
}

fn user_message() -> std::sync::Arc<crate::session::event::Event> {
    use crate::session::event::{Event, EventKind, Message, Role, Source, UserMessageData};
    std::sync::Arc::new(Event {
        kind: EventKind::UserMessage(UserMessageData {
            message: Message::text(Role::User, "hi", Source::kind("user")),
        }),
        seq: 1,
        time: "2026-12-01T00:00:00Z".into(),
        surface_op: None,
        source_event_seqs: None,
    })
}

fn opened(app: &mut super::App) {
    app.on_agent_event(crate::agent::protocol::AgentEvent::SessionOpened {
        id: "s1".into(),
        path: String::new(),
        history: Default::default(),
    });
}

#[test]
fn no_hint_for_a_session_without_messages() {
    let mut app = super::App::new(crate::i18n::Locale::EnUs, false);
    opened(&mut app);
    assert_eq!(app.resume_hint(), None);
    app.on_agent_event(crate::agent::protocol::AgentEvent::Committed(user_message()));
    assert!(app.resume_hint().is_some());
    // `/new`: the new session has nothing yet.
    opened(&mut app);
    assert_eq!(app.resume_hint(), None);
    // `/resume` of a session with messages.
    app.on_agent_event(crate::agent::protocol::AgentEvent::SessionOpened {
        id: "s2".into(),
        path: String::new(),
        history: vec![user_message()],
    });
    assert!(app.resume_hint().unwrap().contains("--resume s2"));
}

#[test]
fn the_hint_is_localized_around_the_command() {
    let mut app = super::App::new(crate::i18n::Locale::ZhCn, false);
    opened(&mut app);
    app.on_agent_event(crate::agent::protocol::AgentEvent::Committed(user_message()));
    app.set_resume_args(args(&["--config", "/a b.toml"]));
    assert_eq!(
        app.resume_hint().as_deref(),
        Some("继续此会话：deepterm --resume s1 --config '/a b.toml'")
    );
}
