//! Subagents in the dispatch-equals-reconstruct proptest (SPEC §15.3): a parent step calls
//! `task` once or twice; each subagent runs as the loop runs it (decision 0170) — a copy of
//! the parent's log up to the call, its events handed to the parent's log through the
//! parent sink as `subagent/event` — with its own steps, tool rounds and failed attempts.
//! Every request it sends is recorded, so the property can rebuild them from the
//! subagent's log inside the parent's.

use super::*;
use crate::agent::subagent::log::{ParentSink, ToParent, base_events, next_id};
use crate::agent::subagent::{SubagentMode, TaskArgs};
use crate::session::event::{StepRef, SubagentEvent};
use crate::session::subagent_event::SubagentStart;

/// What one subagent sent: its id and its wire bodies, in request order.
pub(super) type SubagentSent = (String, Vec<(Vec<u8>, Option<String>)>);

impl Driver {
    /// A parent step that calls `task` `agents` times (1 or 2, at once); each subagent
    /// takes `rounds` tool rounds before its answer, and its first request fails once
    /// when `fail` is set. Then the parent gets the answers and its turn goes on.
    pub(super) fn subagents(&mut self, agents: u8, rounds: u8, fail: bool) {
        self.attempt();
        let args = TaskArgs {
            description: "look".into(),
            prompt: "Look around.".into(),
            mode: SubagentMode::ReadOnly,
        };
        let mut ids = Vec::new();
        for _ in 0..agents.clamp(1, 2) {
            self.calls += 1;
            ids.push(format!("call_{}", self.calls));
        }
        let arguments = r#"{"description":"look","prompt":"Look around."}"#;
        self.assistant(
            ids.iter()
                .map(|id| Block::ToolCall {
                    id: id.clone(),
                    name: crate::agent::subagent::TASK.into(),
                    arguments: arguments.into(),
                })
                .collect(),
        );
        let parent_seq = self.session.events().last().map_or(0, |e| e.seq);
        let base = base_events(&self.session, parent_seq);
        let mut jobs = Vec::new();
        for id in &ids {
            let agent = next_id(&self.session, 0);
            self.session
                .push(EventKind::SubagentStart(SubagentStart {
                    agent: agent.clone(),
                    turn: self.turn,
                    step: self.step,
                    call_id: id.clone(),
                    description: args.description.clone(),
                    mode: args.mode,
                    parent_seq,
                }))
                .expect("subagent/start");
            jobs.push((agent, id.clone()));
        }
        for (agent, call_id) in jobs {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            let mut sub = Session::from_events(base.clone()).expect("the parent's prefix");
            sub.set_sink(Box::new(ParentSink {
                agent: agent.clone(),
                tx,
            }));
            let sent = self.run_subagent(&mut sub, &agent, &call_id, &ids, &args, rounds, fail);
            drop(sub);
            // The parent's loop logs what the sink handed it, in order.
            while let Ok(msg) = rx.try_recv() {
                if let ToParent::Event(agent, event) = msg {
                    self.session
                        .push(EventKind::SubagentEvent(SubagentEvent { agent, event }))
                        .expect("subagent/event");
                }
            }
            self.subagent_sent.push((agent, sent));
        }
        for (i, id) in ids.iter().enumerate() {
            let mut r = Message::text(Role::Tool, format!("answer {i}"), Source::kind("tool"));
            r.tool_call_id = Some(id.clone());
            self.session
                .push(EventKind::ToolResult(ToolResultData {
                    turn: self.turn,
                    step: self.step,
                    message: r,
                    error: None,
                    sandbox_retry: None,
                }))
                .expect("task result");
        }
    }

    /// One subagent's conversation as `subagent::run` has it: the results of the calls
    /// that made it, the task, then its steps through the real planner on the parent's
    /// route, prompt and tool plan. Returns the bodies it sent.
    #[allow(clippy::too_many_arguments)]
    fn run_subagent(
        &self,
        sub: &mut Session,
        agent: &str,
        own: &str,
        calls: &[String],
        args: &TaskArgs,
        rounds: u8,
        fail: bool,
    ) -> Vec<(Vec<u8>, Option<String>)> {
        let (turn, parent_step) = (self.turn, self.step);
        for id in calls {
            let text = if id == own {
                crate::agent::subagent::own_call_result(agent)
            } else {
                crate::agent::subagent::OTHER_CALL_RESULT.to_string()
            };
            let mut m = Message::text(Role::Tool, text, Source::kind("subagent"));
            m.tool_call_id = Some(id.clone());
            sub.push(EventKind::ToolResult(ToolResultData {
                turn,
                step: parent_step,
                message: m,
                error: None,
                sandbox_retry: None,
            }))
            .expect("the calls' results");
        }
        let mut series = RequestSeries::attach(sub);
        let mut pending = vec![Message::text(
            Role::User,
            crate::agent::subagent::task_message(agent, args),
            Source::kind("subagent-task"),
        )];
        let (tools, deferred) = self.plan();
        // The parent's route as its last request went (narrowed by a refusal, if any).
        let route = self.effective_route();
        let mut sent = Vec::new();
        for step in 1..=u64::from(rounds) + 1 {
            sub.push(EventKind::StepStart(StepRef { turn, step }))
                .expect("step start");
            let tries = if fail && step == 1 { 2 } else { 1 };
            for attempt in 1..=tries {
                let input = AttemptInput {
                    rendered: &self.prompt,
                    tools: tools.clone(),
                    deferred: deferred.clone(),
                    pending_user: std::mem::take(&mut pending),
                    turn,
                    step,
                    explicit_series_start: false,
                    effort: None,
                };
                let planned = plan_attempt(sub, &mut series, &route, input, &mut |_| {})
                    .expect("the subagent's request plans");
                sent.push(super::sent(
                    build_wire(&planned.opts).expect("the subagent's request serializes"),
                ));
                if attempt < tries {
                    sub.push(EventKind::AssistantAttempt(AssistantAttempt {
                        turn,
                        step,
                        error: AttemptError {
                            code: "server".into(),
                            status: Some(503),
                            message: "busy".into(),
                            retried: true,
                            detail: None,
                        },
                    }))
                    .expect("attempt");
                }
            }
            let last = step == u64::from(rounds) + 1;
            let id = format!("call_{agent}_{step}_0");
            let blocks = if last {
                vec![Block::Text {
                    text: format!("{agent} is done"),
                }]
            } else {
                let name = tools.first().map_or("gone".into(), |t| t.name.clone());
                vec![Block::ToolCall {
                    id: id.clone(),
                    name,
                    arguments: "{\"q\":\"y\"}".into(),
                }]
            };
            sub.push(EventKind::AssistantMessage(AssistantMessageData {
                turn,
                step,
                message: Message::new(Role::Assistant, blocks, Source::kind("model")),
                usage: None,
                timing: None,
                interrupted: None,
            }))
            .expect("the subagent's reply");
            if !last {
                let mut r = Message::text(Role::Tool, "found", Source::kind("tool"));
                r.tool_call_id = Some(id);
                sub.push(EventKind::ToolResult(ToolResultData {
                    turn,
                    step,
                    message: r,
                    error: None,
                    sandbox_retry: None,
                }))
                .expect("the subagent's tool result");
            }
            sub.push(EventKind::StepEnd(StepRef { turn, step }))
                .expect("step end");
        }
        sent
    }
}
