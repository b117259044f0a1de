//! Unit tests of the composer: history, search, pastes, layout and grapheme moves.
use super::*;
use crate::i18n::Locale;
use unicode_segmentation::GraphemeCursor;

fn en() -> Localizer {
    Localizer::new(Locale::EnUs)
}

fn typed(c: &mut Composer, s: &str) {
    for ch in s.chars() {
        c.insert_char(ch);
    }
}

fn with_history() -> Composer {
    let mut c = Composer::new();
    for m in ["fix the parser", "this session: deploy"] {
        typed(&mut c, m);
        c.submit();
    }
    c.add_older_history(vec![
        "Deploy staging".into(),
        "write docs".into(),
        "deploy production".into(),
        "fix the parser".into(),
    ]);
    c
}

/// The history reader's batches: each goes behind the earlier ones and
/// skips what an earlier batch or this session already holds.
#[test]
fn a_later_history_batch_goes_behind_and_skips_texts_already_held() {
    let mut c = with_history();
    typed(&mut c, "sent meanwhile");
    c.submit();
    c.add_older_history(vec![
        "write docs".into(),
        "sent meanwhile".into(),
        "the oldest".into(),
    ]);
    assert_eq!(
        c.history_newest_first(),
        [
            "sent meanwhile",
            "this session: deploy",
            "fix the parser",
            "Deploy staging",
            "write docs",
            "deploy production",
            "the oldest"
        ]
    );
}

/// A batch costs what it holds: its own texts are hashed, neither this
/// session's prompts nor the earlier batches' again, and ↑ keeps the entry it shows.
#[test]
fn a_history_batch_costs_its_own_entries_not_the_history_before_it() {
    let mut c = Composer::new();
    for i in 0..50 {
        typed(&mut c, &format!("own {i}"));
        c.submit();
    }
    c.up();
    assert_eq!(c.text(), "own 49");
    let before = c.history.hashed;
    for b in 0..10 {
        c.add_older_history((0..20).map(|i| format!("older {b} {i}")).collect());
    }
    assert_eq!(c.history.hashed - before, 200, "each batch's texts once");
    let h = c.history_newest_first();
    assert_eq!(
        (h.len(), h[0], h[49], h[50], h[249]),
        (250, "own 49", "own 0", "older 0 0", "older 9 19")
    );
    c.up();
    assert_eq!(c.text(), "own 48", "the entry shown stayed put");
}

#[test]
fn older_sessions_come_after_this_one_on_arrow_up() {
    let mut c = with_history();
    let mut seen = vec![];
    for _ in 0..6 {
        c.up();
        seen.push(c.text().to_string());
    }
    assert_eq!(
        seen,
        [
            "this session: deploy",
            "fix the parser",
            "Deploy staging",
            "write docs",
            "deploy production",
            "deploy production"
        ]
    );
}

#[test]
fn ctrl_r_narrows_goes_older_and_enter_takes_the_match() {
    let mut c = with_history();
    typed(&mut c, "my draft");
    c.search_older();
    for ch in "DEPLOY".chars() {
        c.search_type(ch);
    }
    assert_eq!(c.search_match(), Some("this session: deploy"));
    c.search_older();
    assert_eq!(c.search_match(), Some("Deploy staging"));
    c.search_older();
    assert_eq!(c.search_match(), Some("deploy production"));
    // No older match: the oldest stays.
    c.search_older();
    assert_eq!(c.search_match(), Some("deploy production"));
    assert_eq!(
        c.text(),
        "my draft",
        "the draft is untouched while searching"
    );
    c.search_backspace();
    c.search_type('y');
    c.search_type(' ');
    c.search_type('p');
    assert_eq!(c.search_match(), Some("deploy production"));
    c.search_accept();
    assert!(c.search().is_none());
    assert_eq!(
        c.text(),
        "deploy production",
        "Enter puts it in the composer"
    );
    assert_eq!(c.caret(), c.text().len());
}

#[test]
fn esc_leaves_the_search_and_keeps_the_draft() {
    let mut c = with_history();
    typed(&mut c, "half written");
    c.search_older();
    c.search_type('d');
    assert!(c.search_match().is_some());
    c.search_cancel();
    assert!(c.search().is_none());
    assert_eq!(c.text(), "half written");
    // No match: Enter keeps the draft too.
    c.search_older();
    c.search_type('z');
    c.search_type('q');
    assert_eq!(c.search_match(), None);
    c.search_accept();
    assert_eq!(c.text(), "half written");
}

