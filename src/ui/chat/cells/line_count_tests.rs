//! Line counts in Chat are source lines, whatever the width (§14.5): a long message's
//! "N more lines" and a tool card's, as the composer's `[Pasted N lines]` counts them.

use super::HistoryCell;
use super::message::UserCell;
use super::tool::ToolCell;
use crate::i18n::{Locale, Localizer};
use crate::ui::model::RenderCtx;
use crate::ui::model::ToolCardMode;

fn rows(cell: &UserCell, width: usize, locale: Locale, expanded: bool) -> Vec<String> {
    let ctx = RenderCtx {
        l: Localizer::new(locale),
        cards: ToolCardMode::Collapsed,
        generation: 0,
    };
    let p = cell.rows(width, &ctx, expanded);
    p.head
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect()
}

#[test]
fn a_long_paste_counts_hidden_source_lines_not_wrapped_rows() {
    // 60 lines, each wider than 40 columns: 120+ rows at 40, 60 at 120.
    let text: String = (1..=60)
        .map(|i| format!("pasted line {i} with enough words to wrap at forty columns\n"))
        .collect();
    let cell = UserCell { text };
    for width in [40, 80, 120] {
        let en = rows(&cell, width, Locale::EnUs, false);
        assert_eq!(en.len(), 1 + 3 + 1, "{en:?}");
        assert!(en[1].starts_with("pasted line 1 "), "{en:?}");
        assert_eq!(en[4], "▸ 57 more lines (Enter expands)", "{width}");
        let zh = rows(&cell, width, Locale::ZhCn, false);
        assert_eq!(zh[4], "▸ 还有 57 行（Enter 展开）", "{width}");
        let open = rows(&cell, width, Locale::EnUs, true);
        assert_eq!(
            open.last().unwrap(),
            "▾ 60 lines (Enter collapses)",
            "{width}"
        );
    }
    // At 40 columns the expanded message is more rows than lines: the count stays 60.
    assert!(rows(&cell, 40, Locale::EnUs, true).len() > 62);
}

#[test]
fn one_long_pasted_line_is_cut_and_says_so() {
    let cell = UserCell {
        text: "word ".repeat(300),
    };
    let en = rows(&cell, 40, Locale::EnUs, false);
    assert_eq!(en.len(), 3, "{en:?}");
    assert!(en[1].ends_with('…'), "{en:?}");
    assert_eq!(en[2], "▸ long lines cut (Enter expands)");
}

#[test]
fn a_read_file_card_counts_hidden_source_lines_not_wrapped_rows() {
    let result: String = (1..=10)
        .map(|i| format!("{i}: a line of the file long enough to wrap at forty columns"))
        .collect::<Vec<_>>()
        .join("\n");
    let card = ToolCell {
        call_id: "c1".into(),
        name: "read_file".into(),
        arguments: r#"{"path":"src/lib.rs"}"#.into(),
        result: Some(result),
        error: false,
        approval: None,
        preview: None,
        hooks: Vec::new(),
        ask: None,
        retry: None,
        progress: None,
        subagent: None,
    };
    for (locale, more) in [
        (Locale::EnUs, "… 7 more lines"),
        (Locale::ZhCn, "… 还有 7 行"),
    ] {
        let ctx = RenderCtx {
            l: Localizer::new(locale),
            cards: ToolCardMode::Collapsed,
            generation: 0,
        };
        for width in [40, 80, 120] {
            let p = card.rows(width, &ctx, false);
            let text: Vec<String> = p
                .head
                .iter()
                .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
                .collect();
            assert_eq!(text.last().unwrap().trim(), more, "{width}: {text:?}");
        }
    }
}
