//! The tool runner: decides every call of a step in call order (cut-off arguments,
//! cancellation, approval), then runs the approved ones. Calls of tools that may overlap
//! (built-in read-only tools, and tools configured with `parallel = true`) run
//! concurrently; every other call (command and MCP tools, which may have side effects)
//! runs one at a time, in call order. Results come back in call order, with configured
//! key values redacted.

use tokio_util::sync::CancellationToken;

use crate::tools::registry::ToolRegistry;

mod decide;
mod denial;
mod rerun;

pub use denial::{
    RERUN_NOTE, SANDBOX_DENIAL_NOTE, denial_reason, denial_text, denial_text_with_reason, is_denial,
};

/// How tool calls that need approval are answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalMode {
    /// Ask the UI.
    Interactive,
    /// `exec --approve all`.
    AllowAll,
    /// `exec --approve none`.
    DenyAll,
}

/// One tool call of a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Raw JSON arguments.
    pub arguments: String,
}

/// What one call produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallResult {
    /// Model-facing text (redacted).
    pub content: String,
    /// Whether it is an error result.
    pub is_error: bool,
}

/// The tools and how their calls are approved.
pub struct ToolRunner {
    registry: ToolRegistry,
    mode: ApprovalMode,
    /// The acting tools' policy (SPEC §14.2), when the session has a sandbox.
    acting: Option<std::sync::Arc<crate::agent::acting_policy::ActingPolicy>>,
    /// Key values redacted from tool results before they are logged; the
    /// session's log redacts with the same shared set.
    secrets: crate::secret::Secrets,
}

impl ToolRunner {
    /// A runner over `registry` answering approvals by `mode`; `acting` decides `shell` and
    /// the edit tools when the session has a sandbox (SPEC §14.2); `secrets` is the shared
    /// redaction set.
    pub fn new(
        registry: ToolRegistry,
        mode: ApprovalMode,
        acting: Option<std::sync::Arc<crate::agent::acting_policy::ActingPolicy>>,
        secrets: crate::secret::Secrets,
    ) -> ToolRunner {
        ToolRunner {
            registry,
            mode,
            acting,
            secrets,
        }
    }

    /// The registry.
    pub fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    /// The registry, to change sources and `/tool enable|disable`.
    pub fn registry_mut(&mut self) -> &mut ToolRegistry {
        &mut self.registry
    }

    /// The acting tools' policy, if any (`/permissions`).
    pub fn acting(&self) -> Option<&std::sync::Arc<crate::agent::acting_policy::ActingPolicy>> {
        self.acting.as_ref()
    }

    /// How approvals are answered.
    pub fn mode(&self) -> ApprovalMode {
        self.mode
    }

    /// Adds a key value to redact (see [`crate::secret::Secrets`]).
    pub fn add_secret(&mut self, value: &str) {
        self.secrets.add(value);
    }

    /// The shared set of key values (the session log redacts with it too).
    pub fn secrets(&self) -> &crate::secret::Secrets {
        &self.secrets
    }

    /// `text` with every known key value replaced.
    pub fn redact(&self, text: &str) -> String {
        self.secrets.redact(text).into_owned()
    }

