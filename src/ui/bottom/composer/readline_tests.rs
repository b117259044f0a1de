//! Unit tests of the composer's readline keys (Ctrl+A/E, Alt+B/F, Ctrl+W, Alt+Backspace,
//! Ctrl+K/U/Y) on single-line, multi-line and wrapped drafts, with CJK and combining
//! marks; the paste rule (a pasted `/` is never a command); and the drafts kept aside
//! (Ctrl+C then ↑, a cancelled prompt).
use super::*;
use crate::i18n::Locale;

fn en() -> Localizer {
    Localizer::new(Locale::EnUs)
}

/// A composer holding `marked` as typed, the caret at its `|`.
fn draft(marked: &str) -> Composer {
    let i = marked.find('|').expect("a | marks the caret");
    let mut c = Composer::new();
    c.insert_str(&marked.replacen('|', "", 1));
    c.caret = i;
    c
}

/// The text with `|` at the caret.
fn shown(c: &Composer) -> String {
    format!("{}|{}", &c.text()[..c.caret()], &c.text()[c.caret()..])
}

fn after(marked: &str, keys: &[fn(&mut Composer)]) -> String {
    let mut c = draft(marked);
    for k in keys {
        k(&mut c);
    }
    shown(&c)
}

const HOME: fn(&mut Composer) = Composer::home;
const END: fn(&mut Composer) = Composer::end;
const WORD_L: fn(&mut Composer) = Composer::word_left;
const WORD_R: fn(&mut Composer) = Composer::word_right;
const CTRL_W: fn(&mut Composer) = Composer::kill_blank_word_back;
const ALT_BS: fn(&mut Composer) = Composer::kill_word_back;
const CTRL_K: fn(&mut Composer) = Composer::kill_to_end;
const CTRL_U: fn(&mut Composer) = Composer::kill_to_start;
const CTRL_Y: fn(&mut Composer) = Composer::yank;
const LEFT: fn(&mut Composer) = Composer::left;

#[test]
fn ctrl_a_and_ctrl_e_go_to_the_line_then_to_the_whole_draft() {
    assert_eq!(after("hello wor|ld", &[HOME]), "|hello world");
    assert_eq!(after("hello wor|ld", &[END]), "hello world|");
    // Multi-line: the caret's own line first; pressed there, the draft's start / end.
    assert_eq!(after("ab\ncd|ef\ngh", &[HOME]), "ab\n|cdef\ngh");
    assert_eq!(after("ab\ncd|ef\ngh", &[HOME, HOME]), "|ab\ncdef\ngh");
    assert_eq!(after("ab\ncd|ef\ngh", &[END]), "ab\ncdef|\ngh");
    assert_eq!(after("ab\ncd|ef\ngh", &[END, END]), "ab\ncdef\ngh|");
    assert_eq!(after("你好\n世|界", &[HOME]), "你好\n|世界");
}

#[test]
fn ctrl_a_on_a_wrapped_line_goes_to_its_logical_start_not_the_row_start() {
    let mut c = draft("hello world again|");
    assert_eq!(c.layout(8).rows, vec!["hello", "world", "again"]);
    c.home();
    assert_eq!(c.caret(), 0);
    assert_eq!((c.layout(8).caret_row, c.layout(8).caret_col), (0, 0));
    c.end();
    assert_eq!((c.layout(8).caret_row, c.layout(8).caret_col), (2, 5));
    // CJK wrapped by display width: 5 ideographs in 6 columns are two rows.
    let mut c = draft("一二三四五|");
    assert_eq!(c.layout(6).rows, vec!["一二三", "四五"]);
    c.home();
    assert_eq!((c.layout(6).caret_row, c.layout(6).caret_col), (0, 0));
}

