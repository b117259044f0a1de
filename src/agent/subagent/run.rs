//! A subagent's own loop (decision 0170): each step is one request built by the one request
//! path over the subagent's log, then its tool calls within its mode. It shares the parent's
//! route, client, tools and retry policy, and asks the parent's loop (the only writer of the
//! log and reader of the user's answers) for everything else through [`ToParent`].

use std::collections::HashSet;
use std::time::Instant;

use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::log::ToParent;
use super::{SubagentMode, TaskArgs};
use crate::agent::prompt::RequestSeries;
use crate::agent::request::{AttemptInput, plan_attempt};
use crate::agent::tool_runner::{CallResult, ToolCall, ToolRunner};
use crate::llm::client::ProviderClient;
use crate::llm::retry::RetryPolicy;
use crate::llm::types::{ErrorCode, Route};
use crate::session::effort::Effort;
use crate::session::event::{
    AssistantAttempt, AssistantMessageData, AttemptError, EventKind, Message, Role, Source,
    StepRef, Timing, ToolCallData, ToolResultData,
};
use crate::session::{Session, SessionError};

/// What every subagent of a step shares, borrowed from the parent's turn.
pub(crate) struct Shared<'a> {
    pub(crate) tools: &'a ToolRunner,
    pub(crate) client: &'a ProviderClient,
    pub(crate) retry: &'a RetryPolicy,
    /// The parent's route as its last request went (narrowed by a refusal, if any).
    pub(crate) route: Route,
    /// The parent's rendered system prompt (the same bytes, so no new system message).
    pub(crate) rendered: String,
    /// The parent's tool plan (the same declarations and announced tools, so no new
    /// header or catalogue note).
    pub(crate) declared: Vec<crate::session::event::ToolSchema>,
    pub(crate) deferred: Vec<crate::session::event::ToolSchema>,
    pub(crate) effort: Option<Effort>,
    pub(crate) tx: mpsc::UnboundedSender<ToParent>,
    /// The parent's turn and step (the subagent's steps count from 1 inside it).
    pub(crate) turn: u64,
    pub(crate) parent_step: u64,
}

/// One subagent to run: its id, the call that started it and its log.
pub(crate) struct Job {
    pub(crate) agent: String,
    pub(crate) call_id: String,
    pub(crate) args: TaskArgs,
    /// The parent's log up to the call, writing into the parent's through its sink.
    pub(crate) session: Session,
}

/// Why a subagent stopped before its answer.
enum Stop {
    Cancelled,
    Failed(String),
}

impl From<SessionError> for Stop {
    fn from(e: SessionError) -> Self {
        Stop::Failed(format!("the subagent's log refused an event: {e}"))
    }
}

/// Runs `job` to its final answer, the `task` call's result.
pub(crate) async fn run(shared: &Shared<'_>, job: Job, cancel: CancellationToken) -> CallResult {
    let agent = job.agent.clone();
    match run_inner(shared, job, &cancel).await {
        Ok(text) => CallResult {
            content: super::answer(text),
            is_error: false,
        },
        Err(Stop::Cancelled) => CallResult {
            content: format!("subagent {agent} was cancelled by the user"),
            is_error: true,
        },
        Err(Stop::Failed(why)) => CallResult {
            content: format!("subagent {agent} failed: {why}"),
            is_error: true,
        },
    }
}

async fn run_inner(
    shared: &Shared<'_>,
    job: Job,
    cancel: &CancellationToken,
) -> Result<String, Stop> {
    let Job {
        agent,
        call_id,
        args,
        mut session,
    } = job;
    let (turn, parent_step) = (shared.turn, shared.parent_step);
    // The reply that made the call ends the copied prefix; its calls need results before
    // anything follows (W-8). The subagent's own call says what it is, the others belong
    // to the parent.
    let calls: Vec<String> = session
        .events()
        .iter()
        .rev()
        .find_map(|e| match &e.kind {
            EventKind::AssistantMessage(a) => Some(
                a.message
                    .tool_calls()
                    .map(|(id, _, _)| id.to_string())
                    .collect(),
            ),
            _ => None,
        })
        .unwrap_or_default();
    for id in calls {
        let text = if id == call_id {
            super::own_call_result(&agent)
        } else {
            super::OTHER_CALL_RESULT.to_string()
        };
        let mut message = Message::text(Role::Tool, text, Source::kind("subagent"));
        message.tool_call_id = Some(id);
        session.push(EventKind::ToolResult(ToolResultData {
            turn,
            step: parent_step,
            message,
            error: None,
            sandbox_retry: None,
        }))?;
    }
    let mut series = RequestSeries::attach(&session);
    let mut pending = vec![Message::text(
        Role::User,
        super::task_message(&agent, &args),
        Source::kind("subagent-task"),
    )];
    for step in 1..=super::MAX_SUBAGENT_STEPS {
        if cancel.is_cancelled() {
            return Err(Stop::Cancelled);
        }
        session.push(EventKind::StepStart(StepRef { turn, step }))?;
        let (completion, timing) = attempts(
            shared,
            &mut session,
            &mut series,
            std::mem::take(&mut pending),
            turn,
            step,
            cancel,
        )
        .await?;
        let mut content = completion.content;
        let taken: HashSet<String> = session
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::AssistantMessage(a) => Some(&a.message),
                _ => None,
            })
            .flat_map(|m| m.tool_calls().map(|(id, _, _)| id.to_string()))
            .collect();
        crate::llm::tool_ids::assign_unique_ids(&mut content, &taken, |_, i, _| {
            format!("call_{agent}_{step}_{i}")
        });
        let message = Message::new(Role::Assistant, content, Source::kind("model"));
        let calls: Vec<ToolCall> = message
            .tool_calls()
            .map(|(id, name, arguments)| ToolCall {
                id: id.to_string(),
                name: name.to_string(),
                arguments: arguments.to_string(),
            })
            .collect();
        let text = message.joined_text();
        session.push(EventKind::AssistantMessage(AssistantMessageData {
            turn,
            step,
            message,
            usage: completion.usage,
            timing: Some(timing),
            interrupted: None,
        }))?;
        if calls.is_empty() {
            session.push(EventKind::StepEnd(StepRef { turn, step }))?;
            return Ok(text);
        }
        run_calls(
            shared,
            &mut session,
            &agent,
            &args,
            turn,
            step,
            calls,
            cancel,
        )
        .await?;
        session.push(EventKind::StepEnd(StepRef { turn, step }))?;
        if cancel.is_cancelled() {
            return Err(Stop::Cancelled);
        }
    }
    Err(Stop::Failed(format!(
        "it took more than {} steps",
        super::MAX_SUBAGENT_STEPS
    )))
}

