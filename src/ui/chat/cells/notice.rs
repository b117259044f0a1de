//! Cells localized at draw time: a notice and a command's output (its tables in two
//! columns).

use ratatui::text::{Line, Span};

use crate::agent::protocol::{Notice, NoticeLevel, OUTPUT_ROW, OutputLine, row_cells};
use crate::ui::text::{sanitize, str_width, wrap_line, wrap_prefixed};
use crate::ui::theme;

use super::base::{HistoryCell, Parts, wrap_all};
use crate::ui::model::RenderCtx;

impl HistoryCell for Notice {
    fn rows(&self, width: usize, ctx: &RenderCtx, _expanded: bool) -> Parts {
        let style = match self.level {
            NoticeLevel::Info => theme::dim(),
            NoticeLevel::Warn => theme::warn(),
            NoticeLevel::Error => theme::error(),
        };
        let text = sanitize(&ctx.l.tra_owned(&self.key, &self.args));
        Parts::separated(wrap_line(&Line::from(Span::styled(text, style)), width, 0))
    }
}

/// A command's output lines.
#[derive(Debug, Clone)]
pub struct OutputCell {
    /// The lines, localized at draw time.
    pub lines: Vec<OutputLine>,
}

impl HistoryCell for OutputCell {
    fn rows(&self, width: usize, ctx: &RenderCtx, _expanded: bool) -> Parts {
        let mut out = Vec::new();
        let mut rest = self.lines.as_slice();
        while let Some(first) = rest.first() {
            let n = rest.iter().take_while(|t| t.key == OUTPUT_ROW).count();
            if n > 0 {
                out.extend(table_rows(&rest[..n], width, ctx));
                rest = &rest[n..];
            } else {
                let row = Line::from(sanitize(&ctx.l.text(first)));
                out.extend(wrap_all(vec![row], width));
                rest = &rest[1..];
            }
        }
        Parts::separated(out)
    }
}

/// Columns before a table's left column, and between its two columns.
const TABLE_INDENT: usize = 2;
const TABLE_GAP: usize = 2;
/// The widest left column: a longer entry (a long argument synopsis) takes a row of its
/// own above its description, so the descriptions keep a wide column.
const TABLE_LEFT_MAX: usize = 26;

/// A two-column table (`/help`, §14.5): every description starts at one column and a
/// wrapped one continues there, at any width and in either language.
fn table_rows(rows: &[OutputLine], width: usize, ctx: &RenderCtx) -> Vec<Line<'static>> {
    let cells: Vec<(String, String)> = rows
        .iter()
        .filter_map(|t| row_cells(t, ctx.l))
        .map(|(a, b)| (sanitize(&a), sanitize(&b)))
        .collect();
    let cap = TABLE_LEFT_MAX.min(width * 2 / 5);
    let col = cells
        .iter()
        .map(|(a, _)| str_width(a))
        .filter(|w| *w <= cap)
        .max()
        .unwrap_or(0);
    let indent = [Span::raw(" ".repeat(TABLE_INDENT))];
    let hanging = [Span::raw(" ".repeat(TABLE_INDENT + col + TABLE_GAP))];
    let mut out = Vec::new();
    for (left, right) in cells {
        let lw = str_width(&left);
        let right = Line::from(right);
        if lw <= col {
            let pad = " ".repeat(col - lw + TABLE_GAP);
            let first = [indent[0].clone(), Span::raw(left), Span::raw(pad)];
            out.extend(wrap_prefixed(&right, width, &first, &hanging));
        } else {
            out.extend(wrap_prefixed(&Line::from(left), width, &indent, &indent));
            out.extend(wrap_prefixed(&right, width, &hanging, &hanging));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Locale, Localizer};
    use crate::ui::model::ToolCardMode;

    /// `/help`'s rows as text at `width`.
    fn help(width: usize, locale: Locale) -> Vec<String> {
        let ctx = RenderCtx {
            l: Localizer::new(locale),
            cards: ToolCardMode::Collapsed,
            generation: 0,
        };
        let cell = OutputCell {
            lines: crate::agent::commands::help_lines(),
        };
        cell.rows(width, &ctx, false)
            .head
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    /// The display column where a command row's description starts (after the command
    /// and at least two spaces), if it is on that row.
    fn description_column(row: &str) -> Option<usize> {
        let gap = row[2..].find("  ")? + 2;
        let start = gap + row[gap..].len() - row[gap..].trim_start().len();
        Some(str_width(&row[..start]))
    }

    #[test]
    fn help_is_a_table_whose_wrapped_descriptions_keep_their_column() {
        for locale in Locale::ALL {
            for width in [40, 80, 120] {
                let rows = help(width, locale);
                let ctx = format!("{locale:?} {width}:\n{}", rows.join("\n"));
                assert!(rows[1].starts_with("  /help "), "{ctx}");
                let col = description_column(&rows[1]).expect("a description");
                let mut wrapped = 0;
                // Inside a synopsis too long for the left column (it has rows of its own).
                let mut synopsis = false;
                for r in &rows[1..] {
                    assert!(str_width(r) <= width, "{ctx}");
                    let indent = r.len() - r.trim_start().len();
                    if r.starts_with("  /") {
                        // The description starts at the column, or under the synopsis.
                        match description_column(r) {
                            Some(c) => assert_eq!(c, col, "{r:?} in {ctx}"),
                            None => synopsis = true,
                        }
                    } else if synopsis && indent == 2 {
                        // The rest of a synopsis wider than the row.
                    } else {
                        synopsis = false;
                        // A wrapped description (or one under a long synopsis) keeps to
                        // the column.
                        assert_eq!(indent, col, "{r:?} in {ctx}");
                        wrapped += 1;
                    }
                }
                assert!(wrapped > 0, "some descriptions wrap at {width}: {ctx}");
            }
        }
    }
}
