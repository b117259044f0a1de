//! Tool cards around an approval (waiting, allowed, denied, result) and what brings Chat into
//! view.

use super::*;

#[test]
fn card_reads_waiting_then_allowed_then_result_in_order() {
    let mut app = approval_app(Locale::EnUs);
    // One card for the call: no separate approval cell below it.
    assert_eq!(app.transcript().len(), 2);
    let screen = draw(&mut app);
    assert!(screen.contains("run_cmd  waiting for you"), "{screen}");
    assert!(!screen.contains("running"), "{screen}");
    assert!(screen.contains("Waiting for you"), "status line: {screen}");
    app.on_key(key(KeyCode::Char('y')));
    finish_call(&mut app, "total 0\nfile-a", false);
    let screen = draw(&mut app);
    let tool = row_of(&screen, "Tool / run_cmd").unwrap();
    let args = row_of(&screen, "ls -la /tmp").unwrap();
    let allowed = row_of(&screen, "Allowed").unwrap();
    let result = row_of(&screen, "file-a").unwrap();
    assert!(
        tool < args && args < allowed && allowed < result,
        "tool {tool}, args {args}, allowed {allowed}, result {result}:\n{screen}"
    );
    assert!(screen.contains("run_cmd  done"), "{screen}");
}

#[test]
fn denied_card_says_denied_by_you_not_the_model_text() {
    for (loc, denied) in [(Locale::EnUs, "Deniedbyyou"), (Locale::ZhCn, "已被你拒绝")] {
        let mut app = approval_app(loc);
        app.on_key(key(KeyCode::Esc));
        assert!(matches!(
            app.take_commands().as_slice(),
            [AgentCommand::Approve {
                decision: ApprovalDecision::Deny,
                ..
            }]
        ));
        finish_call(
            &mut app,
            &crate::agent::tool_runner::denial_text("run_cmd"),
            true,
        );
        // Wide characters leave a blank cell behind them in the buffer.
        let screen = draw(&mut app).replace(' ', "");
        assert!(screen.contains(denied), "{screen}");
        assert!(!screen.contains("theuserdenied"), "{screen}");
    }
}

#[test]
fn resumed_denial_reads_denied_by_you() {
    let mut s = Script::new();
    s.route(false).user(1, "list files");
    s.tool(
        1,
        1,
        "c1",
        "run_cmd",
        "{}",
        Some((&crate::agent::tool_runner::denial_text("run_cmd"), true)),
    );
    let history: Vec<_> = s
        .events
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::Committed(e) => Some(e),
            _ => None,
        })
        .collect();
    let mut app = App::new(Locale::EnUs, false);
    app.on_agent_event(AgentEvent::SessionOpened {
        id: "s".into(),
        path: "p".into(),
        history,
    });
    let screen = draw(&mut app);
    assert!(screen.contains("run_cmd  not run"), "{screen}");
    assert!(screen.contains("Denied by you"), "{screen}");
    assert!(!screen.contains("the user denied"), "{screen}");
}

#[test]
fn clock_is_paused_while_waiting_for_you() {
    let mut app = App::new(Locale::EnUs, false);
    let t0 = Instant::now();
    app.set_now(t0);
    app.on_agent_event(AgentEvent::Phase(TurnPhase::RunningTools));
    app.set_now(t0 + Duration::from_secs(3));
    app.on_agent_event(AgentEvent::Phase(TurnPhase::AwaitingApproval));
    app.set_now(t0 + Duration::from_secs(60));
    assert_eq!(app.model.elapsed(), Duration::from_secs(3));
    let screen = draw(&mut app);
    assert!(screen.contains("Waiting for you 3s paused"), "{screen}");
    assert!(screen.contains("n / Esc deny, turn goes on"), "{screen}");
    assert!(!screen.contains("Esc cancels"), "{screen}");
    // Answered: the tools' clock goes on from where it stopped.
    app.on_agent_event(AgentEvent::Phase(TurnPhase::RunningTools));
    app.set_now(t0 + Duration::from_secs(62));
    assert_eq!(app.model.elapsed(), Duration::from_secs(5));
}

#[test]
fn approval_brings_chat_into_view_with_tool_and_arguments() {
    let mut app = App::new(Locale::EnUs, false);
    app.on_agent_event(AgentEvent::Phase(TurnPhase::RunningTools));
    draw(&mut app);
    // Tab, Tab: the Trajectory is the one pane shown at 80 columns.
    app.on_key(key(KeyCode::Tab));
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.focus(), Focus::Trajectory);
    assert!(!draw(&mut app).contains("Chat"));
    let mut s = Script::new();
    s.user(1, "list files");
    for k in 0..12 {
        s.tool(1, 1, &format!("a{k}"), "read", "{}", Some(("ok", false)));
    }
    s.tool(1, 2, "c1", "run_cmd", r#"{"command":"ls -la /tmp"}"#, None);
    s.tool(1, 2, "c2", "run_cmd", r#"{"command":"echo later"}"#, None);
    for k in 0..6 {
        s.tool(1, 2, &format!("z{k}"), "read", "{}", None);
    }
    s.push(AgentEvent::ApprovalRequest {
        call_id: "c1".into(),
        tool: "run_cmd".into(),
        arguments: r#"{"command":"ls -la /tmp"}"#.into(),
    });
    for e in s.events {
        app.on_agent_event(e);
    }
    assert_eq!(app.focus(), Focus::Chat);
    let screen = draw(&mut app);
    // The card (not just the tail of Chat) is on screen, and the prompt names the tool.
    let card = row_of(&screen, "run_cmd  waiting for you").expect(&screen);
    assert!(row_of(&screen, "ls -la /tmp").unwrap() > card, "{screen}");
    let prompt = screen.lines().rev().find(|l| l.contains("Allow run_cmd?"));
    assert!(
        prompt.is_some_and(|l| l.contains("ls -la /tmp")),
        "bottom pane: {screen}"
    );
    assert!(screen.contains("n deny, say why · Esc deny"), "{screen}");
}

#[test]
fn output_and_notices_bring_chat_into_view() {
    let mut app = App::new(Locale::EnUs, false);
    draw(&mut app);
    app.on_key(key(KeyCode::Tab));
    app.on_key(key(KeyCode::Tab));
    draw(&mut app);
    app.on_agent_event(AgentEvent::Output(vec![crate::i18n::Text::new(
        crate::agent::protocol::OUTPUT_VERBATIM,
        vec![("text", "tool list row".into())],
    )]));
    assert_eq!(app.focus(), Focus::Chat);
    assert!(draw(&mut app).contains("tool list row"));
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.focus(), Focus::Trajectory);
    draw(&mut app);
    app.on_agent_event(AgentEvent::Notice(Notice::new(
        NoticeLevel::Error,
        "tui-task-panicked",
        vec![("task", "x".into()), ("message", "boom".into())],
    )));
    assert!(draw(&mut app).contains("boom"));
}

