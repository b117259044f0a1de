//! "Model-visible ⟺ logged" (SPEC §12.1, §10 Inspector): every request `deepterm exec`
//! sent to the simulator is rebuilt from the session log file alone and must equal the
//! recorded wire body byte for byte, with the same `anthropic-beta` header.

use std::path::PathBuf;

use deepterm::agent::inspect::{reconstruct, request_refs};
use deepterm::llm::types::ProviderKind;
use deepterm::sim::SimConfig;

use crate::common;

use common::*;

/// The config of these tests: every route mode and a disabled command tool.
trait InspectConfig {
    fn config(&self) -> PathBuf;
}

impl InspectConfig for TestEnv {
    fn config(&self) -> PathBuf {
        let extra = "[instructions]\ntext = \"You are a test assistant.\"\n";
        self.write_config("config.toml", &routes_config(&self.sim.base_url(), extra))
    }
}

type Env = TestEnv;

fn kind_of(provider: &str) -> Option<ProviderKind> {
    match provider {
        "ds" | "dsih" => Some(ProviderKind::DeepseekMessages),
        "oai" => Some(ProviderKind::OpenaiChat),
        _ => None,
    }
}

/// Rebuilds every logged request and compares it with what the simulator received.
fn assert_log_reconstructs_every_request(env: &Env, expected: usize) {
    let events = env.events();
    let refs = request_refs(&events);
    let recorded = env.sim.requests();
    assert_eq!(recorded.len(), expected, "requests sent");
    assert_eq!(
        refs.len(),
        recorded.len(),
        "one logged request per sent one"
    );
    let wanted: Vec<usize> = refs.iter().map(|r| r.n).collect();
    let rebuilt = reconstruct(&events, &wanted, &kind_of).unwrap();
    assert_eq!(rebuilt.len(), recorded.len());
    for (r, rec) in rebuilt.iter().zip(&recorded) {
        assert_eq!(
            r.wire.body.to_string(),
            rec.raw_body,
            "request #{} rebuilt from the log differs from the wire",
            r.at.n
        );
        assert_eq!(
            r.wire.beta.as_deref(),
            rec.headers.get("anthropic-beta").map(String::as_str),
            "beta header of request #{}",
            r.at.n
        );
    }
}

const SCRIPT: &str = "Hello\n/tool enable word_count\nPlease run word_count now\n/system Answer briefly.\n/tool disable word_count\nThanks, bye\n/inspect\n/inspect 2\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inspector_rebuilds_addition_only_requests_byte_for_byte() {
    let env = Env::new(SimConfig::default()).await;
    let out = env.exec(&env.config(), SCRIPT, &[]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_log_reconstructs_every_request(&env, 4);
    // `/inspect` ran after the last turn and wrote nothing (the preview runs on a copy).
    let events = env.events();
    assert!(
        matches!(
            events.last().map(|e| &e.kind),
            Some(deepterm::session::event::EventKind::TurnEnd(_))
        ),
        "{:?}",
        events.last()
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // `/inspect 2`: the request after the addition, compared with request 1.
    assert!(text.contains("== Request #2"), "{text}");
    assert!(text.contains("tool addition appended"), "{text}");
    assert!(text.contains("word_count (deferred)"), "{text}");
    // `/inspect` alone: the next request next to the last one sent (#4).
    assert!(text.contains("== Request #4"), "{text}");
    assert!(text.contains("== Next request (not sent yet)"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inspector_rebuilds_in_history_requests_with_prompt_update_byte_for_byte_and_names_a_missing_request()
 {
    let cfg = SimConfig {
        tool_removal_ok: true,
        ..SimConfig::default()
    };
    let env = Env::new(cfg).await;
    let out = env
        .exec(&env.config(), SCRIPT, &["--model", "dsih/deepseek-flash"])
        .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_log_reconstructs_every_request(&env, 4);
    // The removal request appended the prompt update and the removal.
    let events = env.events();
    // A request number past the last one names that number, not the one before it.
    let missing = deepterm::agent::inspect::inspect_past(&events, 999, &kind_of)
        .err()
        .map(|e| e.to_string());
    assert_eq!(missing.as_deref(), Some("no request #999"));
    let data = deepterm::agent::inspect::inspect_past(&events, 4, &kind_of).unwrap();
    use deepterm::agent::inspect::DiffReason;
    assert!(
        data.reasons.contains(&DiffReason::PromptUpdateAppended)
            && data.reasons.contains(&DiffReason::ToolRemovalAppended),
        "{:?}",
        data.reasons
    );
    let prev = data.previous.as_ref().unwrap();
    assert_eq!(
        data.divergence.message,
        Some(prev.messages.len()),
        "in-history: request 4 extends request 3"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inspector_rebuilds_openai_requests_byte_for_byte() {
    let env = Env::new(SimConfig::default()).await;
    // On this route word_count is reached through the tool bridge (SPEC §15.1): the model
    // calls it with call_tool, and those requests rebuild like any other.
    env.sim
        .push_reply(deepterm::sim::ScriptedReply::text("Hello."));
    env.sim.push_reply(deepterm::sim::ScriptedReply::tool_call(
        "call_tool",
        serde_json::json!({"name": "word_count", "arguments": {"path": "x"}}),
    ));
    let out = env
        .exec(&env.config(), SCRIPT, &["--model", "oai/deepseek-flash"])
        .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_log_reconstructs_every_request(&env, 4);
}

/// Compaction summarizer requests are numbered like every other request (Trajectory and
/// inspector agree) and rebuild byte for byte from the log too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inspector_rebuilds_compaction_requests_byte_for_byte() {
    let env = Env::new(SimConfig::default()).await;
    let script =
        "Hello\n/tool enable word_count\nPlease run word_count now\n/compact\nAfter the summary\n";
    let out = env.exec(&env.config(), script, &[]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // hello, tool call, after tool, summarizer, then the demo model calls the tool the
    // summary mentions and answers: two more.
    assert_log_reconstructs_every_request(&env, 6);
    let events = env.events();
    let refs = request_refs(&events);
    assert!(refs[3].compaction.is_some() && !refs[3].failed);
    // The Trajectory numbers the same requests the same way.
    let mut traj = deepterm::ui::trajectory::Trajectory::new();
    for e in &events {
        traj.apply(e);
    }
    let numbers: Vec<usize> = traj
        .rows()
        .iter()
        .filter_map(|r| r.request_number())
        .collect();
    assert_eq!(numbers, vec![1, 2, 3, 4, 5, 6]);
    assert!(matches!(
        traj.rows().iter().find(|r| r.request_number() == Some(4)),
        Some(deepterm::ui::trajectory::Row::CompactionRequest { error: None, .. })
    ));
    // The first request after the compaction re-reads little of the old prefix: its row
    // names the compaction as the cache break; the next one is warm.
    let breaks: Vec<(usize, deepterm::ui::trajectory::BreakKind)> = traj
        .rows()
        .iter()
        .filter_map(|r| match r {
            deepterm::ui::trajectory::Row::Request {
                n,
                cache_break: Some(b),
                ..
            } => Some((*n, b.kind)),
            _ => None,
        })
        .collect();
    assert_eq!(
        breaks,
        vec![(5, deepterm::ui::trajectory::BreakKind::Compaction)]
    );
}
