//! The tool runner: decides every call of a step in call order (cut-off arguments,
//! cancellation, approval), then runs the approved ones. Calls of tools that may overlap
//! (built-in read-only tools, and tools configured with `parallel = true`) run
//! concurrently; every other call (command and MCP tools, which may have side effects)
//! runs one at a time, in call order. Results come back in call order, with configured
//! key values redacted.

use std::collections::HashSet;

use tokio_util::sync::CancellationToken;

use crate::agent::acting_policy::{ActingPolicy, Verdict};
use crate::agent::emitter::Emitter;
use crate::agent::inbox::Inbox;
use crate::agent::protocol::{AgentEvent, ApprovalDecision, Notice, NoticeLevel, TurnPhase};
use crate::i18n::{Arg, Text};
use crate::session::retry_event::{RetryAnswer, SandboxAttempt, SandboxRetry};
use crate::tools::mcp::annotations::ToolHints;
use crate::tools::registry::ToolRegistry;

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

/// The model-facing result of a call the user denied. The UI recognizes it (see
/// [`is_denial`]) to show "Denied by you", live and on resume.
pub fn denial_text(name: &str) -> String {
    format!("the user denied this call of \"{name}\"; do not retry it unless asked")
}

/// [`denial_text`] with the user's reason, which the model reads (§14.5).
pub fn denial_text_with_reason(name: &str, reason: Option<&str>) -> String {
    match reason.map(str::trim).filter(|r| !r.is_empty()) {
        Some(r) => format!("{}. The user's reason: {r}", denial_text(name)),
        None => denial_text(name),
    }
}

/// Whether `result` is the denial of a call of `name` (an error result from [`denial_text`]
/// or [`denial_text_with_reason`]).
pub fn is_denial(name: &str, result: &str) -> bool {
    let base = denial_text(name);
    result == base
        || result
            .strip_prefix(base.as_str())
            .is_some_and(|rest| rest.starts_with(". The user's reason: "))
}

/// The reason inside a denial result, if the user gave one.
pub fn denial_reason<'a>(name: &str, result: &'a str) -> Option<&'a str> {
    result
        .strip_prefix(denial_text(name).as_str())?
        .strip_prefix(". The user's reason: ")
}

/// How the shell's result marks a failure that looks like a sandbox denial.
pub const SANDBOX_DENIAL_NOTE: &str = "\n[the sandbox (";

