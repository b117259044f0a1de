//! Faults through the loop (SPEC §8): retried statuses and streams, errors that are not
//! retried, and the key never showing in what the user or the log sees.

use super::*;

// ---------------------------------------------------------------------------------------
// Faults through the loop (SPEC §8)
// ---------------------------------------------------------------------------------------

/// The API key appears nowhere: not in the log, not in emitted events, not in the outcome.
fn assert_no_key(agent: &Agent, emitted: &[AgentEvent], out: &LineOutcome) {
    for e in agent.session().events() {
        let s = serde_json::to_string(e.as_ref()).unwrap();
        assert!(!s.contains(KEY), "key leaked into the log: {s}");
        assert!(!s.contains("SECRET"), "key leaked into the log: {s}");
    }
    for e in emitted {
        let s = format!("{e:?}");
        assert!(!s.contains("SECRET"), "key leaked into an agent event: {s}");
    }
    assert!(!format!("{out:?}").contains("SECRET"));
}

struct FaultRun {
    h: Harness,
    out: LineOutcome,
    events: Vec<Arc<Event>>,
    elapsed: Duration,
}

/// Registers an `echo` tool, queues `replies`, runs one turn.
async fn fault_run(sim_cfg: SimConfig, replies: Vec<ScriptedReply>) -> FaultRun {
    fault_run_on(sim_cfg, Wire::Messages, replies).await
}

/// [`fault_run`] on the given wire.
async fn fault_run_on(sim_cfg: SimConfig, wire: Wire, replies: Vec<ScriptedReply>) -> FaultRun {
    let mut h = harness(sim_cfg, wire, "").await;
    register(
        &h.bg,
        "echo",
        vec![tool(
            schema(
                "echo",
                "Echo the text back.",
                json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
            ),
            Arc::new(FnTool(|args: Value| {
                ToolOutcome::ok(args["text"].as_str().unwrap_or_default().to_string())
            })),
        )],
    );
    for r in replies {
        h.sim.push_reply(r);
    }
    let start = Instant::now();
    let out = h.agent.handle_line("Answer the question, please.").await;
    let elapsed = start.elapsed();
    let emitted = drain(&mut h.rx);
    assert_no_key(&h.agent, &emitted, &out);
    let events = events(&h.agent);
    FaultRun {
        h,
        out,
        events,
        elapsed,
    }
}

fn http(status: u16, retry_after: Option<u64>) -> ScriptedReply {
    ScriptedReply::fault(Fault::HttpError {
        status,
        message: format!("scripted {status}"),
        retry_after,
    })
}

fn a(code: &str, status: Option<u16>, retried: bool) -> (String, Option<u16>, bool) {
    (code.to_string(), status, retried)
}

#[tokio::test]
async fn fault_429_with_retry_after_then_success() {
    let run = fault_run(
        SimConfig::default(),
        vec![
            http(429, Some(1)),
            ScriptedReply::text("OK after the rate limit"),
        ],
    )
    .await;
    assert_completed(&run.out);
    assert_eq!(run.out.text.as_deref(), Some("OK after the rate limit"));
    assert_eq!(
        attempts(&run.events),
        vec![a("rate_limit", Some(429), true)]
    );
    assert!(
        run.elapsed >= Duration::from_millis(950),
        "Retry-After: 1 was not honoured ({:?})",
        run.elapsed
    );
    assert_eq!(run.h.sim.requests().len(), 2);
    assert_eq!(outcomes(&run.events), vec![Some(TurnOutcome::Completed)]);
}

#[tokio::test]
async fn fault_500_and_503_then_success() {
    let run = fault_run(
        SimConfig::default(),
        vec![http(500, None), http(503, None), ScriptedReply::text("OK")],
    )
    .await;
    assert_completed(&run.out);
    assert_eq!(run.out.text.as_deref(), Some("OK"));
    assert_eq!(
        attempts(&run.events),
        vec![a("server", Some(500), true), a("server", Some(503), true)]
    );
    assert_eq!(assistant_count(&run.events), 1);
    assert_eq!(outcomes(&run.events), vec![Some(TurnOutcome::Completed)]);
}

#[tokio::test]
async fn fault_four_500s_give_up_after_three_retries() {
    let run = fault_run(
        SimConfig::default(),
        vec![
            http(500, None),
            http(500, None),
            http(500, None),
            http(500, None),
            ScriptedReply::text("never sent"),
        ],
    )
    .await;
    assert_eq!(
        attempts(&run.events),
        vec![
            a("server", Some(500), true),
            a("server", Some(500), true),
            a("server", Some(500), true),
            a("server", Some(500), false),
        ]
    );
    assert_eq!(run.h.sim.requests().len(), 4);
    assert_eq!(run.h.sim.pending_replies(), 1);
    assert_eq!(assistant_count(&run.events), 0);
    assert_eq!(outcomes(&run.events), vec![Some(TurnOutcome::Error)]);
    let err = run.out.error.expect("the turn reports an error");
    assert!(err.contains("scripted 500"), "{err}");
}

