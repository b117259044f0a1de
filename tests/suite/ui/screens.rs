//! Whole-screen snapshots of the TUI through ratatui's `TestBackend`, at 40, 80 and 120
//! columns in both locales (SPEC §10, reference U-1…U-5).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use deepterm::agent::protocol::{AgentEvent, TurnPhase};
use deepterm::i18n::Locale;
use deepterm::session::event::Usage;
use deepterm::ui::App;
use deepterm::ui::sample::Script;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const SIZES: [(u16, u16); 3] = [(40, 16), (80, 24), (120, 30)];

fn tag(l: Locale) -> &'static str {
    match l {
        Locale::EnUs => "en",
        Locale::ZhCn => "zh",
    }
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| app.render(f)).unwrap();
    let cursor = term
        .backend()
        .cursor_visible()
        .then(|| term.backend().cursor_position());
    let mut out = String::new();
    let buf = term.backend().buffer();
    for y in 0..h {
        let mut line = String::new();
        let mut skip = 0;
        for x in 0..w {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let sym = buf[(x, y)].symbol();
            line.push_str(sym);
            skip = unicode_width_of(sym).saturating_sub(1);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if let Some(c) = cursor {
        out.push_str(&format!("cursor: ({}, {})\n", c.x, c.y));
    }
    out
}

fn unicode_width_of(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s).max(1)
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn app_with(locale: Locale, events: &[AgentEvent]) -> App {
    let mut app = App::new(locale, false);
    for e in events {
        app.on_agent_event(e.clone());
    }
    app
}

/// Snapshots `build()` at every size in both locales, after applying `keys`.
fn check(name: &str, build: impl Fn(Locale) -> App) {
    for locale in Locale::ALL {
        for (w, h) in SIZES {
            let mut app = build(locale);
            let s = screen(&mut app, w, h);
            insta::assert_snapshot!(format!("{name}_{}_{w}", tag(locale)), s);
        }
    }
}

#[test]
fn empty_session_demo_banner() {
    check("empty", |l| {
        let mut s = Script::new();
        s.route(true);
        app_with(l, &s.events)
    });
}

#[test]
fn streaming_reply() {
    check("streaming", |l| {
        let mut s = Script::new();
        s.route(false)
            .user(1, "Explain the prefix cache in two lines.");
        s.push(AgentEvent::Phase(TurnPhase::Responding));
        s.stream(1, 1, "The user wants a short answer.", "## Prefix cache\n\nThe provider caches the **longest shared prefix** of a request, so `tools` must not move.\n\n| a | b |");
        app_with(l, &s.events)
    });
}

fn tool_script() -> Script {
    let mut s = Script::new();
    s.route(false).user(1, "List the files.");
    s.assistant(
        1,
        1,
        "",
        "Reading the directory.",
        &[("c1", "list_dir", "{\"path\":\".\"}")],
    );
    s.tool(
        1,
        1,
        "c1",
        "list_dir",
        "{\"path\":\".\"}",
        Some(("Cargo.toml\nsrc/\ntests/\nlocales/\nREADME.md", false)),
    );
    s.tool(
        1,
        1,
        "c2",
        "grep",
        "{\"pattern\":\"\\u001b[31m\"}",
        Some(("no such file: \u{1b}[31mboom", true)),
    );
    s.tool(1, 1, "c3", "read_file", "{\"path\":\"src/lib.rs\"}", None);
    s
}

#[test]
fn tool_cards_three_states() {
    for (state, presses) in [("collapsed", 0), ("expanded", 1), ("hidden", 2)] {
        check(&format!("tools_{state}"), |l| {
            let mut app = app_with(l, &tool_script().events);
            for _ in 0..presses {
                app.on_key(ctrl('o'));
            }
            app
        });
    }
}

#[test]
fn approval_prompt() {
    check("approval", |l| {
        let mut s = Script::new();
        s.route(false).user(1, "Run the tests.");
        // the call's own card waits for the user.
        s.push(AgentEvent::Phase(TurnPhase::RunningTools));
        s.tool(1, 1, "c9", "run_tests", "{\"filter\":\"ui\"}", None);
        s.push(AgentEvent::Phase(TurnPhase::AwaitingApproval));
        s.push(AgentEvent::ApprovalRequest {
            call_id: "c9".into(),
            tool: "run_tests".into(),
            arguments: "{\"filter\":\"ui\"}".into(),
        });
        app_with(l, &s.events)
    });
}

fn nodes_script() -> Script {
    let mut s = Script::new();
    s.route(false).user(1, "Connect github.");
    s.tools_changed(1, &["last_tool"], &[]);
    s.tools_changed(1, &[], &["old_tool"]);
    s.tools_changed(1, &["search", "read_file"], &["old_search"]);
    s.tools_changed(1, &["a", "b", "c"], &[]);
    s
}

#[test]
fn tool_change_nodes_render_collapsed_and_expanded() {
    check("nodes_collapsed", |l| app_with(l, &nodes_script().events));
    check("nodes_expanded", |l| {
        let mut app = app_with(l, &nodes_script().events);
        // Alt+T expands the most recent; select and expand the 2-added-1-removed node too.
        app.on_key(KeyEvent::new(KeyCode::Char('t'), KeyModifiers::ALT));
        app.on_key(key(KeyCode::Tab));
        app.on_key(key(KeyCode::Up));
        app.on_key(key(KeyCode::Up));
        app.on_key(key(KeyCode::Enter));
        app
    });
}

fn trajectory_script() -> Script {
    let mut s = Script::new();
    s.route(false).user(1, "Find the bug.");
    s.commit(deepterm::session::event::EventKind::AssistantAttempt(
        deepterm::session::event::AssistantAttempt {
            turn: 1,
            step: 1,
            error: deepterm::session::event::AttemptError {
                code: "rate_limit".into(),
                status: Some(429),
                message: "Rate limit reached".into(),
                retried: true,
                detail: None,
            },
        },
    ));
    s.assistant(1, 1, "", "", &[("c1", "grep", "{}")]);
    s.tool(1, 1, "c1", "grep", "{}", Some(("found", false)));
    s.commit(deepterm::session::event::EventKind::McpStatus(
        deepterm::session::event::McpStatus {
            server: "github".into(),
            state: deepterm::session::event::McpState::Connected,
            tools: Some(vec!["gh_search".into(), "gh_issue".into()]),
            error: None,
            detail: None,
        },
    ));
    s.tools_changed(1, &["gh_search", "gh_issue"], &["old_search"]);
    s.tools_changed(1, &["fetch"], &[]);
    s.assistant(
        1,
        2,
        "",
        "Fixed: the cache key ignored the tool order.",
        &[],
    );
    s.push(AgentEvent::SessionUsage(Usage {
        input_tokens: 2400,
        cache_read_tokens: 9600,
        output_tokens: 620,
    }));
    s
}

#[test]
fn trajectory_shows_request_and_context_cells() {
    check("trajectory", |l| {
        let mut app = app_with(l, &trajectory_script().events);
        // Focus Trajectory (narrow layouts then show it alone).
        app.on_key(key(KeyCode::Tab));
        app.on_key(key(KeyCode::Tab));
        app
    });
}

#[test]
fn help_overlay() {
    check("help", |l| {
        let mut app = app_with(l, &[]);
        app.on_key(key(KeyCode::Char('?')));
        app
    });
}

#[test]
fn cjk_text_wraps_by_display_width() {
    check("cjk", |l| {
        let mut s = Script::new();
        s.route(false)
            .user(1, "请用中文解释：为什么工具列表变化会破坏前缀缓存？");
        s.assistant(1, 1, "", "前缀缓存按请求的**最长公共前缀**命中。工具声明位于请求开头，任何增删都会改变前缀，因此 deepterm 把工具变更写成历史中的 developer 消息，而不是改写请求头。", &[]);
        let mut app = app_with(l, &s.events);
        for c in "你好，世界".chars() {
            app.on_key(key(KeyCode::Char(c)));
        }
        app
    });
}

#[test]
fn a_language_switch_rerenders_the_history() {
    let mut app = app_with(Locale::EnUs, &nodes_script().events);
    let en = screen(&mut app, 80, 24);
    assert!(en.contains("Tools updated · 2 added, 1 removed"), "{en}");
    app.on_key(key(KeyCode::F(2)));
    let zh = screen(&mut app, 80, 24);
    assert!(zh.contains("工具已更新 · 新增 2 个，移除 1 个"), "{zh}");
    assert!(zh.contains("已添加工具：last_tool"), "{zh}");
    let cmds = app.take_commands();
    assert!(matches!(
        cmds.as_slice(),
        [deepterm::agent::protocol::AgentCommand::SetLocale(
            Locale::ZhCn
        )]
    ));
}

#[test]
fn resize_down_to_40x12_never_panics() {
    let mut app = App::new(Locale::ZhCn, true);
    for e in deepterm::ui::sample::long_session(40) {
        app.on_agent_event(e);
    }
    let sizes = [
        (120, 40),
        (40, 12),
        (10, 3),
        (1, 1),
        (4, 3),
        (99, 12),
        (100, 12),
        (40, 12),
    ];
    for setup in 0..3 {
        match setup {
            1 => app.on_key(key(KeyCode::Char('/'))),
            2 => app.on_key(key(KeyCode::F(1))),
            _ => {}
        }
        for (w, h) in sizes {
            let s = screen(&mut app, w, h);
            assert_eq!(
                s.lines().filter(|l| !l.starts_with("cursor")).count(),
                h as usize
            );
        }
    }
}

fn inspector_data() -> deepterm::agent::inspect::InspectorData {
    use deepterm::agent::inspect::{DiffReason, InspectorData, divergence, inspected};
    use deepterm::llm::client::SerializedBody;
    use serde_json::json;
    let route = crate::common::flash_route();
    let history = vec![
        json!({"role": "user", "content": [{"type": "text", "text": "List the files, then read 说明.md."}]}),
        json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "...", "signature": "s"},
            {"type": "tool_use", "id": "c1", "name": "list_dir", "input": {"path": "."}}]}),
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "Cargo.toml"}]}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "Done."}]}),
    ];
    let tools = vec![json!({"name": "list_dir", "description": "d", "input_schema": {}})];
    let prev = SerializedBody {
        body: json!({"model": "deepseek-flash", "max_tokens": 8192, "system": "You are deepterm.",
            "messages": history, "tools": tools, "stream": true}),
        beta: None,
    };
    let mut next_msgs = history.clone();
    next_msgs.push(json!({"role": "system", "content": [
        {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "fetch"}}]}));
    let mut next_tools = tools.clone();
    next_tools.push(
        json!({"name": "fetch", "description": "d", "input_schema": {}, "defer_loading": true}),
    );
    let next = SerializedBody {
        body: json!({"model": "deepseek-flash", "max_tokens": 8192, "system": "You are deepterm.",
            "messages": next_msgs, "tools": next_tools, "stream": true}),
        beta: Some("mid-conversation-tool-changes-2026-07-01".into()),
    };
    InspectorData {
        previous: Some(inspected(Some(2), &route, &prev)),
        selected: inspected(None, &route, &next),
        divergence: divergence(&prev, &next),
        reasons: vec![DiffReason::ToolAdditionAppended],
    }
}

#[test]
fn inspector_overlay_next_vs_last() {
    for locale in Locale::ALL {
        for (w, h) in [(80u16, 24u16), (120, 30)] {
            let mut app = {
                let mut s = Script::new();
                s.route(false).user(1, "List the files.");
                app_with(locale, &s.events)
            };
            app.on_agent_event(AgentEvent::Inspector(Box::new(inspector_data())));
            let s = screen(&mut app, w, h);
            insta::assert_snapshot!(format!("inspector_{}_{w}", tag(locale)), s);
            // Esc closes it.
            app.on_key(key(KeyCode::Esc));
            assert!(app.inspector().is_none());
        }
    }
}
