//! `/clear` against the real loop and the simulator (§14.5): Chat's view is emptied, the
//! Trajectory and the session stay, and the next request is byte for byte the one that
//! would have been sent without it.

use deepterm::agent::protocol::AgentEvent;
use deepterm::i18n::Locale;
use deepterm::sim::SimConfig;
use deepterm::ui::App;

use crate::common::*;

/// Runs "Hello", optionally `/clear`, then "Again"; returns the raw bodies the simulator
/// received (thinking signatures aside: each simulator signs with its own key) and
/// whether Chat was empty right after `/clear`.
async fn run(clear: bool) -> (Vec<String>, Option<(usize, usize)>) {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""));
    let (agent, mut rx) = env.interactive_agent(cfg);
    let (tx, cmd_rx) = tokio::sync::mpsc::unbounded_channel();
    let task = tokio::spawn(agent.run_interactive(cmd_rx));
    let mut app = App::new(Locale::EnUs, false);
    send_line(&mut app, &tx, "Hello");
    feed_until(&mut app, &mut rx, |e| matches!(e, AgentEvent::TurnFinished)).await;
    let mut after = None;
    if clear {
        assert!(!app.transcript().is_empty());
        let rows = app.trajectory().rows().len();
        send_line(&mut app, &tx, "/clear");
        feed_until(&mut app, &mut rx, |e| {
            matches!(e, AgentEvent::CommandFinished)
        })
        .await;
        after = Some((app.transcript().len(), rows - app.trajectory().rows().len()));
    }
    send_line(&mut app, &tx, "Again");
    feed_until(&mut app, &mut rx, |e| matches!(e, AgentEvent::TurnFinished)).await;
    if clear {
        // What comes after `/clear` shows as usual.
        assert!(!app.transcript().is_empty());
    }
    drop(tx);
    let _ = task.await;
    let bodies = env
        .sim
        .requests()
        .into_iter()
        .map(|r| unsign(&r.raw_body))
        .collect();
    (bodies, after)
}

/// The body with every `"signature":"…"` value blanked.
fn unsign(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some(i) = rest.find("\"signature\":\"") {
        let (head, tail) = rest.split_at(i + "\"signature\":\"".len());
        out.push_str(head);
        let end = tail.find('"').unwrap_or(tail.len());
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clear_empties_chat_and_the_next_request_is_the_one_sent_without_it() {
    let (plain, _) = run(false).await;
    let (cleared, after) = run(true).await;
    assert_eq!(after, Some((0, 0)), "Chat empty, Trajectory kept");
    assert_eq!(plain.len(), 2);
    assert_eq!(plain, cleared, "the requests are byte for byte the same");
}