/// How a re-run outside the sandbox marks its result for the model (the card leaves the
/// note out: it says the same in the user's language).
pub const RERUN_NOTE: &str = "\n[ran again outside the sandbox";

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

    /// Decides each call in order: `Some(error)` is the result of a call that will not
    /// run (arguments cut off by `max_tokens`, cancelled, denied), `None` runs it.
    /// `allowed` holds the session's "always allow" answers and gains new ones.
    pub async fn decide(
        &self,
        calls: &[ToolCall],
        truncated: bool,
        cancel: &CancellationToken,
        allowed: &mut HashSet<String>,
        inbox: &mut Inbox,
        events: &Emitter,
    ) -> Vec<Option<String>> {
        let mut decided = Vec::with_capacity(calls.len());
        for call in calls {
            let name = call.name.as_str();
            let pre_error = if truncated
                && serde_json::from_str::<serde_json::Value>(&call.arguments).is_err()
            {
                Some(
                    "the tool call's arguments were cut off because the reply reached max_tokens; \
                     call the tool again with shorter arguments"
                        .to_string(),
                )
            } else if cancel.is_cancelled() {
                Some("cancelled by the user".to_string())
            } else if let Some(acting) = self
                .acting
                .as_ref()
                .filter(|_| self.registry.is_active(name) && ActingPolicy::is_acting(name))
            {
                self.decide_acting(acting, call, inbox, events).await
            } else if self.registry.is_active(name)
                && self.registry.needs_approval(name)
                && !allowed.contains(name)
            {
                events.emit(self.generic_why(call));
                match self.ask(call, inbox, events).await {
                    ApprovalDecision::Allow => None,
                    ApprovalDecision::AlwaysAllow => {
                        allowed.insert(name.to_string());
                        None
                    }
                    ApprovalDecision::Deny => Some(denial_text_with_reason(
                        name,
                        inbox.take_reason(&call.id).as_deref(),
                    )),
                }
            } else {
                None
            };
            decided.push(pre_error);
        }
        decided
    }

    /// An acting tool's call: the policy runs it, refuses it (saying why, also on
    /// `exec`'s stderr) or asks with a preview of what it would do.
    async fn decide_acting(
        &self,
        acting: &ActingPolicy,
        call: &ToolCall,
        inbox: &mut Inbox,
        events: &Emitter,
    ) -> Option<String> {
        match acting.verdict(&call.name, &call.arguments) {
            Verdict::NotActing | Verdict::Run => None,
            // An escalation that needs no card (`--approve all`, or a grant for runs
            // outside the sandbox) runs outside it, like one the user allowed (§14.2).
            Verdict::RunUnsandboxed => {
                acting.allow_unsandboxed(&call.id);
                None
            }
            Verdict::Refuse(reason) => {
                events.emit(AgentEvent::Notice(Notice::new(
                    NoticeLevel::Warn,
                    "approval-refused-call",
                    vec![
                        ("tool", Arg::from(call.name.clone())),
                        ("reason", Arg::from(reason.clone())),
                    ],
                )));
                Some(reason)
            }
            Verdict::Ask(boxed) => {
                let (ask, preview) = *boxed;
                events.emit(AgentEvent::ApprovalWhy {
                    call_id: call.id.clone(),
                    why: ask.reason.text(),
                    always: ask.always.text(),
                });
                if let Some(preview) = preview {
                    events.emit(AgentEvent::ApprovalPreview {
                        call_id: call.id.clone(),
                        preview,
                    });
                }
                let decision = self.ask(call, inbox, events).await;
                if decision == ApprovalDecision::AlwaysAllow
                    && let Some(e) = acting.always(&ask)
                {
                    events.emit(AgentEvent::Notice(Notice::new(
                        NoticeLevel::Warn,
                        "approval-always-not-saved",
                        vec![("error", Arg::from(format!("{e:?}")))],
                    )));
                }
                match decision {
                    ApprovalDecision::Allow | ApprovalDecision::AlwaysAllow => {
                        if call.name == "shell" && !ask.sandboxed {
                            acting.allow_unsandboxed(&call.id);
                        }
                        None
                    }
                    ApprovalDecision::Deny => Some(denial_text_with_reason(
                        &call.name,
                        inbox.take_reason(&call.id).as_deref(),
                    )),
                }
            }
        }
    }

    /// Why a call of a tool with its own approval policy asks: the tool asks, or it hides
    /// a tool of the same name that asks; `a` allows the tool for the
    /// session.
    fn generic_why(&self, call: &ToolCall) -> AgentEvent {
        let tool = Arg::from(call.name.clone());
        let why = match self.registry.shadowed_asking(&call.name) {
            Some((kept, hidden)) => Text::new(
                "approval-why-shadowed",
                vec![
                    ("tool", tool.clone()),
                    ("kept", Arg::from(kept.label())),
                    ("hidden", Arg::from(hidden.label())),
                ],
            ),
            None => ToolHints::approval_why(&call.name, self.registry.hints_of(&call.name)),
        };
        AgentEvent::ApprovalWhy {
            call_id: call.id.clone(),
            why,
            always: Some(Text::new("approval-always-tool", vec![("tool", tool)])),
        }
    }

    /// A sandboxed `shell` call whose result looks like a sandbox denial: asks the user,
    /// showing the sandboxed attempt's status and output, whether to run it again outside
    /// the sandbox (SPEC §14.2, §15.5; `on-request` and `untrusted`). Returns the result
    /// to log and what happened, for the card: the re-run's result when allowed, else the
    /// sandboxed attempt's with the denial and the user's reason, which the model reads.
    pub async fn offer_rerun(
        &self,
        call: &ToolCall,
        result: &CallResult,
        inbox: &mut Inbox,
        events: &Emitter,
        cancel: &CancellationToken,
    ) -> Option<(CallResult, SandboxRetry)> {
        if call.name != "shell" || self.mode != ApprovalMode::Interactive {
            return None;
        }
        let acting = self.acting.as_ref()?;
        if !result.content.contains(SANDBOX_DENIAL_NOTE) {
            return None;
        }
        let attempt = SandboxAttempt::of(&result.content, SANDBOX_DENIAL_NOTE);
        let (ask, preview) = acting.rerun_offer(&call.arguments, attempt.clone())?;
        let sh = acting.shell.clone()?;
        let args = serde_json::from_str(&call.arguments).ok()?;
        let req = sh.parse(&args).ok()?;
        events.emit(AgentEvent::ApprovalWhy {
            call_id: call.id.clone(),
            why: ask.reason.text(),
            always: ask.always.text(),
        });
        events.emit(AgentEvent::ApprovalPreview {
            call_id: call.id.clone(),
            preview,
        });
        let decision = self.ask(call, inbox, events).await;
        if decision == ApprovalDecision::AlwaysAllow
            && let Some(e) = acting.always(&ask)
        {
            events.emit(AgentEvent::Notice(Notice::new(
                NoticeLevel::Warn,
                "approval-always-not-saved",
                vec![("error", Arg::from(format!("{e:?}")))],
            )));
        }
        match decision {
            ApprovalDecision::Allow | ApprovalDecision::AlwaysAllow => {
                let out = sh
                    .run(&req, crate::tools::shell::RunAs::Unsandboxed, cancel)
                    .await
                    .outcome;
                let content = format!(
                    "{}{RERUN_NOTE} after the sandboxed attempt failed ({}); the user allowed \
                     it, and this is that run's result]",
                    out.content, attempt.status
                );
                let retry = SandboxRetry {
                    attempt,
                    answer: RetryAnswer::RanUnsandboxed,
                };
                Some((
                    CallResult {
                        content: self.redact(&content),
                        is_error: out.is_error,
                    },
                    retry,
                ))
            }
            ApprovalDecision::Deny => {
                let reason = inbox
                    .take_reason(&call.id)
                    .map(|r| r.trim().to_string())
                    .filter(|r| !r.is_empty());
                let sandboxed = result
                    .content
                    .split(SANDBOX_DENIAL_NOTE)
                    .next()
                    .unwrap_or_default();
                let mut content = format!(
                    "{sandboxed}\n[the sandbox seems to have refused this command; the user was \
                     asked to run it again outside the sandbox and declined: do not retry it \
                     unless asked"
                );
                if let Some(r) = &reason {
                    content.push_str(&format!(". The user's reason: {r}"));
                }
                content.push(']');
                let retry = SandboxRetry {
                    attempt,
                    answer: RetryAnswer::Denied { reason },
                };
                Some((
                    CallResult {
                        content,
                        is_error: true,
                    },
                    retry,
                ))
            }
        }
    }

    async fn ask(&self, call: &ToolCall, inbox: &mut Inbox, events: &Emitter) -> ApprovalDecision {
        match self.mode {
            ApprovalMode::AllowAll => ApprovalDecision::Allow,
            ApprovalMode::DenyAll => {
                // Headless without `--approve all`: say which call was refused, or the
                // user only sees the model's reaction to a denial it never asked for.
                events.emit(AgentEvent::Notice(Notice::new(
                    NoticeLevel::Warn,
                    "exec-tool-denied",
                    vec![("tool", Arg::from(call.name.clone()))],
                )));
                ApprovalDecision::Deny
            }
            ApprovalMode::Interactive => {
                // Waiting for the user is its own phase: the status line pauses the clock.
                events.emit(AgentEvent::Phase(TurnPhase::AwaitingApproval));
                events.emit(AgentEvent::ApprovalRequest {
                    call_id: call.id.clone(),
                    tool: call.name.clone(),
                    arguments: call.arguments.clone(),
                });
                let d = inbox.approval(&call.id).await;
                events.emit(AgentEvent::Phase(TurnPhase::RunningTools));
                d
            }
        }
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
