//! A sandboxed `shell` call that fails as if the sandbox refused it (SPEC §14.2, §15.5),
//! driven like the TUI drives the loop: the question to run it again outside the sandbox
//! shows the sandboxed attempt's status and output and says why it asks; `n` with a
//! reason reaches the model's next request; and the logged result keeps what happened,
//! so the card folds the same from the log as it read live.

use deepterm::agent::protocol::{AgentCommand, AgentEvent, ApprovalPreview};
use deepterm::sim::{Script, ScriptedReply, SimConfig};
use serde_json::json;

use crate::common::*;

/// A command whose output carries a sandbox-denial marker and that fails: the runner
/// treats it as refused by the sandbox wherever it runs, so the test needs no path the
/// sandbox blocks on one backend and not on the other.
const REFUSED: &str = "echo 'touch: cannot touch x: Read-only file system' >&2; exit 1";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reason_typed_on_the_retry_question_reaches_the_model_and_the_log_keeps_the_attempt() {
    let env = TestEnv::new(SimConfig {
        script: Some(Script::new(vec![
            ScriptedReply::tool_call("shell", json!({ "command": REFUSED })),
            ScriptedReply::text("understood"),
        ])),
        ..SimConfig::default()
    })
    .await;
    let cfg = ConfigBuilder::new(&env.sim.base_url()).write(env.dir.path());
    let mut ui = env.start_interactive(cfg);
    ui.submit("go");
    let (mut why, mut attempt, mut asked) = (None, None, 0);
    loop {
        match ui.next_event().await {
            AgentEvent::ApprovalWhy { why: w, .. } => why = Some(w),
            AgentEvent::ApprovalPreview {
                preview: ApprovalPreview::Shell { attempt: a, .. },
                ..
            } => attempt = a,
            AgentEvent::ApprovalRequest { call_id, .. } => {
                asked += 1;
                ui.commands
                    .send(AgentCommand::DenyWithReason {
                        call_id,
                        reason: "use the staging database".into(),
                    })
                    .unwrap();
            }
            AgentEvent::TurnFinished => break,
            _ => {}
        }
    }
    assert_eq!(asked, 1, "one question: the retry");
    assert_eq!(
        why.map(|w| w.key).as_deref(),
        Some("approval-reason-sandbox-denied")
    );
    let attempt = attempt.expect("the question shows the sandboxed attempt");
    assert_eq!(attempt.status, "exit status 1");
    assert!(
        attempt.output.contains("Read-only file system"),
        "{attempt:?}"
    );
    // The model reads the denial with the reason, and the sandboxed attempt's output.
    let last = env.requests().last().unwrap().to_string();
    assert!(last.contains("use the staging database"), "{last}");
    assert!(last.contains("declined"), "{last}");
    assert!(last.contains("exit status 1"), "{last}");
    ui.shutdown().await;
    // The log keeps what the card needs: the attempt and the answer with its reason.
    let result = env
        .log()
        .into_iter()
        .find(|e| e.to_string().contains("\"tool/result\""))
        .expect("a tool/result event");
    let retry = result.to_string();
    assert!(retry.contains("sandboxRetry"), "{retry}");
    assert!(retry.contains(r#""kind":"denied""#), "{retry}");
    assert!(
        retry.contains(r#""reason":"use the staging database""#),
        "{retry}"
    );
}
