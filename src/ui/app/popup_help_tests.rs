//! The command popup, the key help overlay, long pastes and queued messages in the composer.

use super::*;

#[test]
fn enter_on_exact_tool_completes_with_usage_instead_of_running_tools() {
    let mut app = typed_app("/tool");
    assert_eq!(app.composer().popup_matches()[0].name, "/tool");
    app.on_key(key(KeyCode::Enter));
    assert!(submitted(&mut app).is_empty(), "/tool needs an argument");
    assert_eq!(app.composer().text(), "/tool ");
    let screen = screen_at(&mut app, 80, 20);
    assert!(
        screen.contains("/tool enable|disable NAME  Enable or disable a tool"),
        "{screen}"
    );
    for c in "enable x".chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    app.on_key(key(KeyCode::Enter));
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Run(
            crate::agent::command_spec::Command::Tool {
                enable: true,
                name: "x".into()
            }
        )]
    );
}

#[test]
fn enter_runs_highlighted_commands_without_required_arguments_on_one_press() {
    for (typed, sent) in [
        ("/tools", "/tools"),
        ("/help", "/help"),
        ("/mcp", "/mcp"),
        ("/model", "/model"),
        ("/system", "/system"),
        ("/resume", "/resume"),
        ("/comp", "/compact"),
        ("/new", "/new"),
    ] {
        let mut app = typed_app(typed);
        app.on_key(key(KeyCode::Enter));
        assert_eq!(submitted(&mut app), vec![sent.to_string()], "{typed}");
        assert!(app.composer().is_empty(), "{typed}");
    }
    // `/lang` requires its argument: completed, not run.
    let mut app = typed_app("/lang");
    app.on_key(key(KeyCode::Enter));
    assert!(submitted(&mut app).is_empty());
    assert_eq!(app.composer().text(), "/lang ");
    // Enter runs the highlighted row, not the first one.
    let mut app = typed_app("/to");
    app.on_key(key(KeyCode::Down));
    app.on_key(key(KeyCode::Enter));
    assert_eq!(app.composer().text(), "/tool ");
}

#[test]
fn tab_completes_the_highlighted_name_and_keeps_focus() {
    let mut app = typed_app("/mo");
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.composer().text(), "/model ");
    assert_eq!(app.focus(), Focus::Composer);
    assert!(submitted(&mut app).is_empty());
    let mut app = typed_app("/tools");
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.composer().text(), "/tools");
    // Without the popup Tab still moves focus.
    let mut app = typed_app("hi");
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.focus(), Focus::Chat);
}

#[test]
fn popup_shows_each_synopsis_from_the_command_table_in_both_locales() {
    for loc in Locale::ALL {
        let l = Localizer::new(loc);
        let mut app = App::new(loc, false);
        app.on_key(key(KeyCode::Char('/')));
        // Tall enough for every command of the table.
        let screen = screen_at(&mut app, 120, 40);
        for c in crate::agent::command_spec::COMMANDS {
            let line = crate::ui::bottom::popup::usage_line(l, c);
            assert!(screen.contains(&line), "{line} in {screen}");
        }
        assert!(!screen.contains("on|off"));
    }
}

