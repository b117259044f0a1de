use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use serde_json::{Value, json};

use super::*;
use crate::i18n::{Locale, Localizer};

const WIDTHS: [u16; 4] = [40, 80, 120, 200];

fn locales() -> [Localizer; 2] {
    [Localizer::new(Locale::EnUs), Localizer::new(Locale::ZhCn)]
}

fn key(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

fn ch(c: char) -> KeyEvent {
    key(KeyCode::Char(c))
}

/// The terminal rows after drawing `v` at `w`×`h`.
pub(super) fn screen(v: &RequestViewer, w: u16, h: u16, l: Localizer) -> Vec<String> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| v.render(f.area(), f.buffer_mut(), &l)).unwrap();
    crate::ui::snapshot::symbols(t.backend().buffer())
        .lines()
        .map(str::to_string)
        .collect()
}

/// The body rows (between the title and the status row), trimmed, joined by spaces: a
/// text of single-spaced short words reads back whole however it wrapped.
pub(super) fn flowed(rows: &[String]) -> String {
    rows[1..rows.len() - 1]
        .iter()
        .map(|r| r.trim())
        .filter(|r| !r.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn long_system() -> String {
    (1..=60)
        .map(|i| format!("Review this code: {i:03}: def func_{i}(x): return x + {i}."))
        .collect::<Vec<_>>()
        .join(" ")
}

fn long_result() -> String {
    (1..=40)
        .map(|i| format!("line {i} of the grep output ends here"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A Messages-protocol body shaped as `llm::deepseek::serialize` writes it.
fn messages_body() -> String {
    json!({
        "model": "deepseek-flash",
        "stream": true,
        "max_tokens": 8192,
        "thinking": {"type": "enabled"},
        "system": long_system(),
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "What does main.rs do?"}]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Need to read it first.", "signature": "sig"},
                {"type": "tool_use", "id": "call_00_a1", "name": "read_file", "input": {"path": "src/main.rs"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_00_a1", "content": [{"type": "text", "text": long_result()}]}
            ]},
            {"role": "system", "content": [
                {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "word_count"}},
                {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "grep"}}
            ]}
        ],
        "tools": [
            {"name": "read_file", "description": "Read a file.", "input_schema": {"type": "object", "properties": {"path": {"type": "string", "description": "workspace-relative path"}}, "required": ["path"]}},
            {"name": "word_count", "description": "Count words.", "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}}, "defer_loading": true}
        ]
    })
    .to_string()
}

/// A Chat Completions body shaped as `llm::openai::serialize` writes it.
fn chat_body() -> String {
    json!({
        "model": "deepseek-chat",
        "messages": [
            {"role": "system", "content": "You are a terse coding assistant."},
            {"role": "user", "content": "What does main.rs do?"},
            {"role": "assistant", "content": "", "reasoning_content": "Need to read it.",
             "tool_calls": [{"id": "call_00_a1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"src/main.rs\"}"}}]},
            {"role": "tool", "tool_call_id": "call_00_a1", "content": long_result()}
        ],
        "tools": [{"type": "function", "function": {"name": "read_file", "description": "Read a file.", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}],
        "max_tokens": 4096,
        "stream": true,
        "stream_options": {"include_usage": true}
    })
    .to_string()
}

#[test]
fn sections_show_the_long_system_prompt_and_tool_result_in_full_at_every_width() {
    for l in locales() {
        for w in WIDTHS {
            let v = RequestViewer::new(&messages_body());
            let rows = screen(&v, w, 600, l);
            let text = flowed(&rows);
            assert!(text.contains(&long_system()), "{w} {:?}", l.locale);
            assert!(text.contains(&long_result()), "{w} {:?}", l.locale);
            assert!(
                !rows.iter().any(|r| r.contains('…')),
                "{w}: something was cut"
            );
            assert!(rows.iter().all(|r| str_width(r) <= w as usize));
        }
    }
}

#[test]
fn wrapped_content_rows_keep_their_indent() {
    let v = RequestViewer::new(&messages_body());
    let rows = screen(&v, 40, 600, Localizer::new(Locale::EnUs));
    let first = rows
        .iter()
        .position(|r| r.contains("Review this code: 001"))
        .unwrap();
    // The system prompt sits under its heading at the item indent, every row of it.
    for r in &rows[first..first + 20] {
        assert!(r.starts_with("  ") && !r.starts_with("   "), "{r:?}");
    }
}

#[test]
fn sections_show_every_tool_schema_pretty_printed() {
    for l in locales() {
        for w in WIDTHS {
            let v = RequestViewer::new(&messages_body());
            let rows = screen(&v, w, 600, l);
            let text = flowed(&rows);
            assert!(text.contains("\"path\": {"), "{w}");
            assert!(
                text.contains("\"description\": \"workspace-relative path\""),
                "{w}"
            );
            assert!(text.contains("\"required\": ["), "{w}");
            assert!(text.contains(&format!(
                "2. word_count · {}",
                l.tr("inspector-view-deferred")
            )));
        }
    }
}

#[test]
fn tools_and_messages_are_numbered_from_one_and_blocks_are_labelled() {
    let l = Localizer::new(Locale::EnUs);
    let v = RequestViewer::new(&messages_body());
    let rows = screen(&v, 120, 600, l);
    let trimmed: Vec<&str> = rows.iter().map(|r| r.trim()).collect();
    for want in [
        "1. read_file",
        "1. user",
        "2. assistant",
        "3. user",
        "4. system",
        "thinking (signed)",
        "Need to read it first.",
        "tool call read_file · id call_00_a1 · arguments:",
        "\"path\": \"src/main.rs\"",
        "tool result for call_00_a1:",
        "tool_addition: word_count",
        "tool_removal: grep",
    ] {
        assert!(trimmed.contains(&want), "missing {want:?}");
    }
    assert!(!trimmed.iter().any(|r| r.starts_with("0. ")));
    let zh = screen(&v, 120, 600, Localizer::new(Locale::ZhCn));
    let zh: Vec<&str> = zh.iter().map(|r| r.trim()).collect();
    assert!(zh.contains(&"2. 助手"));
    assert!(zh.contains(&"工具调用 read_file · id call_00_a1 · 参数："));
}

#[test]
fn a_chat_completions_body_shows_its_system_message_calls_and_results() {
    let l = Localizer::new(Locale::EnUs);
    let v = RequestViewer::new(&chat_body());
    let rows = screen(&v, 80, 400, l);
    let trimmed: Vec<&str> = rows.iter().map(|r| r.trim()).collect();
    for want in [
        "(sent as message 1)",
        "1. system",
        "You are a terse coding assistant.",
        "reasoning",
        "Need to read it.",
        "tool call read_file · id call_00_a1 · arguments:",
        "\"path\": \"src/main.rs\"",
        "4. tool",
        "tool result for call_00_a1:",
        "1. read_file",
    ] {
        assert!(trimmed.contains(&want), "missing {want:?}");
    }
    assert!(flowed(&rows).contains(&long_result()));
}

/// The body with the whitespace between tokens removed.
fn squeeze(s: &str) -> String {
    let (mut out, mut in_str, mut esc) = (String::new(), false, false);
    for c in s.chars() {
        if in_str {
            out.push(c);
            if esc {
                esc = false;
            } else if c == '\\' {
                esc = true;
            } else if c == '"' {
                in_str = false;
            }
        } else if !c.is_whitespace() {
            in_str = c == '"';
            out.push(c);
        }
    }
    out
}

#[test]
fn the_raw_view_is_the_body_as_sent_pretty_printed() {
    // Escapes and numbers stay spelled as sent (serde would rewrite `\u00e9` and `1.50`).
    let body = messages_body().replacen(
        "\"stream\":true",
        "\"stream\":true,\"x\":\"caf\\u00e9\",\"t\":1.50",
        1,
    );
    let mut v = RequestViewer::new(&body);
    assert_eq!(v.handle_key(&key(KeyCode::Tab)), ViewerOutcome::Consumed);
    assert_eq!(v.view(), ViewMode::Raw);
    let shown = v.copy_text();
    assert_eq!(squeeze(&shown), body);
    assert!(shown.contains("\"x\": \"caf\\u00e9\""));
    assert!(shown.contains("\"t\": 1.50"));
    assert_eq!(
        serde_json::from_str::<Value>(&shown).unwrap(),
        serde_json::from_str::<Value>(&body).unwrap()
    );
    for l in locales() {
        for w in WIDTHS {
            let rows = screen(&v, w, 2000, l);
            assert_eq!(rows[1].trim(), "{");
            assert!(
                rows.iter()
                    .any(|r| r.trim() == "\"model\": \"deepseek-flash\",")
            );
            assert!(flowed(&rows).contains(&long_system()), "{w}");
        }
    }
    // `r` switches back.
    v.handle_key(&ch('r'));
    assert_eq!(v.view(), ViewMode::Sections);
}

#[test]
fn search_jumps_to_the_first_match_and_n_moves_to_the_next() {
    for l in locales() {
        for w in WIDTHS {
            let mut v = RequestViewer::new(&messages_body());
            screen(&v, w, 12, l);
            v.handle_key(&ch('/'));
            for c in "func_5".chars() {
                v.handle_key(&ch(c));
            }
            let typing = screen(&v, w, 12, l);
            assert!(typing[11].starts_with("/func_5"), "{:?}", typing[11]);
            v.handle_key(&key(KeyCode::Enter));
            // func_5, func_50 … func_59: eleven matches, in order.
            assert_eq!(v.matches(), (11, Some(0)));
            let rows = screen(&v, w, 12, l);
            assert!(
                rows[1..11].iter().any(|r| r.contains("func_5(")),
                "{w}: {rows:#?}"
            );
            assert!(rows[11].contains("1/11"), "{:?}", rows[11]);
            v.handle_key(&ch('n'));
            assert_eq!(v.matches(), (11, Some(1)));
            let rows = screen(&v, w, 12, l);
            assert!(rows[1..11].iter().any(|r| r.contains("func_50")), "{w}");
            assert!(rows[11].contains("2/11"));
            v.handle_key(&ch('N'));
            v.handle_key(&ch('N'));
            // Previous from the first wraps to the last.
            assert_eq!(v.matches(), (11, Some(10)));
            assert!(
                screen(&v, w, 12, l)[1..11]
                    .iter()
                    .any(|r| r.contains("func_59"))
            );
        }
    }
}

#[test]
fn the_current_match_is_highlighted() {
    let l = Localizer::new(Locale::EnUs);
    let mut v = RequestViewer::new(&messages_body());
    screen(&v, 80, 12, l);
    v.handle_key(&ch('/'));
    for c in "word_count".chars() {
        v.handle_key(&ch(c));
    }
    v.handle_key(&key(KeyCode::Enter));
    let mut t = Terminal::new(TestBackend::new(80, 12)).unwrap();
    t.draw(|f| v.render(f.area(), f.buffer_mut(), &l)).unwrap();
    let buf = t.backend().buffer();
    let hit = (1..11).find_map(|y| {
        let row: String = (0..80).map(|x| buf[(x, y)].symbol().to_string()).collect();
        row.find("word_count").map(|x| (x as u16, y))
    });
    let (x, y) = hit.expect("the match is on screen");
    assert_eq!(buf[(x, y)].style().bg, theme::banner().bg);
}

#[test]
fn a_search_with_no_match_says_so() {
    for l in locales() {
        let mut v = RequestViewer::new(&messages_body());
        v.handle_key(&ch('/'));
        for c in "zzqx".chars() {
            v.handle_key(&ch(c));
        }
        v.handle_key(&key(KeyCode::Enter));
        assert_eq!(v.matches(), (0, None));
        let rows = screen(&v, 80, 10, l);
        let want = l.tra("inspector-view-no-match", &[("query", Arg::from("zzqx"))]);
        assert!(rows[9].contains(&want), "{:?}", rows[9]);
        v.handle_key(&ch('n'));
        assert!(screen(&v, 80, 10, l)[9].contains(&want));
    }
}

#[test]
fn the_search_follows_a_switch_to_the_raw_view() {
    let mut v = RequestViewer::new(&messages_body());
    v.handle_key(&ch('/'));
    for c in "input_schema".chars() {
        v.handle_key(&ch(c));
    }
    v.handle_key(&key(KeyCode::Enter));
    // The sections name the schema; only the raw JSON has the key.
    assert_eq!(v.matches().0, 0);
    // The switch searches the raw JSON and shows its first match.
    v.handle_key(&key(KeyCode::Tab));
    assert_eq!(v.matches(), (2, Some(0)));
    v.handle_key(&ch('n'));
    assert_eq!(v.matches(), (2, Some(1)));
}

#[test]
fn y_asks_to_copy_the_shown_view() {
    let body = messages_body();
    let mut v = RequestViewer::new(&body);
    let l = Localizer::new(Locale::ZhCn);
    screen(&v, 80, 20, l);
    let ViewerOutcome::Copy(sections) = v.handle_key(&ch('y')) else {
        panic!("y copies");
    };
    assert!(sections.contains(&long_system()));
    assert!(sections.contains("2. 助手"));
    assert!(sections.contains("\"required\": ["));
    let rows = screen(&v, 80, 20, l);
    assert!(rows[19].contains("已将分节视图"), "{:?}", rows[19]);
    v.handle_key(&key(KeyCode::Tab));
    let ViewerOutcome::Copy(raw) = v.handle_key(&ch('y')) else {
        panic!("y copies");
    };
    assert_eq!(squeeze(&raw), body);
}

#[test]
fn keys_scroll_and_esc_or_q_close() {
    let l = Localizer::new(Locale::EnUs);
    let mut v = RequestViewer::new(&messages_body());
    let first = screen(&v, 80, 10, l);
    assert!(first[1].contains("Settings"));
    v.handle_key(&key(KeyCode::Down));
    assert_eq!(screen(&v, 80, 10, l)[1], first[2]);
    v.handle_key(&key(KeyCode::PageDown));
    v.handle_key(&key(KeyCode::End));
    let end = screen(&v, 80, 10, l);
    assert!(end[8].contains("tool_removal: grep"), "{end:#?}");
    // Past the end stays on the last page.
    v.handle_key(&key(KeyCode::Down));
    assert_eq!(screen(&v, 80, 10, l), end);
    v.handle_key(&key(KeyCode::Home));
    assert_eq!(screen(&v, 80, 10, l), first);
    let wheel = MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: 0,
        row: 0,
        modifiers: KeyModifiers::NONE,
    };
    assert_eq!(v.handle_mouse(&wheel), ViewerOutcome::Consumed);
    assert_eq!(screen(&v, 80, 10, l)[1], first[4]);
    assert_eq!(v.handle_key(&ch('x')), ViewerOutcome::Ignored);
    assert_eq!(v.handle_key(&key(KeyCode::Esc)), ViewerOutcome::Close);
    assert_eq!(v.handle_key(&ch('q')), ViewerOutcome::Close);
    // Esc in the search prompt only closes the prompt.
    v.handle_key(&ch('/'));
    assert_eq!(v.handle_key(&key(KeyCode::Esc)), ViewerOutcome::Consumed);
    assert_eq!(v.handle_key(&key(KeyCode::Esc)), ViewerOutcome::Close);
}

