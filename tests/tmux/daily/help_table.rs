//! Scenario: `/help` in Chat is a two-column table whose wrapped descriptions keep their
//! column (§14.5), in the real binary under tmux at 80 and 120 columns, in both locales.

use crate::common;

/// The Chat part of a screen row (at 120 columns the Trajectory sits right of a `│`).
fn chat_part(row: &str) -> &str {
    let cut = row
        .char_indices()
        .find(|&(i, c)| c == '│' && row[..i].chars().count() >= 30)
        .map(|(i, _)| i);
    cut.map_or(row, |i| &row[..i]).trim_end()
}

/// Display columns of `s` (CJK characters take two).
fn width(s: &str) -> usize {
    s.chars()
        .map(|c| {
            if (c as u32) >= 0x1100 && !c.is_ascii() {
                2
            } else {
                1
            }
        })
        .sum()
}

/// Where a command row's description starts, if it is on that row.
fn description_column(row: &str) -> Option<usize> {
    let gap = row[2..].find("  ")? + 2;
    let start = gap + row[gap..].len() - row[gap..].trim_start().len();
    Some(width(&row[..start]))
}

fn help_keeps_its_column(w: u16, locale: &str) {
    let (tmux, _dir) = common::tmux::start_demo(&format!("help-table-{w}-{locale}"), w, 40, locale);
    tmux.type_line("/help");
    let s = tmux.wait_for("the /help table", |s| {
        s.lines().any(|l| chat_part(l).starts_with("  /quit"))
    });
    let rows: Vec<&str> = s.lines().map(chat_part).collect();
    let quit = rows.iter().position(|r| r.starts_with("  /quit")).unwrap();
    let col = description_column(rows[quit]).expect("a description");
    // The visible table above /quit: the first command row on screen, then every row.
    let first = rows.iter().position(|r| r.starts_with("  /")).unwrap();
    let mut wrapped = 0;
    let mut synopsis = false;
    for r in &rows[first..quit] {
        let indent = r.len() - r.trim_start().len();
        if r.starts_with("  /") {
            match description_column(r) {
                Some(c) => assert_eq!(c, col, "{r:?} at {w} {locale}:\n{s}"),
                None => synopsis = true,
            }
        } else if synopsis && indent == 2 {
        } else {
            synopsis = false;
            assert_eq!(indent, col, "{r:?} at {w} {locale}:\n{s}");
            wrapped += 1;
        }
    }
    assert!(wrapped > 0, "some descriptions wrap at {w} {locale}:\n{s}");
}

#[test]
fn help_descriptions_keep_their_column_80_en_120_zh() {
    if common::require_external("tmux", common::tmux_available()) {
        let cases = [(80, "en-US"), (120, "zh-CN")];
        common::concurrent::each_at_once(&cases, |&(w, l)| help_keeps_its_column(w, l));
    }
}

#[test]
fn help_descriptions_keep_their_column_80_zh_120_en() {
    if common::require_external("tmux", common::tmux_available()) {
        let cases = [(80, "zh-CN"), (120, "en-US")];
        common::concurrent::each_at_once(&cases, |&(w, l)| help_keeps_its_column(w, l));
    }
}
