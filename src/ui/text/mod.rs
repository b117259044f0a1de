//! Text safety, display width and wrapping shared by every pane.
//!
//! Control characters from the model, tools or files are escaped before they reach a
//! cell (only the UI emits escape sequences; `safe_text`). `width.rs` measures and truncates
//! per grapheme cluster; `wrap.rs` wraps styled lines (UAX #14, kinsoku).

mod width;
mod wrap;

pub use crate::safe_text::{sanitize, sanitized};
pub use width::{char_width, grapheme_width, str_width, truncate};
pub use wrap::{is_closing_punct, wrap_line, wrap_prefixed, wrap_ranges};

/// Whether `needle` is a subsequence of `hay` (case-insensitive fuzzy match).
pub fn fuzzy_match(hay: &str, needle: &str) -> bool {
    let mut it = hay.chars().flat_map(char::to_lowercase);
    needle
        .chars()
        .flat_map(char::to_lowercase)
        .all(|n| it.any(|h| h == n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(sanitize("a\x1b[2Jb\x07"), "a\\x1B[2Jb\\x07");
        assert_eq!(sanitize("x\u{9b}y"), "x\\x9By");
        assert_eq!(sanitize("line\nnext\tt"), "line\nnext    t");
    }
}