#[test]
fn a_resize_keeps_the_top_line() {
    let l = Localizer::new(Locale::EnUs);
    let mut v = RequestViewer::new(&messages_body());
    let mut guard = 0;
    while !screen(&v, 200, 10, l)[1].contains("Tools (2)") {
        v.handle_key(&key(KeyCode::Down));
        guard += 1;
        assert!(guard < 100, "the Tools heading is reachable");
    }
    for w in [40, 120, 80, 200] {
        assert!(screen(&v, w, 10, l)[1].contains("Tools (2)"), "{w}");
    }
}

#[test]
fn a_body_that_is_not_json_shows_as_text_without_panicking() {
    for body in [
        "",
        "not json {{{ \u{1b}[2J",
        "{\"model\": \"x\", \"messages\": [",
        "[1, 2",
        "}}]]",
        "\"just a string\"",
        "42",
    ] {
        for l in locales() {
            for w in [1, 2, 40, 80] {
                let mut v = RequestViewer::new(body);
                let rows = screen(&v, w, 6, l);
                assert!(rows.iter().all(|r| !r.contains('\u{1b}')));
                for k in [
                    key(KeyCode::Tab),
                    key(KeyCode::End),
                    ch('n'),
                    ch('/'),
                    ch('{'),
                    key(KeyCode::Enter),
                    ch('n'),
                ] {
                    v.handle_key(&k);
                    screen(&v, w, 6, l);
                }
                let _ = v.copy_text();
            }
        }
    }
    let v = RequestViewer::new("not json {{{ \u{1b}[2J");
    assert!(v.parse_error().is_some());
    let rows = screen(&v, 80, 6, Localizer::new(Locale::EnUs));
    assert!(rows[1].contains("not json"));
    assert!(
        rows[1].contains("\\x1B[2J"),
        "the escape is shown, not sent: {:?}",
        rows[1]
    );
}

