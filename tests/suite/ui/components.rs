//! overlays own their area and the "Not following" hint owns its row.
//! Styled snapshots (`ui::snapshot::styled`: fg, bg, modifiers per run) at 40/80/120
//! columns in both locales.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use deepterm::agent::protocol::{AgentEvent, TurnPhase};
use deepterm::i18n::{Locale, Localizer};
use deepterm::ui::App;
use deepterm::ui::sample::Script;
use deepterm::ui::snapshot::{styled, symbols};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Modifier;

const SIZES: [(u16, u16); 3] = [(40, 16), (80, 24), (120, 30)];

fn tag(l: Locale) -> &'static str {
    match l {
        Locale::EnUs => "en",
        Locale::ZhCn => "zh",
    }
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn frame(term: &mut Terminal<TestBackend>, app: &mut App) -> Buffer {
    term.draw(|f| app.render(f)).unwrap();
    term.backend().buffer().clone()
}

fn inspector_data() -> deepterm::agent::inspect::InspectorData {
    use deepterm::agent::inspect::{DiffReason, InspectorData, divergence, inspected};
    use deepterm::llm::client::SerializedBody;
    use serde_json::json;
    let route = crate::common::flash_route();
    let history = vec![
        json!({"role": "user", "content": [{"type": "text", "text": "Find the bug."}]}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "Done."}]}),
    ];
    let tools = vec![json!({"name": "grep", "description": "d", "input_schema": {}})];
    let prev = SerializedBody {
        body: json!({"model": "deepseek-flash", "system": "You are deepterm.",
            "messages": history, "tools": tools, "stream": true}),
        beta: None,
    };
    let mut next_tools = tools.clone();
    next_tools.push(
        json!({"name": "fetch", "description": "d", "input_schema": {}, "defer_loading": true}),
    );
    let next = SerializedBody {
        body: json!({"model": "deepseek-flash", "system": "You are deepterm.",
            "messages": history, "tools": next_tools, "stream": true}),
        beta: None,
    };
    InspectorData {
        previous: Some(inspected(Some(2), &route, &prev)),
        selected: inspected(None, &route, &next),
        divergence: divergence(&prev, &next),
        reasons: vec![DiffReason::ToolAdditionAppended],
    }
}

/// A running turn with several requests, the Trajectory focused and a request row
/// selected (drawn in reverse video).
fn busy_trajectory(locale: Locale) -> App {
    let mut s = Script::new();
    s.route(false);
    for turn in 1..=6 {
        s.user(
            turn,
            &format!("Question {turn}: find the bug in the cache key."),
        );
        s.assistant(turn, 1, "", "", &[("c1", "grep", "{}")]);
        s.tool(turn, 1, "c1", "grep", "{}", Some(("found", false)));
        s.assistant(
            turn,
            2,
            "",
            "Fixed: the cache key ignored the tool order.",
            &[],
        );
    }
    let mut app = App::new(locale, false);
    for e in s.events {
        app.on_agent_event(e);
    }
    app.on_agent_event(AgentEvent::Phase(TurnPhase::Responding));
    app
}

/// Focuses the Trajectory and selects the request before the last.
fn select_request(app: &mut App) {
    app.on_key(key(KeyCode::Tab));
    app.on_key(key(KeyCode::Tab));
    app.on_key(key(KeyCode::Up));
    app.on_key(key(KeyCode::Up));
}

fn reversed(buf: &Buffer, x: u16, y: u16) -> bool {
    buf[(x, y)]
        .style()
        .add_modifier
        .contains(Modifier::REVERSED)
}

#[test]
fn inspector_over_a_busy_trajectory_shows_nothing_of_the_pane_underneath() {
    for locale in Locale::ALL {
        for (w, h) in SIZES {
            let mut app = busy_trajectory(locale);
            let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
            frame(&mut term, &mut app);
            select_request(&mut app);
            let under = frame(&mut term, &mut app);
            // The premise: the selected Trajectory row is drawn reversed.
            let sel_row = (0..h).find(|&y| (0..w).any(|x| reversed(&under, x, y)));
            assert!(
                sel_row.is_some(),
                "no selected row at {w}\n{}",
                styled(&under)
            );
            app.on_agent_event(AgentEvent::Inspector(Box::new(inspector_data())));
            let buf = frame(&mut term, &mut app);
            // Only the inspector's own marked rows (`▶` first difference) are reversed.
            for y in 0..h {
                let line: String = (0..w).map(|x| buf[(x, y)].symbol()).collect();
                // Cells hidden behind a wide character are not shown; skip them.
                let mut hidden = 0;
                for x in 0..w {
                    if hidden > 0 {
                        hidden -= 1;
                        continue;
                    }
                    hidden = unicode_width::UnicodeWidthStr::width(buf[(x, y)].symbol()).max(1) - 1;
                    assert!(
                        !reversed(&buf, x, y) || line.contains('▶'),
                        "reverse video shows through at ({x}, {y}) {w} {locale:?}\n{}",
                        styled(&buf)
                    );
                }
            }
            insta::assert_snapshot!(
                format!("inspector_busy_trajectory_{}_{w}", tag(locale)),
                styled(&buf)
            );
        }
    }
}

#[test]
fn jump_hint_owns_its_row_and_leaves_nothing_behind_when_it_goes() {
    for locale in Locale::ALL {
        let hint = Localizer::new(locale).tr("tui-jump-latest");
        for (w, h) in SIZES {
            let mut app = App::new(locale, false);
            for e in deepterm::ui::sample::long_session(40) {
                app.on_agent_event(e);
            }
            let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
            frame(&mut term, &mut app);
            app.on_key(key(KeyCode::PageUp));
            let with = frame(&mut term, &mut app);
            let text = symbols(&with);
            let row = text
                .lines()
                .find(|l| l.starts_with('↓'))
                .unwrap_or_else(|| panic!("no hint at {w}\n{text}"));
            // The row holds the hint (maybe cut at the edge) and nothing else.
            let want = deepterm::ui::text::truncate(&hint, w as usize);
            let chat_part = row.split('│').next().unwrap_or(row);
            assert_eq!(
                chat_part.trim_end(),
                want,
                "stale text beside the hint at {w}"
            );
            insta::assert_snapshot!(format!("jump_hint_{}_{w}", tag(locale)), styled(&with));
            // Following again: the same terminal shows exactly what a fresh one shows.
            app.on_key(key(KeyCode::End));
            let after = frame(&mut term, &mut app);
            let mut fresh = Terminal::new(TestBackend::new(w, h)).unwrap();
            let clean = frame(&mut fresh, &mut app);
            assert_eq!(styled(&after), styled(&clean), "stale cells at {w}");
            assert!(!symbols(&after).contains(&want), "hint left behind at {w}");
        }
    }
}
