//! Text renderings of a ratatui buffer for snapshot tests: the symbols alone, and the
//! symbols with their styles, so colour and selection regressions fail a snapshot too.

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};
use unicode_width::UnicodeWidthStr;

/// The buffer's symbols, one row per line, trailing spaces trimmed.
pub fn symbols(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        let mut line = String::new();
        let mut skip = 0;
        for x in area.left()..area.right() {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let sym = buf[(x, y)].symbol();
            line.push_str(sym);
            skip = sym.width().max(1) - 1;
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn color(c: Color) -> String {
    match c {
        Color::Reset => String::new(),
        Color::Indexed(i) => format!("#{i}"),
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        other => format!("{other:?}"),
    }
}

fn style_tag(st: Style) -> String {
    let mut parts = Vec::new();
    if let Some(fg) = st.fg.filter(|c| *c != Color::Reset) {
        parts.push(format!("fg={}", color(fg)));
    }
    if let Some(bg) = st.bg.filter(|c| *c != Color::Reset) {
        parts.push(format!("bg={}", color(bg)));
    }
    let m = st.add_modifier - st.sub_modifier;
    if !m.is_empty() && m != Modifier::empty() {
        parts.push(format!("{m:?}").replace("Modifier(", "").replace(')', ""));
    }
    parts.join(" ")
}

/// Every row as runs of equally styled cells: `«text»{fg=… bg=… MODS}` for styled runs,
/// plain text for unstyled ones. Rows that are entirely blank and unstyled are `~`.
pub fn styled(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        let mut runs: Vec<(String, String)> = Vec::new();
        let mut skip = 0;
        for x in area.left()..area.right() {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let cell = &buf[(x, y)];
            let sym = cell.symbol();
            skip = sym.width().max(1) - 1;
            let tag = style_tag(cell.style());
            match runs.last_mut() {
                Some((t, text)) if *t == tag => text.push_str(sym),
                _ => runs.push((tag, sym.to_string())),
            }
        }
        // Trailing unstyled spaces carry nothing.
        if let Some((t, text)) = runs.last_mut()
            && t.is_empty()
        {
            let trimmed = text.trim_end().len();
            text.truncate(trimmed);
        }
        let row: String = runs
            .into_iter()
            .filter(|(_, text)| !text.is_empty())
            .map(|(t, text)| {
                if t.is_empty() {
                    text
                } else {
                    format!("«{text}»{{{t}}}")
                }
            })
            .collect();
        out.push_str(if row.is_empty() { "~" } else { &row });
        out.push('\n');
    }
    out
}

/// Rendered lines as plain text, one row per line (the spans' text joined, no styles).
pub fn lines_text(lines: &[ratatui::text::Line<'_>]) -> String {
    lines
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;

    #[test]
    fn styled_rows_show_colour_and_modifiers_of_each_run() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 12, 2));
        buf.set_string(0, 0, "ab", Style::default().fg(Color::Red));
        buf.set_string(2, 0, "cd", Style::default());
        buf.set_string(4, 0, "中", Style::default().add_modifier(Modifier::BOLD));
        let s = styled(&buf);
        assert_eq!(s, "«ab»{fg=Red}cd«中»{BOLD}\n~\n");
        assert_eq!(symbols(&buf), "abcd中\n\n");
    }
}