#[test]
fn large_paste_shows_placeholder_and_is_sent_in_full() {
    let mut c = Composer::new();
    let big: String = (0..12).map(|i| format!("line {i}\n")).collect();
    c.insert_str("see: ");
    c.paste(&big, en());
    assert_eq!(c.text(), "see: [Pasted 12 lines]");
    assert_eq!(c.submit().as_deref(), Some(format!("see: {big}").as_str()));
    assert!(c.is_empty());
}

#[test]
fn a_paste_placeholder_counts_source_lines_not_wrapped_rows() {
    // 60 lines far wider than any composer, CRLF-ended as a terminal may paste them: the
    // placeholder says 60, as Chat's "3 lines + 57 more" does for the sent message.
    let mut c = Composer::new();
    let row = "x".repeat(150);
    let big: String = (0..60).map(|i| format!("{i} {row}\r\n")).collect();
    c.paste(&big, en());
    assert_eq!(c.text(), "[Pasted 60 lines]");
    let sent = c.submit().unwrap();
    assert_eq!(sent.trim_end_matches('\n').split('\n').count(), 60);
}

#[test]
fn placeholder_deletes_as_one_unit_and_small_paste_is_inline() {
    let mut c = Composer::new();
    c.paste(&"x".repeat(1001), en());
    assert_eq!(c.text(), "[Pasted 1 line]");
    c.backspace();
    assert!(c.is_empty());
    c.paste("a\r\nb", en());
    assert_eq!(c.text(), "a\nb");
}

#[test]
fn history_walks_with_up_down_on_first_and_last_line() {
    let mut c = Composer::new();
    for s in ["one", "two"] {
        c.insert_str(s);
        c.submit();
    }
    c.insert_str("draft");
    c.up();
    assert_eq!(c.text(), "two");
    c.up();
    assert_eq!(c.text(), "one");
    c.up();
    assert_eq!(c.text(), "one");
    c.down();
    c.down();
    assert_eq!(c.text(), "draft");
}

#[test]
fn up_moves_between_lines_before_recalling_history() {
    let mut c = Composer::new();
    c.insert_str("old");
    c.submit();
    c.insert_str("ab");
    c.newline();
    c.insert_str("cd");
    c.up();
    assert_eq!(c.text(), "ab\ncd");
    assert_eq!(c.caret(), 2);
    c.up();
    assert_eq!(c.text(), "old");
}

#[test]
fn shift_enter_newline_makes_two_rows() {
    let mut c = Composer::new();
    c.insert_str("hi");
    c.newline();
    c.insert_char('x');
    let l = c.layout(20);
    assert_eq!(l.rows, vec!["hi", "x"]);
    assert_eq!((l.caret_row, l.caret_col), (1, 1));
}

#[test]
fn caret_column_counts_cjk_display_width() {
    let mut c = Composer::new();
    c.insert_str("你好ab");
    let l = c.layout(20);
    assert_eq!((l.caret_row, l.caret_col), (0, 6));
    c.left();
    c.left();
    c.left();
    assert_eq!(c.layout(20).caret_col, 2);
    // Wraps by width: 5 CJK chars in 6 columns → 3 rows, never splitting a glyph.
    let mut d = Composer::new();
    d.insert_str("一二三四五");
    let l = d.layout(6);
    assert_eq!(l.rows, vec!["一二三", "四五"]);
    assert_eq!((l.caret_row, l.caret_col), (1, 4));
}

#[test]
fn slash_popup_fuzzy_filters_and_completes() {
    let mut c = Composer::new();
    c.insert_str("/mod");
    assert!(c.popup_open());
    let names: Vec<_> = c.popup_matches().iter().map(|m| m.name.as_ref()).collect();
    assert_eq!(names, vec!["/model", "/mode"]);
    c.complete();
    assert_eq!(c.text(), "/model ");
    // A name typed in full is the first match, whatever it prefixes.
    c.clear();
    c.insert_str("/mode");
    assert_eq!(
        c.popup_matches().first().map(|m| m.name.as_ref()),
        Some("/mode")
    );
    c.complete();
    assert_eq!(c.text(), "/mode ");
    assert!(!c.popup_open());
    c.clear();
    c.insert_str("/q");
    assert_eq!(c.complete().map(|m| m.name), Some("/quit".into()));
}

const FAMILY: &str = "👨\u{200d}👩\u{200d}👧";

