//! A tool change reaches Chat once, as one node, from one logged fact (decision 0097):
//! against the real loop and the simulator, `/tool disable` shows its node at once, the
//! next request's developer message adds no second one, and a resume of the same log shows
//! the same node in the same place.

use deepterm::agent::protocol::AgentEvent;
use deepterm::i18n::Locale;
use deepterm::sim::SimConfig;
use deepterm::ui::App;
use deepterm::ui::snapshot::symbols;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::common::*;

fn screen(app: &mut App) -> String {
    let mut term = Terminal::new(TestBackend::new(120, 100)).expect("backend");
    term.draw(|f| app.render(f)).expect("draw");
    symbols(term.backend().buffer())
}

/// Chat's rows that are tool-change nodes, top to bottom, with the user messages around
/// them (to check the node's place).
fn chat_facts(screen: &str) -> Vec<String> {
    screen
        .lines()
        .map(|l| l.split('│').next().unwrap_or(l).trim().to_string())
        .filter(|l| l.contains("Tool removed") || l == "Hello" || l == "Again")
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_change_shows_once_where_it_happened_live_and_on_resume() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.config_builder().write(env.dir.path());
    let (agent, mut rx) = env.interactive_agent(cfg);
    let (tx, cmd_rx) = tokio::sync::mpsc::unbounded_channel();
    let task = tokio::spawn(agent.run_interactive(cmd_rx));
    let mut app = App::new(Locale::EnUs, false);
    send_line(&mut app, &tx, "Hello");
    feed_until(&mut app, &mut rx, |e| matches!(e, AgentEvent::TurnFinished)).await;
    send_line(&mut app, &tx, "/tool disable grep");
    feed_until(&mut app, &mut rx, |e| {
        matches!(e, AgentEvent::CommandFinished)
    })
    .await;
    // The node is there before any request carries the change.
    let before_send = chat_facts(&screen(&mut app));
    assert!(
        before_send.iter().any(|l| l.contains("Tool removed: grep")),
        "{before_send:?}"
    );
    send_line(&mut app, &tx, "Again");
    feed_until(&mut app, &mut rx, |e| matches!(e, AgentEvent::TurnFinished)).await;
    drop(tx);
    let _ = task.await;

    let live = chat_facts(&screen(&mut app));
    let nodes = live.iter().filter(|l| l.contains("Tool removed")).count();
    assert_eq!(nodes, 1, "one node, not one per fact: {live:?}");
    let at = |v: &[String], what: &str| v.iter().position(|l| l.contains(what));
    assert!(
        at(&live, "Hello") < at(&live, "Tool removed")
            && at(&live, "Tool removed") < at(&live, "Again"),
        "the node sits where the change happened: {live:?}"
    );
    // The log has the one fact and the model's copy of it, each once.
    let types = types(&env.log());
    assert_eq!(
        types.iter().filter(|t| *t == "tools/changed").count(),
        1,
        "{types:?}"
    );
    assert_eq!(developer_contents(&env.log()).len(), 1, "{types:?}");

    // A resume folds the same log into the same Chat.
    let mut resumed = App::new(Locale::EnUs, false);
    resumed.on_agent_event(AgentEvent::SessionOpened {
        id: "s".into(),
        path: String::new(),
        history: env.events(),
    });
    assert_eq!(chat_facts(&screen(&mut resumed)), live);
}
