//! Wrapping that keeps its column: the key-help overlay wraps a long
//! description under the description column instead of cutting it with `…`.

use deepterm::i18n::{Locale, Localizer};
use deepterm::ui::help;
use deepterm::ui::keymap;
use deepterm::ui::snapshot;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use unicode_width::UnicodeWidthStr;

fn draw(locale: Locale, w: u16, h: u16) -> Buffer {
    let area = Rect::new(0, 0, w, h);
    let mut buf = Buffer::empty(area);
    help::draw(Localizer::new(locale), area, &mut buf);
    buf
}

/// Row `y` as (x, symbol) for every cell that starts a glyph.
fn cells(buf: &Buffer, y: u16) -> Vec<(u16, String)> {
    let mut out = Vec::new();
    let mut x = buf.area.left();
    while x < buf.area.right() {
        let sym = buf[(x, y)].symbol().to_string();
        let w = sym.width().max(1) as u16;
        out.push((x, sym));
        x += w;
    }
    out
}

fn text(cells: &[(u16, String)], from: u16, to: u16) -> String {
    cells
        .iter()
        .filter(|(x, _)| (from..to).contains(x))
        .map(|(_, s)| s.as_str())
        .collect()
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Tall enough for the whole key help at 60 columns ( added the pickers' keys).
const H: u16 = 64;

#[test]
fn help_overlay_at_60_columns_wraps_long_descriptions_under_their_column() {
    // Every key row of the keymap table, with its localized label (the mouse row only
    // shows with the mouse captured; `draw` draws the default, released).
    let keys: Vec<_> = keymap::help_rows()
        .iter()
        .filter(|(_, d)| *d != "tui-help-mouse")
        .collect();
    for locale in Locale::ALL {
        let l = Localizer::new(locale);
        let buf = draw(locale, 60, H);
        // The box: top border row has `┌`, body rows start with `│`.
        let top = (0..H)
            .find(|&y| cells(&buf, y).iter().any(|(_, s)| s == "┌"))
            .expect("overlay border");
        let row0 = cells(&buf, top + 1);
        let left = row0
            .iter()
            .find(|(_, s)| s == "│")
            .map(|(x, _)| *x)
            .expect("left border");
        let right = row0
            .iter()
            .rev()
            .find(|(_, s)| s == "│")
            .map(|(x, _)| *x)
            .expect("right");
        // The description column: where "Send the message" starts on the Enter row.
        let first_key = keymap::label_text(l, &keys[0].0);
        let after_key = left + 1 + first_key.width() as u16;
        let desc_x = row0
            .iter()
            .find(|(x, s)| *x >= after_key && s != " ")
            .map(|(x, _)| *x)
            .expect("description column");
        // A key name wider than its column is never cut: it has a row of its own, and
        // its description starts on the next row, under the column.
        let labels: Vec<String> = keys.iter().map(|(k, _)| keymap::label_text(l, k)).collect();
        // Group body rows into entries: a row with a key starts one, a row with a blank
        // key column continues the previous description.
        let mut entries: Vec<(String, String)> = Vec::new();
        let mut continuation_rows = 0;
        for y in top + 1..H {
            let c = cells(&buf, y);
            if c.iter().any(|(_, s)| s == "└") {
                break;
            }
            let whole = text(&c, left + 1, right);
            if labels
                .iter()
                .any(|k| k.width() > (desc_x - left - 3) as usize && *k == whole.trim())
            {
                entries.push((whole.trim().to_string(), String::new()));
                continue;
            }
            let key = text(&c, left + 1, desc_x);
            let desc = text(&c, desc_x, right);
            if key.trim().is_empty() {
                assert_ne!(
                    desc.chars().next(),
                    Some(' '),
                    "{locale:?}: a continuation row starts under the description column"
                );
                let (_, d) = entries.last_mut().expect("a continuation follows an entry");
                d.push_str(&desc);
                continuation_rows += 1;
            } else {
                entries.push((key.trim().to_string(), desc));
            }
        }
        assert!(
            continuation_rows > 0,
            "{locale:?}: something wraps at 60 columns"
        );
        // The help scrolls when its rows do not fit: check the key rows it shows whole
        // (the last entry may continue below the fold, then comes the close hint).
        let shown_whole = entries.len().saturating_sub(2).min(keys.len());
        assert!(shown_whole >= 10, "{locale:?}: most key rows fit at 60x48");
        for (i, (key, desc_id)) in keys.iter().enumerate().take(shown_whole) {
            let key = keymap::label_text(l, key);
            let (shown_key, shown) = &entries[i];
            assert_eq!(shown_key, &key, "{locale:?}: a key name is shown whole");
            let want = l.tr(desc_id);
            assert!(
                !shown.contains('…') || want.contains('…'),
                "{locale:?}: {shown:?} cut"
            );
            assert_eq!(
                squash(shown),
                squash(&want),
                "{locale:?}: {desc_id} shown in full"
            );
        }
        let tag = match locale {
            Locale::EnUs => "en",
            Locale::ZhCn => "zh",
        };
        insta::assert_snapshot!(format!("help_wrap_{tag}_60x{H}"), snapshot::symbols(&buf));
        insta::assert_snapshot!(
            format!("help_wrap_{tag}_60x{H}_styled"),
            snapshot::styled(&buf)
        );
    }
}

/// Renders `lines` into a buffer `w` columns wide, one row per line.
fn render(lines: &[ratatui::text::Line<'static>], w: u16) -> Buffer {
    let mut buf = Buffer::empty(Rect::new(0, 0, w, lines.len() as u16));
    for (y, line) in lines.iter().enumerate() {
        buf.set_line(0, y as u16, line, w);
    }
    buf
}

#[test]
fn quote_and_tool_output_keep_their_gutter_and_styles_at_40_cols() {
    use deepterm::ui::text::wrap_prefixed;
    use ratatui::style::{Color, Style};
    use ratatui::text::{Line, Span};

    let bar = [Span::styled("▎ ", Style::new().fg(Color::DarkGray))];
    let quote = Line::from(vec![
        Span::raw("Quoted text with a "),
        Span::styled(
            "bold phrase that crosses the row break",
            Style::new().bold(),
        ),
        Span::raw(" and a tail."),
    ]);
    let gutter = [Span::styled("  │ ", Style::new().fg(Color::DarkGray))];
    let out = Line::from(
        "error[E0308]: mismatched types at /home/user/deepterm/src/ui/text.rs:120:7 expected `usize`",
    );
    let cjk = Line::from(
        "前缀缓存按请求的最长公共前缀命中。工具声明位于请求开头，任何增删都会改变前缀，因此把工具变更写成历史中的消息。",
    );
    let mut lines = wrap_prefixed(&quote, 40, &bar, &bar);
    lines.extend(wrap_prefixed(&out, 40, &gutter, &gutter));
    lines.extend(wrap_prefixed(&cjk, 40, &bar, &bar));
    let buf = render(&lines, 40);
    for y in 0..buf.area.height {
        let c = cells(&buf, y);
        let first = text(&c, 0, 4);
        assert!(
            first.starts_with("▎ ") || first == "  │ ",
            "row {y} lost its gutter: {first:?}"
        );
        let body = text(&c, if first == "  │ " { 4 } else { 2 }, 40);
        assert!(!body.starts_with(' '), "row {y} starts with a break space");
        for p in ['，', '。', '、'] {
            assert!(!body.starts_with(p), "row {y} starts with {p}");
        }
    }
    insta::assert_snapshot!("gutters_40_styled", snapshot::styled(&buf));
}
