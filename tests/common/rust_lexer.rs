//! The one Rust lexer of the test suite: it tells code from comments and literals, so that
//! the structure tests (module cycles, Fluent keys used by the code) read paths and strings
//! the way the compiler does. Comments (nested block comments too), string literals (plain,
//! byte, C, raw with any number of `#`), char and byte literals and lifetimes are known.
//! Every view keeps the byte offsets and newlines of the source, so a position or a line
//! number found in one view is valid in the others.

/// A string literal in a source file.
#[derive(Debug, Clone)]
pub struct Literal {
    /// Its contents (escapes left as written).
    pub text: String,
    /// Byte offset of the literal's first byte (its `r`/`b`/`c` prefix or opening quote).
    pub start: usize,
    /// 1-based line.
    pub line: usize,
}

/// One lexed source text.
#[derive(Debug, Clone)]
pub struct Lexed {
    /// The text with comments blanked out.
    pub code: String,
    /// The text with comments and every literal (prefix, quotes and contents) blanked out:
    /// what is left is code alone, for brace matching and tokenizing. The quote of a
    /// lifetime (`'a`) stays.
    pub skeleton: String,
    /// Every string literal, in source order.
    pub literals: Vec<Literal>,
}

/// Blanks `buf[a..b]`, keeping newlines (and so line numbers).
fn blank(buf: &mut [u8], a: usize, b: usize) {
    let b = b.min(buf.len());
    for c in &mut buf[a..b] {
        if *c != b'\n' {
            *c = b' ';
        }
    }
}

/// Whether `b[i]` starts a token rather than continuing an identifier.
fn at_token_start(b: &[u8], i: usize) -> bool {
    i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] >= 0x80)
}

/// For `r"`, `r#"`, `b"`, `br#"`, `c"`, `cr"`…: (prefix length up to the quote, number of
/// `#`, raw?).
fn prefixed_string_start(b: &[u8]) -> Option<(usize, usize, bool)> {
    let mut i = 0;
    if matches!(b.first(), Some(b'b' | b'c')) {
        i += 1;
    }
    let raw = b.get(i) == Some(&b'r');
    if raw {
        i += 1;
    }
    if i == 0 {
        return None;
    }
    let hashes = b[i..].iter().take_while(|&&c| c == b'#').count();
    if !raw && hashes > 0 {
        return None;
    }
    (b.get(i + hashes) == Some(&b'"')).then_some((i + hashes, hashes, raw))
}

/// Lexes Rust source text.
pub fn lex(text: &str) -> Lexed {
    let b = text.as_bytes();
    let mut code = b.to_vec();
    let mut skeleton = b.to_vec();
    let mut literals = Vec::new();
    let newlines: Vec<usize> = (0..b.len()).filter(|&k| b[k] == b'\n').collect();
    let line_of = |i: usize| newlines.partition_point(|&n| n < i) + 1;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            let end = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| i + p);
            blank(&mut code, i, end);
            blank(&mut skeleton, i, end);
            i = end;
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let (mut depth, mut j) = (1, i + 2);
            while j < b.len() && depth > 0 {
                if b[j] == b'/' && b.get(j + 1) == Some(&b'*') {
                    depth += 1;
                    j += 2;
                } else if b[j] == b'*' && b.get(j + 1) == Some(&b'/') {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut code, i, j);
            blank(&mut skeleton, i, j);
            i = j;
        } else if c == b'"'
            || (matches!(c, b'r' | b'b' | b'c')
                && at_token_start(b, i)
                && prefixed_string_start(&b[i..]).is_some())
        {
            let (prefix_len, hashes, raw) = if c == b'"' {
                (0, 0, false)
            } else {
                prefixed_string_start(&b[i..]).unwrap_or((0, 0, false))
            };
            let open = i + prefix_len; // the opening quote
            let mut j = open + 1;
            let close;
            loop {
                if j >= b.len() {
                    close = b.len();
                    break;
                }
                if !raw && b[j] == b'\\' {
                    j += 2;
                    continue;
                }
                if b[j] == b'"' && b[j + 1..].iter().take(hashes).all(|&h| h == b'#') {
                    close = j;
                    break;
                }
                j += 1;
            }
            let end = (close + 1 + hashes).min(b.len());
            literals.push(Literal {
                text: String::from_utf8_lossy(&b[open + 1..close.min(b.len())]).into_owned(),
                start: i,
                line: line_of(i),
            });
            blank(&mut skeleton, i, end);
            i = end;
        } else if c == b'\'' {
            // A char literal ('x', '\n', '\u{..}', '"'), a byte literal (b'x') or a lifetime ('a).
            let from = if i > 0 && b[i - 1] == b'b' && at_token_start(b, i - 1) {
                i - 1
            } else {
                i
            };
            if b.get(i + 1) == Some(&b'\\') {
                let end = b[i + 2..]
                    .iter()
                    .position(|&c| c == b'\'')
                    .map_or(b.len(), |p| i + 2 + p + 1);
                blank(&mut skeleton, from, end);
                i = end;
            } else {
                let ch_len = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                if b.get(i + 1 + ch_len) == Some(&b'\'') {
                    blank(&mut skeleton, from, i + 2 + ch_len);
                    i += 2 + ch_len;
                } else {
                    i += 1; // a lifetime or a label: its name is code
                }
            }
        } else {
            i += 1;
        }
    }
    Lexed {
        code: String::from_utf8_lossy(&code).into_owned(),
        skeleton: String::from_utf8_lossy(&skeleton).into_owned(),
        literals,
    }
}
