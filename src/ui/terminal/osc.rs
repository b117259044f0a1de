//! What the UI writes to the terminal besides frames: `/copy` through OSC 52,
//! the turn-end notification through OSC 9, and the F3 mouse-capture switch. [`App`]
//! sends them as `AppEvent::Terminal` requests; the event loop hands them to the screen,
//! which owns the terminal (`TermScreen` writes them, test screens record them).
//!
//! [`App`]: crate::ui::App

use crate::ui::chat::{AssistantCell, CellKind, Transcript};

/// Words of the reply kept in a notification.
const NOTIFY_WORDS: usize = 12;
/// Characters of the notification kept at most.
const NOTIFY_CHARS: usize = 120;

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding (RFC 4648 §4), as OSC 52 expects.
pub fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The OSC 52 sequence that puts `text` on the clipboard: `ESC ] 52 ; c ; <base64> BEL`.
pub fn osc52(text: &str) -> String {
    format!("\x1b]52;c;{}\x07", base64(text.as_bytes()))
}

/// The OSC 9 notification sequence: `ESC ] 9 ; <text> BEL`, with every control character
/// of `text` (which could end the sequence or start another) turned into a space.
pub fn osc9(text: &str) -> String {
    format!("\x1b]9;{}\x07", notify_text(text))
}

/// Characters that change how the rest of a line reads without being seen: the bidi
/// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) and marks (U+200E,
/// U+200F, U+061C), and the zero-width ones (U+200B–U+200D, U+2060, U+FEFF). A notification
/// shows a reply's words outside deepterm, where nothing escapes them.
fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{061C}'
            | '\u{200B}'..='\u{200D}'
            | '\u{2060}'
            | '\u{FEFF}'
    )
}

/// `text` made safe for one notification line: control characters become spaces, bidi
/// controls and zero-width characters go, runs of whitespace become one space, at most
/// [`NOTIFY_CHARS`] characters.
pub fn notify_text(text: &str) -> String {
    let clean: String = text
        .chars()
        .filter(|c| !invisible(*c))
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let words: Vec<&str> = clean.split_whitespace().collect();
    let mut out = words.join(" ");
    if out.chars().count() > NOTIFY_CHARS {
        out = out.chars().take(NOTIFY_CHARS - 1).collect();
        out.push('…');
    }
    out
}

/// The first words of a reply for the notification (`…` when there were more).
pub fn first_words(reply: &str) -> String {
    // A notification is plain text: Markdown marks around words (`**`, `_`, `` ` ``, `#`,
    // `>`) are dropped, and words that were only marks go.
    let words: Vec<&str> = reply
        .split_whitespace()
        .map(|w| w.trim_matches(|c| matches!(c, '*' | '_' | '`' | '#' | '>' | '~')))
        .filter(|w| !w.is_empty())
        .take(NOTIFY_WORDS + 1)
        .collect();
    let mut out = words[..words.len().min(NOTIFY_WORDS)].join(" ");
    if words.len() > NOTIFY_WORDS {
        out.push('…');
    }
    out
}

/// The `n`th last reply (1 = the last), as markdown source: per turn, the last finished
/// assistant text (the answer, not the "let me look" before a tool call). Replies still
/// streaming and steps that only called tools are not counted.
pub fn nth_last_reply(t: &Transcript, n: usize) -> Option<&str> {
    if n == 0 {
        return None;
    }
    let mut last_turn = None;
    t.cells()
        .iter()
        .rev()
        .filter_map(|c| match &c.kind {
            CellKind::Assistant(AssistantCell {
                turn,
                text,
                streaming: false,
                ..
            }) if !text.source().trim().is_empty() => Some((*turn, text.source())),
            _ => None,
        })
        .filter(|(turn, _)| last_turn.replace(*turn) != Some(*turn))
        .map(|(_, text)| text)
        .nth(n - 1)
}

