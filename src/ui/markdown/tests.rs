use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;

use super::highlight::find_syntax;
use super::*;
use crate::ui::text::str_width;
use crate::ui::theme;

fn plain(l: &Line<'static>) -> String {
    l.spans.iter().map(|s| s.content.as_ref()).collect()
}

fn texts(lines: &[Line<'static>]) -> Vec<String> {
    lines.iter().map(plain).collect()
}

fn width_of(l: &Line<'static>) -> usize {
    str_width(&plain(l))
}

fn span_with<'a>(lines: &'a [Line<'static>], text: &str) -> &'a ratatui::text::Span<'static> {
    lines
        .iter()
        .flat_map(|l| l.spans.iter())
        .find(|s| s.content == text)
        .unwrap_or_else(|| panic!("no span {text:?} in {:?}", texts(lines)))
}

#[test]
fn strong_tool_name_with_double_underscore_is_one_bold_span() {
    let rows = render_width("call **fx__echo** now", 80);
    assert_eq!(texts(&rows), vec!["call fx__echo now"]);
    let s = span_with(&rows, "fx__echo");
    assert!(s.style.add_modifier.contains(Modifier::BOLD));
    for span in &rows[0].spans {
        assert!(
            !span.style.add_modifier.contains(Modifier::ITALIC),
            "{span:?} is italic"
        );
    }
}

#[test]
fn emphasis_strikethrough_and_inline_code_are_styled() {
    let rows = render_width("*it* ~~gone~~ `a*b*c`", 80);
    assert!(
        span_with(&rows, "it")
            .style
            .add_modifier
            .contains(Modifier::ITALIC)
    );
    assert!(
        span_with(&rows, "gone")
            .style
            .add_modifier
            .contains(Modifier::CROSSED_OUT)
    );
    assert_eq!(span_with(&rows, "a*b*c").style, theme::code());
}

#[test]
fn code_block_text_is_never_interpreted() {
    let src = "```\nlet u = find(\"//\"); // https://example.com/a_b_c\n**not bold** | x |\n```";
    let rows = render_width(src, 120);
    assert_eq!(
        texts(&rows),
        vec![
            "─ code",
            "  let u = find(\"//\"); // https://example.com/a_b_c",
            "  **not bold** | x |",
        ]
    );
    for l in &rows[1..] {
        for s in &l.spans {
            assert!(!s.style.add_modifier.contains(Modifier::BOLD));
            assert!(!s.style.add_modifier.contains(Modifier::DIM), "{s:?}");
        }
    }
}

#[test]
fn url_inside_highlighted_code_is_a_string_not_a_comment() {
    let rows = render_width("```rust\nlet u = \"https://x.io//y\";\n```", 80);
    assert_eq!(plain(&rows[1]), "  let u = \"https://x.io//y\";");
    let s = rows[1]
        .spans
        .iter()
        .find(|s| s.content.contains("https"))
        .expect("url span");
    assert_eq!(s.style.fg, Some(Color::Green));
    assert!(!s.style.add_modifier.contains(Modifier::DIM));
}

#[test]
fn pipe_line_that_is_not_a_table_stays_text() {
    let rows = render_width("| not a table\nnext", 80);
    assert_eq!(texts(&rows), vec!["| not a table", "next"]);
}

#[test]
fn headings_are_distinct_by_level() {
    let rows = render_width("# One\n\n## Two\n\n### Three\n\n#### Four", 80);
    assert_eq!(
        texts(&rows),
        vec!["One", "", "Two", "", "Three", "", "Four"]
    );
    let styles: Vec<Style> = [0, 2, 4, 6]
        .iter()
        .map(|i| rows[*i].spans[0].style)
        .collect();
    for i in 0..styles.len() {
        for j in i + 1..styles.len() {
            assert_ne!(styles[i], styles[j], "levels {} and {}", i + 1, j + 1);
        }
    }
    assert!(styles[0].add_modifier.contains(Modifier::BOLD));
}

#[test]
fn nested_lists_keep_their_indent_when_wrapped_at_40() {
    let src = "- outer item with enough words to wrap around the row\n  - inner item that also has enough words to wrap twice over\n1. first\n2. second";
    let rows = render_width(src, 40);
    let t = texts(&rows);
    assert!(t[0].starts_with("• outer"), "{t:?}");
    assert!(t[1].starts_with("  ") && !t[1].starts_with("   "), "{t:?}");
    let inner = t
        .iter()
        .position(|r| r.starts_with("  ◦ inner"))
        .expect("inner");
    assert!(t[inner + 1].starts_with("    ") && !t[inner + 1].starts_with("     "));
    assert!(t.iter().any(|r| r == "1. first"));
    assert!(t.iter().any(|r| r == "2. second"));
    for r in &rows {
        assert!(width_of(r) <= 40, "{r:?}");
    }
}

#[test]
fn ordered_list_continuation_aligns_under_text() {
    let rows = render_width("10. a long ordered item that wraps onto a second row", 30);
    let t = texts(&rows);
    assert!(t[0].starts_with("10. a"));
    assert!(
        t[1].starts_with("    ") && !t[1].starts_with("     "),
        "{t:?}"
    );
}

#[test]
fn task_list_items_show_boxes() {
    let rows = render_width("- [ ] todo\n- [x] done", 80);
    assert_eq!(texts(&rows), vec!["• ☐ todo", "• ☑ done"]);
}

#[test]
fn quote_bar_is_on_every_wrapped_row_and_nests() {
    let src = "> a quoted paragraph long enough to wrap over several rows at forty\n>\n> > nested quote text that also wraps around";
    let rows = render_width(src, 40);
    for r in &rows {
        assert!(plain(r).starts_with('▎'), "{:?}", texts(&rows));
        assert!(width_of(r) <= 40);
    }
    assert!(texts(&rows).iter().any(|r| r.starts_with("▎ ▎ nested")));
    let last = rows.last().expect("rows");
    assert!(plain(last).starts_with("▎ ▎ "));
}

#[test]
fn table_columns_follow_alignment() {
    let src = "| left | right | mid |\n|:---|---:|:---:|\n| a | 1 | x |\n| bbbb | 22222 | yyyyy |";
    let rows = render_width(src, 80);
    let t = texts(&rows);
    assert_eq!(t[0], "left │ right │  mid");
    assert_eq!(t[1], "─────┼───────┼──────");
    assert_eq!(t[2], "a    │     1 │   x");
    assert_eq!(t[3], "bbbb │ 22222 │ yyyyy");
    assert!(
        span_with(&rows, "left")
            .style
            .add_modifier
            .contains(Modifier::BOLD)
    );
}

#[test]
fn wide_table_is_truncated_with_ellipsis_and_never_overflows_40() {
    let src = "| name | description |\n|---|---|\n| fx__echo | echoes its input back to the caller unchanged, for tests |\n| 中文工具 | 一个很长的中文描述文本用于测试截断 |";
    let rows = render_width(src, 40);
    for r in &rows {
        assert!(width_of(r) <= 40, "{:?}", texts(&rows));
    }
    let t = texts(&rows);
    assert!(t[2].starts_with("fx__echo │ echoes"), "{t:?}");
    assert!(t[2].ends_with('…'), "{t:?}");
    assert!(t[3].ends_with('…'), "{t:?}");
}

#[test]
fn link_shows_text_and_dim_target_unless_identical() {
    let rows = render_width("see [docs](https://d.io/x) and <https://a.io>", 80);
    assert_eq!(
        texts(&rows),
        vec!["see docs (https://d.io/x) and https://a.io"]
    );
    assert_eq!(span_with(&rows, "docs").style, theme::link());
    assert_eq!(
        span_with(&rows, " (https://d.io/x)").style,
        theme::link_target()
    );
}

#[test]
fn rule_is_limited_to_the_width() {
    let rows = render_width("a\n\n---\n\nb", 30);
    assert_eq!(plain(&rows[2]), "─".repeat(30));
    let wide = render_width("---", 200);
    assert!(width_of(&wide[0]) <= 80);
}

#[test]
fn hard_and_soft_breaks_start_new_rows() {
    let rows = render_width("one\ntwo  \nthree", 80);
    assert_eq!(texts(&rows), vec!["one", "two", "three"]);
}

#[test]
fn fenced_code_has_label_gutter_and_wraps_inside_it() {
    let src = "```rust\nfn main() { println!(\"a fairly long line of code that wraps\"); }\n```";
    let rows = render_width(src, 30);
    assert_eq!(plain(&rows[0]), "─ rust");
    assert_eq!(rows[0].spans[0].style, theme::markup());
    for r in &rows[1..] {
        assert!(plain(r).starts_with("  "), "{:?}", texts(&rows));
        assert!(width_of(r) <= 30);
    }
    assert_eq!(span_with(&rows, "fn").style, theme::keyword());
}

#[test]
fn code_in_list_item_keeps_list_indent_and_gutter() {
    let rows = render_width("1. run:\n   ```sh\n   echo hi\n   ```", 80);
    assert_eq!(texts(&rows), vec!["1. run:", "   ─ sh", "     echo hi"]);
}

#[test]
fn unknown_language_is_plain_code() {
    let rows = render_width("```nosuchlang\nif x then y\n```", 80);
    assert_eq!(plain(&rows[0]), "─ nosuchlang");
    assert_eq!(rows[1].spans[1].style, theme::code());
}

#[test]
fn common_language_tags_and_aliases_resolve() {
    for tag in [
        "rust", "rs", "py", "python", "js", "ts", "sh", "bash", "shell", "json", "toml", "yaml",
        "go", "c", "cpp", "java", "sql", "diff",
    ] {
        assert!(find_syntax(tag).is_some(), "{tag}");
    }
    assert!(find_syntax("nosuchlang").is_none());
}

#[test]
fn highlight_palette_is_sixteen_colour_only() {
    let src = "```rust\n// c\nfn f(x: u32) -> String { let s = \"a\"; 42; true }\n```\n\n```diff\n-a\n+b\n```";
    for r in render_width(src, 120) {
        for s in &r.spans {
            for c in [s.style.fg, s.style.bg].into_iter().flatten() {
                assert!(
                    !matches!(c, Color::Rgb(..) | Color::Indexed(_)),
                    "{c:?} in {s:?}"
                );
            }
        }
    }
}

#[test]
fn streaming_table_is_held_back_until_the_chunk_closes() {
    let mut c = StreamCollector::new();
    c.push("| a | b |\n|---|---|\n| 1 | 2 |\n");
    assert!(c.committed(80).is_empty());
    assert_eq!(texts(&c.tail(80, "table …")), vec!["┄ table …"]);
    c.push("\nafter\n");
    assert_eq!(texts(&c.committed(80))[0], "a │ b");
}

#[test]
fn code_lines_commit_as_their_newline_arrives() {
    let mut c = StreamCollector::new();
    c.push("intro\n\n```py\nx = 1\ny = ");
    assert_eq!(
        texts(&c.committed(80)),
        vec!["intro", "", "─ py", "  x = 1"]
    );
    assert_eq!(texts(&c.tail(80, "")), vec!["  y = "]);
    c.push("2\n``");
    assert_eq!(c.committed_len(80), 5);
    assert!(
        c.tail(80, "").is_empty(),
        "a possible closing fence is kept back"
    );
    c.push("`\n");
    c.finish();
    assert_eq!(c.committed(80), render_width(c.source(), 80));
}

#[test]
fn streaming_pipe_header_is_held_until_its_delimiter_row_decides() {
    let mut c = StreamCollector::new();
    c.push("Intro\n\n| a | b |");
    assert_eq!(
        texts(&c.tail(80, "table …")),
        vec!["Intro", "", "┄ table …"]
    );
    c.push("\n");
    assert_eq!(texts(&c.committed(80)), vec!["Intro"]);
    assert_eq!(texts(&c.tail(80, "table …")), vec!["", "┄ table …"]);
    c.push("just text after a pipe line");
    c.finish();
    assert_eq!(
        texts(&c.committed(80)),
        vec!["Intro", "", "| a | b |", "just text after a pipe line"]
    );
}

#[test]
fn table_too_narrow_for_its_columns_is_cut_not_wrapped() {
    let src = "| a | b | c | d | e | f |\n|---|---|---|---|---|---|\n| 1 | 2 | 3 | 4 | 5 | 6 |";
    let rows = render_width(src, 12);
    assert_eq!(rows.len(), 3, "{:?}", texts(&rows));
    for r in &rows {
        assert!(width_of(r) <= 12, "{:?}", texts(&rows));
    }
}