#[test]
fn help_scrolls_with_the_keymap_keys_and_shows_its_position() {
    let mut app = App::new(Locale::EnUs, false);
    app.on_key(key(KeyCode::F(1)));
    let first = screen_at(&mut app, 60, 10);
    assert!(first.contains("1–7 of"), "{first}");
    assert!(first.contains("Send the message"), "{first}");
    app.on_key(key(KeyCode::Down));
    let s = screen_at(&mut app, 60, 10);
    assert!(s.contains("2–8 of"), "{s}");
    app.on_key(key(KeyCode::End));
    let s = screen_at(&mut app, 60, 10);
    // The Trajectory legend is last; the commands above it are reachable on the way.
    assert!(s.contains("tool_removal"), "the last row is reachable: {s}");
    let mut s = s;
    for _ in 0..8 {
        if s.contains("/quit") {
            break;
        }
        app.on_key(key(KeyCode::PageUp));
        s = screen_at(&mut app, 60, 10);
    }
    assert!(s.contains("/quit"), "the last command is reachable: {s}");
    assert!(app.help_open());
    app.on_key(key(KeyCode::PageUp));
    app.on_key(key(KeyCode::Home));
    let s = screen_at(&mut app, 60, 10);
    assert!(s.contains("1–7 of"), "{s}");
    app.on_key(key(KeyCode::PageDown));
    let s = screen_at(&mut app, 60, 10);
    assert!(s.contains("8–14 of"), "{s}");
    // Any other key closes.
    app.on_key(key(KeyCode::Char('x')));
    assert!(!app.help_open());
}

#[test]
fn help_uses_the_width_of_a_wide_terminal_without_cutting() {
    for loc in Locale::ALL {
        let mut app = App::new(loc, false);
        app.on_key(key(KeyCode::F(1)));
        let s = screen_at(&mut app, 200, 60);
        let top = s.lines().find(|r| r.contains('┌')).unwrap_or_default();
        let w = str_width(top.trim());
        assert!(w > 100, "{loc:?}: {w} columns wide:\n{s}");
        assert!(
            !s.contains('…'),
            "{loc:?}: nothing cut at 200 columns:\n{s}"
        );
    }
}

#[test]
fn long_paste_collapses_in_chat_and_expands_with_enter() {
    for loc in Locale::ALL {
        let l = Localizer::new(loc);
        let paste: String = (1..=60).map(|i| format!("pasted line {i}\n")).collect();
        let mut s = Script::new();
        s.route(false).user(1, &paste);
        let mut app = App::new(loc, false);
        for e in s.events {
            app.on_agent_event(e);
        }
        let screen = screen_at(&mut app, 80, 30);
        assert!(screen.contains("pasted line 3"), "{screen}");
        assert!(
            !screen.contains("pasted line 4"),
            "{loc:?} collapsed: {screen}"
        );
        let more = l.tra(
            "tui-user-collapsed",
            &[("hidden", crate::i18n::Arg::from(57usize))],
        );
        assert!(screen.contains(&more), "{more} in {screen}");
        // Select it in Chat and expand: the end of the paste is there.
        app.on_key(key(KeyCode::Tab));
        app.on_key(key(KeyCode::Up));
        app.on_key(key(KeyCode::Enter));
        let screen = screen_at(&mut app, 80, 30);
        assert!(screen.contains("▾"), "{screen}");
        let h = app.transcript().total_height();
        assert!(h > 60, "{loc:?}: expanded to {h} rows");
        // A short message is not collapsible.
        let mut s = Script::new();
        s.route(false).user(1, "short\nmessage");
        let mut app = App::new(loc, false);
        for e in s.events {
            app.on_agent_event(e);
        }
        let screen = screen_at(&mut app, 80, 30);
        assert!(
            screen.contains("message") && !screen.contains('▸'),
            "{screen}"
        );
    }
}