#[test]
fn control_characters_in_the_body_are_shown_escaped() {
    let body = json!({"system": "a\u{1b}]52;c;aGk=\u{7}b", "messages": []}).to_string();
    let mut v = RequestViewer::new(&body);
    for _ in 0..2 {
        let rows = screen(&v, 80, 20, Localizer::new(Locale::EnUs));
        assert!(
            rows.iter()
                .all(|r| !r.contains('\u{1b}') && !r.contains('\u{7}'))
        );
        v.handle_key(&key(KeyCode::Tab));
    }
    let ViewerOutcome::Copy(text) = v.handle_key(&ch('y')) else {
        panic!()
    };
    assert!(!text.contains('\u{1b}'));
}

#[test]
fn a_huge_body_of_twenty_thousand_messages_renders_and_searches() {
    let messages: Vec<Value> = (0..20_000)
        .map(|i| json!({"role": if i % 2 == 0 { "user" } else { "assistant" }, "content": [{"type": "text", "text": format!("message number {i} with some words to wrap at narrow widths")}]}))
        .collect();
    let body = json!({"model": "m", "system": "s", "messages": messages}).to_string();
    let l = Localizer::new(Locale::EnUs);
    let mut v = RequestViewer::new(&body);
    screen(&v, 80, 30, l);
    v.handle_key(&key(KeyCode::End));
    let rows = screen(&v, 80, 30, l);
    assert!(
        rows.iter().any(|r| r.contains("message number 19999 ")),
        "{rows:#?}"
    );
    v.handle_key(&ch('/'));
    for c in "number 12345 ".chars() {
        v.handle_key(&ch(c));
    }
    v.handle_key(&key(KeyCode::Enter));
    assert_eq!(v.matches(), (1, Some(0)));
    assert!(screen(&v, 40, 30, l).iter().any(|r| r.contains("12345")));
    v.handle_key(&key(KeyCode::Tab));
    assert!(screen(&v, 40, 30, l).iter().any(|r| r.contains("12345")));
}

