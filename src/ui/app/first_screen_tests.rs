//! The first screen's hint (§14.5): it fits 80 columns, says how to quit and, with one
//! pane shown (below the split width), that Tab twice shows the Trajectory.
use super::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn draw(app: &mut App, w: u16) -> Vec<String> {
    let mut t = Terminal::new(TestBackend::new(w, 24)).unwrap();
    t.draw(|f| app.render(f)).unwrap();
    let buf = t.backend().buffer().clone();
    (0..24u16)
        .map(|y| {
            // Wide characters take two cells; the second is an empty symbol.
            (0..w)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
        })
        .collect()
}

#[test]
fn the_first_screen_says_how_to_quit_and_below_the_split_that_tab_shows_the_trajectory() {
    for locale in [Locale::EnUs, Locale::ZhCn] {
        let l = Localizer::new(locale);
        for (w, tab) in [(80u16, true), (120, false)] {
            let mut app = App::new(locale, true);
            let rows = draw(&mut app, w);
            let quit_key = if tab {
                "tui-chat-empty-quit-one-pane"
            } else {
                "tui-chat-empty-quit"
            };
            let screen = rows.join("\n");
            if w == 80 {
                // At 80 columns each line of the hint is whole on one row.
                for key in ["tui-chat-empty", quit_key] {
                    // Cells of wide characters read back with spaces: compare without them.
                    let want = l.tr(key).replace(' ', "");
                    assert!(
                        rows.iter().any(|r| r.replace(' ', "").contains(&want)),
                        "{locale:?} {w}: the whole of {want:?} in\n{screen}"
                    );
                }
            }
            assert!(!screen.contains('…'), "nothing is cut: {screen}");
            assert!(
                screen.contains("/quit") && screen.contains("Ctrl+D"),
                "{screen}"
            );
            assert_eq!(screen.contains("Tab"), tab, "{locale:?} {w}:\n{screen}");
        }
    }
}
