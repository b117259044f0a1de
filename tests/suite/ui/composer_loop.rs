//! The composer against the real agent loop and the simulator (§14.5): a prompt
//! cancelled with Esc before any reply comes back into the composer, and a pasted stack
//! trace that starts with `/` runs a turn instead of a command.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use deepterm::agent::protocol::{AgentCommand, AgentEvent, TurnPhase};
use deepterm::i18n::Locale;
use deepterm::sim::{Fault, ScriptedReply, SimConfig};
use deepterm::ui::App;

use crate::common::*;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_before_the_first_reply_puts_the_prompt_back_and_a_pasted_trace_is_a_message() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""));
    let (agent, mut rx) = env.interactive_agent(cfg);
    let (tx, cmd_rx) = tokio::sync::mpsc::unbounded_channel();
    let task = tokio::spawn(agent.run_interactive(cmd_rx));
    let mut app = App::new(Locale::EnUs, false);

    // The model stalls before its first token; Esc cancels.
    env.sim
        .push_reply(ScriptedReply::text("too late").with_fault(Fault::Stall {
            ms: 3_000,
            close: true,
        }));
    for c in "why is the build red?".chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    app.on_key(key(KeyCode::Enter));
    forward(&mut app, &tx);
    assert!(app.composer().is_empty());
    feed_until(&mut app, &mut rx, |e| {
        matches!(e, AgentEvent::Phase(TurnPhase::Waiting))
    })
    .await;
    // The request reached the simulator, which is stalling on it.
    let t0 = std::time::Instant::now();
    while env.sim.pending_replies() > 0 {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "the request never arrived"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    app.on_key(key(KeyCode::Esc));
    forward(&mut app, &tx);
    feed_until(&mut app, &mut rx, |e| matches!(e, AgentEvent::TurnFinished)).await;
    assert_eq!(app.composer().text(), "why is the build red?");

    // A pasted trace: a turn runs (the simulator answers), no unknown-command warning.
    app.on_key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
    env.sim
        .push_reply(ScriptedReply::text("That is a ValueError."));
    app.on_paste("/usr/lib/python3/foo.py:12: in bar\n    raise ValueError(x)");
    app.on_key(key(KeyCode::Enter));
    let cmds = app.take_commands();
    assert!(
        matches!(cmds.as_slice(), [AgentCommand::Message(_)]),
        "{cmds:?}"
    );
    for c in cmds {
        tx.send(c).unwrap();
    }
    feed_until(&mut app, &mut rx, |e| matches!(e, AgentEvent::TurnFinished)).await;
    let cells = format!("{:?}", app.transcript().cells());
    assert!(cells.contains("That is a ValueError."), "{cells}");
    assert!(!cells.contains("cmd-unknown"), "{cells}");

    tx.send(AgentCommand::Shutdown).unwrap();
    feed_until(&mut app, &mut rx, |e| matches!(e, AgentEvent::Exited)).await;
    task.await.unwrap();
}
