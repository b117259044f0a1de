//! Peak memory of a 10k-message session in the TUI (SPEC §10 long sessions; target < 200 MB
//! RSS). Builds the UI state from a synthetic 10,000-message transcript (tool cards and
//! tool-change nodes included), renders 120×40 frames from the top to the bottom of the
//! Chat pane, and prints the process's resident set.
//!
//! Run: `cargo run --release --example session_memory`

use deepterm::i18n::Locale;
use deepterm::ui::App;
use deepterm::ui::sample::long_session;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn status(field: &str) -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .map(|l| l.trim_start_matches(field).trim().to_string())
        })
        .unwrap_or_else(|| "n/a".into())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let events = long_session(n);
    let mut app = App::new(Locale::ZhCn, false);
    for e in events {
        app.on_agent_event(e);
    }
    let mut term = Terminal::new(TestBackend::new(120, 40))?;
    term.draw(|f| app.render(f))?;
    // Scroll through the whole transcript so every cell is laid out at this width.
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    app.on_key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
    app.on_key(KeyEvent::new(KeyCode::Home, KeyModifiers::NONE));
    for _ in 0..(n / 2) {
        app.on_key(KeyEvent::new(KeyCode::PageDown, KeyModifiers::NONE));
        term.draw(|f| app.render(f))?;
    }
    println!("messages: {n}");
    println!("VmRSS (now):  {}", status("VmRSS:"));
    println!("VmHWM (peak): {}", status("VmHWM:"));
    Ok(())
}
