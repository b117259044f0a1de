//! The card of a `shell` call the sandbox seemed to refuse (SPEC §15.5): the question
//! shows the sandboxed attempt and why it asks, `a` reads the same on the card and in the
//! key bar, and once answered the card says what happened — the same live and folded
//! from the log on resume (decision 0115).

use super::*;
use crate::agent::protocol::ApprovalPreview;
use crate::i18n::Text;
use crate::session::event::{Message, Role, Source, ToolResultData};
use crate::session::retry_event::{RetryAnswer, SandboxAttempt, SandboxRetry};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const ARGS: &str = r#"{"command":"git add -A"}"#;
const FAILED: &str = "fatal: Unable to create '.git/index.lock': Read-only file system";

fn screen_at(app: &mut App, w: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, 40)).unwrap();
    t.draw(|f| app.render(f)).unwrap();
    crate::ui::snapshot::symbols(t.backend().buffer())
}

fn attempt() -> SandboxAttempt {
    SandboxAttempt {
        status: "exit status 128".into(),
        output: FAILED.into(),
    }
}

/// The turn up to the retry question, as the loop sends it.
fn asking(s: &mut crate::ui::sample::Script) {
    s.route(false).user(1, "stage it");
    s.tool(1, 1, "c1", "shell", ARGS, None);
    s.push(AgentEvent::ApprovalWhy {
        call_id: "c1".into(),
        why: Text::new("approval-reason-sandbox-denied", vec![]),
        always: Some(Text::new(
            "approval-grant-prefix-unsandboxed",
            vec![("prefix", "git add".into())],
        )),
    });
    s.push(AgentEvent::ApprovalPreview {
        call_id: "c1".into(),
        preview: ApprovalPreview::Shell {
            command: "git add -A".into(),
            workdir: "/w".into(),
            sandboxed: false,
            justification: None,
            always_prefix: None,
            attempt: Some(attempt()),
        },
    });
    s.push(AgentEvent::ApprovalRequest {
        call_id: "c1".into(),
        tool: "shell".into(),
        arguments: ARGS.into(),
    });
}

/// The logged result of the answer.
fn answered(answer: RetryAnswer) -> EventKind {
    let (text, error) = match &answer {
        RetryAnswer::RanUnsandboxed => (
            "exit status 0\nduration: 0.004 s\noutput:\nstaged 3 files\n[ran again outside the \
             sandbox after the sandboxed attempt failed (exit status 128); the user allowed it]"
                .to_string(),
            false,
        ),
        RetryAnswer::Denied { .. } => (
            format!("exit status 128\nduration: 0.002 s\noutput:\n{FAILED}\n[declined]"),
            true,
        ),
    };
    let mut m = Message::text(Role::Tool, &text, Source::kind("tool"));
    m.tool_call_id = Some("c1".into());
    m.is_error = error.then_some(true);
    EventKind::ToolResult(ToolResultData {
        turn: 1,
        step: 1,
        message: m,
        error: error.then_some(text),
        sandbox_retry: Some(SandboxRetry {
            attempt: attempt(),
            answer,
        }),
    })
}

/// The Chat pane's rows: the screen's left column, up to the pane border.
fn chat_rows(screen: &str) -> Vec<String> {
    let border = screen
        .lines()
        .find(|l| l.contains("Trajectory"))
        .and_then(|l| l.chars().position(|c| c == '│'))
        .unwrap_or(usize::MAX);
    screen
        .lines()
        .map(|l| l.chars().take(border).collect::<String>())
        .collect()
}

/// The Chat pane's text on one line, without spaces and gutters (wrapping and wide
/// characters' blank cells left out).
fn flat(screen: &str) -> String {
    chat_rows(screen)
        .concat()
        .chars()
        .filter(|c| *c != ' ' && *c != '│')
        .collect()
}