#[test]
fn alt_b_and_alt_f_move_by_words_across_lines_and_scripts() {
    assert_eq!(after("fix the parser|", &[WORD_L]), "fix the |parser");
    assert_eq!(
        after("fix the parser|", &[WORD_L, WORD_L]),
        "fix |the parser"
    );
    assert_eq!(
        after("|fix the parser", &[WORD_R, WORD_R]),
        "fix the| parser"
    );
    // Multi-line: a line break separates words like a space.
    assert_eq!(after("one\n|two", &[WORD_L]), "|one\ntwo");
    assert_eq!(after("one|\ntwo", &[WORD_R]), "one\ntwo|");
    // Wrapped rows do not stop the motion: words are in the text, not the layout.
    let mut c = draft("hello world again|");
    c.word_left();
    c.word_left();
    assert_eq!(shown(&c), "hello |world again");
    assert_eq!(c.layout(8).caret_row, 1);
    // CJK: a run of ideographs is one word, full-width punctuation separates.
    assert_eq!(after("你好，世界|", &[WORD_L]), "你好，|世界");
    assert_eq!(after("|你好，世界", &[WORD_R]), "你好|，世界");
    // A letter with combining marks is never split.
    assert_eq!(
        after("cafe\u{301} au lait|", &[WORD_L, WORD_L]),
        "cafe\u{301} |au lait"
    );
    assert_eq!(after("|cafe\u{301} noir", &[WORD_R]), "cafe\u{301}| noir");
}

#[test]
fn ctrl_w_deletes_back_to_a_blank_and_alt_backspace_to_a_word_start() {
    assert_eq!(after("see /usr/lib/foo.py|", &[CTRL_W]), "see |");
    assert_eq!(
        after("see /usr/lib/foo.py|", &[ALT_BS]),
        "see /usr/lib/foo.|"
    );
    assert_eq!(after("two words  |", &[CTRL_W]), "two |");
    // Multi-line: back over the line break into the line above.
    assert_eq!(after("a\n|b", &[CTRL_W]), "|b");
    assert_eq!(after("top\nx y|", &[ALT_BS]), "top\nx |");
    assert_eq!(after("top\nx y|", &[ALT_BS, ALT_BS, ALT_BS]), "|");
    // CJK and emoji go whole.
    assert_eq!(after("你好 世界。|", &[CTRL_W]), "你好 |");
    assert_eq!(after("你好，世界|", &[ALT_BS]), "你好，|");
    assert_eq!(after("ok 👍🏽👍🏽|", &[CTRL_W]), "ok |");
    assert_eq!(after("e\u{301}e\u{301} x|", &[LEFT, LEFT, ALT_BS]), "| x");
    // Nothing before the caret: nothing happens.
    assert_eq!(after("|abc", &[CTRL_W, ALT_BS]), "|abc");
}

#[test]
fn ctrl_k_and_ctrl_u_cut_to_the_line_end_and_start_and_ctrl_y_pastes_back() {
    assert_eq!(after("ab|cd", &[CTRL_K]), "ab|");
    assert_eq!(after("ab|cd", &[CTRL_K, CTRL_Y]), "abcd|");
    assert_eq!(after("ab|cd", &[CTRL_U]), "|cd");
    assert_eq!(after("ab|cd", &[CTRL_U, END, CTRL_Y]), "cdab|");
    // Multi-line: only the caret's line; at its edge, the line break (lines join).
    assert_eq!(after("ab|cd\nef", &[CTRL_K]), "ab|\nef");
    assert_eq!(after("ab|cd\nef", &[CTRL_K, CTRL_K]), "ab|ef");
    assert_eq!(after("ab\nc|d", &[CTRL_U]), "ab\n|d");
    assert_eq!(after("ab\nc|d", &[CTRL_U, CTRL_U]), "ab|d");
    // Wrapped: the whole rest of the logical line, not the row.
    let mut c = draft("hello| world again");
    assert_eq!(c.layout(8).rows.len(), 3);
    c.kill_to_end();
    assert_eq!(shown(&c), "hello|");
    assert_eq!(c.layout(8).rows, vec!["hello"]);
    // CJK.
    assert_eq!(after("你好|世界", &[CTRL_K]), "你好|");
    assert_eq!(after("你好|世界", &[CTRL_U, END, CTRL_Y]), "世界你好|");
}