/// One step's attempts: E-16 through the one request path, the stream, retries as the
/// parent's.
async fn attempts(
    shared: &Shared<'_>,
    session: &mut Session,
    series: &mut RequestSeries,
    mut pending: Vec<Message>,
    turn: u64,
    step: u64,
    cancel: &CancellationToken,
) -> Result<(crate::llm::types::Completion, Timing), Stop> {
    let mut attempt: u32 = 0;
    loop {
        let input = AttemptInput {
            rendered: &shared.rendered,
            tools: shared.declared.clone(),
            deferred: shared.deferred.clone(),
            pending_user: std::mem::take(&mut pending),
            turn,
            step,
            explicit_series_start: false,
            effort: shared.effort,
        };
        let plan = plan_attempt(session, series, &shared.route, input, &mut |_| {})?;
        let started = Instant::now();
        let mut ttft: Option<u64> = None;
        let mut on_event = |ev: crate::llm::types::StreamEvent| {
            if matches!(ev, crate::llm::types::StreamEvent::FirstByte) {
                ttft.get_or_insert(started.elapsed().as_millis() as u64);
            }
        };
        let res = shared
            .client
            .stream(&plan.opts, &mut on_event, cancel)
            .await;
        let timing = Timing {
            ttft_ms: ttft,
            duration_ms: started.elapsed().as_millis() as u64,
            thinking_ms: None,
        };
        match res {
            Ok(c) => return Ok((c, timing)),
            Err(f) if f.error.code == ErrorCode::Cancelled || cancel.is_cancelled() => {
                return Err(Stop::Cancelled);
            }
            Err(f) => {
                let delay = shared.retry.delay(attempt + 1, &f.error);
                session.push(EventKind::AssistantAttempt(AssistantAttempt {
                    turn,
                    step,
                    error: AttemptError {
                        code: f.error.code.as_str().to_string(),
                        status: f.error.status,
                        message: f.error.message.clone(),
                        retried: delay.is_some(),
                        detail: None,
                    },
                }))?;
                let Some(delay) = delay else {
                    return Err(Stop::Failed(f.error.message));
                };
                attempt += 1;
                tokio::select! {
                    _ = tokio::time::sleep(delay) => {}
                    _ = cancel.cancelled() => return Err(Stop::Cancelled),
                }
            }
        }
    }
}

/// A subagent step's calls: refused within its mode (read-only; `task` always), decided
/// by the parent's approvals (`inherit`), run, and answered in call order.
#[allow(clippy::too_many_arguments)]
async fn run_calls(
    shared: &Shared<'_>,
    session: &mut Session,
    agent: &str,
    args: &TaskArgs,
    turn: u64,
    step: u64,
    calls: Vec<ToolCall>,
    cancel: &CancellationToken,
) -> Result<(), Stop> {
    let calls = crate::agent::turn::unwrap_bridged(calls);
    for c in &calls {
        session.push(EventKind::ToolCall(ToolCallData {
            turn,
            step,
            call_id: c.id.clone(),
            name: c.name.clone(),
            arguments: c.arguments.clone(),
            bridged: None,
        }))?;
    }
    let mut decided = Vec::with_capacity(calls.len());
    for c in &calls {
        let d = if c.name == super::TASK {
            Some(super::NESTED_REFUSAL.to_string())
        } else if cancel.is_cancelled() {
            Some("cancelled by the user".to_string())
        } else {
            match args.mode {
                SubagentMode::ReadOnly if super::READ_ONLY_TOOLS.contains(&c.name.as_str()) => None,
                SubagentMode::ReadOnly => Some(super::read_only_refusal(agent, &c.name)),
                SubagentMode::Inherit => {
                    let (answer, rx) = oneshot::channel();
                    let asked = shared.tx.send(ToParent::Ask {
                        agent: agent.to_string(),
                        description: args.description.clone(),
                        call: c.clone(),
                        answer,
                    });
                    match (asked, rx.await) {
                        (Ok(()), Ok(d)) => d,
                        _ => Some("cancelled by the user".to_string()),
                    }
                }
            }
        };
        decided.push(d);
    }
    let results = shared.tools.execute(&calls, decided, cancel).await;
    for (call, r) in calls.iter().zip(results) {
        let mut message = Message::text(Role::Tool, r.content.clone(), Source::kind("tool"));
        message.tool_call_id = Some(call.id.clone());
        if r.is_error {
            message.is_error = Some(true);
        }
        session.push(EventKind::ToolResult(ToolResultData {
            turn,
            step,
            message,
            error: r.is_error.then_some(r.content),
            sandbox_retry: None,
        }))?;
    }
    Ok(())
}
