//! A step's tool calls: hooks, approvals, the checkpoint before the first change, the
//! run itself and the results in call order; and the repair of calls a stopped session
//! left unanswered (W-8).

use tokio_util::sync::CancellationToken;

use super::{AgentError, TurnRunner};
use crate::agent::protocol::{AgentEvent, Notice, NoticeLevel, TurnPhase};
use crate::agent::tool_runner::ToolCall;
use crate::i18n::Arg;
use crate::session::event::{EventKind, Message, Role, Source, ToolCallData, ToolResultData};

impl TurnRunner<'_> {
    /// A log that ends with tool calls but not all of their results (deepterm stopped
    /// while tools ran) would break the pairing rule (W-8) on every later request: answer
    /// the missing calls with an error result before anything else is sent.
    pub(super) fn repair_unanswered_calls(&mut self) -> Result<(), AgentError> {
        let mut answered = std::collections::HashSet::new();
        let mut pending: Vec<(u64, u64, String)> = Vec::new();
        let session = &self.state.session;
        for e in session.events().iter().rev() {
            if session.is_rewound(e.seq) {
                continue;
            }
            match &e.kind {
                EventKind::ToolResult(r) => {
                    if let Some(id) = &r.message.tool_call_id {
                        answered.insert(id.clone());
                    }
                }
                EventKind::AssistantMessage(a) => {
                    pending = a
                        .message
                        .tool_calls()
                        .filter(|(id, _, _)| !answered.contains(*id))
                        .map(|(id, _, _)| (a.turn, a.step, id.to_string()))
                        .collect();
                    break;
                }
                _ => {}
            }
        }
        for (turn, step, id) in pending {
            let text = "the call did not finish: deepterm stopped before the tool returned";
            let mut message = Message::text(Role::Tool, text, Source::kind("tool"));
            message.tool_call_id = Some(id);
            message.is_error = Some(true);
            self.push(EventKind::ToolResult(ToolResultData {
                turn,
                step,
                message,
                error: Some(text.to_string()),
                sandbox_retry: None,
            }))?;
        }
        Ok(())
    }

    pub(super) async fn run_tools(
        &mut self,
        turn: u64,
        step: u64,
        calls: Vec<ToolCall>,
        truncated: bool,
        cancel: &CancellationToken,
    ) -> Result<(), AgentError> {
        self.events.emit(AgentEvent::Phase(TurnPhase::RunningTools));
        // A `call_tool` call runs as the call it names, under that name, through the same
        // hooks, approval, checkpoint, card and log (SPEC §15.1).
        let via_bridge: std::collections::HashSet<String> = calls
            .iter()
            .filter(|c| c.name == crate::tools::bridge::CALL_TOOL)
            .map(|c| c.id.clone())
            .collect();
        let calls = super::bridged::unwrap_bridged(calls);
        for c in &calls {
            let bridged = via_bridge.contains(&c.id) && c.name != crate::tools::bridge::CALL_TOOL;
            self.push(EventKind::ToolCall(ToolCallData {
                turn,
                step,
                call_id: c.id.clone(),
                name: c.name.clone(),
                arguments: c.arguments.clone(),
                bridged: bridged.then_some(true),
            }))?;
        }
        // `pre_tool_use` hooks first (SPEC §14.4): a call one refuses is never approved or run.
        let blocked = self.pre_tool_hooks(turn, &calls, cancel).await;
        let open = crate::agent::hooks::unblocked(&calls, &blocked);
        // Decide every call first (approvals are asked one at a time, in call order),
        // then run the approved ones and record results in call order.
        let decided = self
            .tools
            .decide(
                &open,
                truncated,
                cancel,
                &mut self.state.always_allowed,
                self.inbox,
                self.events,
            )
            .await;
        let decided = crate::agent::hooks::merge_decisions(blocked, decided);
        let ran: Vec<bool> = decided.iter().map(Option::is_none).collect();
        // The first workspace change of the turn takes a checkpoint first (SPEC §14.3).
        self.checkpoint_before_calls(turn, &calls, &decided);
        // `tool_removal = "retain"`: a call to a removed, still declared tool says so,
        // naming the turn that removed it (SPEC §15.1).
        let history = self.state.session.tool_history()?;
        let caps = self.effective_route().caps;
        let names = crate::llm::projection::retained_declarations(
            caps.tool_update,
            caps.tool_removal,
            &history,
        );
        let retained = super::bridged::removal_turns(&self.state.session, names);
        self.tools.registry_mut().set_retained(retained);
        // `task` calls run as subagents below, after the other calls (SPEC §15.3).
        let tasks: Vec<usize> = (0..calls.len())
            .filter(|&i| decided[i].is_none() && self.is_task_call(&calls[i]))
            .collect();
        let mut decided = decided;
        for &i in &tasks {
            decided[i] = Some(String::new());
        }
        let tools = &self.tools;
        // A call's progress updates its card while it runs (SPEC §15.2).
        let events = self.events.clone();
        let progress: crate::tools::progress::StepSink = std::sync::Arc::new(move |id, p| {
            events.emit(AgentEvent::ToolProgress {
                call_id: id.to_string(),
                progress: p.progress,
                total: p.total,
                message: p.message,
            })
        });
        let results = self
            .inbox
            .during(crate::tools::progress::reporting(
                progress,
                tools.execute(&calls, decided, cancel),
            ))
            .await;
        let mut results = results;
        self.load_found(&calls, &mut results);
        for (i, r) in self.run_tasks(turn, step, &calls, &tasks, cancel).await? {
            results[i] = r;
        }
        let mut retries = Vec::with_capacity(calls.len());
        for (call, r) in calls.iter().zip(results.iter_mut()) {
            // The sandbox seems to have refused a command: the user may run it outside,
            // and the result's event keeps what happened for the card (SPEC §15.5).
            let retry = match self
                .tools
                .offer_rerun(call, r, self.inbox, self.events, cancel)
                .await
            {
                Some((again, retry)) => {
                    *r = again;
                    Some(retry)
                }
                None => None,
            };
            retries.push(retry);
        }
        // `post_tool_use` hooks see each result of a call that ran (SPEC §14.4).
        self.post_tool_hooks(turn, &calls, &ran, &mut results, cancel)
            .await;
        for ((call, r), sandbox_retry) in calls.iter().zip(results).zip(retries) {
            // A command the sandbox seems to have refused is said on the side too (exec's
            // stderr), so a headless run never fails silently (SPEC §14.2).
            if call.name == "shell"
                && r.content
                    .contains(crate::agent::tool_runner::SANDBOX_DENIAL_NOTE)
            {
                self.events.emit(Notice::new(
                    NoticeLevel::Warn,
                    "sandbox-denied-call",
                    vec![("mode", Arg::from(self.services.sandbox.mode().as_str()))],
                ));
            }
            // A fork refused by the process limit is said on the side, localized (§15.5).
            if call.name == "shell"
                && r.content
                    .contains(crate::sandbox::limits::PROCESS_LIMIT_NOTE)
            {
                let max = self
                    .tools
                    .acting()
                    .and_then(|a| a.shell.as_ref())
                    .map_or(0, |s| s.status().max_processes);
                self.events.emit(Notice::new(
                    NoticeLevel::Warn,
                    "sandbox-process-limit-hit",
                    vec![("max", Arg::from(max as i64))],
                ));
            }
            if call.name == "shell" && r.content.contains(crate::sandbox::vcs::CREATED_NOTE) {
                self.events.emit(Notice::new(
                    NoticeLevel::Warn,
                    "sandbox-vcs-created",
                    vec![],
                ));
            }
            let mut message = Message::text(Role::Tool, r.content.clone(), Source::kind("tool"));
            message.tool_call_id = Some(call.id.clone());
            if r.is_error {
                message.is_error = Some(true);
            }
            let is_error = r.is_error;
            self.push(EventKind::ToolResult(ToolResultData {
                turn,
                step,
                message,
                error: r.is_error.then_some(r.content),
                sandbox_retry,
            }))?;
            // The plan is the logged call's arguments (SPEC §15.3); `exec` is told now.
            if call.name == crate::tools::plan::UPDATE_PLAN
                && !is_error
                && let Ok(plan) = crate::tools::plan::Plan::parse_str(&call.arguments)
            {
                self.events.emit(AgentEvent::PlanUpdated(plan));
            }
        }
        Ok(())
    }
}
