//! one slash-command table drives dispatch, the composer's popup,
//! `/help` and the key help; commands and output travel as typed protocol data, and
//! command output re-renders on a language switch.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use deepterm::agent::command_spec::{COMMANDS, CommandId, find};
use deepterm::agent::protocol::{AgentCommand, AgentEvent, OutputLine};
use deepterm::agent::run::Agent;
use deepterm::i18n::{Locale, Localizer};
use deepterm::sim::SimConfig;
use deepterm::ui::App;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::common;

use common::*;

/// A line that runs `name` harmlessly (arguments where the command needs them).
fn sample_line(name: &str) -> String {
    match find(name, &[]).map(|c| c.id) {
        Some(CommandId::Lang) => format!("{name} en"),
        Some(CommandId::Tool) => format!("{name} enable word_count"),
        _ => name.to_string(),
    }
}

async fn agent(env: &TestEnv) -> (Agent, UnboundedReceiver<AgentEvent>) {
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""));
    env.interactive_agent(cfg)
}

fn drain(rx: &mut UnboundedReceiver<AgentEvent>) -> Vec<AgentEvent> {
    let mut out = Vec::new();
    while let Ok(ev) = rx.try_recv() {
        out.push(ev);
    }
    out
}

fn unknown_command_notices(events: &[AgentEvent]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, AgentEvent::Notice(n) if n.key == "cmd-unknown"))
        .count()
}

