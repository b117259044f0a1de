//! Wrapping: break opportunities from `textwrap`'s UAX #14 word separator
//! (`unicode-linebreak`), rows laid out with its first-fit algorithm, then each row's byte
//! range mapped back onto the original styled spans, grapheme clusters kept whole. Closing
//! CJK punctuation never begins a row (kinsoku); see docs/decisions/0015-wrapping.md.

use std::ops::Range;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use textwrap::WordSeparator;
use textwrap::core::Fragment;
use unicode_segmentation::{GraphemeCursor, UnicodeSegmentation};

use super::width::{grapheme_width, str_width};

/// Whether `c` is punctuation that must not begin a row (kinsoku shori): closing CJK
/// brackets and quotes, CJK commas and stops, ellipses and dashes, and their full- and
/// half-width forms.
pub fn is_closing_punct(c: char) -> bool {
    matches!(
        c,
        '，' | '。'
            | '、'
            | '；'
            | '：'
            | '？'
            | '！'
            | '）'
            | '」'
            | '』'
            | '》'
            | '】'
            | '〕'
            | '〉'
            | '〗'
            | '〙'
            | '〛'
            | '〟'
            | '’'
            | '”'
            | '…'
            | '‥'
            | '—'
            | '－'
            | '．'
            | '］'
            | '｝'
            | '｠'
            | '｡'
            | '｣'
            | '､'
            | '・'
            | '･'
            | '々'
            | 'ー'
            | '〜'
            | '～'
            | '‼'
            | '⁇'
            | '⁈'
            | '⁉'
    )
}

fn starts_with_closer(s: &str) -> bool {
    s.chars().next().is_some_and(is_closing_punct)
}

/// Whether byte `i` of `s` lies between two grapheme clusters.
fn is_grapheme_boundary(s: &str, i: usize) -> bool {
    let b = s.as_bytes();
    if i == 0 || i >= b.len() {
        return true;
    }
    if b[i - 1].is_ascii() && b[i].is_ascii() {
        return !(b[i - 1] == b'\r' && b[i] == b'\n');
    }
    s.is_char_boundary(i)
        && GraphemeCursor::new(i, s.len(), true)
            .is_boundary(s, 0)
            .unwrap_or(true)
}

/// Byte ranges of URLs and paths (space-delimited tokens with `://`, or ASCII tokens
/// with `/` or `\\`). UAX #14 allows breaks after their slashes, but a URL or a path
/// reads as one word: it moves to the next row whole, and only a token longer than a
/// row is cut, at the width.
fn atomic_ranges(text: &str) -> Vec<Range<usize>> {
    if !text.contains(['/', '\\']) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut pos = 0;
    for tok in text.split(' ') {
        if tok.contains("://") || (tok.is_ascii() && tok.contains(['/', '\\'])) {
            out.push(pos..pos + tok.len());
        }
        pos += tok.len() + 1;
    }
    out
}

/// One unit of wrapping: `text[start..end]` is the word, `text[end..ws_end]` the
/// spaces after it (dropped when the row breaks there).
#[derive(Debug, Clone, Copy)]
struct Frag {
    start: usize,
    end: usize,
    ws_end: usize,
    width: usize,
    ws_width: usize,
}

impl Fragment for Frag {
    fn width(&self) -> f64 {
        self.width as f64
    }

    fn whitespace_width(&self) -> f64 {
        self.ws_width as f64
    }

    fn penalty_width(&self) -> f64 {
        0.0
    }
}

