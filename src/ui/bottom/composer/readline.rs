//! Readline's line and word boundaries over a draft (§14.5): where Ctrl+A / Ctrl+E,
//! Alt+B / Alt+F (and Ctrl+← / Ctrl+→), Ctrl+W, Alt+Backspace, Ctrl+K and Ctrl+U move to
//! or delete up to. Pure functions of the text and a byte offset; every position they
//! return is a grapheme-cluster boundary of the whole text, so a CJK ideograph, an emoji
//! sequence or a letter with its combining marks is never split.
//! (Decision note: docs/decisions/0036-readline-composer.md.)

use std::ops::Range;

use unicode_segmentation::GraphemeCursor;

/// The grapheme boundary before byte `i` (0 at the start).
pub fn prev_boundary(s: &str, i: usize) -> usize {
    GraphemeCursor::new(i, s.len(), true)
        .prev_boundary(s, 0)
        .ok()
        .flatten()
        .unwrap_or(0)
}

/// The grapheme boundary after byte `i` (the end at the end).
pub fn next_boundary(s: &str, i: usize) -> usize {
    GraphemeCursor::new(i, s.len(), true)
        .next_boundary(s, 0)
        .ok()
        .flatten()
        .unwrap_or(s.len())
}

/// Whether a grapheme belongs to a word: it starts with a letter of any script (CJK
/// ideographs and kana included), a digit or `_`, as readline's `isalnum` on wide
/// characters. A run of CJK text is therefore one word; punctuation (`，`, `/`, `.`)
/// separates words.
fn is_word(g: &str) -> bool {
    g.chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

fn is_space(g: &str) -> bool {
    g.chars().next().is_some_and(char::is_whitespace)
}

/// Steps back from `i` over graphemes while `keep` holds; returns where it stopped.
fn back_while(s: &str, mut i: usize, keep: impl Fn(&str) -> bool) -> usize {
    while i > 0 {
        let p = prev_boundary(s, i);
        if !keep(&s[p..i]) {
            break;
        }
        i = p;
    }
    i
}

/// Steps forward from `i` over graphemes while `keep` holds; returns where it stopped.
fn forward_while(s: &str, mut i: usize, keep: impl Fn(&str) -> bool) -> usize {
    while i < s.len() {
        let n = next_boundary(s, i);
        if !keep(&s[i..n]) {
            break;
        }
        i = n;
    }
    i
}

/// The start of the logical line holding byte `i` (just after the previous `\n`): a
/// wrapped line is one line.
pub fn line_start(s: &str, i: usize) -> usize {
    s[..i].rfind('\n').map_or(0, |p| p + 1)
}

/// The end of the logical line holding byte `i` (at its `\n`, or the end of the text).
pub fn line_end(s: &str, i: usize) -> usize {
    s[i..].find('\n').map_or(s.len(), |p| i + p)
}

/// Ctrl+A: the start of the line; already there, the start of the draft.
pub fn home(s: &str, i: usize) -> usize {
    match line_start(s, i) {
        start if start == i => 0,
        start => start,
    }
}

/// Ctrl+E: the end of the line; already there, the end of the draft.
pub fn end(s: &str, i: usize) -> usize {
    match line_end(s, i) {
        end if end == i => s.len(),
        end => end,
    }
}

/// Alt+B / Ctrl+←: back over what is not a word, then to the start of the word.
pub fn word_start_before(s: &str, i: usize) -> usize {
    let i = back_while(s, i, |g| !is_word(g));
    back_while(s, i, is_word)
}

/// Alt+F / Ctrl+→: forward over what is not a word, then to the end of the word.
pub fn word_end_after(s: &str, i: usize) -> usize {
    let i = forward_while(s, i, |g| !is_word(g));
    forward_while(s, i, is_word)
}

/// Ctrl+W: back over blanks, then to the previous blank (readline's
/// `unix-word-rubout`: a path or `foo.bar()` goes whole).
pub fn blank_word_start_before(s: &str, i: usize) -> usize {
    let i = back_while(s, i, is_space);
    back_while(s, i, |g| !is_space(g))
}

/// Ctrl+K: from `i` to the end of the line; at the end of a line, its line break (so
/// repeated presses join the lines below).
pub fn kill_to_end(s: &str, i: usize) -> Range<usize> {
    match line_end(s, i) {
        end if end == i && i < s.len() => i..i + 1,
        end => i..end,
    }
}

/// Ctrl+U: from the start of the line to `i`; at the start of a line, the line break
/// before it.
pub fn kill_to_start(s: &str, i: usize) -> Range<usize> {
    match line_start(s, i) {
        start if start == i && i > 0 => i - 1..i,
        start => start..i,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` with `|` marking a position: (text without it, byte offset).
    fn at(marked: &str) -> (String, usize) {
        let i = marked.find('|').expect("a | marks the caret");
        (marked.replacen('|', "", 1), i)
    }

    fn mark(s: &str, i: usize) -> String {
        format!("{}|{}", &s[..i], &s[i..])
    }

    fn moved(f: fn(&str, usize) -> usize, marked: &str) -> String {
        let (s, i) = at(marked);
        mark(&s, f(&s, i))
    }

    #[test]
    fn word_motion_skips_punctuation_then_one_word_in_any_script() {
        let b = word_start_before;
        let f = word_end_after;
        assert_eq!(moved(b, "fix the parser|"), "fix the |parser");
        assert_eq!(moved(b, "fix the |parser"), "fix |the parser");
        assert_eq!(moved(b, "/usr/lib/foo.py|"), "/usr/lib/foo.|py");
        assert_eq!(moved(f, "|/usr/lib"), "/usr|/lib");
        assert_eq!(moved(f, "fix| the parser"), "fix the| parser");
        // A run of ideographs is one word; full-width punctuation separates.
        assert_eq!(moved(b, "你好，世界|"), "你好，|世界");
        assert_eq!(moved(b, "你好，|世界"), "|你好，世界");
        assert_eq!(moved(f, "|你好，世界"), "你好|，世界");
        // A letter with a combining mark is one word character, never split.
        assert_eq!(moved(b, "cafe\u{301} au lait|"), "cafe\u{301} au |lait");
        assert_eq!(moved(b, "cafe\u{301}|"), "|cafe\u{301}");
        assert_eq!(moved(f, "|cafe\u{301} x"), "cafe\u{301}| x");
        // Across a line break, and at the ends nothing moves past them.
        assert_eq!(moved(b, "one\n|two"), "|one\ntwo");
        assert_eq!(moved(b, "|x"), "|x");
        assert_eq!(moved(f, "x|"), "x|");
    }

    #[test]
    fn ctrl_w_goes_back_to_a_blank_and_takes_paths_whole() {
        let w = blank_word_start_before;
        assert_eq!(moved(w, "see /usr/lib/foo.py|"), "see |/usr/lib/foo.py");
        assert_eq!(moved(w, "two words  |"), "two |words  ");
        assert_eq!(moved(w, "你好 世界。|"), "你好 |世界。");
        assert_eq!(moved(w, "a\n|b"), "|a\nb");
        // An emoji sequence is one grapheme, not three code points.
        let family = "👨\u{200d}👩\u{200d}👧";
        assert_eq!(
            moved(w, &format!("x {family}{family}|")),
            format!("x |{family}{family}")
        );
    }

    #[test]
    fn home_and_end_go_to_the_logical_line_then_the_draft() {
        assert_eq!(moved(home, "ab\ncd|ef"), "ab\n|cdef");
        assert_eq!(moved(home, "ab\n|cdef"), "|ab\ncdef");
        assert_eq!(moved(end, "a|b\ncd"), "ab|\ncd");
        assert_eq!(moved(end, "ab|\ncd"), "ab\ncd|");
        assert_eq!(moved(home, "你好|世界"), "|你好世界");
    }

    #[test]
    fn kills_take_the_line_part_or_at_its_edge_the_line_break() {
        let (s, i) = at("ab|cd\nef");
        assert_eq!(&s[kill_to_end(&s, i)], "cd");
        assert_eq!(&s[kill_to_start(&s, i)], "ab");
        let (s, i) = at("abcd|\nef");
        assert_eq!(&s[kill_to_end(&s, i)], "\n");
        let (s, i) = at("abcd\n|ef");
        assert_eq!(&s[kill_to_start(&s, i)], "\n");
        let (s, i) = at("|x");
        assert!(kill_to_start(&s, i).is_empty());
        let (s, i) = at("x|");
        assert!(kill_to_end(&s, i).is_empty());
    }
}
