//! The parent's side of `task` calls (SPEC §15.3, decisions 0170–0173): each call starts a
//! subagent over a copy of the log up to the reply that made it; up to `max_subagents` run
//! at once. The turn stays the only writer of the log and the only reader of the user's
//! answers: it logs what the subagents send (`subagent/event`), answers their approval
//! questions naming them, and keeps reading the inbox, so Cancel reaches them.

use futures_util::StreamExt;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{AgentError, TurnRunner};
use crate::agent::protocol::AgentEvent;
use crate::agent::subagent::log::{ParentSink, ToParent, base_events, next_id};
use crate::agent::subagent::run::{Job, Shared, run};
use crate::agent::subagent::{TASK, TaskArgs};
use crate::agent::tool_runner::{CallResult, ToolCall};
use crate::session::Session;
use crate::session::event::EventKind;
use crate::session::event::SubagentEvent;
use crate::session::subagent_event::SubagentStart;

impl TurnRunner<'_> {
    /// Whether `call` is a `task` call this loop runs itself.
    pub(super) fn is_task_call(&self, call: &ToolCall) -> bool {
        call.name == TASK && self.tools.registry().is_active(TASK)
    }

    /// Runs the `task` calls `calls[i]` for each `i` of `idx` and returns their results.
    pub(super) async fn run_tasks(
        &mut self,
        turn: u64,
        step: u64,
        calls: &[ToolCall],
        idx: &[usize],
        cancel: &CancellationToken,
    ) -> Result<Vec<(usize, CallResult)>, AgentError> {
        let mut out = Vec::new();
        let parent_seq = self.state.session.events().last().map_or(0, |e| e.seq);
        let base = base_events(&self.state.session, parent_seq);
        let (tx, mut rx) = mpsc::unbounded_channel::<ToParent>();
        let mut jobs = Vec::new();
        for &i in idx {
            let call = &calls[i];
            let args = match TaskArgs::parse(&call.arguments) {
                Ok(a) => a,
                Err(e) => {
                    out.push((
                        i,
                        CallResult {
                            content: e,
                            is_error: true,
                        },
                    ));
                    continue;
                }
            };
            let agent = next_id(&self.state.session, 0);
            let mut session = Session::from_events(base.clone())?;
            session.set_secrets(self.state.session.secrets().clone());
            session.set_sink(Box::new(ParentSink {
                agent: agent.clone(),
                tx: tx.clone(),
            }));
            let ev = self
                .state
                .session
                .push(EventKind::SubagentStart(SubagentStart {
                    agent: agent.clone(),
                    turn,
                    step,
                    call_id: call.id.clone(),
                    description: args.description.clone(),
                    mode: args.mode,
                    parent_seq,
                }))?;
            self.events.emit(AgentEvent::Committed(ev));
            jobs.push((
                i,
                Job {
                    agent,
                    call_id: call.id.clone(),
                    args,
                    session,
                },
            ));
        }
        drop(base);
        if jobs.is_empty() {
            return Ok(out);
        }
        let plan = self.tool_plan();
        let shared = Shared {
            tools: &*self.tools,
            client: &self.services.client,
            retry: &self.services.retry,
            route: self.effective_route(),
            rendered: self.render_prompt(),
            declared: plan.declared,
            deferred: plan.deferred,
            effort: self.effort(),
            tx,
            turn,
            parent_step: step,
        };
        // A log the parent cannot write stops every subagent.
        let stop = cancel.child_token();
        let max = self.services.max_subagents.max(1);
        let shared = &shared;
        let stop_ref = &stop;
        let all = futures_util::stream::iter(jobs)
            .map(|(i, job)| async move { (i, run(shared, job, stop_ref.child_token()).await) })
            .buffer_unordered(max)
            .collect::<Vec<_>>();
        tokio::pin!(all);
        let mut failed: Option<AgentError> = None;
        let results = loop {
            tokio::select! {
                biased;
                Some(msg) = rx.recv() => {
                    match msg {
                        ToParent::Event(agent, event) => {
                            let kind = EventKind::SubagentEvent(SubagentEvent {
                                agent,
                                event,
                            });
                            match self.state.session.push(kind) {
                                Ok(ev) => self.events.emit(AgentEvent::Committed(ev)),
                                Err(e) => {
                                    stop.cancel();
                                    failed.get_or_insert(AgentError::Session(e));
                                }
                            }
                        }
                        ToParent::Sync => {
                            if let Err(e) = self.state.session.sync() {
                                stop.cancel();
                                failed.get_or_insert(AgentError::Session(e));
                            }
                        }
                        ToParent::Ask { agent, description, call, answer } => {
                            // A question names the subagent (SPEC §15.3).
                            let asking = self.events.for_subagent(&agent, &description);
                            let d = self
                                .tools
                                .decide(
                                    std::slice::from_ref(&call),
                                    false,
                                    cancel,
                                    &mut self.state.always_allowed,
                                    self.inbox,
                                    &asking,
                                )
                                .await;
                            let _ = answer.send(d.into_iter().next().flatten());
                        }
                    }
                }
                r = &mut all => break r,
                _ = self.inbox.wait_command() => {}
            }
        };
        // What the subagents sent last, after their futures ended.
        while let Ok(msg) = rx.try_recv() {
            if let ToParent::Event(agent, event) = msg {
                let kind = EventKind::SubagentEvent(SubagentEvent { agent, event });
                match self.state.session.push(kind) {
                    Ok(ev) => self.events.emit(AgentEvent::Committed(ev)),
                    Err(e) => {
                        failed.get_or_insert(AgentError::Session(e));
                    }
                }
            }
        }
        if let Some(e) = failed {
            return Err(e);
        }
        out.extend(results);
        Ok(out)
    }
}
