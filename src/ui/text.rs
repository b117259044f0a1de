//! Text safety and display-width wrapping shared by every pane.
//!
//! Control characters from the model, tools or files are escaped before they reach a
//! cell (only the UI emits escape sequences), and wrapping is by terminal display width
//! so CJK runs break between characters and never overflow a row.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// Escapes C0/C1 control characters (except newline) as visible `\xNN`; a tab becomes four spaces.
pub fn sanitize(s: &str) -> String {
    if !s.chars().any(|c| c.is_control() && c != '\n') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push('\n'),
            '\t' => out.push_str("    "),
            '\r' => {}
            c if c.is_control() => {
                let n = c as u32;
                out.push_str(&format!("\\x{n:02X}"));
            }
            c => out.push(c),
        }
    }
    out
}

/// Display width of one character (control characters count as zero; they are escaped earlier).
pub fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// Display width of a string.
pub fn str_width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

/// Truncates `s` to at most `width` columns, adding `…` when cut.
pub fn truncate(s: &str, width: usize) -> String {
    if str_width(s) <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = char_width(c);
        if w + cw + 1 > width {
            break;
        }
        out.push(c);
        w += cw;
    }
    out.push('…');
    out
}

/// Wraps one styled line to `width` columns: breaks after spaces and around wide (CJK)
/// characters, hard-breaks words longer than a row. `indent` columns of spaces start every
/// continuation row.
pub fn wrap_line(line: &Line<'static>, width: usize, indent: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let indent = if indent * 2 >= width { 0 } else { indent };
    let chars: Vec<(char, Style)> = line
        .spans
        .iter()
        .flat_map(|s| {
            let st = line.style.patch(s.style);
            s.content.chars().map(move |c| (c, st))
        })
        .collect();
    let total: usize = chars.iter().map(|(c, _)| char_width(*c)).sum();
    if total <= width {
        return vec![line.clone()];
    }
    let mut rows: Vec<Vec<(char, Style)>> = Vec::new();
    let mut cur: Vec<(char, Style)> = Vec::new();
    let mut cur_w = 0usize;
    // Index in `cur` just after the last break opportunity.
    let mut brk: Option<usize> = None;
    let start_w = |rows: &Vec<Vec<(char, Style)>>| if rows.is_empty() { 0 } else { indent };
    for &(c, st) in &chars {
        let cw = char_width(c);
        if cur_w + cw > width {
            if c == ' ' {
                // A space at the edge becomes the break itself.
                rows.push(std::mem::take(&mut cur));
                cur_w = start_w(&rows);
                brk = None;
                continue;
            }
            match brk {
                Some(b) if b > 0 && b < cur.len() => {
                    let rest = cur.split_off(b);
                    rows.push(std::mem::take(&mut cur));
                    cur = rest;
                }
                Some(b) if b == cur.len() => {
                    rows.push(std::mem::take(&mut cur));
                }
                _ => rows.push(std::mem::take(&mut cur)),
            }
            cur_w = start_w(&rows) + cur.iter().map(|(c, _)| char_width(*c)).sum::<usize>();
            brk = None;
        }
        if cw == 2 && !cur.is_empty() {
            brk = Some(cur.len());
        }
        cur.push((c, st));
        cur_w += cw;
        if c == ' ' || cw == 2 {
            brk = Some(cur.len());
        }
    }
    if !cur.is_empty() || rows.is_empty() {
        rows.push(cur);
    }
    rows.into_iter()
        .enumerate()
        .map(|(i, row)| {
            let mut spans: Vec<Span<'static>> = Vec::new();
            if i > 0 && indent > 0 {
                spans.push(Span::raw(" ".repeat(indent)));
            }
            let mut buf = String::new();
            let mut style: Option<Style> = None;
            for (c, st) in row {
                if style != Some(st) {
                    if let Some(s) = style
                        && !buf.is_empty()
                    {
                        spans.push(Span::styled(std::mem::take(&mut buf), s));
                    }
                    style = Some(st);
                }
                buf.push(c);
            }
            if let Some(s) = style
                && !buf.is_empty()
            {
                spans.push(Span::styled(buf, s));
            }
            Line::from(spans)
        })
        .collect()
}

/// Wraps `body` to `width` columns with `first` before its first row and `rest` before
/// every continuation row (quote bar, list indent, tool-output gutter, help column), so a
/// wrapped line keeps its gutter. Rows never exceed `width` columns.
pub fn wrap_prefixed(
    body: &Line<'static>,
    width: usize,
    first: &[Span<'static>],
    rest: &[Span<'static>],
) -> Vec<Line<'static>> {
    let pw = |p: &[Span<'static>]| p.iter().map(|s| str_width(&s.content)).sum::<usize>();
    let gutter = pw(first).max(pw(rest));
    let inner = width.saturating_sub(gutter).max(1);
    wrap_line(body, inner, 0)
        .into_iter()
        .enumerate()
        .map(|(i, row)| {
            let mut spans: Vec<Span<'static>> = if i == 0 {
                first.to_vec()
            } else {
                rest.to_vec()
            };
            spans.extend(row.spans);
            Line::from(spans).style(body.style)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line_width(line: &Line<'_>) -> usize {
        line.spans.iter().map(|s| str_width(&s.content)).sum()
    }

    fn texts(lines: &[Line<'static>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(sanitize("a\x1b[2Jb\x07"), "a\\x1B[2Jb\\x07");
        assert_eq!(sanitize("x\u{9b}y"), "x\\x9By");
        assert_eq!(sanitize("line\nnext\tt"), "line\nnext    t");
    }

    #[test]
    fn cjk_wraps_between_characters_by_display_width() {
        let l = Line::from("测试123你好世界");
        let rows = wrap_line(&l, 6, 0);
        assert_eq!(texts(&rows), vec!["测试", "123你", "好世界"]);
        for r in &rows {
            assert!(line_width(r) <= 6);
        }
    }

    #[test]
    fn words_break_at_spaces_and_long_words_hard_break() {
        let rows = wrap_line(&Line::from("hello world abcdefghijkl"), 8, 0);
        assert_eq!(texts(&rows), vec!["hello ", "world ", "abcdefgh", "ijkl"]);
    }
}
