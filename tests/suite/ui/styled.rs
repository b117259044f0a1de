//! Whole-screen styled snapshots: foreground, background and modifiers
//! of every run, at 40/80/120 columns in both locales, for a markdown reply with highlighted
//! code and quotes, wrapped tool output, and a CJK paragraph. Besides the snapshots, each
//! case asserts the property a user relies on, so a regression fails even when a snapshot
//! is updated carelessly.

use deepterm::i18n::Locale;
use deepterm::ui::App;
use deepterm::ui::sample::Script;
use deepterm::ui::snapshot::{styled, symbols};
use deepterm::ui::text::is_closing_punct;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const SIZES: [(u16, u16); 3] = [(40, 40), (80, 40), (120, 40)];

fn tag(l: Locale) -> &'static str {
    match l {
        Locale::EnUs => "en",
        Locale::ZhCn => "zh",
    }
}

/// Renders the app built from `script` and returns (symbols, styled).
fn screens(locale: Locale, script: &Script, w: u16, h: u16) -> (String, String) {
    let mut app = App::new(locale, false);
    for e in &script.events {
        app.on_agent_event(e.clone());
    }
    let mut term = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    term.draw(|f| app.render(f)).expect("draw");
    let buf = term.backend().buffer();
    (symbols(buf), styled(buf))
}

/// The Chat pane's part of a row: at 120 columns the right half is the Trajectory.
fn chat_part(row: &str, w: u16) -> String {
    if w >= 100 {
        // The Chat pane is the left half of the columns.
        let mut cols = 0;
        row.chars()
            .take_while(|c| {
                cols += unicode_width::UnicodeWidthChar::width(*c).unwrap_or(0);
                cols <= usize::from(w / 2)
            })
            .collect()
    } else {
        row.to_string()
    }
}

const REPLY: &str = "## Plan

Call **fx__echo** first, then `read_file` on the config.

> The cache note: removing a tool on an addition-only route costs the whole prefix, so deepterm keeps it.

1. Check the route
   - nested: see [docs](https://example.com/docs)

```rust
let url = \"https://example.com//x\"; // keep it
```
";

#[test]
fn markdown_reply_with_code_and_quote_styled() {
    let mut s = Script::new();
    s.route(false).user(1, "How do I call it?");
    s.assistant(1, 1, "", REPLY, &[]);
    for locale in Locale::ALL {
        for (w, h) in SIZES {
            let (plain, st) = screens(locale, &s, w, h);
            // Tool names with `__` stay whole and bold; no markup leaks.
            assert!(plain.contains("fx__echo"), "{plain}");
            assert!(!plain.contains("**"), "{plain}");
            assert!(st.contains("«fx__echo»{BOLD}"), "{st}");
            // The URL inside code is a string, not turned into a comment.
            assert!(plain.contains("https://example.com//x"), "{plain}");
            // Every row of the wrapped quote keeps its bar.
            let quote_rows: Vec<String> = plain
                .lines()
                .map(|r| chat_part(r, w))
                .skip_while(|r| !r.contains("The cache note"))
                .take_while(|r| !r.trim().is_empty())
                .collect();
            assert!(quote_rows.len() >= 2, "the quote wraps: {plain}");
            for r in &quote_rows {
                assert!(r.trim_start().starts_with('▎'), "row lost its bar: {r:?}");
            }
            insta::assert_snapshot!(format!("markdown_reply_{}_{w}", tag(locale)), st);
        }
    }
}

#[test]
fn wrapped_tool_output_keeps_its_gutter_styled() {
    let mut s = Script::new();
    s.route(false).user(1, "Search.");
    s.assistant(
        1,
        1,
        "",
        "Searching.",
        &[("c1", "grep", "{\"pattern\":\"cache\"}")],
    );
    s.tool(
        1,
        1,
        "c1",
        "grep",
        "{\"pattern\":\"cache\"}",
        Some((
            "src/agent/request.rs:42: the projection keeps everything before the tool change cached across requests\nsrc/ui/view.rs:7: 缓存的行在宽度变化时按需重新折行，而不是一次全部重算。\nshort",
            false,
        )),
    );
    for locale in Locale::ALL {
        for (w, h) in SIZES {
            let (plain, st) = screens(locale, &s, w, h);
            let rows: Vec<String> = plain
                .lines()
                .map(|r| chat_part(r, w))
                .skip_while(|r| !r.contains("src/agent/request.rs"))
                .take_while(|r| !r.contains("short"))
                .collect();
            assert!(rows.len() >= 2, "{plain}");
            for r in &rows {
                assert!(
                    r.starts_with("  │ "),
                    "tool output row lost its gutter: {r:?}"
                );
            }
            insta::assert_snapshot!(format!("tool_output_{}_{w}", tag(locale)), st);
        }
    }
}

#[test]
fn cjk_paragraph_never_starts_a_row_with_closing_punctuation_styled() {
    let mut s = Script::new();
    s.route(false).user(1, "解释一下。");
    s.assistant(
        1,
        1,
        "",
        "前缀缓存按请求的最长公共前缀命中，工具声明位于请求开头，任何增删都会改变前缀。因此，deepterm 把工具变更写成历史中的消息，而不是改写请求头；这样，之前的内容都能继续命中缓存。",
        &[],
    );
    for locale in Locale::ALL {
        for (w, h) in SIZES {
            let (plain, st) = screens(locale, &s, w, h);
            assert!(plain.contains("前缀缓存"), "{plain}");
            for row in plain.lines().map(|r| chat_part(r, w)) {
                if let Some(c) = row.trim_start().chars().next() {
                    assert!(!is_closing_punct(c), "row starts with {c:?}: {row:?}");
                }
            }
            insta::assert_snapshot!(format!("cjk_paragraph_{}_{w}", tag(locale)), st);
        }
    }
}

/// A warm request and one that lost the cache to a tool removal on an addition-only
/// route.
fn cache_break_script() -> Script {
    use deepterm::session::event::{ToolUpdateMode, Usage};
    let u = |input, cached| Usage {
        input_tokens: input,
        cache_read_tokens: cached,
        output_tokens: 120,
    };
    let mut s = Script::new();
    s.route(false)
        .context("deepseek-flash", Some(ToolUpdateMode::AdditionOnly))
        .user(1, "Read the config and explain it")
        .assistant_usage(1, 1, "ok", u(6_000, 0))
        .user(2, "Now the tests")
        .assistant_usage(2, 1, "ok", u(70, 6_080))
        .tools_changed(3, &[], &["grep"])
        .user(3, "And the README")
        .assistant_usage(3, 1, "ok", u(6_300, 0));
    s
}

#[test]
fn cache_break_row_is_styled_unlike_a_warm_row() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let s = cache_break_script();
    for locale in Locale::ALL {
        for (w, h) in SIZES {
            let mut app = App::new(locale, false);
            for e in &s.events {
                app.on_agent_event(e.clone());
            }
            // Focus the Trajectory (narrow layouts then show it alone).
            for _ in 0..2 {
                app.on_key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
            }
            let mut term = Terminal::new(TestBackend::new(w, h)).expect("test backend");
            term.draw(|f| app.render(f)).expect("draw");
            let buf = term.backend().buffer();
            let (plain, st) = (symbols(buf), styled(buf));
            // The warm row's hit is green, the broken one's red and marked.
            assert!(st.contains("« 99%»{fg=Green}"), "{st}");
            assert!(st.contains("«! »{fg=Red BOLD}"), "{st}");
            let broken = st
                .lines()
                .find(|r| r.contains("«! »"))
                .expect("a marked row");
            assert!(broken.ends_with("«  0%»{fg=Red}"), "{broken}");
            // Its reason is on the row below, in the locale.
            let reason = match locale {
                Locale::EnUs => "cache break: tools changed",
                Locale::ZhCn => "缓存失效：工具有变化",
            };
            assert!(plain.contains(reason), "{plain}");
            insta::assert_snapshot!(format!("cache_break_{}_{w}", tag(locale)), st);
        }
    }
}

