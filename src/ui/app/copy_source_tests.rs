//! `/copy` copies a reply's Markdown source byte for byte, while Chat shows it sanitized:
//! tabs, CRs and control characters reach the clipboard (inside OSC 52's base64, where
//! they are harmless) and never the screen.
use super::*;
use crate::ui::sample::Script;
use crossterm::event::{KeyCode, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// A reply a Makefile or a TSV paste depends on, with an escape sequence in it.
const SOURCE: &str =
    "all:\n\tcc -o x x.c\r\nname\tvalue\r\n\x1b[31mred\x1b[0m and \x1b]52;c;ZXZpbA==\x07 done";

fn send(app: &mut App, text: &str) {
    for c in text.chars() {
        app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }
    app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
}

fn decode_base64(b64: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let mut out = Vec::new();
    for chunk in b64.as_bytes().chunks(4) {
        let digits: Vec<u8> = chunk
            .iter()
            .filter(|c| **c != b'=')
            .map(|c| value(*c))
            .collect();
        let n = digits
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, d)| n | (u32::from(*d) << (18 - 6 * i)));
        out.extend(n.to_be_bytes()[1..digits.len()].iter());
    }
    out
}

/// The bytes `/copy` put on the clipboard.
fn copied(app: &mut App) -> Vec<u8> {
    send(app, "/copy");
    let requests = app.take_term_requests();
    let [TermRequest::Escape(seq)] = requests.as_slice() else {
        panic!("one OSC 52 expected: {requests:?}");
    };
    let payload = seq
        .strip_prefix("\x1b]52;c;")
        .and_then(|s| s.strip_suffix('\x07'))
        .unwrap_or_else(|| panic!("not an OSC 52 sequence: {seq:?}"));
    // Only the payload's base64 alphabet sits between the sequence's own ESC and BEL.
    assert!(
        payload
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
    );
    decode_base64(payload)
}

/// Every cell of an 80×24 frame.
fn screen(app: &mut App) -> String {
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| app.render(f)).unwrap();
    let buf = t.backend().buffer().clone();
    buf.content().iter().map(|c| c.symbol()).collect()
}

fn assert_shown_sanitized(app: &mut App) {
    let s = screen(app);
    assert!(s.contains("red"), "the reply is shown: {s}");
    assert!(
        !s.chars().any(|c| c.is_control()),
        "no control character reaches the screen: {s:?}"
    );
    // The escape is shown as text, not interpreted.
    assert!(s.contains("\\x1B[31m"), "{s}");
}

#[test]
fn copy_of_a_committed_reply_is_its_source_byte_for_byte() {
    let mut s = Script::new();
    s.route(false).user(1, "write a makefile");
    s.assistant(1, 1, "", SOURCE, &[]);
    let mut app = App::new(Locale::EnUs, false);
    for e in s.events {
        app.on_agent_event(e);
    }
    assert_shown_sanitized(&mut app);
    assert_eq!(String::from_utf8(copied(&mut app)).unwrap(), SOURCE);
}

#[test]
fn copy_of_a_streamed_reply_is_its_source_byte_for_byte() {
    let mut s = Script::new();
    s.route(false).user(1, "write a makefile");
    // Deltas split inside the CR LF pair, right after the tab and inside an escape.
    let head = ["all:\n\t", "cc -o x x.c\r", "\nname\tvalue\r\n\x1b[3"];
    let rest = SOURCE.strip_prefix(head.concat().as_str()).unwrap();
    for piece in head.into_iter().chain([rest]) {
        s.push(AgentEvent::Stream {
            turn: 1,
            step: 1,
            event: crate::llm::types::StreamEvent::TextDelta(piece.into()),
        });
    }
    let mut app = App::new(Locale::EnUs, false);
    for e in s.events {
        app.on_agent_event(e);
    }
    assert_shown_sanitized(&mut app);
    // The stream ends without a committed message (a cancelled turn): the streamed source
    // is what there is to copy.
    app.on_agent_event(AgentEvent::Phase(TurnPhase::Idle));
    assert_eq!(String::from_utf8(copied(&mut app)).unwrap(), SOURCE);
    assert_shown_sanitized(&mut app);
}

#[test]
fn copy_of_a_plain_reply_is_unchanged() {
    let mut s = Script::new();
    s.route(false).user(1, "q");
    s.assistant(1, 1, "", "plain **reply**\nwith 中文", &[]);
    let mut app = App::new(Locale::EnUs, false);
    for e in s.events {
        app.on_agent_event(e);
    }
    assert_eq!(copied(&mut app), "plain **reply**\nwith 中文".as_bytes());
}