#[test]
fn queued_messages_show_dimmed_under_the_composer() {
    let mut app = App::new(Locale::EnUs, false);
    app.on_agent_event(AgentEvent::Phase(TurnPhase::Responding));
    for t in ["first queued message", "second one", "third", "fourth"] {
        for c in t.chars() {
            app.on_key(key(KeyCode::Char(c)));
        }
        app.on_key(key(KeyCode::Enter));
    }
    app.on_agent_event(AgentEvent::Queued(3));
    let s = screen_at(&mut app, 40, 20);
    assert!(!s.contains("first queued"), "no longer queued: {s}");
    assert!(s.contains("↳ queued: second one"), "{s}");
    assert!(s.contains("↳ queued: fourth"), "{s}");
    let rows: Vec<&str> = s.lines().collect();
    let composer = rows.iter().position(|r| r.starts_with('›')).unwrap_or(0);
    let queued = rows.iter().position(|r| r.contains("↳")).unwrap_or(0);
    assert!(queued > composer, "under the composer: {s}");
    app.on_agent_event(AgentEvent::Queued(0));
    let s = screen_at(&mut app, 40, 20);
    assert!(!s.contains('↳'), "{s}");
    // A long queued message is one truncated row.
    let mut app = App::new(Locale::ZhCn, false);
    app.on_agent_event(AgentEvent::Phase(TurnPhase::Responding));
    for c in "很长的排队消息 ".repeat(10).chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    app.on_key(key(KeyCode::Enter));
    app.on_agent_event(AgentEvent::Queued(1));
    let s = screen_at(&mut app, 40, 20);
    assert_eq!(s.matches("↳ 排队中").count(), 1, "{s:?}");
    assert!(s.contains('…'), "{s}");
}

#[test]
fn composer_wraps_at_word_boundaries_at_40_columns() {
    let mut app = App::new(Locale::EnUs, false);
    let text = "please refactor the configuration loader so that environment overrides win";
    for c in text.chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    let s = screen_at(&mut app, 40, 20);
    let rows: Vec<&str> = s
        .lines()
        .filter(|r| r.starts_with("› ") || r.starts_with("  "))
        .filter(|r| !r.trim().is_empty())
        .collect();
    let words: Vec<&str> = text.split(' ').collect();
    for r in &rows {
        for w in r.trim().split(' ').filter(|w| !w.is_empty()) {
            let w = w.trim_start_matches("›");
            assert!(
                w.is_empty() || words.contains(&w),
                "{w:?} is a broken word in {s}"
            );
        }
    }
    assert!(rows.len() >= 2, "{s}");
}

#[test]
fn scroll_keys_close_the_help_when_it_fits() {
    let mut app = App::new(Locale::EnUs, false);
    app.on_key(key(KeyCode::F(1)));
    let s = screen_at(&mut app, 200, 120);
    let bottom = s.lines().find(|l| l.contains('┘')).unwrap_or_default();
    assert!(!bottom.contains(" of "), "everything fits: {s}");
    app.on_key(key(KeyCode::Down));
    assert!(!app.help_open(), "↓ closes a help that does not scroll");
}

#[test]
fn custom_commands_the_loop_announces_are_offered_in_the_popup_and_key_help() {
    let offered = crate::agent::command_spec::OfferedCommand {
        name: "/audit".into(),
        description: Some("Audit the open diff".into()),
        argument_hint: Some("[FILE]".into()),
    };
    // Before the loop announces them, the UI knows no such command.
    let app = typed_app("/aud");
    assert!(app.composer().popup_matches().is_empty());

    let mut app = App::new(Locale::EnUs, false);
    app.on_agent_event(AgentEvent::CustomCommands(vec![offered]));
    for c in "/aud".chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    assert_eq!(app.composer().popup_matches()[0].name, "/audit");
    let screen = screen_at(&mut app, 80, 20);
    assert!(screen.contains("/audit [FILE]"), "{screen}");
    assert!(screen.contains("Audit the open diff"), "{screen}");
    // Typed with arguments, it goes to the loop as the custom command it is.
    for c in "it src/x.rs".chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    app.on_key(key(KeyCode::Enter));
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Run(
            crate::agent::command_spec::Command::Custom {
                name: "/audit".into(),
                args: "src/x.rs".into(),
            }
        )]
    );
    // The key help lists it after the table, with its description as written.
    app.on_key(KeyEvent::new(KeyCode::F(1), KeyModifiers::NONE));
    let help = screen_at(&mut app, 120, 100);
    assert!(help.contains("/audit [FILE]"), "{help}");
    assert!(help.contains("Audit the open diff"), "{help}");
}