    /// Runs the calls `decided` lets through and returns every call's result in call
    /// order. Parallel-safe calls overlap each other; the rest run one at a time, in
    /// call order, alongside them.
    pub async fn execute(
        &self,
        calls: &[ToolCall],
        decided: Vec<Option<String>>,
        cancel: &CancellationToken,
    ) -> Vec<CallResult> {
        let mut results: Vec<Option<CallResult>> = decided
            .iter()
            .map(|d| {
                d.as_ref().map(|e| CallResult {
                    content: e.clone(),
                    is_error: true,
                })
            })
            .collect();
        let runnable: Vec<usize> = (0..calls.len()).filter(|&i| results[i].is_none()).collect();
        let (parallel, serial): (Vec<usize>, Vec<usize>) = runnable
            .into_iter()
            .partition(|&i| self.registry.is_parallel_safe(&calls[i].name));
        let registry = &self.registry;
        let acting = self.acting.as_deref();
        let run = |i: usize| async move {
            let c = &calls[i];
            // An escalation the user allowed runs outside the sandbox (SPEC §14.2).
            if let Some(a) = acting
                && c.name == "shell"
                && a.take_unsandboxed(&c.id)
                && let Some(sh) = &a.shell
            {
                let args = serde_json::from_str(&c.arguments).unwrap_or(serde_json::Value::Null);
                let out = match sh.parse(&args) {
                    Ok(req) => {
                        sh.run(&req, crate::tools::shell::RunAs::Unsandboxed, cancel)
                            .await
                            .outcome
                    }
                    Err(e) => crate::tools::ToolOutcome::error(e),
                };
                return (i, out);
            }
            let call = registry.call(&c.name, &c.arguments, cancel);
            let out = crate::tools::progress::for_call(&c.id, call).await;
            (i, out)
        };
        let overlapping = futures_util::future::join_all(parallel.into_iter().map(run));
        let one_at_a_time = async {
            let mut out = Vec::with_capacity(serial.len());
            for i in serial {
                out.push(run(i).await);
            }
            out
        };
        let (a, b) = tokio::join!(overlapping, one_at_a_time);
        for (i, out) in a.into_iter().chain(b) {
            results[i] = Some(CallResult {
                content: out.content,
                is_error: out.is_error,
            });
        }
        results
            .into_iter()
            .map(|r| {
                let r = r.unwrap_or(CallResult {
                    content: "the call did not run".to_string(),
                    is_error: true,
                });
                CallResult {
                    // Second line of defence: a key that reached a tool anyway is not logged.
                    content: self.redact(&r.content),
                    is_error: r.is_error,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use crate::agent::emitter::Emitter;
    use crate::agent::inbox::Inbox;
    use crate::agent::protocol::{AgentEvent, ApprovalDecision};
    use std::sync::Arc;
    use std::sync::Mutex;
    use std::time::Duration;

    use tokio::sync::mpsc;

    use futures_util::future::BoxFuture;

    use super::*;
    use crate::session::event::ToolSchema;
    use crate::tools::registry::{RegisteredTool, ToolSource};
    use crate::tools::{Approval, ToolExecutor, ToolOutcome};

    /// Records when each call starts and ends, and how many ran at once.
    #[derive(Default)]
    struct Clock {
        log: Mutex<Vec<String>>,
        running: Mutex<usize>,
        most: Mutex<usize>,
    }

    struct Slow {
        name: &'static str,
        clock: Arc<Clock>,
    }

    impl ToolExecutor for Slow {
        fn call<'a>(
            &'a self,
            _arguments: serde_json::Value,
            _cancel: &'a CancellationToken,
        ) -> BoxFuture<'a, ToolOutcome> {
            Box::pin(async move {
                {
                    let mut r = self.clock.running.lock().unwrap();
                    *r += 1;
                    let mut m = self.clock.most.lock().unwrap();
                    *m = (*m).max(*r);
                    self.clock
                        .log
                        .lock()
                        .unwrap()
                        .push(format!("start {}", self.name));
                }
                tokio::time::sleep(Duration::from_millis(30)).await;
                *self.clock.running.lock().unwrap() -= 1;
                self.clock
                    .log
                    .lock()
                    .unwrap()
                    .push(format!("end {}", self.name));
                ToolOutcome::ok(format!("{} done", self.name))
            })
        }
    }

    fn tool(name: &'static str, parallel_safe: bool, clock: &Arc<Clock>) -> RegisteredTool {
        RegisteredTool {
            schema: ToolSchema {
                name: name.to_string(),
                description: String::new(),
                parameters: serde_json::json!({"type": "object"}),
                defer_loading: None,
            },
            approval: Approval::Ask,
            enabled: true,
            executor: Arc::new(Slow {
                name,
                clock: clock.clone(),
            }),
            parallel_safe,
        }
    }

    fn calls(names: &[&str]) -> Vec<ToolCall> {
        names
            .iter()
            .enumerate()
            .map(|(i, n)| ToolCall {
                id: format!("c{i}"),
                name: n.to_string(),
                arguments: "{}".into(),
            })
            .collect()
    }

    /// An interactive runner with one side-effecting tool `a`, its inbox, and the user's
    /// answer to the first approval already queued.
    struct Asking {
        runner: ToolRunner,
        events: mpsc::UnboundedReceiver<AgentEvent>,
        emitter: Emitter,
        answers: Option<mpsc::UnboundedSender<crate::agent::protocol::AgentCommand>>,
        inbox: Inbox,
        cancel: CancellationToken,
    }

    impl Asking {
        fn answered(answer: crate::agent::protocol::AgentCommand) -> Asking {
            let clock = Arc::new(Clock::default());
            let mut registry = ToolRegistry::new();
            registry.set_source_tools(ToolSource::Command, vec![tool("a", false, &clock)]);
            let runner = ToolRunner::new(
                registry,
                ApprovalMode::Interactive,
                None,
                Default::default(),
            );
            let (etx, events) = mpsc::unbounded_channel();
            let (ctx, crx) = mpsc::unbounded_channel();
            let mut inbox = Inbox::detached(etx.clone());
            inbox.attach(crx);
            let cancel = inbox.new_cancel();
            ctx.send(answer).unwrap();
            Asking {
                runner,
                events,
                emitter: Emitter::new(etx),
                answers: Some(ctx),
                inbox,
                cancel,
            }
        }

        async fn decide(
            &mut self,
            names: &[&str],
            allowed: &mut HashSet<String>,
        ) -> Vec<Option<String>> {
            self.runner
                .decide(
                    &calls(names),
                    false,
                    &self.cancel,
                    allowed,
                    &mut self.inbox,
                    &self.emitter,
                )
                .await
        }

        fn events(&mut self) -> Vec<AgentEvent> {
            std::iter::from_fn(|| self.events.try_recv().ok()).collect()
        }
    }

    fn runner(tools: Vec<RegisteredTool>) -> ToolRunner {
        let mut r = ToolRegistry::new();
        r.set_source_tools(ToolSource::Command, tools);
        ToolRunner::new(r, ApprovalMode::AllowAll, None, Default::default())
    }

    #[tokio::test]
    async fn side_effecting_calls_never_overlap_and_keep_call_order() {
        let clock = Arc::new(Clock::default());
        let r = runner(vec![tool("a", false, &clock), tool("b", false, &clock)]);
        let c = calls(&["a", "b", "a"]);
        let out = r
            .execute(&c, vec![None, None, None], &CancellationToken::new())
            .await;
        assert_eq!(*clock.most.lock().unwrap(), 1, "calls overlapped");
        assert_eq!(
            *clock.log.lock().unwrap(),
            ["start a", "end a", "start b", "end b", "start a", "end a"]
        );
        let texts: Vec<&str> = out.iter().map(|r| r.content.as_str()).collect();
        assert_eq!(texts, ["a done", "b done", "a done"]);
    }

    #[tokio::test]
    async fn parallel_safe_calls_overlap() {
        let clock = Arc::new(Clock::default());
        let r = runner(vec![tool("read", true, &clock), tool("grep", true, &clock)]);
        let c = calls(&["read", "grep", "read"]);
        r.execute(&c, vec![None, None, None], &CancellationToken::new())
            .await;
        assert_eq!(*clock.most.lock().unwrap(), 3);
    }

    #[tokio::test]
    async fn decided_errors_are_results_in_call_order_and_keys_are_redacted() {
        let clock = Arc::new(Clock::default());
        let mut r = runner(vec![tool("alpha", false, &clock)]);
        r.add_secret("alpha done");
        let c = calls(&["alpha", "alpha"]);
        let out = r
            .execute(
                &c,
                vec![Some("denied".into()), None],
                &CancellationToken::new(),
            )
            .await;
        assert_eq!(
            out,
            vec![
                CallResult {
                    content: "denied".into(),
                    is_error: true
                },
                CallResult {
                    content: "[REDACTED]".into(),
                    is_error: false
                },
            ]
        );
        assert_eq!(
            clock.log.lock().unwrap().len(),
            2,
            "only the allowed call ran"
        );
    }

    #[tokio::test]
    async fn always_allow_is_remembered_in_the_set_it_is_given() {
        let mut a = Asking::answered(crate::agent::protocol::AgentCommand::Approve {
            call_id: "c0".into(),
            decision: ApprovalDecision::AlwaysAllow,
        });
        let mut allowed = HashSet::new();
        let d = a.decide(&["a", "a"], &mut allowed).await;
        assert_eq!(d, vec![None, None]);
        assert!(allowed.contains("a"));
        // Only the first call asked.
        let asked = a
            .events()
            .iter()
            .filter(|e| matches!(e, AgentEvent::ApprovalRequest { .. }))
            .count();
        assert_eq!(asked, 1);
        // A fresh set (a new session) asks again, and a closed channel denies.
        a.answers = None;
        let d = a.decide(&["a"], &mut HashSet::new()).await;
        assert!(d[0].as_deref().is_some_and(|e| e.contains("denied")));
    }

    #[tokio::test]
    async fn waiting_for_the_user_is_its_own_phase_and_a_denial_is_recognised() {
        let mut a = Asking::answered(crate::agent::protocol::AgentCommand::Approve {
            call_id: "c0".into(),
            decision: ApprovalDecision::Deny,
        });
        let d = a.decide(&["a"], &mut HashSet::new()).await;
        let seen: Vec<String> = a
            .events()
            .into_iter()
            .filter_map(|e| match e {
                AgentEvent::Phase(p) => Some(format!("{p:?}")),
                AgentEvent::ApprovalRequest { .. } => Some("ask".into()),
                _ => None,
            })
            .collect();
        assert_eq!(seen, ["AwaitingApproval", "ask", "RunningTools"]);
        let text = d[0].clone().unwrap();
        assert!(is_denial("a", &text) && !is_denial("b", &text));
    }

    #[tokio::test]
    async fn a_denial_with_a_reason_gives_the_model_the_reason_and_is_still_a_denial() {
        let mut a = Asking::answered(crate::agent::protocol::AgentCommand::DenyWithReason {
            call_id: "c0".into(),
            reason: "use the staging database".into(),
        });
        let d = a.decide(&["a"], &mut HashSet::new()).await;
        let text = d[0].clone().expect("denied");
        assert!(text.contains("use the staging database"), "{text}");
        assert!(is_denial("a", &text));
        assert_eq!(denial_reason("a", &text), Some("use the staging database"));
        assert_eq!(denial_reason("a", &denial_text("a")), None);
    }

    #[tokio::test]
    async fn a_tool_that_asks_says_why_and_what_a_allows_before_the_request() {
        let mut a = Asking::answered(crate::agent::protocol::AgentCommand::Approve {
            call_id: "c0".into(),
            decision: ApprovalDecision::Allow,
        });
        a.decide(&["a"], &mut HashSet::new()).await;
        let events = a.events();
        let why = events.iter().position(|e| {
            matches!(e, AgentEvent::ApprovalWhy { why, always: Some(al), .. }
                if why.key == "approval-why-tool-asks" && al.key == "approval-always-tool")
        });
        let ask = events
            .iter()
            .position(|e| matches!(e, AgentEvent::ApprovalRequest { .. }));
        assert!(why.is_some() && why < ask, "{events:?}");
    }
}