/// What `/copy ARGS` asks for: `Some(n)` for nothing (1) or a positive number, `None` for
/// anything else.
pub fn parse_copy_arg(args: &str) -> Option<usize> {
    match args.trim() {
        "" => Some(1),
        a => a.parse::<usize>().ok().filter(|n| *n > 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::chat::UserCell;
    use crate::ui::markdown::StreamCollector;

    #[test]
    fn item_copy_base64_matches_rfc4648_vectors() {
        for (plain, enc) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), enc, "{plain:?}");
        }
        // UTF-8 bytes, not characters.
        assert_eq!(base64("中".as_bytes()), "5Lit");
    }

    #[test]
    fn item_copy_osc52_wraps_the_base64_of_the_text() {
        assert_eq!(osc52("# Hi\n*x*"), "\x1b]52;c;IyBIaQoqeCo=\x07");
    }

    #[test]
    fn item_notify_osc9_text_has_no_control_characters() {
        let s = osc9("done\x07\x1b]52;c;evil\x07\nnext\tline\r");
        assert_eq!(s, "\x1b]9;done ]52;c;evil next line\x07");
        // Exactly one ESC and one BEL: the sequence cannot be ended or nested early.
        assert_eq!(s.matches('\x1b').count(), 1);
        assert_eq!(s.matches('\x07').count(), 1);
        let long = "word ".repeat(100);
        assert!(notify_text(&long).chars().count() <= NOTIFY_CHARS);
        assert!(notify_text(&long).ends_with('…'));
    }

    #[test]
    fn notification_text_has_no_bidi_controls_or_zero_width_characters() {
        let hostile = "ok\u{202E}txt.exe\u{202C} a\u{200B}b\u{200C}\u{200D}c\u{2060}d\u{FEFF} \
                       \u{2066}x\u{2067}y\u{2068}z\u{2069} \u{202A}\u{202B}\u{202D}e\u{200E}\u{200F}\u{061C}f\u{1b}g\u{9b}h";
        let s = osc9(hostile);
        assert_eq!(s, "\x1b]9;oktxt.exe abcd xyz ef g h\x07");
        let body = &s["\x1b]9;".len()..s.len() - 1];
        assert!(
            !body.chars().any(|c| invisible(c) || c.is_control()),
            "{body:?}"
        );
        // Ordinary non-ASCII text stays.
        assert_eq!(notify_text("完成了 — ok"), "完成了 — ok");
    }

    #[test]
    fn item_notify_first_words_of_the_reply() {
        assert_eq!(first_words("  short\nreply "), "short reply");
        let many: String = (1..=20).map(|i| format!("w{i} ")).collect();
        assert_eq!(
            first_words(&many),
            "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12…"
        );
        assert_eq!(
            first_words("## Done\n\n**Hello** from `fx__echo` > quoted"),
            "Done Hello from fx__echo quoted"
        );
    }

    fn assistant(turn: u64, step: u64, text: &str, streaming: bool) -> CellKind {
        CellKind::Assistant(AssistantCell {
            text: StreamCollector::complete(text),
            streaming,
            ..AssistantCell::streaming(turn, step)
        })
    }

    #[test]
    fn item_copy_nth_last_reply_is_each_turns_answer() {
        let mut t = Transcript::new();
        t.push(CellKind::User(UserCell { text: "q1".into() }));
        t.push(assistant(1, 1, "first **reply**", false));
        t.push(CellKind::User(UserCell { text: "q2".into() }));
        t.push(assistant(2, 1, "let me look", false));
        t.push(assistant(2, 2, "", false));
        t.push(assistant(2, 3, "second reply", false));
        t.push(CellKind::User(UserCell { text: "q3".into() }));
        t.push(assistant(3, 1, "still streaming", true));
        assert_eq!(nth_last_reply(&t, 1), Some("second reply"));
        assert_eq!(nth_last_reply(&t, 2), Some("first **reply**"));
        assert_eq!(nth_last_reply(&t, 3), None);
        assert_eq!(nth_last_reply(&t, 0), None);
        assert_eq!(nth_last_reply(&Transcript::new(), 1), None);
    }

    #[test]
    fn item_copy_argument_is_a_positive_count() {
        assert_eq!(parse_copy_arg(""), Some(1));
        assert_eq!(parse_copy_arg(" 3 "), Some(3));
        assert_eq!(parse_copy_arg("0"), None);
        assert_eq!(parse_copy_arg("last"), None);
        assert_eq!(parse_copy_arg("-1"), None);
    }
}
