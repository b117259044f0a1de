//! The wheel without mouse capture: alternate scroll (DECSET 1007) turns it into ↑/↓,
//! which must scroll Chat even when the transcript has no expandable node (decision 0037).
use super::*;
use crate::ui::sample::Script;
use crossterm::event::{KeyCode, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn draw(app: &mut App) -> String {
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| app.render(f)).unwrap();
    let buf = t.backend().buffer().clone();
    (0..24u16)
        .map(|y| {
            (0..80u16)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A transcript taller than the screen, with replies only (nothing to select).
fn long_chat_app() -> App {
    let mut s = Script::new();
    s.route(false);
    for t in 1..=12u64 {
        s.user(t, &format!("question {t}"));
        s.assistant(
            t,
            1,
            "",
            &format!("answer line one {t}\n\nanswer line two {t}"),
            &[],
        );
    }
    let mut app = App::new(Locale::EnUs, false);
    for e in s.events {
        app.on_agent_event(e);
    }
    draw(&mut app);
    app
}

#[test]
fn arrows_in_chat_without_expandable_nodes_scroll_it_like_the_wheel() {
    let mut app = long_chat_app();
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.focus(), Focus::Chat);
    let bottom = draw(&mut app);
    assert!(bottom.contains("answer line two 12"), "{bottom}");
    for _ in 0..6 {
        app.on_key(key(KeyCode::Up));
    }
    let up = draw(&mut app);
    assert_ne!(up, bottom, "↑ scrolled Chat");
    assert!(!up.contains("answer line two 12"), "{up}");
    for _ in 0..6 {
        app.on_key(key(KeyCode::Down));
    }
    let down = draw(&mut app);
    assert!(
        down.contains("answer line two 12"),
        "↓ scrolls back: {down}"
    );
}

#[test]
fn arrows_in_an_empty_composer_still_recall_history() {
    let mut app = long_chat_app();
    assert_eq!(app.focus(), Focus::Composer);
    for c in "remember me".chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    app.on_key(key(KeyCode::Enter));
    app.on_key(key(KeyCode::Up));
    assert!(draw(&mut app).contains("remember me"));
}