#[test]
fn kills_in_a_row_are_pasted_back_as_one_and_a_fresh_kill_replaces_them() {
    assert_eq!(after("one two three|", &[CTRL_W, CTRL_W]), "one |");
    assert_eq!(
        after("one two three|", &[CTRL_W, CTRL_W, CTRL_Y]),
        "one two three|"
    );
    assert_eq!(
        after("ab|cd\nef", &[CTRL_K, CTRL_K, CTRL_K, CTRL_Y]),
        "abcd\nef|"
    );
    // A motion between two kills starts a new kill.
    assert_eq!(
        after("one two three|", &[CTRL_W, LEFT, CTRL_W, END, CTRL_Y]),
        "one  two|"
    );
    // Ctrl+Y pastes as often as pressed; with nothing cut it does nothing.
    assert_eq!(after("x|", &[CTRL_Y]), "x|");
    assert_eq!(after("ab|", &[CTRL_U, CTRL_Y, CTRL_Y]), "abab|");
}

#[test]
fn a_kill_takes_a_paste_placeholder_whole_and_its_yank_sends_the_paste() {
    let big: String = (0..12).map(|i| format!("trace line {i}\n")).collect();
    let mut c = Composer::new();
    c.insert_str("look: ");
    c.paste(&big, en());
    assert_eq!(c.text(), "look: [Pasted 12 lines]");
    // Alt+Backspace would stop at `lines]`; the placeholder goes whole instead.
    c.kill_word_back();
    assert_eq!(c.text(), "look: ");
    // Ctrl+U from inside a placeholder takes all of it too.
    c.yank();
    c.caret = c.text().find("12").unwrap();
    c.kill_to_end();
    assert_eq!(c.text(), "look: ");
    // Yanked into the next draft, after a send, it still stands for the paste.
    c.submit();
    c.insert_str("again: ");
    c.yank();
    assert_eq!(c.text(), "again: [Pasted 12 lines]");
    assert_eq!(c.submit(), Some(format!("again: {big}")));
}

#[test]
fn word_motion_steps_over_a_paste_placeholder() {
    let mut c = Composer::new();
    c.paste(&"x".repeat(1001), en());
    c.insert_str(" tail");
    c.caret = 0;
    c.word_right();
    assert_eq!(c.caret(), "[Pasted 1 line]".len());
    c.word_left();
    assert_eq!(c.caret(), 0);
}

#[test]
fn a_pasted_slash_is_a_message_and_opens_no_popup() {
    let mut c = Composer::new();
    c.paste("/usr/lib/python3/foo.py:12: in bar", en());
    assert!(c.is_literal());
    assert!(!c.popup_open());
    assert!(c.command_being_typed().is_none());
    // Even a command's exact name, pasted, is text.
    let mut c = Composer::new();
    c.paste("/help", en());
    assert!(c.is_literal() && !c.popup_open());
    // Typed, a slash is a command; pasted arguments after it do not change that.
    let mut c = Composer::new();
    c.insert_char('/');
    c.insert_char('m');
    assert!(!c.is_literal() && c.popup_open());
    c.set_text("/model ");
    c.paste("deepseek/deepseek-chat", en());
    assert!(!c.is_literal());
    assert_eq!(
        c.command_being_typed().map(|s| s.name.as_ref()),
        Some("/model")
    );
}