#[test]
fn backspace_removes_a_whole_zwj_family_flag_or_combining_mark() {
    for g in [FAMILY, "🇨🇳", "e\u{301}", "👍🏽", "❤\u{fe0f}"] {
        let mut c = Composer::new();
        c.insert_str("a");
        c.insert_str(g);
        c.backspace();
        assert_eq!(c.text(), "a", "backspace over {g:?}");
    }
    // Two flags: one Backspace removes only the last one, whole.
    let mut c = Composer::new();
    c.insert_str("🇨🇳🇺🇸");
    c.backspace();
    assert_eq!(c.text(), "🇨🇳");
}

#[test]
fn left_right_and_delete_move_by_grapheme_cluster() {
    let mut c = Composer::new();
    c.insert_str(&format!("x{FAMILY}e\u{301}🇨🇳y"));
    c.home();
    c.right();
    c.right();
    assert_eq!(c.caret(), 1 + FAMILY.len());
    c.delete();
    assert_eq!(c.text(), format!("x{FAMILY}🇨🇳y"));
    c.delete();
    assert_eq!(c.text(), format!("x{FAMILY}y"));
    c.left();
    assert_eq!(c.caret(), 1);
    c.end();
    c.left();
    c.left();
    assert_eq!(c.caret(), 1);
}

#[test]
fn caret_column_counts_emoji_and_combining_marks_by_display_width() {
    let mut c = Composer::new();
    c.insert_str(&format!("{FAMILY}e\u{301}a"));
    assert_eq!(c.layout(20).caret_col, 4);
    c.left();
    assert_eq!(c.layout(20).caret_col, 3);
}

#[test]
fn layout_wraps_at_word_boundaries_with_the_caret_where_typed() {
    let mut c = Composer::new();
    c.insert_str("hello world again");
    let l = c.layout(8);
    assert_eq!(l.rows, vec!["hello", "world", "again"]);
    assert_eq!((l.caret_row, l.caret_col), (2, 5));
    // Caret just before "world": start of the second row.
    c.home();
    for _ in 0..6 {
        c.right();
    }
    let l = c.layout(8);
    assert_eq!((l.caret_row, l.caret_col), (1, 0));
    // Caret right after "hello" (before the break space): end of the first row.
    c.left();
    let l = c.layout(8);
    assert_eq!((l.caret_row, l.caret_col), (0, 5));
}

#[test]
fn vertical_moves_keep_display_column_across_wide_graphemes() {
    let mut c = Composer::new();
    c.insert_str(&format!("{FAMILY}{FAMILY}ab"));
    c.newline();
    c.insert_str("abcdef");
    c.up();
    // Column 6 on the line above is after "ab" (2 + 2 + 2).
    assert_eq!(c.caret(), c.text().find('\n').unwrap_or(0));
    c.left();
    c.left();
    c.left();
    c.down();
    assert_eq!(c.caret(), c.text().len() - 4);
}