#[test]
fn the_key_help_rows_are_localized_in_both_locales() {
    for l in locales() {
        let rows = help_rows(l);
        assert_eq!(rows.len(), HELP_ROWS.len());
        for (k, d) in &rows {
            assert!(l.has(d), "{d}");
            assert!(!k.starts_with("tui-key-"), "{k}");
        }
    }
    assert!(
        help_rows(Localizer::new(Locale::ZhCn))
            .iter()
            .any(|(k, _)| k == "鼠标滚轮")
    );
    for key in [
        "inspector-view-hint",
        "inspector-view-copied-raw",
        "inspector-view-no-match",
    ] {
        assert!(Localizer::new(Locale::ZhCn).has(key));
    }
}

#[test]
fn the_viewer_draws_only_inside_its_area_and_blanks_a_cut_wide_character() {
    let l = Localizer::new(Locale::ZhCn);
    let v = RequestViewer::new(&messages_body());
    let mut buf = Buffer::empty(Rect::new(0, 0, 60, 12));
    for y in 0..12 {
        buf.set_string(0, y, "左左左左左左", Style::default());
    }
    // The sixth 左 starts at column 10 and the fifth at 8; the area starts at 9, inside
    // the fifth.
    v.render(Rect::new(9, 1, 40, 10), &mut buf, &l);
    assert_eq!(
        buf[(8, 1)].symbol(),
        " ",
        "the cut wide character is blanked"
    );
    assert_eq!(buf[(6, 1)].symbol(), "左", "left of it stays");
    assert_eq!(buf[(0, 0)].symbol(), "左", "the row above stays");
    assert_eq!(buf[(50, 5)].symbol(), " ");
}