#[test]
fn the_paste_mark_follows_the_first_character_through_edits() {
    // Leading blanks do not count: the first character is the pasted `/`.
    let mut c = Composer::new();
    c.insert_str("  ");
    c.paste("/trace", en());
    assert!(c.is_literal());
    // A large paste is a placeholder in the draft; it is still the paste.
    let mut c = Composer::new();
    let big: String = (0..12).map(|i| format!("/usr/lib/x.py:{i}\n")).collect();
    c.paste(&big, en());
    assert!(c.is_literal());
    // The pasted `/` deleted and a `/` typed in its place: a command again.
    let mut c = Composer::new();
    c.paste("/usr/x", en());
    c.home();
    c.delete();
    assert_eq!(c.text(), "usr/x");
    c.insert_char('/');
    assert!(!c.is_literal());
    // Typed text before the paste makes the draft start typed.
    let mut c = Composer::new();
    c.insert_str("see ");
    c.paste("/usr/x", en());
    assert!(!c.is_literal());
    // Cut and pasted back with Ctrl+Y, a paste is still a paste.
    let mut c = Composer::new();
    c.paste("/usr/x", en());
    c.kill_to_start();
    c.yank();
    assert!(c.is_literal());
}

#[test]
fn recalled_messages_that_start_with_a_slash_stay_messages() {
    let mut c = Composer::new();
    c.paste("/usr/a.py:1: boom", en());
    c.submit();
    c.insert_str("/system be brief");
    c.submit();
    c.add_older_history(vec!["/etc/hosts is wrong".into()]);
    c.up();
    assert_eq!((c.text(), c.is_literal()), ("/system be brief", false));
    c.up();
    assert_eq!((c.text(), c.is_literal()), ("/usr/a.py:1: boom", true));
    c.up();
    assert_eq!((c.text(), c.is_literal()), ("/etc/hosts is wrong", true));
    // Ctrl+R takes a message as a message too.
    c.clear();
    c.search_older();
    for ch in "boom".chars() {
        c.search_type(ch);
    }
    c.search_accept();
    assert_eq!((c.text(), c.is_literal()), ("/usr/a.py:1: boom", true));
}

#[test]
fn browsing_history_keeps_the_drafts_paste_mark() {
    let mut c = Composer::new();
    c.insert_str("old");
    c.submit();
    c.paste("/var/log/syslog: disk full", en());
    c.up();
    assert_eq!(c.text(), "old");
    c.down();
    assert_eq!(c.text(), "/var/log/syslog: disk full");
    assert!(c.is_literal());
}

#[test]
fn ctrl_c_keeps_the_draft_for_arrow_up_before_the_history() {
    let mut c = Composer::new();
    c.insert_str("sent before");
    c.submit();
    c.insert_str("half a thought");
    c.paste(&"y".repeat(1001), en());
    c.clear_to_stash();
    assert!(c.is_empty());
    c.up();
    assert_eq!(c.text(), "half a thought[Pasted 1 line]");
    assert_eq!(
        c.expanded_text(),
        format!("half a thought{}", "y".repeat(1001))
    );
    // Then the history, and ↓ back to the recovered draft.
    c.up();
    assert_eq!(c.text(), "sent before");
    c.down();
    assert_eq!(c.text(), "half a thought[Pasted 1 line]");
    // Once back it is not kept twice; a send forgets a cleared draft.
    c.clear();
    c.up();
    assert_eq!(c.text(), "sent before");
    c.clear();
    c.insert_str("gone");
    c.clear_to_stash();
    c.insert_str("next");
    c.submit();
    c.up();
    assert_eq!(c.text(), "next");
}

#[test]
fn a_cancelled_prompt_comes_back_with_its_placeholder_unless_a_draft_is_typed() {
    let big: String = (0..12).map(|i| format!("row {i}\n")).collect();
    let mut c = Composer::new();
    c.insert_str("explain ");
    c.paste(&big, en());
    let sent = c.submit().unwrap();
    assert!(c.restore_prompt(&sent));
    assert_eq!(c.text(), "explain [Pasted 12 lines]");
    assert_eq!(c.expanded_text(), sent);
    // A new draft is never replaced.
    c.set_text("new draft");
    assert!(!c.restore_prompt(&sent));
    assert_eq!(c.text(), "new draft");
    // A prompt that is not the last draft sent comes back as text, a message.
    let mut c = Composer::new();
    assert!(c.restore_prompt("/usr/bin/env: no such file"));
    assert!(c.is_literal());
}