/// The fragments of `text`: UAX #14 words, glued where a break would split a grapheme
/// cluster, put closing punctuation at a row start or cut a URL or path; a URL or path
/// after a space starts a fragment of its own (UAX #14 allows no break before `/`).
fn fragments(text: &str) -> Vec<Frag> {
    let atomic = atomic_ranges(text);
    // Starts of UAX #14 words, then the adjustments for URLs and paths.
    let mut starts: Vec<usize> = Vec::new();
    let mut pos = 0;
    for w in WordSeparator::UnicodeBreakProperties.find_words(text) {
        starts.push(pos);
        pos += w.word.len() + w.whitespace.len();
    }
    if !atomic.is_empty() {
        starts.retain(|&p| !atomic.iter().any(|u| u.start < p && p < u.end));
        starts.extend(atomic.iter().map(|u| u.start).filter(|&p| p > 0));
        starts.sort_unstable();
        starts.dedup();
    }
    let mut frags: Vec<Frag> = Vec::with_capacity(starts.len());
    for (i, &start) in starts.iter().enumerate() {
        let ws_end = starts.get(i + 1).copied().unwrap_or(text.len());
        let end = start + text[start..ws_end].trim_end_matches(' ').len();
        let split_cluster = !is_grapheme_boundary(text, start);
        let glue = !frags.is_empty() && (split_cluster || starts_with_closer(&text[start..end]));
        if glue && let Some(prev) = frags.last_mut() {
            // Widths add up across a cluster boundary; a run of glued closers stays linear.
            prev.width = if split_cluster {
                str_width(&text[prev.start..end])
            } else {
                prev.width + prev.ws_width + str_width(&text[start..end])
            };
            prev.end = end;
            prev.ws_end = ws_end;
            prev.ws_width = str_width(&text[end..ws_end]);
            continue;
        }
        frags.push(Frag {
            start,
            end,
            ws_end,
            width: str_width(&text[start..end]),
            ws_width: str_width(&text[end..ws_end]),
        });
    }
    frags
}

/// Splits a fragment wider than `limit` into pieces of at most `limit` columns at
/// grapheme boundaries; a piece never starts with closing punctuation when the
/// character before it can go down with it.
fn hard_break(text: &str, f: Frag, limit: usize, out: &mut Vec<Frag>) {
    // (offset, width, is a plain space) of every cluster.
    let gs: Vec<(usize, usize, bool)> = text[f.start..f.end]
        .grapheme_indices(true)
        .map(|(i, g)| (f.start + i, grapheme_width(g), g == " "))
        .collect();
    let closer_at = |k: usize| starts_with_closer(&text[gs[k].0..]);
    let mut i = 0;
    while i < gs.len() {
        let mut j = i;
        let mut w = 0;
        while j < gs.len() && (j == i || w + gs[j].1 <= limit) {
            w += gs[j].1;
            j += 1;
        }
        if j < gs.len() {
            let mut k = j;
            while k > i + 1 && closer_at(k) {
                k -= 1;
            }
            if !closer_at(k) {
                j = k;
            }
        }
        // Spaces inside the word (UAX #14 keeps `a /b` or `x ，` together) that fall
        // at the cut are break spaces: they end this piece and start no row.
        let mut n = j;
        while n < gs.len() && gs[n].2 {
            n += 1;
        }
        let start = gs[i].0;
        let (end, ws_end, ws_width) = if n < gs.len() {
            let cut = gs[j].0;
            let end = start + text[start..cut].trim_end_matches(' ').len();
            let ws_end = gs[n].0;
            (end, ws_end, str_width(&text[end..ws_end]))
        } else {
            (f.end, f.ws_end, f.ws_width)
        };
        out.push(Frag {
            start,
            end,
            ws_end,
            width: str_width(&text[start..end]),
            ws_width,
        });
        i = n;
    }
}

/// Byte ranges of `text`'s rows when the first row has `first` columns and every
/// other row `rest`; spaces at a break belong to no row.
fn break_rows(text: &str, first: usize, rest: usize) -> Vec<Range<usize>> {
    let (first, rest) = (first.max(1), rest.max(1));
    let limit = first.min(rest);
    let mut frags = Vec::new();
    for f in fragments(text) {
        if f.width > limit {
            hard_break(text, f, limit, &mut frags);
        } else {
            frags.push(f);
        }
    }
    if frags.is_empty() {
        return std::iter::once(0..text.len()).collect();
    }
    let mut rows: Vec<Range<usize>> =
        textwrap::wrap_algorithms::wrap_first_fit(&frags, &[first as f64, rest as f64])
            .into_iter()
            .filter_map(|row| Some(row.first()?.start..row.last()?.end))
            .collect();
    // Leading spaces before a word too long for the first row leave that row empty.
    if rows.len() > 1 && rows[0].is_empty() {
        rows.remove(0);
    }
    rows
}

