//! The Ctrl+T transcript: every detail in full, Chat's own disclosure states untouched.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::i18n::Locale;
use crate::ui::App;
use crate::ui::sample::Script;
use crate::ui::snapshot::symbols;

fn app(locale: Locale) -> App {
    let mut s = Script::new();
    s.route(false).user(1, "Why is the cache cold?");
    s.assistant(
        1,
        1,
        "first I weigh the options\nthen I pick the second one",
        "Because the prefix changed.",
        &[],
    );
    s.tools_changed(2, &["fs__read"], &[]);
    s.user(2, "And now?");
    s.assistant(
        2,
        1,
        "the tools changed in between\nso the node explains it",
        "It is warm again.",
        &[],
    );
    let mut app = App::new(locale, false);
    for e in s.events {
        app.on_agent_event(e);
    }
    app
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| app.render(f)).unwrap();
    symbols(t.backend().buffer())
}

fn press(app: &mut App, code: KeyCode, m: KeyModifiers) {
    app.on_key(KeyEvent::new(code, m));
}

#[test]
fn ctrl_t_shows_every_reply_s_reasoning_in_full_and_esc_leaves_chat_as_it_was() {
    for (locale, title) in [(Locale::EnUs, "Transcript"), (Locale::ZhCn, "对话全文")] {
        for w in [80, 120] {
            let mut a = app(locale);
            let chat = screen(&mut a, w, 40);
            // Chat shows the reasoning collapsed to one line.
            assert!(!chat.contains("then I pick the second one"), "{chat}");
            assert!(!chat.contains("so the node explains it"), "{chat}");
            press(&mut a, KeyCode::Char('t'), KeyModifiers::CONTROL);
            let t = screen(&mut a, w, 40);
            assert!(t.contains(title), "{t}");
            for line in [
                "first I weigh the options",
                "then I pick the second one",
                "the tools changed in between",
                "so the node explains it",
                "It is warm again.",
            ] {
                assert!(t.contains(line), "{locale:?} {w}: {line} missing:\n{t}");
            }
            // Esc closes it; Chat's cells are as they were.
            press(&mut a, KeyCode::Esc, KeyModifiers::NONE);
            let back = screen(&mut a, w, 40);
            assert!(!back.contains(title) || chat.contains(title), "{back}");
            assert!(!back.contains("then I pick the second one"), "{back}");
        }
    }
}

#[test]
fn the_transcript_opens_at_its_end_scrolls_and_ctrl_t_closes_it() {
    let mut a = app(Locale::EnUs);
    screen(&mut a, 80, 14);
    press(&mut a, KeyCode::Char('t'), KeyModifiers::CONTROL);
    let end = screen(&mut a, 80, 14);
    assert!(end.contains("It is warm again."), "the latest reply: {end}");
    assert!(!end.contains("Why is the cache cold?"), "{end}");
    press(&mut a, KeyCode::Home, KeyModifiers::NONE);
    let top = screen(&mut a, 80, 14);
    assert!(top.contains("Why is the cache cold?"), "{top}");
    assert!(top.contains("first I weigh the options"), "{top}");
    press(&mut a, KeyCode::PageDown, KeyModifiers::NONE);
    let next = screen(&mut a, 80, 14);
    assert_ne!(next, top, "PgDn scrolls");
    press(&mut a, KeyCode::Char('t'), KeyModifiers::CONTROL);
    let closed = screen(&mut a, 80, 14);
    assert!(!closed.contains("Transcript"), "{closed}");
}

#[test]
fn alt_t_still_expands_the_latest_tool_change_in_chat() {
    let mut a = app(Locale::EnUs);
    screen(&mut a, 120, 40);
    press(&mut a, KeyCode::Char('t'), KeyModifiers::ALT);
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("Source: MCP server fs"), "{s}");
}

/// A session whose tool call has more output than a collapsed card shows, and a hook that
/// ran on that call.
fn tool_app(locale: Locale) -> App {
    use crate::session::event::EventKind;
    use crate::session::hook_event::{HookRunData, HookRunOutcome};
    let output: String = (1..=24).map(|i| format!("result line {i:02}\n")).collect();
    let mut s = Script::new();
    s.route(false).user(1, "Find the parser");
    s.tool(
        1,
        1,
        "c1",
        "grep",
        r#"{"pattern":"fn parse","path":"src/"}"#,
        Some((output.trim_end(), false)),
    );
    s.commit(EventKind::HookRun(HookRunData {
        event: "post_tool_use".into(),
        command: vec!["/home/u/hooks/audit.sh".into()],
        turn: Some(1),
        tool_call_id: Some("c1".into()),
        tool_name: Some("grep".into()),
        outcome: HookRunOutcome::Continued,
        exit_code: Some(0),
        duration_ms: 7,
        stderr: String::new(),
        reason: None,
        timeout_secs: None,
    }));
    s.assistant(1, 2, "", "It is in src/parse.rs.", &[]);
    let mut app = App::new(locale, false);
    for e in s.events {
        app.on_agent_event(e);
    }
    app
}

#[test]
fn the_transcript_shows_a_tool_card_in_full_with_its_hook_runs_whatever_ctrl_o_shows() {
    let hook = [
        (Locale::EnUs, "hook post_tool_use audit.sh: ok (7 ms)"),
        (Locale::ZhCn, "钩子 post_tool_use audit.sh：通过（7 毫秒）"),
    ];
    for (locale, hook) in hook {
        for w in [80, 120] {
            let mut a = tool_app(locale);
            // Chat's cards collapsed: the output is cut there.
            let chat = screen(&mut a, w, 60);
            assert!(!chat.contains("result line 24"), "{chat}");
            press(&mut a, KeyCode::Char('t'), KeyModifiers::CONTROL);
            let t = screen(&mut a, w, 60);
            let want = ["grep", r#"{"pattern":"fn parse","path":"src/"}"#, hook];
            for line in want
                .into_iter()
                .map(str::to_string)
                .chain((1..=24).map(|i| format!("result line {i:02}")))
            {
                assert!(t.contains(&line), "{locale:?} {w}: {line} missing:\n{t}");
            }
        }
    }
}
