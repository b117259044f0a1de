//! Display width, measured per grapheme cluster as ratatui's buffer lays cells out, so an
//! emoji ZWJ sequence, a flag or a combining mark is never split and never miscounted; and
//! truncation to a width on those boundaries.

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Display width of one character (control characters count as zero; they are escaped earlier).
pub fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// Display width of one grapheme cluster as a terminal cell grid shows it (the rule
/// ratatui's buffer uses): a cluster with a control character takes no cell.
pub fn grapheme_width(g: &str) -> usize {
    if g.contains(char::is_control) {
        return 0;
    }
    if g.len() == 1 {
        return 1;
    }
    // Halfwidth (semi-)voiced sound marks are Grapheme_Extend but take a cell each.
    g.width()
        + g.chars()
            .filter(|c| matches!(c, '\u{ff9e}' | '\u{ff9f}'))
            .count()
}

/// Display width of a string, summed over its grapheme clusters.
pub fn str_width(s: &str) -> usize {
    if s.is_ascii() {
        return s.bytes().filter(|b| !b.is_ascii_control()).count();
    }
    s.graphemes(true).map(grapheme_width).sum()
}

/// Truncates `s` to at most `width` columns, adding `…` when cut. Cuts only between
/// grapheme clusters, so an emoji sequence or a combining mark stays whole.
pub fn truncate(s: &str, width: usize) -> String {
    if str_width(s) <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut w = 0;
    for g in s.graphemes(true) {
        let gw = grapheme_width(g);
        if w + gw + 1 > width {
            break;
        }
        out.push_str(g);
        w += gw;
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emoji_zwj_flag_and_combining_marks_measure_as_the_terminal_shows_them() {
        assert_eq!(str_width("👨\u{200d}👩\u{200d}👧"), 2);
        assert_eq!(str_width("🇨🇳"), 2);
        assert_eq!(str_width("e\u{301}"), 1);
        assert_eq!(str_width("中文"), 4);
    }

    #[test]
    fn truncate_never_splits_a_zwj_family_flag_or_combining_mark() {
        let fam = "👨\u{200d}👩\u{200d}👧";
        assert_eq!(truncate(&format!("{fam}{fam}x"), 4), format!("{fam}…"));
        assert_eq!(truncate("🇨🇳🇺🇸x", 4), "🇨🇳…");
        assert_eq!(
            truncate("e\u{301}e\u{301}e\u{301}x", 3),
            "e\u{301}e\u{301}…"
        );
        assert_eq!(truncate("short", 10), "short");
        assert_eq!(truncate("abc", 0), "");
    }
}