#[test]
fn hit_survives_every_terminal_width_and_columns_go_least_important_first() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let s = cache_break_script();
    // Terminal width → the header labels shown (the Trajectory is half of 100+ columns).
    let cases: [(u16, &[&str], &[&str]); 5] = [
        (
            40,
            &["#", "step", "↑in", "⟳cache", "↓out", "hit"],
            &["TTFT", "total"],
        ),
        (
            60,
            &["#", "step", "TTFT", "total", "↑in", "⟳cache", "↓out", "hit"],
            &[],
        ),
        (
            80,
            &["#", "step", "TTFT", "total", "↑in", "⟳cache", "↓out", "hit"],
            &[],
        ),
        (
            100,
            &["#", "step", "TTFT", "total", "↑in", "⟳cache", "↓out", "hit"],
            &[],
        ),
        (
            120,
            &["#", "step", "TTFT", "total", "↑in", "⟳cache", "↓out", "hit"],
            &[],
        ),
    ];
    for (w, shown, dropped) in cases {
        let mut app = App::new(Locale::EnUs, false);
        for e in &s.events {
            app.on_agent_event(e.clone());
        }
        for _ in 0..2 {
            app.on_key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
        }
        let mut term = Terminal::new(TestBackend::new(w, 30)).expect("test backend");
        term.draw(|f| app.render(f)).expect("draw");
        let plain = symbols(term.backend().buffer());
        let header = plain
            .lines()
            .find(|r| r.contains("⟳cache") || r.contains(" hit"))
            .unwrap_or_else(|| panic!("header at {w}: {plain}"));
        for h in shown {
            assert!(header.contains(h), "{w}: {h} in {header}");
        }
        for h in dropped {
            assert!(!header.contains(h), "{w}: {h} dropped from {header}");
        }
        // Every request row shows its hit %, uncut.
        for n in ["#1", "#2", "#3"] {
            let row = plain
                .lines()
                .find(|r| r.contains(&format!("{n}   T")))
                .unwrap_or_else(|| panic!("{n} at {w}: {plain}"));
            assert!(row.trim_end().ends_with('%'), "{w}: {row}");
            assert!(!row.contains('…'), "{w}: {row}");
        }
    }
}