mod props {
    use super::*;
    use crate::ui::text::str_width;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Type(String),
        Newline,
        Backspace,
        Delete,
        Left,
        Right,
        Home,
        End,
        Up,
        Down,
        Paste(String),
        WordLeft,
        WordRight,
        KillBlankWord,
        KillWord,
        KillEnd,
        KillStart,
        Yank,
        Stash,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => prop_oneof![
                "[a-z ]{1,8}",
                Just(FAMILY.to_string()),
                Just("🇨🇳".to_string()),
                Just("e\u{301}".to_string()),
                Just("\u{301}".to_string()),
                "[一-龥，。]{1,3}",
            ]
            .prop_map(Op::Type),
            1 => Just(Op::Newline),
            1 => Just(Op::Backspace),
            1 => Just(Op::Delete),
            1 => Just(Op::Left),
            1 => Just(Op::Right),
            1 => Just(Op::Home),
            1 => Just(Op::End),
            1 => Just(Op::Up),
            1 => Just(Op::Down),
            1 => prop_oneof![
                "/[a-z/. ]{1,12}",
                "[一-龥]{1,3}",
                Just("x".repeat(1001)),
                Just("l\n".repeat(11)),
            ]
            .prop_map(Op::Paste),
            1 => Just(Op::WordLeft),
            1 => Just(Op::WordRight),
            1 => Just(Op::KillBlankWord),
            1 => Just(Op::KillWord),
            1 => Just(Op::KillEnd),
            1 => Just(Op::KillStart),
            1 => Just(Op::Yank),
            1 => Just(Op::Stash),
        ]
    }

    const ACUTE: char = '\u{301}';

    fn boundary(s: &str, i: usize) -> bool {
        GraphemeCursor::new(i, s.len(), true)
            .is_boundary(s, 0)
            .unwrap_or(false)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: crate::testing::proptest_cases(2_000), ..ProptestConfig::default() })]

        #[test]
        fn caret_stays_on_grapheme_boundaries_and_layout_fits(
            ops in proptest::collection::vec(op(), 1..40),
            width in 4usize..30,
        ) {
            let mut c = Composer::new();
            for op in ops {
                match op {
                    Op::Type(s) => c.insert_str(&s),
                    Op::Newline => c.newline(),
                    Op::Backspace => c.backspace(),
                    Op::Delete => c.delete(),
                    Op::Left => c.left(),
                    Op::Right => c.right(),
                    Op::Home => c.home(),
                    Op::End => c.end(),
                    Op::Up => c.up(),
                    Op::Down => c.down(),
                    Op::Paste(s) => c.paste(&s, en()),
                    Op::WordLeft => c.word_left(),
                    Op::WordRight => c.word_right(),
                    Op::KillBlankWord => c.kill_blank_word_back(),
                    Op::KillWord => c.kill_word_back(),
                    Op::KillEnd => c.kill_to_end(),
                    Op::KillStart => c.kill_to_start(),
                    Op::Yank => c.yank(),
                    Op::Stash => c.clear_to_stash(),
                }
                // Every byte carries its paste mark.
                prop_assert_eq!(c.pasted.len(), c.text.len());
                prop_assert!(c.caret <= c.text.len() && c.text.is_char_boundary(c.caret));
                // Typing a lone combining mark joins the cluster before it; moves and
                // deletes then treat the whole cluster as one.
                if !boundary(c.text(), c.caret()) {
                    let rest = &c.text()[c.caret()..];
                    prop_assert!(rest.starts_with(ACUTE), "caret inside a cluster: {:?}", rest);
                }
                let l = c.layout(width);
                prop_assert!(l.caret_row < l.rows.len());
                prop_assert!(l.caret_col <= width);
                for r in &l.rows {
                    prop_assert!(str_width(r) <= width, "{:?}", l.rows);
                }
                let squash = |s: &str| s.chars().filter(|c| *c != ' ' && *c != '\n').collect::<String>();
                prop_assert_eq!(squash(&l.rows.concat()), squash(c.text()));
            }
        }
    }
}

#[test]
fn ctrl_r_on_a_long_history_scans_only_to_its_match_and_not_again_per_frame() {
    // The history may hold many thousands of entries; the search line is
    // drawn every frame.
    let mut c = Composer::default();
    let mut older: Vec<String> = vec!["deploy the newest".to_string()];
    older.extend((0..10_000).map(|i| format!("older message {i}")));
    c.add_older_history(older);
    c.search_older();
    for ch in "deploy".chars() {
        c.search_type(ch);
    }
    assert_eq!(c.search_match(), Some("deploy the newest"));
    let scanned = c.search.as_ref().unwrap().scanned;
    assert!(
        scanned <= 1,
        "scanned {scanned} entries for the newest match"
    );
    for _ in 0..100 {
        assert_eq!(c.search_match(), Some("deploy the newest"));
    }
    assert_eq!(
        c.search.as_ref().unwrap().scanned,
        scanned,
        "a frame scans nothing"
    );
}

#[test]
fn a_search_without_a_match_finds_it_in_a_batch_read_later() {
    let mut c = with_history();
    c.search_older();
    for ch in "zebra".chars() {
        c.search_type(ch);
    }
    assert_eq!(c.search_match(), None);
    c.add_older_history(vec!["feed the zebra".into(), "zebra crossing".into()]);
    assert_eq!(c.search_match(), Some("feed the zebra"));
    c.search_older();
    assert_eq!(c.search_match(), Some("zebra crossing"));
    // A text repeated in a later batch is one match, not two.
    c.add_older_history(vec!["feed the zebra".into()]);
    c.search_older();
    assert_eq!(c.search_match(), Some("zebra crossing"));
}

#[test]
fn an_empty_search_shows_the_newest_entry_and_case_does_not_matter() {
    let mut c = Composer::default();
    c.add_older_history(vec!["Deploy the API".into(), "fix tests".into()]);
    c.search_older();
    assert_eq!(c.search_match(), Some("Deploy the API"));
    for ch in "TESTS".chars() {
        c.search_type(ch);
    }
    assert_eq!(c.search_match(), Some("fix tests"));
}