#[tokio::test]
async fn fault_client_errors_are_not_retried() {
    for (status, code) in [
        (400, "invalid_request"),
        (401, "auth"),
        (402, "quota"),
        (422, "invalid_request"),
    ] {
        let run = fault_run(
            SimConfig::default(),
            vec![http(status, None), ScriptedReply::text("never sent")],
        )
        .await;
        assert_eq!(
            attempts(&run.events),
            vec![a(code, Some(status), false)],
            "status {status}"
        );
        assert_eq!(run.h.sim.requests().len(), 1, "status {status}");
        assert_eq!(outcomes(&run.events), vec![Some(TurnOutcome::Error)]);
        let err = run.out.error.expect("the turn reports an error");
        assert!(err.contains(&format!("scripted {status}")), "{err}");
    }
}

/// An error as an odd provider sends it: any status, any `type` in its body, and a
/// `Retry-After` header sent verbatim.
fn odd(status: u16, error_type: &str, retry_after: Option<&str>) -> ScriptedReply {
    ScriptedReply::fault(Fault::OddHttpError {
        status,
        error_type: error_type.into(),
        message: format!("scripted {status} {error_type}"),
        retry_after: retry_after.map(str::to_string),
    })
}

#[tokio::test]
async fn a_400_whose_body_names_a_rate_limit_is_not_retried_on_either_route() {
    // The status says the request is at fault: retrying it would only send the same bad
    // request again (and wait for nothing), whatever `type` the body names (§8).
    for wire in [Wire::Messages, Wire::OpenAi] {
        for status in [400, 422] {
            let run = fault_run_on(
                SimConfig::default(),
                wire,
                vec![
                    odd(status, "rate_limit_error", Some("1")),
                    ScriptedReply::text("never sent"),
                ],
            )
            .await;
            assert_eq!(
                attempts(&run.events),
                vec![a("invalid_request", Some(status), false)],
                "{wire:?} {status}"
            );
            assert_eq!(run.h.sim.requests().len(), 1, "{wire:?} {status}");
            assert_eq!(run.h.sim.pending_replies(), 1, "{wire:?} {status}");
            assert_eq!(outcomes(&run.events), vec![Some(TurnOutcome::Error)]);
            assert!(
                run.elapsed < Duration::from_millis(900),
                "its Retry-After was not waited for: {:?}",
                run.elapsed
            );
            let err = run.out.error.expect("the turn reports an error");
            assert!(err.contains(&format!("scripted {status}")), "{err}");
        }
    }
}

#[tokio::test]
async fn a_429_or_5xx_with_an_odd_retry_after_or_body_type_is_still_retried() {
    // A garbled `Retry-After`, an HTTP-date already past, a negative number: the client
    // backs off on its own. A body naming a client-side `type` does not turn a 5xx into
    // the request's fault.
    for wire in [Wire::Messages, Wire::OpenAi] {
        let run = fault_run_on(
            SimConfig::default(),
            wire,
            vec![
                odd(429, "invalid_request_error", Some("soon")),
                odd(
                    503,
                    "invalid_request_error",
                    Some("Wed, 21 Oct 2015 07:28:00 GMT"),
                ),
                odd(500, "authentication_error", Some("-3")),
                ScriptedReply::text("OK after three odd errors"),
            ],
        )
        .await;
        assert_completed(&run.out);
        assert_eq!(
            run.out.text.as_deref(),
            Some("OK after three odd errors"),
            "{wire:?}"
        );
        assert_eq!(
            attempts(&run.events),
            vec![
                a("rate_limit", Some(429), true),
                a("server", Some(503), true),
                a("server", Some(500), true),
            ],
            "{wire:?}"
        );
        assert_eq!(run.h.sim.requests().len(), 4, "{wire:?}");
        assert_eq!(outcomes(&run.events), vec![Some(TurnOutcome::Completed)]);
    }
}

