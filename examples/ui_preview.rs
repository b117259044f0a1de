//! Runs the TUI against a canned fake agent (no network), for looking at the UI by hand:
//! `cargo run --example ui_preview -- [zh]`.

use std::thread;
use std::time::Duration;

use deepterm::agent::protocol::{AgentCommand, AgentEvent, TurnPhase};
use deepterm::i18n::Locale;
use deepterm::ui::sample::Script;
use deepterm::ui::{UiOptions, run};

fn main() -> anyhow::Result<()> {
    let locale = if std::env::args().any(|a| a == "zh") {
        Locale::ZhCn
    } else {
        Locale::EnUs
    };
    let (cmd_tx, mut cmd_rx) = tokio::sync::mpsc::unbounded_channel::<AgentCommand>();
    let (ev_tx, ev_rx) = tokio::sync::mpsc::unbounded_channel::<AgentEvent>();
    thread::spawn(move || {
        let mut s = Script::new();
        s.route(true)
            .user(1, "What tools do you have? 你有哪些工具？");
        s.assistant(
            1,
            1,
            "Check the registry.",
            "I can read files and search.",
            &[("c1", "list_dir", "{\"path\":\".\"}")],
        );
        s.tool(
            1,
            1,
            "c1",
            "list_dir",
            "{\"path\":\".\"}",
            Some(("Cargo.toml\nsrc/\ntests/\nlocales/", false)),
        );
        s.tools_changed(1, &["gh_search", "gh_issue"], &["old_search"]);
        s.tools_changed(1, &["fetch"], &[]);
        s.assistant(1, 2, "", "## Done\n\n- `gh_search` is new\n- **fetch** arrived too\n\n```rust\nfn main() { println!(\"hi\"); }\n```", &[]);
        let _ = ev_tx.send(AgentEvent::SessionOpened {
            id: "preview".into(),
            path: "/tmp/preview.jsonl".into(),
            history: vec![],
        });
        for e in s.events {
            let _ = ev_tx.send(e);
        }
        let mut turn = 1;
        while let Some(cmd) = cmd_rx.blocking_recv() {
            match cmd {
                AgentCommand::Submit(text) if text.starts_with("/lang") => {
                    let loc = if text.contains("zh") {
                        Locale::ZhCn
                    } else {
                        Locale::EnUs
                    };
                    let _ = ev_tx.send(AgentEvent::LocaleChanged(loc));
                }
                AgentCommand::Submit(text) if text.starts_with('/') => {
                    let _ = ev_tx.send(AgentEvent::Output(vec![deepterm::i18n::Text::new(
                        deepterm::agent::protocol::OUTPUT_VERBATIM,
                        vec![("text", format!("(preview) {text}").into())],
                    )]));
                }
                AgentCommand::Submit(text) => {
                    turn += 1;
                    let mut s = Script::new();
                    s.user(turn, &text);
                    for e in s.events.drain(..) {
                        let _ = ev_tx.send(e);
                    }
                    let _ = ev_tx.send(AgentEvent::Phase(TurnPhase::Responding));
                    s.stream(turn, 1, "", "Streaming a reply word by word, 中文也可以。 Here is more text to wrap across the pane.");
                    for e in s.events.drain(..) {
                        let _ = ev_tx.send(e);
                        thread::sleep(Duration::from_millis(60));
                    }
                    s.assistant(turn, 1, "", "Streaming a reply word by word, 中文也可以。 Here is more text to wrap across the pane.", &[]);
                    for e in s.events.drain(..) {
                        let _ = ev_tx.send(e);
                    }
                    let _ = ev_tx.send(AgentEvent::Phase(TurnPhase::Idle));
                }
                AgentCommand::Shutdown => {
                    let _ = ev_tx.send(AgentEvent::Exited);
                    return;
                }
                _ => {}
            }
        }
    });
    let rt = tokio::runtime::Runtime::new()?;
    rt.block_on(run(
        UiOptions {
            locale,
            demo: true,
            secrets: vec![],
            ..UiOptions::default()
        },
        cmd_tx,
        ev_rx,
        None,
    ))?;
    Ok(())
}