fn outputs(events: &[AgentEvent]) -> Vec<Vec<OutputLine>> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Output(lines) => Some(lines.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_table_command_and_alias_dispatches() {
    let env = TestEnv::new(SimConfig::default()).await;
    let (mut agent, mut rx) = agent(&env).await;
    drain(&mut rx);
    // The check itself can fail: a name outside the table is refused.
    agent.handle_line("/no-such-command").await;
    assert_eq!(unknown_command_notices(&drain(&mut rx)), 1);
    for spec in COMMANDS {
        for name in std::iter::once(spec.name.as_ref()).chain(spec.aliases.iter().copied()) {
            let out = agent.handle_line(&sample_line(name)).await;
            let events = drain(&mut rx);
            assert_eq!(
                unknown_command_notices(&events),
                0,
                "{name} dispatches: {events:?}"
            );
            assert!(
                events
                    .iter()
                    .any(|e| matches!(e, AgentEvent::CommandFinished)),
                "{name} finishes as a command"
            );
            assert_eq!(out.quit, spec.id == CommandId::Quit, "{name}");
        }
    }
}

/// A pasted stack trace reaches the loop as a message: it runs a turn with the text as
/// the user message, where the same line submitted as typed is an unknown command.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_that_starts_with_a_slash_runs_a_turn_not_a_command() {
    let env = TestEnv::new(SimConfig::default()).await;
    let (mut agent, mut rx) = agent(&env).await;
    drain(&mut rx);
    let trace = "/usr/lib/python3/foo.py:12: in bar\n    raise ValueError";
    agent.handle_line(trace).await;
    let typed = drain(&mut rx);
    assert_eq!(unknown_command_notices(&typed), 1, "typed, it is a command");
    let out = agent.handle_message(trace).await;
    let events = drain(&mut rx);
    assert_eq!(unknown_command_notices(&events), 0, "{events:?}");
    let user = events.iter().find_map(|e| match e {
        AgentEvent::Committed(c) => match &c.kind {
            deepterm::session::event::EventKind::UserMessage(m) => Some(m.message.typed_text()),
            _ => None,
        },
        _ => None,
    });
    assert_eq!(user.as_deref(), Some(trace));
    assert!(out.error.is_none(), "{:?}", out.error);
    assert!(
        !out.text.unwrap_or_default().is_empty(),
        "the model answered"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exit_is_an_alias_of_quit() {
    let spec = find("/exit", &[]).expect("alias in the table");
    assert_eq!(spec.id, CommandId::Quit);
    let env = TestEnv::new(SimConfig::default()).await;
    let (mut agent, _rx) = agent(&env).await;
    assert!(agent.handle_line("/exit").await.quit);
    // Idle, the TUI quits on the alias itself, as on `/quit`.
    let mut app = App::new(Locale::EnUs, false);
    for c in "/exit".chars() {
        app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }
    app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    assert!(matches!(
        app.take_commands().as_slice(),
        [AgentCommand::Shutdown]
    ));
}

#[test]
fn popup_lists_exactly_the_table() {
    let mut c = deepterm::ui::composer::Composer::new();
    c.insert_str("/");
    let popup: Vec<&str> = c.popup_matches().iter().map(|m| m.name.as_ref()).collect();
    let table: Vec<&str> = COMMANDS.iter().map(|c| c.name.as_ref()).collect();
    assert_eq!(popup, table);
    for spec in COMMANDS {
        for l in Locale::ALL {
            assert!(
                Localizer::new(l).has(&spec.desc_key),
                "{} in {l:?}",
                spec.desc_key
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_lists_exactly_the_table() {
    let env = TestEnv::new(SimConfig::default()).await;
    let (mut agent, mut rx) = agent(&env).await;
    drain(&mut rx);
    agent.handle_line("/help").await;
    let out = outputs(&drain(&mut rx));
    assert_eq!(out.len(), 1);
    let l = Localizer::new(Locale::EnUs);
    let lines: Vec<String> = out[0].iter().map(|t| l.text(t)).collect();
    assert_eq!(lines[0], l.tr("cmd-help-title"));
    assert_eq!(lines.len(), COMMANDS.len() + 1, "{lines:#?}");
    for (line, spec) in lines[1..].iter().zip(COMMANDS) {
        let name = line.split_whitespace().next().unwrap_or("");
        assert_eq!(name, spec.name, "{line}");
        assert!(line.ends_with(&l.tr(&spec.desc_key)), "{line}");
    }
    // `/tool` is described with the arguments the loop accepts.
    assert!(lines.iter().any(|s| s.contains("/tool enable|disable")));
    assert!(!lines.iter().any(|s| s.contains("on|off")));
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| app.render(f)).unwrap();
    let buf = term.backend().buffer();
    let mut out = String::new();
    for y in 0..h {
        for x in 0..w {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    // Wide characters leave an empty cell after them.
    out.replace(' ', "")
}

#[test]
fn key_help_lists_the_table_when_tall_enough() {
    for l in Locale::ALL {
        let mut app = App::new(l, false);
        app.on_key(KeyEvent::new(KeyCode::F(1), KeyModifiers::NONE));
        let s = screen(&mut app, 120, 100);
        let lz = Localizer::new(l);
        assert!(s.contains(&lz.tr("tui-help-commands-title").replace(' ', "")));
        for spec in COMMANDS {
            assert!(s.contains(spec.name.as_ref()), "{} in {s}", spec.name);
            // Long descriptions are cut at the overlay's edge.
            let desc: String = lz
                .tr(&spec.desc_key)
                .replace(' ', "")
                .chars()
                .take(12)
                .collect();
            assert!(s.contains(&desc), "{desc} in {s}");
        }
    }
    // Short terminals scroll to the commands: they are always rows.
    let rows = deepterm::ui::help::rows(Localizer::new(Locale::EnUs), true, &[]);
    assert!(rows.iter().any(|(k, _)| k == "/help"));
    assert!(rows.iter().any(|(k, _)| k == "/tool enable|disable NAME"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_and_tools_output_follow_f2() {
    let env = TestEnv::new(SimConfig::default()).await;
    let (mut agent, mut rx) = agent(&env).await;
    let mut app = App::new(Locale::EnUs, false);
    for e in drain(&mut rx) {
        app.on_agent_event(e);
    }
    agent.handle_line("/help").await;
    agent.handle_line("/tools").await;
    for e in drain(&mut rx) {
        app.on_agent_event(e);
    }
    let en = Localizer::new(Locale::EnUs);
    let zh = Localizer::new(Locale::ZhCn);
    let before = screen(&mut app, 120, 100);
    for key in [
        "cmd-help",
        "cmd-quit",
        "tools-source-command",
        "tools-source-builtin",
    ] {
        assert!(
            before.contains(&en.tr(key).replace(' ', "")),
            "{key}: {before}"
        );
    }
    app.on_key(KeyEvent::new(KeyCode::F(2), KeyModifiers::NONE));
    // F2 sends the language as data, not as a `/lang` line.
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::SetLocale(Locale::ZhCn)]
    );
    let after = screen(&mut app, 120, 100);
    assert!(after.contains(&zh.tr("cmd-help-title")), "{after}");
    for key in [
        "cmd-help",
        "cmd-quit",
        "tools-source-command",
        "tools-source-builtin",
    ] {
        assert!(
            after.contains(&zh.tr(key).replace(' ', "")),
            "{key}: {after}"
        );
        assert!(
            !after.contains(&en.tr(key).replace(' ', "")),
            "{key} still in English: {after}"
        );
    }
    // Tool names are data and stay as they are.
    assert!(after.contains("word_count"), "{after}");
    assert!(
        after.contains(
            &zh.tra(
                "tools-list-header-disabled",
                // The built-in tools and `word_count`, all off in this config.
                &[("count", deepterm::i18n::Arg::from(10usize))]
            )
            .replace(' ', "")
        ),
        "{after}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_locale_and_inspect_run_as_typed_commands() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""));
    let mut ui = env.start_interactive(cfg.clone());
    ui.commands
        .send(AgentCommand::SetLocale(Locale::ZhCn))
        .unwrap();
    ui.commands
        .send(AgentCommand::Inspect { request: None })
        .unwrap();
    let mut changed = false;
    let mut switched = false;
    let mut inspector = false;
    while !(changed && switched && inspector) {
        match ui.next_event().await {
            AgentEvent::LocaleChanged(Locale::ZhCn) => changed = true,
            AgentEvent::Notice(n) if n.key == "cmd-lang-switched" => switched = true,
            AgentEvent::Inspector(_) => inspector = true,
            AgentEvent::Notice(n) if n.key == "cmd-unknown" => panic!("{n:?}"),
            _ => {}
        }
    }
    ui.shutdown().await;
    // The choice was saved, as `/lang zh` saves it.
    let saved = std::fs::read_to_string(&cfg).unwrap();
    assert!(saved.contains("zh-CN"), "{saved}");
}

#[test]
fn protocol_round_trips_through_json() {
    let cmds = vec![
        AgentCommand::Submit("hi".into()),
        AgentCommand::Message("/usr/lib/x.py:1: boom".into()),
        AgentCommand::SetLocale(Locale::ZhCn),
        AgentCommand::Inspect { request: Some(3) },
        AgentCommand::Cancel,
        AgentCommand::Shutdown,
    ];
    for c in cmds {
        let s = serde_json::to_string(&c).unwrap();
        let back: AgentCommand = serde_json::from_str(&s).unwrap();
        assert_eq!(back, c, "{s}");
    }
    let ev = AgentEvent::Output(deepterm::agent::commands::help_lines());
    let s = serde_json::to_string(&ev).unwrap();
    let back: AgentEvent = serde_json::from_str(&s).unwrap();
    match back {
        AgentEvent::Output(lines) => {
            assert_eq!(lines, deepterm::agent::commands::help_lines())
        }
        other => panic!("{other:?}"),
    }
    let v: serde_json::Value = serde_json::from_str(&s).unwrap();
    assert_eq!(v["type"], "output");
    assert_eq!(v["data"][1]["key"], "output-row");
}

fn notice_keys(events: &[AgentEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Notice(n) => Some(n.key.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn system_alone_shows_the_instructions_and_system_clear_clears_them() {
    let env = TestEnv::new(SimConfig::default()).await;
    let (mut agent, mut rx) = agent(&env).await;
    drain(&mut rx);
    agent.handle_line("/system").await;
    assert!(notice_keys(&drain(&mut rx)).contains(&"cmd-system-none".to_string()));
    agent.handle_line("/system Answer in haiku.").await;
    assert_eq!(agent.extra_instructions(), Some("Answer in haiku."));
    drain(&mut rx);
    // A bare `/system` shows them and keeps them.
    agent.handle_line("/system").await;
    let events = drain(&mut rx);
    let shown = events.iter().any(|e| {
        matches!(e, AgentEvent::Notice(n) if n.key == "cmd-system-current"
            && n.args.iter().any(|(k, v)| k == "text"
                && Localizer::new(Locale::EnUs).tra_owned("cmd-system-current", &[(k.clone(), v.clone())]).contains("Answer in haiku.")))
    });
    assert!(shown, "{events:?}");
    assert_eq!(agent.extra_instructions(), Some("Answer in haiku."));
    agent.handle_line("/system clear").await;
    assert!(notice_keys(&drain(&mut rx)).contains(&"cmd-system-cleared".to_string()));
    assert_eq!(agent.extra_instructions(), None);
}

fn output_text(events: &[AgentEvent], locale: Locale) -> String {
    let l = Localizer::new(locale);
    outputs(events)
        .iter()
        .flatten()
        .map(|line| l.text(line))
        .collect::<Vec<_>>()
        .join("\n")
}

/// SPEC: `/model` alone lists the routes it can switch to, marking the
/// current one, and refuses unknown ones before the next send.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bare_model_lists_routes_and_unknown_is_refused() {
    let env = TestEnv::new(SimConfig::default()).await;
    let (mut agent, mut rx) = agent(&env).await;
    drain(&mut rx);
    agent.handle_line("/model").await;
    let shown = output_text(&drain(&mut rx), Locale::EnUs);
    assert!(
        shown.contains("Current route: ds/deepseek-flash"),
        "{shown}"
    );
    // Marked current (this test's agent runs in demo mode: its key variable is unset).
    assert!(shown.contains("ds/deepseek-flash  (current"), "{shown}");
    for r in [
        "ds/deepseek-v4-pro",
        "oai/deepseek-flash",
        "dsih/deepseek-flash",
    ] {
        // Listed; a route whose key variable is not set says so (it is not set here).
        assert!(
            shown
                .lines()
                .any(|l| l.trim() == r || l.trim().starts_with(&format!("{r}  (needs a key"))),
            "{r} missing:\n{shown}"
        );
    }

    // Not in the catalog or config, and the provider's /models does not list it.
    let out = agent.handle_line("/model ds/nope").await;
    let events = drain(&mut rx);
    assert_eq!(notice_keys(&events), vec!["cmd-model-unknown".to_string()]);
    assert!(out.error.unwrap().contains("“ds/nope”"));
    assert_eq!(agent.route().id(), "ds/deepseek-flash");
    assert!(!events.iter().any(|e| matches!(e, AgentEvent::Route(_))));

    // Not in the catalog, but the provider lists it: accepted.
    agent
        .handle_line("/model ds/deepseek-v4-flash-vision-exp")
        .await;
    assert!(notice_keys(&drain(&mut rx)).contains(&"cmd-model-switched".to_string()));
    assert_eq!(agent.route().id(), "ds/deepseek-v4-flash-vision-exp");

    // A catalogued route switches without asking the provider.
    agent.handle_line("/model oai/deepseek-v4-pro").await;
    assert!(notice_keys(&drain(&mut rx)).contains(&"cmd-model-switched".to_string()));
    assert_eq!(agent.route().id(), "oai/deepseek-v4-pro");
}

/// `/model` asks the provider's `GET /models` (both wire formats; the
/// Anthropic-format base `…/anthropic` lists at the provider's root), and a provider that
/// cannot be reached is a clear transport error naming the URL, never a hang.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_model_list_both_formats_and_unreachable() {
    use deepterm::llm::client::{ProviderClient, models_url};
    use deepterm::llm::types::ErrorCode;
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg =
        deepterm::config::Config::parse(&routes_config(&env.sim.base_url(), ""), None).unwrap();
    for spec in ["ds/deepseek-flash", "oai/deepseek-flash"] {
        let route = cfg.resolve_route(Some(spec)).unwrap();
        let client = ProviderClient::new(route, Some(TEST_KEY.to_string())).unwrap();
        let ids = client.list_models().await.unwrap();
        assert!(
            ids.contains(&"deepseek-flash".to_string()),
            "{spec}: {ids:?}"
        );
    }
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = dead.local_addr().unwrap().port();
    drop(dead);
    let mut route = cfg.resolve_route(Some("oai/custom")).unwrap();
    route = route.with_base_url(&format!("http://127.0.0.1:{port}"));
    assert_eq!(
        models_url(&route),
        format!("http://127.0.0.1:{port}/models")
    );
    let client = ProviderClient::new(route, Some(TEST_KEY.to_string())).unwrap();
    let err = client.list_models().await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Transport);
    assert!(!err.message.contains(TEST_KEY));
}
