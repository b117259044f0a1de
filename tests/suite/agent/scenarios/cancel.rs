//! Cancellation through the command path (`run_interactive` + `AgentCommand::Cancel`): a
//! cancelled stream or tool is recorded, and the next turn works.

use super::*;

// ---------------------------------------------------------------------------------------
// Cancellation through the command path (`run_interactive` + `AgentCommand::Cancel`)
// ---------------------------------------------------------------------------------------

/// Receives agent events until `pred` matches one, keeping everything received.
async fn until(
    rx: &mut mpsc::UnboundedReceiver<AgentEvent>,
    seen: &mut Vec<AgentEvent>,
    pred: impl Fn(&AgentEvent) -> bool,
) {
    common::receive_until(rx, pred, |ev| seen.push(ev)).await;
}

fn committed(seen: &[AgentEvent]) -> Vec<Arc<Event>> {
    seen.iter()
        .filter_map(|e| match e {
            AgentEvent::Committed(ev) => Some(ev.clone()),
            _ => None,
        })
        .collect()
}

fn finished(e: &AgentEvent) -> bool {
    matches!(e, AgentEvent::TurnFinished)
}

#[tokio::test]
async fn cancel_during_stream_keeps_interrupted_partial_and_next_turn_works() {
    let cfg = SimConfig {
        latency: Duration::from_millis(50),
        max_chunk: 6,
        ..SimConfig::default()
    };
    let h = harness(cfg, Wire::Messages, "").await;
    let Harness {
        sim, agent, mut rx, ..
    } = h;
    let story = "Once upon a time there was a very long story that streamed slowly, \
                 chunk by chunk, until somebody pressed Escape.";
    sim.push_reply(ScriptedReply::text(story));
    let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
    let task = tokio::spawn(agent.run_interactive(cmd_rx));
    let mut seen = vec![];
    cmd_tx
        .send(AgentCommand::Submit("Tell me a story.".into()))
        .unwrap();
    // Wait for a few text deltas, then cancel.
    let deltas = AtomicUsize::new(0);
    until(&mut rx, &mut seen, |e| {
        matches!(
            e,
            AgentEvent::Stream {
                event: deepterm::llm::types::StreamEvent::TextDelta(_),
                ..
            }
        ) && deltas.fetch_add(1, Ordering::SeqCst) >= 2
    })
    .await;
    cmd_tx.send(AgentCommand::Cancel).unwrap();
    until(&mut rx, &mut seen, finished).await;
    // The next turn works.
    sim.push_reply(ScriptedReply::text("Second answer."));
    cmd_tx.send(AgentCommand::Submit("Go on.".into())).unwrap();
    until(&mut rx, &mut seen, finished).await;
    cmd_tx.send(AgentCommand::Shutdown).unwrap();
    until(&mut rx, &mut seen, |e| matches!(e, AgentEvent::Exited)).await;
    task.await.unwrap();

    let ev = committed(&seen);
    let assistants: Vec<_> = ev
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::AssistantMessage(m) => Some(m.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(assistants.len(), 2, "{assistants:?}");
    let partial = assistants[0].message.joined_text();
    assert_eq!(assistants[0].interrupted, Some(true));
    assert!(
        !partial.is_empty() && partial.len() < story.len(),
        "{partial}"
    );
    assert!(story.starts_with(&partial), "{partial}");
    assert_eq!(assistants[1].interrupted, None);
    assert_eq!(assistants[1].message.joined_text(), "Second answer.");
    assert_eq!(
        outcomes(&ev),
        vec![Some(TurnOutcome::Cancelled), Some(TurnOutcome::Completed)]
    );
    assert_eq!(attempts(&ev), vec![]);
    let reqs = sim.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[1].status, 200, "{:?}", reqs[1].error);
    // The partial message is replayed to the model.
    assert!(reqs[1].raw_body.contains(&partial));
}

#[tokio::test]
async fn cancel_during_slow_tool_records_cancelled_tool_error() {
    let h = harness(SimConfig::default(), Wire::Messages, "").await;
    let started = Arc::new(tokio::sync::Notify::new());
    register(
        &h.bg,
        "slow",
        vec![tool(
            schema(
                "slow_tool",
                "Takes forever.",
                json!({"type": "object", "properties": {}}),
            ),
            Arc::new(SlowTool {
                started: started.clone(),
            }),
        )],
    );
    let Harness {
        sim, agent, mut rx, ..
    } = h;
    sim.push_reply(ScriptedReply::tool_call("slow_tool", json!({})));
    let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
    let task = tokio::spawn(agent.run_interactive(cmd_rx));
    let mut seen = vec![];
    cmd_tx
        .send(AgentCommand::Submit("Run the slow tool.".into()))
        .unwrap();
    tokio::time::timeout(Duration::from_secs(10), started.notified())
        .await
        .expect("the tool starts");
    cmd_tx.send(AgentCommand::Cancel).unwrap();
    until(&mut rx, &mut seen, finished).await;
    sim.push_reply(ScriptedReply::text("Fine."));
    cmd_tx
        .send(AgentCommand::Submit("Never mind.".into()))
        .unwrap();
    until(&mut rx, &mut seen, finished).await;
    cmd_tx.send(AgentCommand::Shutdown).unwrap();
    until(&mut rx, &mut seen, |e| matches!(e, AgentEvent::Exited)).await;
    task.await.unwrap();

    let ev = committed(&seen);
    let results = tool_result_events(&ev);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].message.is_error, Some(true));
    assert!(
        results[0].message.joined_text().contains("cancelled"),
        "{:?}",
        results[0]
    );
    assert_eq!(
        outcomes(&ev),
        vec![Some(TurnOutcome::Cancelled), Some(TurnOutcome::Completed)]
    );
    // The next request pairs the call with its (error) result.
    let reqs = sim.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[1].status, 200, "{:?}", reqs[1].error);
}