#[test]
fn mcp_failure_shows_in_chat_once_and_brings_it_into_view() {
    let mut app = App::new(Locale::EnUs, false);
    draw(&mut app);
    app.on_key(key(KeyCode::Tab));
    app.on_key(key(KeyCode::Tab));
    draw(&mut app);
    assert_eq!(app.focus(), Focus::Trajectory);
    let failed = EventKind::McpStatus(crate::session::event::McpStatus {
        server: "github".into(),
        state: McpState::Failed,
        tools: None,
        error: Some("exited with status 1".into()),
        detail: None,
    });
    // The logged status is the one fact of the failure: `/mcp connect` in the TUI adds no
    // notice of its own, so nothing has to be matched away.
    let mut s = Script::new();
    s.commit(failed.clone());
    for e in s.events {
        app.on_agent_event(e);
    }
    assert_eq!(app.focus(), Focus::Chat);
    let live = draw(&mut app);
    let count = |screen: &str| {
        screen
            .matches("MCP server github could not be connected")
            .count()
    };
    assert_eq!(count(&live), 1, "{live}");
    // The same fold shows it once on resume.
    let mut s = Script::new();
    s.commit(failed);
    let history = s
        .events
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::Committed(e) => Some(e),
            _ => None,
        })
        .collect();
    let mut resumed = App::new(Locale::EnUs, false);
    resumed.on_agent_event(AgentEvent::SessionOpened {
        id: "s".into(),
        path: String::new(),
        history,
    });
    let replayed = draw(&mut resumed);
    assert_eq!(count(&replayed), 1, "{replayed}");
}

#[test]
fn a_message_sent_from_the_trajectory_shows_chat_for_its_reply() {
    let mut app = App::new(Locale::EnUs, false);
    draw(&mut app);
    app.on_key(key(KeyCode::Tab));
    app.on_key(key(KeyCode::Tab));
    for c in "hi".chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    // Typing moved focus to the composer; the Trajectory is still the pane shown.
    assert!(!draw(&mut app).contains(" Chat"));
    app.on_key(key(KeyCode::Enter));
    assert!(draw(&mut app).contains(" Chat"));
}

#[test]
fn no_card_says_running_while_the_step_waits_for_you() {
    let mut s = Script::new();
    s.route(false).user(1, "two calls");
    s.push(AgentEvent::Phase(TurnPhase::RunningTools));
    s.tool(1, 1, "c1", "run_cmd", r#"{"command":"one"}"#, None);
    s.tool(1, 1, "c2", "read", r#"{"path":"two"}"#, None);
    s.push(AgentEvent::Phase(TurnPhase::AwaitingApproval));
    s.push(AgentEvent::ApprovalRequest {
        call_id: "c1".into(),
        tool: "run_cmd".into(),
        arguments: r#"{"command":"one"}"#.into(),
    });
    let mut app = App::new(Locale::EnUs, false);
    for e in s.events {
        app.on_agent_event(e);
    }
    let screen = draw(&mut app);
    assert!(screen.contains("run_cmd  waiting for you"), "{screen}");
    assert!(screen.contains("read  queued"), "{screen}");
    assert!(!screen.contains("running"), "{screen}");
    app.on_key(key(KeyCode::Char('y')));
    app.on_agent_event(AgentEvent::Phase(TurnPhase::RunningTools));
    let screen = draw(&mut app);
    assert!(screen.contains("read  running"), "{screen}");
}

#[test]
fn the_approval_line_keeps_a_strings_leading_spaces_and_still_escapes_control_characters() {
    let args =
        "{\"path\":\"calc.py\",\n  \"old_string\":\"    return a - b\",\"new\":\"x\u{1b}[2Jy\"}";
    let mut s = Script::new();
    s.user(1, "fix calc");
    s.tool(1, 1, "c1", "edit_file", args, None);
    s.push(AgentEvent::ApprovalRequest {
        call_id: "c1".into(),
        tool: "edit_file".into(),
        arguments: args.into(),
    });
    let mut app = App::new(Locale::EnUs, false);
    for e in s.events {
        app.on_agent_event(e);
    }
    let screen = draw(&mut app);
    let prompt = screen
        .lines()
        .rev()
        .find(|l| l.contains("Allow edit_file?"))
        .expect(&screen);
    // The JSON's own line break is one space; the string's four spaces stay four.
    assert!(
        prompt.contains(r#"{"path":"calc.py", "old_string":"    return a - b""#),
        "{prompt}"
    );
    assert!(!screen.contains('\u{1b}'), "{screen}");
}
