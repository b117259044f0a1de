//! A running tool call's progress, from the tool to its card (SPEC §15.2: an MCP server's
//! `notifications/progress`).
//!
//! The turn sets who listens ([`reporting`]) around a step's calls, and the tool runner
//! scopes each call with its id ([`for_call`]); a tool asks for [`current`] while it runs.
//! Task-locals keep `ToolExecutor::call` and every tool that never reports progress
//! unchanged.

use std::future::Future;
use std::sync::Arc;

/// One progress report.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Work done so far (increasing).
    pub progress: f64,
    /// The whole, when known.
    pub total: Option<f64>,
    /// What it is doing, as the tool said it (capped, not yet escaped for a terminal).
    pub message: Option<String>,
}

/// Where a step's reports go: the call's id and the report.
pub type StepSink = Arc<dyn Fn(&str, Progress) + Send + Sync>;

/// Where one call's reports go.
pub type CallSink = Arc<dyn Fn(Progress) + Send + Sync>;

tokio::task_local! {
    static STEP: StepSink;
    static CALL: CallSink;
}

/// Runs `fut` (a step's calls) with its calls' progress going to `sink`.
pub async fn reporting<F: Future>(sink: StepSink, fut: F) -> F::Output {
    STEP.scope(sink, fut).await
}

/// Runs `fut` (one call) with its progress reported under `call_id`, when the step listens.
pub async fn for_call<F: Future>(call_id: &str, fut: F) -> F::Output {
    match STEP.try_with(Arc::clone) {
        Ok(step) => {
            let id = call_id.to_string();
            let sink: CallSink = Arc::new(move |p| step(&id, p));
            CALL.scope(sink, fut).await
        }
        Err(_) => fut.await,
    }
}

/// Where the running call reports its progress, if anyone listens.
pub fn current() -> Option<CallSink> {
    CALL.try_with(Arc::clone).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[tokio::test]
    async fn each_call_reports_under_its_own_id_and_nobody_listening_is_fine() {
        assert!(current().is_none());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        let sink: StepSink = Arc::new(move |id, p| s.lock().unwrap().push((id.to_string(), p)));
        let report = |n| async move {
            if let Some(c) = current() {
                c(Progress {
                    progress: n,
                    total: Some(2.0),
                    message: None,
                });
            }
        };
        reporting(sink, async {
            futures_util::future::join(for_call("a", report(1.0)), for_call("b", report(2.0))).await
        })
        .await;
        let ids: Vec<(String, f64)> = seen
            .lock()
            .unwrap()
            .iter()
            .map(|(i, p)| (i.clone(), p.progress))
            .collect();
        assert_eq!(ids, vec![("a".to_string(), 1.0), ("b".to_string(), 2.0)]);
        // Outside a step nothing is reported and nothing fails.
        for_call("c", report(3.0)).await;
        assert_eq!(seen.lock().unwrap().len(), 2);
    }
}
