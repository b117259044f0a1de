//! Markdown rendering: styled snapshots of a showcase document at 40/80/120
//! columns, and the streaming collector's contract as properties: a stream split into any
//! deltas ends exactly as `render_width` of the whole source, and committed rows never change
//! once returned. Cases: `DEEPTERM_PROPTEST_CASES`, else 1,000.

use deepterm::ui::markdown::{StreamCollector, render_width};
use deepterm::ui::snapshot;
use deepterm::ui::text::str_width;
use proptest::prelude::*;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

const SHOWCASE: &str = "# Release notes

Call **fx__echo** with `--dry-run`, *then* check ~~old~~ new [docs](https://example.com/docs).

## Steps

1. Install the tool
2. Run it with a long argument list that has to wrap at narrow widths
   - nested bullet with `code`
   - [x] done task
   - [ ] open task

> A quoted note that is long enough to wrap onto a second row at forty columns.
>
> > Nested quote.

| Tool | Calls | Status |
|:-----|------:|:------:|
| fx__echo | 12 | ok |
| read_file_with_a_very_long_name | 3 | failed badly |

```rust
// Parse the URL \"https://example.com//x\"
fn main() {
    let n: u32 = 42;
    println!(\"{}\", find(\"//\"));
}
```

```diff
- removed
+ added
```

---

| not a table line
Done.
";

fn buffer_of(rows: &[Line<'static>], width: u16) -> Buffer {
    let mut buf = Buffer::empty(Rect::new(0, 0, width, rows.len().max(1) as u16));
    for (y, row) in rows.iter().enumerate() {
        buf.set_line(0, y as u16, row, width);
    }
    buf
}

#[test]
fn showcase_document_styled_at_40_80_120() {
    for w in [40u16, 80, 120] {
        let rows = render_width(SHOWCASE, w as usize);
        for r in &rows {
            let rw: usize = r.spans.iter().map(|s| str_width(&s.content)).sum();
            assert!(rw <= w as usize, "row wider than {w}: {r:?}");
        }
        let buf = buffer_of(&rows, w);
        insta::assert_snapshot!(format!("markdown_showcase_{w}"), snapshot::styled(&buf));
    }
}

/// Markdown-ish lines: every construct the renderer knows, plus the ones that break naive
/// chunking (blank lines inside fences, indented continuations, tables, `|` text).
fn md_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just(String::new()),
        Just("```rust".to_string()),
        Just("```".to_string()),
        Just("~~~".to_string()),
        Just("    indented code".to_string()),
        Just("- item **bold**".to_string()),
        Just("  - nested `code`".to_string()),
        Just("  continuation of the item".to_string()),
        Just("1. first".to_string()),
        Just("- [ ] task".to_string()),
        Just("> quote *em*".to_string()),
        Just("> > nested".to_string()),
        Just("# Heading".to_string()),
        Just("## Sub".to_string()),
        Just("| a | b |".to_string()),
        Just("|---|:-:|".to_string()),
        Just("| 1 | 中文 |".to_string()),
        Just("---".to_string()),
        Just("fn main() { let s = \"//x\"; }".to_string()),
        Just("see [link](https://a.io) fx__echo".to_string()),
        "[a-z_* `|>#-]{0,30}",
        "[a-z 中文，。]{0,40}",
    ]
}

fn doc_and_splits() -> impl Strategy<Value = (String, Vec<usize>, usize)> {
    (
        prop::collection::vec(md_line(), 0..25),
        any::<bool>(),
        prop::collection::vec(1usize..40, 1..60),
        20usize..130,
    )
        .prop_map(|(lines, trailing_nl, cuts, width)| {
            let mut doc = lines.join("\n");
            if trailing_nl {
                doc.push('\n');
            }
            (doc, cuts, width)
        })
}

/// Splits `doc` into deltas of the given char lengths (cycled), on char boundaries.
fn deltas(doc: &str, cuts: &[usize]) -> Vec<String> {
    let chars: Vec<char> = doc.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut k = 0;
    while i < chars.len() {
        let n = cuts[k % cuts.len()].min(chars.len() - i);
        out.push(chars[i..i + n].iter().collect());
        i += n;
        k += 1;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: deepterm::testing::proptest_cases(1_000), ..ProptestConfig::default() })]

    #[test]
    fn stream_in_any_deltas_ends_as_render_width_and_commits_are_stable(
        (doc, cuts, width) in doc_and_splits()
    ) {
        let other = width / 2 + 10;
        let mut c = StreamCollector::new();
        let mut seen: Vec<Line<'static>> = Vec::new();
        for d in deltas(&doc, &cuts) {
            c.push(&d);
            let now = c.committed_ref(width).to_vec();
            prop_assert!(now.len() >= seen.len());
            prop_assert_eq!(&now[..seen.len()], &seen[..], "committed rows changed");
            // A second width in between (a resize) must not disturb the first width's rows.
            let _ = c.committed_ref(other);
            let _ = c.tail(width, "table");
            seen = now;
        }
        c.finish();
        let done = c.committed(width);
        prop_assert_eq!(&done[..seen.len()], &seen[..]);
        let whole = render_width(&doc, width);
        prop_assert_eq!(&done, &whole);
        prop_assert!(c.tail(width, "table").is_empty());
        prop_assert_eq!(c.committed(other), render_width(&doc, other));
        for r in &whole {
            let rw: usize = r.spans.iter().map(|s| str_width(&s.content)).sum();
            prop_assert!(rw <= width, "row of {} > {}: {:?}", rw, width, r);
        }
    }
}