#[tokio::test]
async fn fault_wrong_key_is_auth_error_without_the_key() {
    let cfg = SimConfig {
        api_key: Some("sk-the-right-one".into()),
        ..SimConfig::default()
    };
    let run = fault_run(cfg, vec![ScriptedReply::text("never sent")]).await;
    assert_eq!(attempts(&run.events), vec![a("auth", Some(401), false)]);
    assert_eq!(outcomes(&run.events), vec![Some(TurnOutcome::Error)]);
    assert!(run.out.error.is_some());
    // The simulator saw the key only as a redacted header.
    let req = &run.h.sim.requests()[0];
    assert_eq!(
        req.headers.get("x-api-key").map(String::as_str),
        Some("<redacted>")
    );
}

#[tokio::test]
async fn fault_in_stream_error_is_retried() {
    let run = fault_run(
        SimConfig::default(),
        vec![
            ScriptedReply::text("this will break").with_fault(Fault::StreamError {
                message: "scripted overload".into(),
            }),
            ScriptedReply::text("OK"),
        ],
    )
    .await;
    assert_completed(&run.out);
    assert_eq!(run.out.text.as_deref(), Some("OK"));
    let at = attempts(&run.events);
    assert_eq!(at.len(), 1, "{at:?}");
    assert_eq!((at[0].0.as_str(), at[0].2), ("server", true), "{at:?}");
    assert_eq!(assistant_count(&run.events), 1);
}

#[tokio::test]
async fn fault_cut_stream_is_retried_as_transport() {
    let run = fault_run(
        SimConfig::default(),
        vec![
            ScriptedReply::text("a long answer that will be cut off in the middle of the stream")
                .with_fault(Fault::CutAfterEvents(4)),
            ScriptedReply::text("OK"),
        ],
    )
    .await;
    assert_completed(&run.out);
    assert_eq!(run.out.text.as_deref(), Some("OK"));
    assert_eq!(attempts(&run.events), vec![a("transport", None, true)]);
    // The cut attempt's partial text is not kept as a message.
    assert_eq!(assistant_count(&run.events), 1);
}

#[tokio::test]
async fn fault_stall_beyond_idle_timeout_is_retried() {
    let cfg = SimConfig {
        keepalive_interval: Duration::from_millis(50),
        ..SimConfig::default()
    };
    let mut h = harness_with(cfg, Wire::Messages, "", |b| {
        b.idle_timeout(Duration::from_millis(300))
    })
    .await;
    h.sim
        .push_reply(ScriptedReply::text("stalled").with_fault(Fault::Stall {
            ms: 2000,
            close: false,
        }));
    h.sim.push_reply(ScriptedReply::text("OK"));
    let start = Instant::now();
    let out = h.agent.handle_line("Answer, please.").await;
    assert_completed(&out);
    assert_eq!(out.text.as_deref(), Some("OK"));
    assert!(
        start.elapsed() < Duration::from_millis(1800),
        "{:?}",
        start.elapsed()
    );
    let ev = events(&h.agent);
    assert_eq!(attempts(&ev), vec![a("transport", None, true)]);
    assert_eq!(assistant_count(&ev), 1);
}

#[tokio::test]
async fn fault_truncated_tool_json_becomes_a_tool_error_the_model_reads() {
    let long = "word ".repeat(200);
    let run = fault_run(
        SimConfig::default(),
        vec![
            ScriptedReply::tool_call("echo", json!({"text": long}))
                .with_fault(Fault::TruncateToolJson),
            ScriptedReply::text("I will use shorter arguments."),
        ],
    )
    .await;
    assert_completed(&run.out);
    assert_eq!(
        run.out.text.as_deref(),
        Some("I will use shorter arguments.")
    );
    assert_eq!(attempts(&run.events), vec![]);
    let results = tool_result_events(&run.events);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].message.is_error, Some(true));
    let text = results[0].message.joined_text();
    assert!(text.contains("max_tokens"), "{text}");
    // The next request carries it as an error tool_result.
    let reqs = run.h.sim.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0].stop_reason.as_deref(), Some("max_tokens"));
    let last_user = messages(&reqs[1]).last().unwrap().clone();
    let block = &last_user["content"][0];
    assert_eq!(block["type"], "tool_result");
    assert_eq!(block["is_error"], json!(true));
    assert!(block.to_string().contains("max_tokens"), "{block}");
    assert_eq!(outcomes(&run.events), vec![Some(TurnOutcome::Completed)]);
}

#[tokio::test]
async fn fault_empty_reply_is_retried() {
    let run = fault_run(
        SimConfig::default(),
        vec![
            ScriptedReply::fault(Fault::Empty),
            ScriptedReply::text("OK"),
        ],
    )
    .await;
    assert_completed(&run.out);
    assert_eq!(run.out.text.as_deref(), Some("OK"));
    assert_eq!(attempts(&run.events), vec![a("empty_response", None, true)]);
    assert_eq!(assistant_count(&run.events), 1);
}
