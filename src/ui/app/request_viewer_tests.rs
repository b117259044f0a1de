//! The full request viewer inside the inspector (SPEC §14.5): Enter shows the whole request,
//! `y` copies it through OSC 52, Esc goes back to the comparison.

use super::*;
use crossterm::event::KeyCode;

fn inspector_with(body: &str) -> crate::agent::inspect::InspectorData {
    let req = |n: Option<usize>| {
        serde_json::json!({"n": n, "route": "p/m", "system": "s", "tools": [["t", false]],
            "messages": ["user: hi"], "body": body, "beta": null})
    };
    serde_json::from_value(serde_json::json!({
        "previous": req(Some(1)), "selected": req(Some(2)),
        "divergence": {"body_offset": null, "system": false, "tool": null, "message": null},
        "reasons": ["Identical"],
    }))
    .unwrap()
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    t.draw(|f| app.render(f)).unwrap();
    let buf = t.backend().buffer().clone();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn enter_in_the_inspector_shows_the_whole_request_and_y_copies_it() {
    let long = format!("You are careful. {} END-OF-PROMPT", "word ".repeat(60));
    let body = serde_json::json!({
        "model": "deepseek-flash",
        "system": long,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hello there"}]}],
    })
    .to_string();
    for loc in Locale::ALL {
        let mut app = App::new(loc, false);
        app.on_agent_event(AgentEvent::Inspector(Box::new(inspector_with(&body))));
        let before = screen(&mut app, 120, 40);
        // The comparison view cuts the prompt; the full viewer does not.
        assert!(!before.contains("END-OF-PROMPT"), "{before}");
        app.on_key(KeyEvent::from(KeyCode::Enter));
        let full = screen(&mut app, 120, 40);
        assert!(full.contains("END-OF-PROMPT"), "{full}");
        assert!(full.contains("hello there"), "{full}");
        // `y` puts the shown request on the clipboard.
        app.take_term_requests();
        app.on_key(KeyEvent::from(KeyCode::Char('y')));
        let out = app.take_term_requests();
        assert_eq!(out.len(), 1, "{out:?}");
        assert!(
            matches!(&out[0], TermRequest::Escape(e) if e.starts_with("\x1b]52;c;")),
            "{out:?}"
        );
        // Esc goes back to the comparison, a second Esc closes the inspector.
        app.on_key(KeyEvent::from(KeyCode::Esc));
        assert!(app.inspector().is_some());
        assert!(!screen(&mut app, 120, 40).contains("END-OF-PROMPT"));
        app.on_key(KeyEvent::from(KeyCode::Esc));
        assert!(app.inspector().is_none());
    }
}
