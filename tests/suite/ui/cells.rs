//! cells render themselves, `assistant/attempt` never splices a retried
//! attempt's text onto the failed one, and what Chat shows after a resume (the committed
//! events replayed through `SessionOpened`) is what it showed live.

use std::sync::Arc;

use deepterm::agent::protocol::{AgentEvent, TurnPhase};
use deepterm::i18n::Locale;
use deepterm::session::event::{Event, EventKind, TurnEnd, TurnOutcome};
use deepterm::ui::App;
use deepterm::ui::sample::Script;
use deepterm::ui::snapshot::{styled, symbols};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

/// One turn whose first attempt streams partial text and fails, then a retry that
/// succeeds; a second turn where every attempt fails after streaming text.
fn retried_script() -> Script {
    let mut s = Script::new();
    s.route(false).user(1, "Explain the cache.");
    s.push(AgentEvent::Phase(TurnPhase::Responding));
    s.stream(1, 1, "", "FAILED-ONE partial text that");
    s.attempt(1, 1, true);
    s.stream(1, 1, "", "The cache keeps rendered rows.\nSecond line.");
    s.assistant(
        1,
        1,
        "",
        "The cache keeps rendered rows.\nSecond line.",
        &[],
    );
    s.push(AgentEvent::Phase(TurnPhase::Idle));
    s.user(2, "Again?");
    s.push(AgentEvent::Phase(TurnPhase::Responding));
    s.stream(2, 1, "", "FAILED-TWO half a");
    s.attempt(2, 1, true);
    s.stream(2, 1, "", "FAILED-THREE another half");
    s.attempt(2, 1, false);
    s.commit(EventKind::TurnEnd(TurnEnd {
        turn: 2,
        outcome: Some(TurnOutcome::Error),
    }));
    s.push(AgentEvent::Phase(TurnPhase::Idle));
    s
}

fn draw(app: &mut App, w: u16, h: u16) -> Buffer {
    let mut term = Terminal::new(TestBackend::new(w, h)).expect("backend");
    term.draw(|f| app.render(f)).expect("draw");
    term.backend().buffer().clone()
}

fn live(locale: Locale) -> App {
    let mut app = App::new(locale, false);
    for e in retried_script().events {
        app.on_agent_event(e);
    }
    app
}

fn resumed(locale: Locale) -> App {
    let history: Vec<Arc<Event>> = retried_script()
        .events
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::Committed(e) => Some(e),
            _ => None,
        })
        .collect();
    let mut app = App::new(locale, false);
    app.on_agent_event(AgentEvent::SessionOpened {
        id: "s".into(),
        path: "s.jsonl".into(),
        history,
    });
    app
}

/// The Chat pane's rows (the screen minus the composer and status rows at the bottom).
fn chat_rows(buf: &Buffer, rows: u16) -> String {
    let text = styled(buf);
    text.lines()
        .take(rows as usize)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn failed_attempts_leave_no_text_and_a_failed_turn_one_line() {
    let mut app = live(Locale::EnUs);
    let screen = symbols(&draw(&mut app, 80, 30));
    assert!(!screen.contains("FAILED-"), "{screen}");
    // A retried attempt leaves nothing (the status line said it, §14.5); the turn that
    // failed for good leaves one line.
    assert!(!screen.contains("attempt"), "{screen}");
    assert_eq!(screen.matches("Service Unavailable").count(), 1, "{screen}");
    assert!(
        screen.contains("The cache keeps rendered rows."),
        "{screen}"
    );
}

#[test]
fn resume_shows_what_live_showed() {
    for locale in [Locale::EnUs, Locale::ZhCn] {
        for (w, h) in [(40u16, 30u16), (80, 30), (120, 30)] {
            let a = draw(&mut live(locale), w, h);
            let b = draw(&mut resumed(locale), w, h);
            // Everything above the composer: Chat (and, at 120, Trajectory).
            let rows = h - 6;
            assert_eq!(
                chat_rows(&a, rows),
                chat_rows(&b, rows),
                "{locale:?} {w}x{h}"
            );
        }
    }
}

#[test]
fn retried_stream_styled_snapshots() {
    for locale in [Locale::EnUs, Locale::ZhCn] {
        let tag = match locale {
            Locale::EnUs => "en",
            Locale::ZhCn => "zh",
        };
        for (w, h) in [(40u16, 24u16), (80, 24), (120, 24)] {
            let buf = draw(&mut live(locale), w, h);
            insta::assert_snapshot!(format!("retried_stream_{tag}_{w}"), styled(&buf));
        }
    }
}

#[test]
fn scroll_stays_on_its_cell_and_in_range_after_resize() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let mut app = App::new(Locale::EnUs, false);
    for e in deepterm::ui::sample::long_session(400) {
        app.on_agent_event(e);
    }
    let mut term = Terminal::new(TestBackend::new(80, 30)).expect("backend");
    term.draw(|f| app.render(f)).expect("draw");
    app.on_key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
    for _ in 0..20 {
        app.on_key(KeyEvent::new(KeyCode::PageUp, KeyModifiers::NONE));
    }
    term.draw(|f| app.render(f)).expect("draw");
    let before = symbols(term.backend().buffer());
    let q_before = first_question(&before);
    assert!(q_before > 0, "{before}");
    term.backend_mut().resize(60, 30);
    term.draw(|f| app.render(f)).expect("draw");
    let after = symbols(term.backend().buffer());
    // Still scrolled back (the jump hint shows) and on the same part of the log.
    assert!(after.contains("Not following"), "{after}");
    let q_after = first_question(&after);
    assert!(
        q_before.abs_diff(q_after) <= 1,
        "{q_before} vs {q_after}\n{after}"
    );
    for _ in 0..200 {
        term.draw(|f| app.render(f)).expect("draw");
    }
    assert_eq!(app.transcript().estimated(), 0);
    let settled = symbols(term.backend().buffer());
    assert!(
        q_before.abs_diff(first_question(&settled)) <= 1,
        "{settled}"
    );
}

/// The number of the first "Question N:" on screen.
fn first_question(screen: &str) -> u64 {
    screen
        .lines()
        .find_map(|l| {
            let rest = l.trim().strip_prefix("Question ")?;
            rest.split(':').next()?.parse().ok()
        })
        .unwrap_or(0)
}

#[test]
fn incremental_committed_rows_equal_a_whole_render() {
    use deepterm::ui::markdown::{StreamCollector, render_width};
    let src = "# Title\n\nFirst paragraph with **bold** text that wraps at forty columns wide.\n\n\
               ```rust\nfn main() {}\n\nlet x = \"// not a comment\";\n```\n\n- a\n- b\n\nlast line";
    let whole = render_width(src, 40);
    let mut c = StreamCollector::new();
    let chars: Vec<char> = src.chars().collect();
    for chunk in chars.chunks(7) {
        c.push(&chunk.iter().collect::<String>());
        let seen = c.source().to_string();
        // Committed rows never change later: they are a prefix of the whole render.
        let committed = c.committed_ref(40);
        assert!(
            whole.starts_with(committed),
            "after {seen:?}: committed rows are not a prefix of the final render"
        );
    }
    c.finish();
    assert_eq!(c.committed_ref(40), render_width(src, 40).as_slice());
}
