//! History search, /copy, the external editor, F3 mouse capture and the turn-end notification.

use super::*;

#[test]
fn ctrl_r_keys_search_show_the_line_and_enter_or_esc_leave() {
    for loc in Locale::ALL {
        let mut app = App::new(loc, false);
        app.bottom
            .composer_mut()
            .add_older_history(vec!["Refactor the parser".into(), "write docs".into()]);
        type_text(&mut app, "draft");
        app.on_key(ctl('r'));
        type_text(&mut app, "PARS");
        let s = screen_at(&mut app, 80, 24);
        let label = if loc == Locale::EnUs {
            "(reverse-i-search) `PARS`: Refactor the parser"
        } else {
            "（反向搜索）“PARS”： Refactor the parser"
        };
        assert!(s.contains(label), "{s}");
        assert_eq!(app.composer().text(), "draft");
        // Esc: the draft as it was, no search line.
        app.on_key(key(KeyCode::Esc));
        let s = screen_at(&mut app, 80, 24);
        assert!(s.contains("› draft"), "{s}");
        assert!(!s.contains("PARS"), "{s}");
        // Enter: the match in the composer, nothing sent.
        app.on_key(ctl('r'));
        type_text(&mut app, "docs");
        app.on_key(key(KeyCode::Enter));
        assert_eq!(app.composer().text(), "write docs");
        assert!(app.take_commands().is_empty());
    }
}

#[test]
fn copy_puts_the_nth_last_reply_on_the_clipboard_with_a_transient_hint() {
    let mut app = two_replies_app(Locale::EnUs);
    let cells = app.transcript().cells().len();
    type_and_send(&mut app, "/copy");
    // Nothing goes to the agent, nothing into the transcript: only the terminal write.
    assert_eq!(
        app.take_events(),
        vec![AppEvent::Terminal(TermRequest::Escape(osc::osc52(
            "Second reply: `code`"
        )))]
    );
    assert_eq!(app.transcript().cells().len(), cells);
    assert_eq!(app.hint(), Some("Copied reply #1 (20 characters)"));
    assert!(draw(&mut app).contains("Copied reply #1 (20 characters)"));
    assert!(app.animating(), "the hint goes away with time");
    type_and_send(&mut app, "/copy 2");
    assert_eq!(
        app.take_term_requests(),
        vec![TermRequest::Escape(osc::osc52("First *reply*"))]
    );
    assert_eq!(app.hint(), Some("Copied reply #2 (13 characters)"));
    // The hint is transient.
    let later = app.model.now + HINT_WINDOW;
    app.set_now(later);
    assert_eq!(app.hint(), None);
    assert!(!app.animating());
    assert!(!draw(&mut app).contains("Copied reply"));
}

#[test]
fn copy_with_nothing_to_copy_says_so_in_both_locales() {
    for (locale, none, third, usage) in [
        (
            Locale::EnUs,
            "Nothing to copy yet",
            "There is no reply #3",
            "Usage: /copy [N]",
        ),
        (
            Locale::ZhCn,
            "还没有可复制的内容",
            "没有倒数第 3 条回复",
            "用法：/copy [N]",
        ),
    ] {
        let mut app = App::new(locale, false);
        type_and_send(&mut app, "/copy");
        assert!(app.take_term_requests().is_empty());
        assert!(app.hint().unwrap().contains(none), "{:?}", app.hint());
        let mut app = two_replies_app(locale);
        type_and_send(&mut app, "/copy 3");
        assert!(app.take_term_requests().is_empty());
        assert!(app.hint().unwrap().contains(third), "{:?}", app.hint());
        type_and_send(&mut app, "/copy x");
        assert!(app.take_term_requests().is_empty());
        assert!(app.hint().unwrap().contains(usage), "{:?}", app.hint());
        assert!(app.take_commands().is_empty());
    }
}

