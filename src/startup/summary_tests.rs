//! The `/resume` picker's session summaries and the instruction-file warnings.

use super::*;
use crate::session::event::{
    AssistantMessageData, Event, EventKind, Message, Role, Source, UserMessageData,
};

fn line(seq: u64, kind: EventKind) -> String {
    let e = Event {
        kind,
        seq,
        time: "2026-12-01T00:00:00Z".into(),
        surface_op: None,
        source_event_seqs: None,
    };
    serde_json::to_string(&e).unwrap() + "\n"
}

fn summary_of_path(s: SessionInfo) -> SessionSummary {
    let sum = listing::summarize_log(&s.path);
    summary_of((s, sum))
}

fn user(text: &str) -> EventKind {
    EventKind::UserMessage(UserMessageData {
        message: Message::text(Role::User, text, Source::kind("user")),
    })
}

#[test]
fn session_summary_counts_messages_and_keeps_the_first_prompt_and_size() {
    let dir = tempfile::tempdir().unwrap();
    let start = crate::session::Session::new("s1", "/tmp").events()[0].clone();
    let mut log = serde_json::to_string(&*start).unwrap() + "\n";
    log += &line(1, user("  Explain\nthe   borrow checker  "));
    log += &line(
        2,
        EventKind::AssistantMessage(AssistantMessageData {
            turn: 1,
            step: 1,
            message: Message::text(Role::Assistant, "It checks borrows.", Source::kind("model")),
            usage: None,
            timing: None,
            interrupted: None,
        }),
    );
    // A message quoting a type tag is still one message (the quotes are escaped).
    log += &line(3, user(r#"what is "type":"user/message"?"#));
    std::fs::write(dir.path().join("s1.jsonl"), &log).unwrap();
    let infos = listing::list_sessions(dir.path()).unwrap();
    let s = summary_of_path(infos.into_iter().next().unwrap());
    assert_eq!(s.id, "s1");
    assert_eq!(
        s.first_prompt.as_deref(),
        Some("Explain the borrow checker")
    );
    assert_eq!(s.messages, 3);
    assert_eq!(s.bytes, log.len() as u64);
    assert!(s.modified > 1_700_000_000);
}

#[test]
fn session_summary_of_a_log_without_messages_has_no_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let start = crate::session::Session::new("e", "/tmp").events()[0].clone();
    std::fs::write(
        dir.path().join("e.jsonl"),
        serde_json::to_string(&*start).unwrap() + "\n",
    )
    .unwrap();
    let s = summary_of_path(listing::list_sessions(dir.path()).unwrap().remove(0));
    assert_eq!((s.first_prompt, s.messages), (None, 0));
}

#[cfg(unix)]
#[test]
fn a_refused_instruction_file_is_warned_about_once_per_change_not_per_request() {
    let ws = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", ws.path().join("AGENTS.md")).unwrap();
    let config =
        Config::parse_in("[instructions]\nfiles = [\"AGENTS.md\"]", None, ws.path()).unwrap();
    let env = AppEnvironment {
        config,
        config_location: None,
        session_dir: ws.path().join("sessions"),
        base_url_override: None,
        demo_base: None,
        demo_locale: Default::default(),
        summaries: std::sync::Arc::default(),
        sandbox_start: (crate::sandbox::SandboxMode::ReadOnly, false),
        instruction_problems: Default::default(),
        workspace: ws.path().to_path_buf(),
        trusted: true,
    };
    let prompt = env.base_prompt();
    assert!(prompt.starts_with(BASE_PROMPT), "{prompt}");
    assert!(!prompt.contains("DEEPSEEK"), "the environment is not read");
    // The prompt says what the agent can do in the mode it started in (SPEC §14.2).
    assert!(prompt.contains("The sandbox mode is read-only"), "{prompt}");
    let first = env.take_prompt_notices();
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(first[0].key, "config-instructions-outside");
    assert_eq!(first[0].level, NoticeLevel::Warn);
    // The next requests find the same problem: no new warning.
    env.base_prompt();
    env.base_prompt();
    assert!(env.take_prompt_notices().is_empty());
    // Fixed, then broken another way: each change is told.
    std::fs::remove_file(ws.path().join("AGENTS.md")).unwrap();
    std::fs::write(ws.path().join("AGENTS.md"), "be brief").unwrap();
    assert!(env.base_prompt().ends_with("be brief"));
    assert!(
        env.take_prompt_notices().is_empty(),
        "no problem left, nothing to say"
    );
    std::fs::remove_file(ws.path().join("AGENTS.md")).unwrap();
    std::os::unix::fs::symlink("/dev/null", ws.path().join("AGENTS.md")).unwrap();
    env.base_prompt();
    let again = env.take_prompt_notices();
    assert_eq!(again.len(), 1, "{again:?}");
}
