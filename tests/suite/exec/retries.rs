//! A provider that cannot be reached (§14.5): each retry is one short line that says the
//! cause, and the final error says it in plain words with a hint, not the transport's
//! whole error chain.

use crate::common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_port_gives_one_short_line_per_retry_and_a_final_error_with_a_hint() {
    // A port that was just free: nothing listens on it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.toml");
    std::fs::write(
        &cfg,
        format!(
            "model = \"dead/deepseek-flash\"\n[providers.dead]\nkind = \"deepseek-messages\"\n\
             base_url = \"http://127.0.0.1:{port}/anthropic\"\napi_key_env = \"DEEPTERM_DEAD_KEY\"\n"
        ),
    )
    .unwrap();
    let script = dir.path().join("s.txt");
    std::fs::write(&script, "hi\n").unwrap();
    let cases = [
        (
            "en-US",
            "reconnecting 1/",
            "connection refused",
            "nothing listening at",
        ),
        ("zh-CN", "正在重连 1/", "连接被拒绝", "没有服务在监听"),
    ];
    // Both locales wait out their backoff at once; each run writes a
    // session of its own.
    let runs = cases.map(|(locale, ..)| {
        tokio::process::Command::new(env!("CARGO_BIN_EXE_deepterm"))
            .args(["exec", "--locale", locale, "--script"])
            .arg(&script)
            .arg("--config")
            .arg(&cfg)
            .arg("--session-dir")
            .arg(dir.path().join("sessions"))
            .env("DEEPTERM_DEAD_KEY", "sk-dead")
            .output()
    });
    let outs = futures_util::future::join_all(runs).await;
    for ((locale, retrying, refused, hint), out) in cases.into_iter().zip(outs) {
        let out = out.unwrap();
        assert!(!out.status.success());
        let err = stderr(&out);
        let retries: Vec<&str> = err.lines().filter(|l| l.contains(refused)).collect();
        assert!(retries.iter().any(|l| l.contains(retrying)), "{err}");
        let last = err.lines().last().unwrap_or("");
        assert!(last.contains(hint), "{locale}: {err}");
        assert!(last.contains(&format!("http://127.0.0.1:{port}")), "{err}");
        assert!(
            !last.contains("/anthropic"),
            "the hint names the origin: {err}"
        );
        // The transport's chain stays in the log, not on the screen.
        assert!(!err.contains("tcp connect error"), "{err}");
        assert!(!err.contains("sk-dead"), "{err}");
    }
}

/// The Chat pane's rows of `app` drawn at `w`×`h` (the composer and status rows cut).
fn chat_rows(app: &mut deepterm::ui::App, w: u16, h: u16) -> String {
    let mut term =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).expect("backend");
    term.draw(|f| app.render(f)).expect("draw");
    let screen = deepterm::ui::snapshot::symbols(term.backend().buffer());
    screen
        .lines()
        .take(h as usize - 6)
        .collect::<Vec<_>>()
        .join("\n")
}

/// One turn in the TUI's loop against a dead port, its events folded into an `App` as
/// the TUI folds them; returns that live view and the one a resume of its log shows.
async fn tui_turn_against(
    dead: &str,
    locale: deepterm::i18n::Locale,
) -> (deepterm::ui::App, deepterm::ui::App) {
    use deepterm::agent::protocol::{AgentCommand, AgentEvent};
    let dir = tempfile::tempdir().unwrap();
    let cfg = ConfigBuilder::new(dead).write(dir.path());
    let sessions = dir.path().join("sessions");
    let args = deepterm::cli::CliArgs {
        command: deepterm::cli::CliCommand::Tui,
        config: Some(cfg),
        model: None,
        base_url: None,
        session_dir: Some(sessions.clone()),
        resume: None,
        fork: None,
        locale: Some(locale),
        demo: true,
        prompt: None,
    };
    let setup = deepterm::startup::setup(&args, true).unwrap();
    let l = deepterm::i18n::Localizer::new(setup.locale);
    let (session, path, _) = deepterm::startup::open_session(&sessions, None, l).unwrap();
    let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let agent = deepterm::startup::build_agent(
        &setup,
        session,
        Some(dead.to_string()),
        tx,
        deepterm::agent::run::ApprovalMode::Interactive,
    )
    .unwrap();
    let (commands, cmd_rx) = tokio::sync::mpsc::unbounded_channel();
    let task = tokio::spawn(agent.run_interactive(cmd_rx));
    commands.send(AgentCommand::Submit("hi".into())).unwrap();
    let mut live = deepterm::ui::App::new(locale, false);
    let mut saw_retry_status = false;
    loop {
        let ev = tokio::time::timeout(std::time::Duration::from_secs(30), events.recv())
            .await
            .expect("the turn ends within 30 s")
            .expect("the loop is running");
        saw_retry_status |= matches!(ev, AgentEvent::Retrying(_));
        let done = matches!(ev, AgentEvent::TurnFinished);
        live.on_agent_event(ev);
        if done {
            break;
        }
    }
    assert!(saw_retry_status, "each retry is the transient status line");
    commands.send(AgentCommand::Shutdown).unwrap();
    task.await.unwrap();
    let history = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| std::sync::Arc::new(serde_json::from_str(l).unwrap()))
        .collect();
    let mut resumed = deepterm::ui::App::new(locale, false);
    resumed.on_agent_event(AgentEvent::SessionOpened {
        id: "s".into(),
        path: String::new(),
        history,
    });
    (live, resumed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_retry_leaves_one_line_in_chat_live_and_on_resume() {
    use deepterm::i18n::Locale;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dead = format!("http://127.0.0.1:{port}");
    let cases = [
        (Locale::EnUs, "Connection problem:", "nothing listening at"),
        (Locale::ZhCn, "连接出现问题：", "没有服务在监听"),
    ];
    // Both locales' turns wait out their backoff at once.
    let turns = cases.map(|(locale, ..)| tui_turn_against(&dead, locale));
    let turns = futures_util::future::join_all(turns).await;
    for ((locale, prefix, hint), (mut live, mut resumed)) in cases.into_iter().zip(turns) {
        // Chat is the left pane, wide enough here for the line in one row: under its
        // title, the prompt, then that one line and nothing else.
        let chat = chat_rows(&mut live, 240, 30);
        let rows: Vec<&str> = chat
            .lines()
            .skip(1)
            .map(|r| r.split('│').next().unwrap_or("").trim())
            .filter(|r| !r.is_empty())
            .collect();
        assert_eq!(rows.len(), 3, "{chat}");
        assert_eq!(rows[1], "hi", "{chat}");
        let line = rows[2];
        assert!(line.starts_with(prefix), "{chat}");
        assert_eq!(line.matches(hint).count(), 1, "{chat}");
        assert!(line.contains(&dead), "the hint names the origin: {chat}");
        assert!(line.ends_with("base_url"), "{chat}");
        assert!(!chat.contains("tcp connect"), "{chat}");
        for (w, h) in [(80u16, 30u16), (120, 30), (240, 30)] {
            assert_eq!(
                chat_rows(&mut live, w, h),
                chat_rows(&mut resumed, w, h),
                "{locale:?} {w}: a resume shows what live showed"
            );
        }
    }
}