#[test]
fn ctrl_g_asks_for_the_editor_and_a_failure_keeps_the_draft() {
    let mut app = App::new(Locale::ZhCn, false);
    type_text(&mut app, "draft");
    assert_eq!(app.take_events(), vec![]);
    app.on_key(ctl('g'));
    assert_eq!(app.take_events(), vec![AppEvent::Editor("draft".into())]);
    assert_eq!(app.take_events(), vec![], "asked once");
    app.editor_finished(Err(crate::ui::terminal::editor::EditorError::Failed(
        "nano".into(),
        "exit status: 1".into(),
    )));
    assert_eq!(app.composer().text(), "draft");
    let s = screen_at(&mut app, 120, 30);
    assert!(s.contains("编辑器“nano”执行失败"), "{s}");
    app.editor_finished(Ok("edited".into()));
    assert_eq!(app.composer().text(), "edited");
}

#[test]
fn the_mouse_is_free_by_default_and_f3_captures_it_and_releases_it() {
    for (locale, scroll, select) in [
        (Locale::EnUs, "mouse: scroll", "mouse: select"),
        (Locale::ZhCn, "鼠标：滚动", "鼠标：选择"),
    ] {
        let mut app = two_replies_app(locale);
        assert!(
            !app.mouse_capture(),
            "the terminal keeps the mouse by default"
        );
        assert!(footer_row(&mut app).contains(&select.replace(' ', "")));
        app.on_key(key(KeyCode::F(3)));
        assert!(app.mouse_capture());
        assert_eq!(
            app.take_term_requests(),
            vec![TermRequest::MouseCapture(true)]
        );
        assert!(footer_row(&mut app).contains(&scroll.replace(' ', "")));
        app.on_key(key(KeyCode::F(3)));
        assert_eq!(
            app.take_term_requests(),
            vec![TermRequest::MouseCapture(false)]
        );
        assert!(footer_row(&mut app).contains(&select.replace(' ', "")));
    }
}

#[test]
fn notify_only_when_enabled_and_unfocused() {
    let finished = |app: &mut App| {
        app.on_agent_event(AgentEvent::Phase(TurnPhase::Idle));
        app.on_agent_event(AgentEvent::TurnFinished);
        app.take_term_requests()
    };
    // Off by default, even unfocused.
    let mut app = two_replies_app(Locale::EnUs);
    app.on_focus(false);
    assert!(finished(&mut app).is_empty());
    // On, but focused: no notification.
    app.set_notify(true);
    app.on_focus(true);
    assert!(finished(&mut app).is_empty());
    // On and unfocused: one OSC 9 with the first words of the reply.
    app.on_focus(false);
    assert_eq!(
        finished(&mut app),
        vec![TermRequest::Escape(
            "\x1b]9;deepterm: turn finished — Second reply: code\x07".into()
        )]
    );
    // A finished command (not a turn) does not notify.
    app.on_agent_event(AgentEvent::CommandFinished);
    assert!(app.take_term_requests().is_empty());
    let mut zh = App::new(Locale::ZhCn, false);
    zh.set_notify(true);
    zh.on_focus(false);
    assert_eq!(
        finished(&mut zh),
        vec![TermRequest::Escape(
            "\x1b]9;deepterm：本轮已完成\x07".into()
        )]
    );
}

#[test]
fn copy_works_while_a_turn_runs_and_is_never_queued() {
    let mut app = two_replies_app(Locale::EnUs);
    app.on_agent_event(AgentEvent::Phase(TurnPhase::Waiting));
    type_and_send(&mut app, "next question");
    app.on_agent_event(AgentEvent::Queued(1));
    type_and_send(&mut app, "/copy");
    let events = app.take_events();
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(matches!(&events[0], AppEvent::Agent(AgentCommand::Submit(t)) if t == "next question"));
    assert!(matches!(&events[1], AppEvent::Terminal(_)), "{events:?}");
    let screen = draw(&mut app);
    assert!(screen.contains("queued: next question"), "{screen}");
    assert!(!screen.contains("queued: /copy"), "{screen}");
}
