//! Tokens of Rust source for the layering scan: identifiers, `::` and single punctuation
//! characters, each with its line, over the shared lexer's skeleton; and the token helpers
//! the scanner uses (test items dropped, bracket groups skipped).

use crate::common::rust_lexer;

/// One token of Rust source: an identifier (or number), `::`, or one punctuation character.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Token {
    pub(super) text: String,
    pub(super) line: usize,
}

pub(super) fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

pub(super) fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

pub(super) fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| is_ident_start(c) || c == '$')
}

/// Tokenizes Rust source, dropping comments, string/char literals and lifetimes: the
/// shared lexer blanks comments and literals, and what is left is split into tokens.
pub(super) fn lex(src: &str) -> Vec<Token> {
    let skeleton = rust_lexer::lex(src).skeleton;
    let c: Vec<char> = skeleton.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied();
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() || ch == '\'' {
            // The quote of a lifetime or label: its name lexes as an identifier, which is harmless.
            i += 1;
        } else if ch == 'r' && next == Some('#') && c.get(i + 2).is_some_and(|&x| is_ident_start(x))
        {
            i += 2; // r#ident: lex the identifier without its prefix
        } else if is_ident_start(ch)
            || ch.is_ascii_digit()
            || (ch == '$' && next.is_some_and(is_ident_start))
        {
            let start = i;
            i += 1;
            while i < c.len() && is_ident_char(c[i]) {
                i += 1;
            }
            out.push(Token {
                text: c[start..i].iter().collect(),
                line,
            });
        } else if ch == ':' && next == Some(':') {
            out.push(Token {
                text: "::".into(),
                line,
            });
            i += 2;
        } else {
            out.push(Token {
                text: ch.to_string(),
                line,
            });
            i += 1;
        }
    }
    out
}

pub(super) fn texts_at(toks: &[Token], i: usize, want: &[&str]) -> bool {
    want.iter()
        .enumerate()
        .all(|(k, w)| toks.get(i + k).is_some_and(|t| t.text == *w))
}

/// Index after the bracket group opening at `i` (`(`, `[` or `{`), counting all three kinds.
pub(super) fn skip_group(toks: &[Token], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < toks.len() {
        match toks[i].text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// Drops every item under `#[cfg(test)]`; a file with `#![cfg(test)]` is test code as a whole.
pub(super) fn strip_test_items(toks: Vec<Token>) -> Vec<Token> {
    const CFG_TEST: [&str; 7] = ["#", "[", "cfg", "(", "test", ")", "]"];
    if (0..toks.len())
        .any(|i| texts_at(&toks, i, &["#", "!"]) && texts_at(&toks, i + 2, &CFG_TEST[1..]))
    {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        if !texts_at(&toks, i, &CFG_TEST) {
            out.push(toks[i].clone());
            i += 1;
            continue;
        }
        i += CFG_TEST.len();
        while texts_at(&toks, i, &["#", "["]) {
            i = skip_group(&toks, i + 1);
        }
        // The item ends at a `;` outside brackets, or where its first top-level block closes.
        let mut depth = 0usize;
        while i < toks.len() {
            let t = toks[i].text.as_str();
            i += 1;
            match t {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" => depth = depth.saturating_sub(1),
                "}" => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                ";" if depth == 0 => break,
                _ => {}
            }
        }
    }
    out
}
