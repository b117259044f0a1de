//! The authorization URL of `/mcp login` is drawn as an OSC 8 link in Chat (SPEC §15.2),
//! over every row it wraps to, while the text on screen stays the URL.
use super::*;
use crate::agent::protocol::{Notice, NoticeLevel};
use crate::i18n::Arg;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const URL: &str = "http://127.0.0.1:4321/auth/authorize?response_type=code&client_id=client-0123456789abcdef&state=s&code_challenge=abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG&code_challenge_method=S256";

#[test]
fn the_login_url_in_chat_is_a_link_on_every_row_it_wraps_to() {
    let mut app = App::new(Locale::EnUs, false);
    app.on_agent_event(AgentEvent::Notice(Notice::new(
        NoticeLevel::Info,
        "mcp-login-open",
        vec![("name", Arg::from("tracker")), ("url", Arg::from(URL))],
    )));
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| app.render(f)).unwrap();
    let buf = t.backend().buffer().clone();
    let open = format!("\x1b]8;;{URL}\x1b\\");
    let mut rows_with_link = 0;
    let mut shown = String::new();
    for y in 0..24u16 {
        let mut linked_here = false;
        for x in 0..80u16 {
            let s = buf[(x, y)].symbol();
            if let Some(rest) = s.strip_prefix(open.as_str()) {
                linked_here = true;
                shown.push_str(rest.strip_suffix("\x1b]8;;\x1b\\").unwrap());
            }
        }
        rows_with_link += usize::from(linked_here);
    }
    // The URL is longer than a row: it wraps, and each part is the link.
    assert!(rows_with_link >= 2, "{rows_with_link}");
    assert_eq!(shown, URL);
}