/// `line` cut into rows of `first` then `rest` columns, each row as the original spans
/// (with their own styles) restricted to the row's byte range.
fn styled_rows(line: &Line<'static>, first: usize, rest: usize) -> Vec<Vec<Span<'static>>> {
    let total: usize = line.spans.iter().map(|s| str_width(&s.content)).sum();
    if total <= first {
        return vec![line.spans.clone()];
    }
    let mut text = String::new();
    let mut ranges: Vec<(Range<usize>, Style)> = Vec::with_capacity(line.spans.len());
    for s in &line.spans {
        let start = text.len();
        text.push_str(&s.content);
        ranges.push((start..text.len(), s.style));
    }
    let mut k = 0;
    break_rows(&text, first, rest)
        .into_iter()
        .map(|row| {
            let mut spans = Vec::new();
            while k < ranges.len() && ranges[k].0.end <= row.start {
                k += 1;
            }
            let mut j = k;
            while j < ranges.len() && ranges[j].0.start < row.end {
                let (r, st) = &ranges[j];
                let (a, b) = (r.start.max(row.start), r.end.min(row.end));
                if a < b {
                    spans.push(Span::styled(text[a..b].to_string(), *st));
                }
                j += 1;
            }
            spans
        })
        .collect()
}

/// Wraps one styled line to `width` columns at UAX #14 break opportunities (spaces,
/// between CJK characters, after hyphens), hard-breaking words longer than a row. Spaces
/// at a break are dropped, rows never start with closing CJK punctuation, and every row
/// keeps the styles of the spans it came from. `indent` columns of spaces start every
/// continuation row (ignored when it would take half the width).
pub fn wrap_line(line: &Line<'static>, width: usize, indent: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let indent = if indent * 2 >= width { 0 } else { indent };
    let total: usize = line.spans.iter().map(|s| str_width(&s.content)).sum();
    if total <= width {
        return vec![line.clone()];
    }
    styled_rows(line, width, width - indent)
        .into_iter()
        .enumerate()
        .map(|(i, row)| {
            let mut spans = Vec::with_capacity(row.len() + 1);
            if i > 0 && indent > 0 {
                spans.push(Span::raw(" ".repeat(indent)));
            }
            spans.extend(row);
            Line {
                spans,
                style: line.style,
                alignment: line.alignment,
            }
        })
        .collect()
}

/// Wraps `body` to `width` columns with `first` before its first row and `rest` before
/// every continuation row (quote bar, list indent, tool-output gutter, help column), so a
/// wrapped line keeps its gutter. Rows never exceed `width` columns (unless a prefix
/// alone is wider).
pub fn wrap_prefixed(
    body: &Line<'static>,
    width: usize,
    first: &[Span<'static>],
    rest: &[Span<'static>],
) -> Vec<Line<'static>> {
    let pw = |p: &[Span<'static>]| p.iter().map(|s| str_width(&s.content)).sum::<usize>();
    let fw = width.saturating_sub(pw(first)).max(1);
    let rw = width.saturating_sub(pw(rest)).max(1);
    styled_rows(body, fw, rw)
        .into_iter()
        .enumerate()
        .map(|(i, row)| {
            let mut spans: Vec<Span<'static>> = if i == 0 {
                first.to_vec()
            } else {
                rest.to_vec()
            };
            spans.extend(row);
            Line {
                spans,
                style: body.style,
                alignment: body.alignment,
            }
        })
        .collect()
}

/// Byte ranges of the rows `text` (one line, no newline) wraps to at `width` columns,
/// with the same breaks as [`wrap_line`]; spaces at a break fall between two ranges.
pub fn wrap_ranges(text: &str, width: usize) -> Vec<Range<usize>> {
    if str_width(text) <= width.max(1) {
        return std::iter::once(0..text.len()).collect();
    }
    break_rows(text, width, width)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Modifier;

    fn line_width(line: &Line<'_>) -> usize {
        line.spans.iter().map(|s| str_width(&s.content)).sum()
    }

    fn texts(lines: &[Line<'static>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    /// Closing punctuation that must not begin a row (kinsoku), listed independently of
    /// the implementation's table.
    const CLOSERS: &str = "，。、；：？！）」』》】〕〉…—！？｡｣､";

    fn starts_with_closer(s: &str) -> bool {
        s.chars().next().is_some_and(|c| CLOSERS.contains(c))
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
    fn words_break_at_spaces_dropping_the_break_space_and_long_words_hard_break() {
        let rows = wrap_line(&Line::from("hello world abcdefghijkl"), 8, 0);
        assert_eq!(texts(&rows), vec!["hello", "world", "abcdefgh", "ijkl"]);
        // A space exactly at the edge is dropped, never carried to the next row.
        let rows = wrap_line(&Line::from("abcdefgh ijk"), 8, 0);
        assert_eq!(texts(&rows), vec!["abcdefgh", "ijk"]);
    }

    #[test]
    fn long_url_hard_breaks_at_the_width_and_keeps_every_character() {
        let url = "https://example.com/a/very/long/path/to/some/resource?query=1";
        let rows = wrap_line(&Line::from(format!("see {url} now")), 20, 0);
        for r in &rows {
            assert!(line_width(r) <= 20, "{:?}", texts(&rows));
        }
        // The URL is one word (no breaks after its slashes): it starts a fresh row and
        // hard-breaks at exactly 20 columns.
        assert_eq!(
            texts(&rows),
            vec!["see", &url[..20], &url[20..40], &url[40..60], "1 now"]
        );
    }

    #[test]
    fn a_path_moves_to_the_next_row_whole_instead_of_splitting_at_a_slash() {
        let rows = wrap_line(&Line::from("look at /usr/lib/x and more"), 14, 0);
        assert_eq!(texts(&rows), vec!["look at", "/usr/lib/x and", "more"]);
        // Longer than a row: cut at the width, not at a slash.
        let rows = wrap_line(&Line::from("open src/ui/text.rs now"), 12, 0);
        assert_eq!(texts(&rows), vec!["open", "src/ui/text.", "rs now"]);
    }

    #[test]
    fn a_space_kept_inside_a_word_by_uax14_is_dropped_at_a_hard_break() {
        // UAX #14 allows no break before `/`, so "abcdefghij /x一" is one word; cut at
        // 10 columns, the space is a break space and starts no row.
        let rows = wrap_line(&Line::from("abcdefghij /x一"), 10, 0);
        assert_eq!(texts(&rows), vec!["abcdefghij", "/x一"]);
    }

    #[test]
    fn uax14_breaks_after_hyphen_free_punctuation_not_inside_words() {
        // UAX #14: no break before `)` or `,`; `(x)` and `word,` stay whole.
        let rows = wrap_line(&Line::from("call f(x), then g(y)."), 10, 0);
        assert_eq!(texts(&rows), vec!["call f(x),", "then g(y)."]);
    }

    #[test]
    fn kinsoku_no_row_starts_with_closing_cjk_punctuation_at_every_width_that_fits_a_run() {
        let text = "你好，世界。这是一个测试！真的吗？是的」他说：“好”……然后——结束）。";
        for width in 2..=30 {
            let rows = wrap_line(&Line::from(text), width, 0);
            let t = texts(&rows);
            assert_eq!(t.concat(), text, "width {width}");
            for (i, r) in t.iter().enumerate() {
                assert!(str_width(r) <= width, "width {width}: {t:?}");
                // "好”……" and "束）。" must share a row with the character before
                // them, which needs 6 columns; below that a closer may lead a row.
                if i > 0 && width >= 6 {
                    assert!(!starts_with_closer(r), "width {width}: {t:?}");
                }
            }
        }
    }

    #[test]
    fn kinsoku_moves_the_preceding_character_down_with_the_closer() {
        // 7 columns: "一二三" fits (6), "，" would start row 2; "三" goes down with it.
        let rows = wrap_line(&Line::from("一二三，四五"), 7, 0);
        assert_eq!(texts(&rows), vec!["一二", "三，四", "五"]);
        let rows = wrap_line(&Line::from("一二三！四五"), 6, 0);
        assert_eq!(texts(&rows), vec!["一二", "三！四", "五"]);
    }

    #[test]
    fn wrap_prefixed_keeps_quote_bar_and_tool_gutter_at_40_cols() {
        let body = Line::from(
            "a quoted paragraph that is much longer than forty columns and wraps twice or more",
        );
        let bar = [Span::styled("▎ ", Style::new().dim())];
        let rows = wrap_prefixed(&body, 40, &bar, &bar);
        assert!(rows.len() >= 3);
        for r in &rows {
            assert!(line_width(r) <= 40);
            assert_eq!(r.spans[0].content, "▎ ");
        }
        let first = [Span::raw("  │ ")];
        let out = Line::from(
            "error: /home/user/projects/deepterm/src/some/deep/module/file.rs:120:7 not found",
        );
        let rows = wrap_prefixed(&out, 40, &first, &first);
        assert!(rows.len() >= 3);
        for r in &rows {
            assert!(line_width(r) <= 40, "{:?}", texts(&rows));
            assert_eq!(r.spans[0].content, "  │ ");
        }
    }

    #[test]
    fn wrap_prefixed_uses_first_then_rest_prefix() {
        let body = Line::from("one two three four five six seven");
        let rows = wrap_prefixed(&body, 12, &[Span::raw("1. ")], &[Span::raw("   ")]);
        let t = texts(&rows);
        assert_eq!(t[0], "1. one two");
        assert!(
            t[1..]
                .iter()
                .all(|r| r.starts_with("   ") && !r.starts_with("    "))
        );
    }

    #[test]
    fn bold_span_split_over_two_rows_is_bold_on_both() {
        let line = Line::from(vec![
            Span::raw("plain "),
            Span::styled("bold words across the break", Style::new().bold()),
            Span::raw(" tail"),
        ]);
        let rows = wrap_line(&line, 16, 0);
        assert_eq!(
            texts(&rows),
            vec!["plain bold words", "across the break", "tail"]
        );
        let bold = |r: &Line<'_>, word: &str| {
            r.spans
                .iter()
                .find(|s| s.content.contains(word))
                .map(|s| line.style.patch(r.style).patch(s.style))
                .is_some_and(|st| st.add_modifier.contains(Modifier::BOLD))
        };
        assert!(bold(&rows[0], "bold words"));
        assert!(!bold(&rows[0], "plain"));
        assert!(bold(&rows[1], "across the break"));
        assert!(!bold(&rows[2], "tail"));
    }

    #[test]
    fn wrapping_never_splits_an_emoji_sequence() {
        let fam = "👨\u{200d}👩\u{200d}👧";
        let text = format!("{fam}{fam}{fam}{fam}");
        let rows = wrap_line(&Line::from(text.clone()), 5, 0);
        assert_eq!(
            texts(&rows),
            vec![format!("{fam}{fam}"), format!("{fam}{fam}")]
        );
    }

    #[test]
    fn leading_spaces_before_an_overlong_word_leave_no_empty_row() {
        let rows = wrap_line(&Line::from("   abcdefghijkl"), 8, 0);
        assert_eq!(texts(&rows), vec!["abcdefgh", "ijkl"]);
        // Indentation that fits stays (code blocks).
        let rows = wrap_line(&Line::from("    let x = 1; let y = 2;"), 16, 0);
        assert_eq!(texts(&rows), vec!["    let x = 1;", "let y = 2;"]);
    }

    #[test]
    fn wrapping_a_long_paragraph_stays_linear() {
        // 40,000 closers in a row glue into one word; 100,000 characters of prose.
        let closers = "好".to_string() + &"。".repeat(40_000);
        let prose = "前缀缓存按请求的最长公共前缀命中，word and words. ".repeat(2_500);
        let t = std::time::Instant::now();
        let a = wrap_line(&Line::from(closers), 80, 0);
        let b = wrap_line(&Line::from(prose), 80, 0);
        assert!(a.len() > 900 && b.len() > 1_000);
        assert!(
            t.elapsed() < std::time::Duration::from_secs(10),
            "{:?}",
            t.elapsed()
        );
    }

    #[test]
    fn wrap_line_indents_continuation_rows() {
        let rows = wrap_line(&Line::from("aaa bbb ccc ddd"), 8, 2);
        assert_eq!(texts(&rows), vec!["aaa bbb", "  ccc", "  ddd"]);
    }

    mod wrap_props {
        use super::*;
        use proptest::prelude::*;

        /// Tokens a reply is made of; a closer always follows a character that is not a
        /// space or another closer, so kinsoku can always be satisfied at width >= 4.
        fn token() -> impl Strategy<Value = String> {
            prop_oneof![
                "[a-z]{1,12}",
                Just(" ".to_string()),
                Just("  ".to_string()),
                "[一-龥]{1,6}",
                ("[一-龥]", "[，。、；：？！）」』》】〕〉…—]").prop_map(|(a, b)| a + &b),
                Just("👨\u{200d}👩\u{200d}👧".to_string()),
                Just("🇨🇳".to_string()),
                Just("e\u{301}".to_string()),
                Just("\u{301}".to_string()),
                Just("https://example.com/some/long/path?x=1".to_string()),
                Just("foo_bar-baz.rs:12".to_string()),
                Just("/usr/lib/deepterm/x".to_string()),
                Just("\u{3000}".to_string()),
            ]
        }

        fn styled_line() -> impl Strategy<Value = Line<'static>> {
            proptest::collection::vec((proptest::collection::vec(token(), 1..6), 0u8..3), 1..6)
                .prop_map(|parts| {
                    Line::from(
                        parts
                            .into_iter()
                            .map(|(toks, st)| {
                                let style = match st {
                                    0 => Style::new(),
                                    1 => Style::new().bold(),
                                    _ => Style::new().italic().red(),
                                };
                                Span::styled(toks.concat(), style)
                            })
                            .collect::<Vec<_>>(),
                    )
                })
        }

        /// Removes break spaces: the input with every run of spaces deleted.
        fn squash(s: &str) -> String {
            s.chars().filter(|c| *c != ' ').collect()
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: crate::testing::proptest_cases(2_000), ..ProptestConfig::default() })]

            #[test]
            fn wrapped_rows_fit_keep_prefixes_text_styles_and_kinsoku(
                line in styled_line(),
                width in 4usize..60,
                quote in any::<bool>(),
            ) {
                let (first, rest): (Vec<Span<'static>>, Vec<Span<'static>>) = if quote {
                    (vec![Span::raw("▎ ")], vec![Span::raw("▎ ")])
                } else {
                    (vec![Span::raw("- ")], vec![Span::raw("  ")])
                };
                let width = width.max(6);
                let rows = wrap_prefixed(&line, width, &first, &rest);
                let input: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
                let mut body = String::new();
                // Styled characters of the input and of the rows (minus prefixes).
                let styled_in: Vec<(char, Style)> = line
                    .spans
                    .iter()
                    .flat_map(|s| s.content.chars().map(move |c| (c, s.style)))
                    .filter(|(c, _)| *c != ' ')
                    .collect();
                let mut styled_out: Vec<(char, Style)> = Vec::new();
                for (i, r) in rows.iter().enumerate() {
                    prop_assert!(line_width(r) <= width, "row {} too wide: {:?}", i, texts(&rows));
                    let p = if i == 0 { &first } else { &rest };
                    prop_assert_eq!(&r.spans[0].content, &p[0].content);
                    let text: String = r.spans[1..].iter().map(|s| s.content.as_ref()).collect();
                    if i > 0 {
                        // A break space (a plain space cluster; " \u{301}" is a glyph).
                        prop_assert!(text.graphemes(true).next() != Some(" "), "row {} starts with a space: {:?}", i, texts(&rows));
                        prop_assert!(!starts_with_closer(&text), "row {} starts with a closer: {:?}", i, texts(&rows));
                    }
                    for s in &r.spans[1..] {
                        styled_out.extend(s.content.chars().filter(|c| *c != ' ').map(|c| (c, s.style)));
                    }
                    body.push_str(&text);
                }
                // Concatenating the rows gives the input, minus spaces dropped at breaks.
                prop_assert_eq!(squash(&body), squash(&input));
                prop_assert!(body.len() <= input.len());
                prop_assert_eq!(styled_out, styled_in);
            }
        }
    }
}