/// The card's rows in the Chat pane.
fn card(screen: &str) -> String {
    chat_rows(screen)
        .into_iter()
        .skip_while(|l| !l.contains("$ git add -A"))
        .take(8)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_retry_question_shows_the_sandboxed_attempt_why_it_asks_and_one_meaning_of_a() {
    for (locale, failed, why, a) in [
        (
            Locale::EnUs,
            "ran in the sandbox and failed · exit status 128",
            "The sandbox denied this command.",
            "a always allows: commands starting with \"git add\", also outside the sandbox",
        ),
        (
            Locale::ZhCn,
            "在沙箱中运行失败 · exit status 128",
            "沙箱拒绝了此命令",
            "a 总是允许：本会话中允许以“git add”开头的命令",
        ),
    ] {
        let mut s = crate::ui::sample::Script::new();
        asking(&mut s);
        let mut app = App::new(locale, false);
        for e in s.events {
            app.on_agent_event(e);
        }
        let screen = screen_at(&mut app, 120);
        let f = flat(&screen);
        let bare = |t: &str| t.replace(' ', "");
        assert!(f.contains(&bare(failed)), "{locale:?}: {screen}");
        assert!(f.contains(&bare(FAILED)), "{locale:?}: {screen}");
        assert!(f.contains(&bare(why)), "{locale:?}: {screen}");
        // `a` is said on the card and in the key bar (the full-width bottom rows), in
        // the same words.
        assert!(f.contains(&bare(a)), "{locale:?}: {screen}");
        let bar: String = screen
            .lines()
            .rev()
            .take(6)
            .collect::<Vec<_>>()
            .concat()
            .replace(' ', "");
        assert!(bar.contains(&bare(a)), "{locale:?}: {screen}");
    }
}

#[test]
fn the_answered_retry_card_says_what_happened_the_same_live_and_resumed() {
    let cases = [
        (
            RetryAnswer::Denied {
                reason: Some("not now".into()),
            },
            "not run outside the sandbox · Denied by you: not now",
        ),
        (
            RetryAnswer::RanUnsandboxed,
            "ran again outside the sandbox, as you allowed:",
        ),
    ];
    for (answer, said) in cases {
        let denied = matches!(answer, RetryAnswer::Denied { .. });
        let mut s = crate::ui::sample::Script::new();
        asking(&mut s);
        let mut live = App::new(Locale::EnUs, false);
        for e in std::mem::take(&mut s.events) {
            live.on_agent_event(e);
        }
        if denied {
            live.on_key(key(KeyCode::Char('n')));
            for c in "not now".chars() {
                live.on_key(key(KeyCode::Char(c)));
            }
            live.on_key(key(KeyCode::Enter));
        } else {
            live.on_key(key(KeyCode::Char('y')));
        }
        s.commit(answered(answer));
        let events = std::mem::take(&mut s.events);
        for e in events.iter().cloned() {
            live.on_agent_event(e);
        }
        let live_card = card(&screen_at(&mut live, 120));
        // Resumed: only the log.
        let mut log = crate::ui::sample::Script::new();
        asking(&mut log);
        let history: Vec<_> = log
            .events
            .into_iter()
            .chain(events)
            .filter_map(|e| match e {
                AgentEvent::Committed(e) => Some(e),
                _ => None,
            })
            .collect();
        let mut resumed = App::new(Locale::EnUs, false);
        resumed.on_agent_event(AgentEvent::SessionOpened {
            id: "s".into(),
            path: String::new(),
            history,
        });
        let resumed_card = card(&screen_at(&mut resumed, 120));
        assert_eq!(live_card, resumed_card);
        assert!(
            live_card.contains("ran in the sandbox and failed · exit status 128"),
            "{live_card}"
        );
        assert!(
            flat(&live_card).contains(&FAILED.replace(' ', "")),
            "{live_card}"
        );
        assert!(live_card.contains(said), "{live_card}");
        assert!(!live_card.contains("not run ·"), "{live_card}");
        if !denied {
            assert!(live_card.contains("staged 3 files"), "{live_card}");
            assert!(!live_card.contains("[ran again"), "{live_card}");
        }
    }
}
