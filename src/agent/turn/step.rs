//! A turn's steps: steering between them, each step's attempts with the retry helper
//! shared with compaction, and the commit of the reply.

use std::sync::Arc;
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use super::{AgentError, MAX_STEPS_PER_TURN, TurnRunner};
use crate::agent::protocol::{AgentEvent, Notice, NoticeLevel, TurnPhase};
use crate::agent::request::{AttemptInput, plan_attempt};
use crate::agent::tool_runner::ToolCall;
use crate::i18n::Arg;
use crate::llm::types::{
    Completion, ErrorCode, GenerateOptions, LlmError, StopReason, StreamEvent,
};
use crate::session::event::{
    AssistantAttempt, AssistantMessageData, AttemptError, Block, Event, EventKind, Message, Role,
    Source, StepRef, Timing, TurnRef, Usage,
};

impl TurnRunner<'_> {
    pub(super) async fn turn_body(
        &mut self,
        turn: u64,
        cancel: &CancellationToken,
        final_text: &mut String,
        started: &mut bool,
    ) -> Result<(), AgentError> {
        self.push(EventKind::TurnStart(TurnRef { turn }))?;
        *started = true;
        let mut step = 0;
        loop {
            step += 1;
            if step > MAX_STEPS_PER_TURN {
                return Err(AgentError::TooManySteps);
            }
            if step > 1 {
                self.take_steering(cancel).await;
            }
            if self.needs_auto_compaction() {
                // At step 1 the turn's input is not logged yet: summarize everything before
                // it. Later, keep the running turn (from its latest user message) verbatim.
                self.compact(
                    crate::session::event::CompactionTrigger::Auto,
                    step > 1,
                    cancel,
                )
                .await?;
            }
            self.push(EventKind::StepStart(StepRef { turn, step }))?;
            let res = self.run_step(turn, step, cancel, final_text).await;
            self.push(EventKind::StepEnd(StepRef { turn, step }))?;
            match res {
                Ok(true) => continue,
                // The turn is answered: a message queued meanwhile is its own turn, with its
                // own number, run next from the queue (§14.5). Between the
                // steps of a tool loop it still steers (above).
                Ok(false) => return Ok(()),
                Err(e) => return Err(e),
            }
        }
    }

    /// Moves queued plain-text submissions into the next request (steering); a line a
    /// `user_prompt_submit` hook refuses is dropped with its notice (SPEC §14.4).
    pub(super) async fn take_steering(&mut self, cancel: &CancellationToken) -> bool {
        let lines = self.inbox.take_steering();
        let mut taken = false;
        for line in lines {
            if self.prompt_refused(&line, cancel).await {
                continue;
            }
            taken = true;
            let message = self.user_message(line, cancel).await;
            self.state.pending_user.push(message);
        }
        taken
    }

    /// E-16: reconcile the prompt, append the user batch, the header and developer message
    /// if owed, the request context if changed; fsync; build the request.
    pub(super) fn prepare_attempt(
        &mut self,
        turn: u64,
        step: u64,
    ) -> Result<GenerateOptions, AgentError> {
        self.drain_background()?;
        let rendered = self.render_prompt();
        let plan = self.tool_plan();
        let pending = std::mem::take(&mut self.state.pending_user);
        let events = self.events.clone();
        let mut on_commit = |ev: Arc<Event>| events.emit(AgentEvent::Committed(ev));
        let input = AttemptInput {
            rendered: &rendered,
            tools: plan.declared,
            deferred: plan.deferred,
            pending_user: pending,
            turn,
            step,
            explicit_series_start: false,
            effort: self.effort(),
        };
        let route = self.effective_route();
        let plan = plan_attempt(
            &mut self.state.session,
            &mut self.state.series,
            &route,
            input,
            &mut on_commit,
        )?;
        // The request logged the registry's set: later changes are reported against it,
        // and the logged header keeps the loaded tools declared.
        self.state.tools_shown = None;
        self.tools.registry_mut().clear_loaded();
        Ok(plan.opts)
    }

    /// One step: attempts with retries, then tools. `Ok(true)` = tools ran, continue.
    pub(super) async fn run_step(
        &mut self,
        turn: u64,
        step: u64,
        cancel: &CancellationToken,
        final_text: &mut String,
    ) -> Result<bool, AgentError> {
        let mut attempt: u32 = 0;
        let mut downgraded = false;
        let completion = loop {
            if cancel.is_cancelled() {
                return Err(AgentError::Cancelled);
            }
            let opts = self.prepare_attempt(turn, step)?;
            self.events.emit(AgentEvent::Phase(TurnPhase::Waiting));
            let started = Instant::now();
            let mut ttft: Option<u64> = None;
            // When reasoning started, and how long it lasted once the reply began.
            let mut thinking: (Option<Instant>, Option<u64>) = (None, None);
            let events = self.events.clone();
            let mut on_event = |ev: StreamEvent| {
                match &ev {
                    StreamEvent::FirstByte => {
                        ttft.get_or_insert(started.elapsed().as_millis() as u64);
                    }
                    StreamEvent::ReasoningDelta(_) => {
                        thinking.0.get_or_insert_with(Instant::now);
                        events.emit(AgentEvent::Phase(TurnPhase::Thinking));
                    }
                    StreamEvent::TextDelta(_) | StreamEvent::ToolCallStart { .. } => {
                        if let (Some(t), None) = thinking {
                            thinking.1 = Some(t.elapsed().as_millis() as u64);
                        }
                        events.emit(AgentEvent::Phase(TurnPhase::Responding));
                    }
                    _ => {}
                }
                events.emit(AgentEvent::Stream {
                    turn,
                    step,
                    event: ev,
                });
            };
            // The inbox keeps taking commands (Cancel, steering) while the reply streams.
            let client = &self.services.client;
            let res = self
                .inbox
                .during(client.stream(&opts, &mut on_event, cancel))
                .await;
            let timing = Timing {
                ttft_ms: ttft,
                duration_ms: started.elapsed().as_millis() as u64,
                thinking_ms: thinking
                    .1
                    .or_else(|| thinking.0.map(|t| t.elapsed().as_millis() as u64)),
            };
            match res {
                Ok(c) => break (c, timing),
                Err(f) if f.error.code == ErrorCode::Cancelled || cancel.is_cancelled() => {
                    if let Some(partial) = f.partial {
                        self.commit_interrupted(turn, step, partial, timing)?;
                    }
                    return Err(AgentError::Cancelled);
                }
                Err(f) if !downgraded && self.downgrade_after(turn, step, &f.error)? => {
                    // Sent again at once, through the narrowed route (SPEC §15.1).
                    downgraded = true;
                }
                Err(f) => {
                    let delay = self.retry_delay(attempt, &f.error);
                    self.push(EventKind::AssistantAttempt(AssistantAttempt {
                        turn,
                        step,
                        error: AttemptError {
                            code: f.error.code.as_str().to_string(),
                            status: f.error.status,
                            message: f.error.message.clone(),
                            retried: delay.is_some(),
                            detail: delay
                                .is_none()
                                .then(|| Box::new(self.llm_error_text(&f.error))),
                        },
                    }))?;
                    let Some(delay) = delay else {
                        return Err(AgentError::Llm(f.error));
                    };
                    attempt += 1;
                    self.retry_wait(&f.error, attempt, delay, cancel).await?;
                }
            }
        };
        let (c, timing) = completion;
        self.commit_completion(turn, step, c, timing, cancel, final_text)
            .await
    }

    /// A provider's 400 refusing a tool-change block (SPEC §15.1): logs the
    /// failed attempt and the `route/downgrade`, narrows the route for the session and
    /// says so. `false` (nothing written) for any other error.
    fn downgrade_after(&mut self, turn: u64, step: u64, e: &LlmError) -> Result<bool, AgentError> {
        let route = self.effective_route();
        let Some((to, blocks)) = crate::llm::downgrade::narrowing(&route.caps, e) else {
            return Ok(false);
        };
        self.push(EventKind::AssistantAttempt(AssistantAttempt {
            turn,
            step,
            error: AttemptError {
                code: e.code.as_str().to_string(),
                status: e.status,
                message: e.message.clone(),
                retried: true,
                detail: None,
            },
        }))?;
        self.push(EventKind::RouteDowngrade(
            crate::llm::downgrade::RouteDowngrade {
                turn,
                step,
                route: route.id(),
                blocks: blocks.clone(),
                to,
                message: e.message.clone(),
            },
        ))?;
        self.state.downgrade = Some((route.id(), to));
        self.events.emit(Notice::new(
            NoticeLevel::Info,
            "cache-first-downgrade",
            vec![
                ("route", Arg::from(route.id())),
                ("blocks", Arg::List(blocks)),
                ("message", Arg::from(e.message.clone())),
            ],
        ));
        Ok(true)
    }

    /// The retry helper shared by steps and compaction, first half: whether failed
    /// attempt number `attempt + 1` is retried, and after how long.
    pub(crate) fn retry_delay(&self, attempt: u32, e: &LlmError) -> Option<std::time::Duration> {
        self.services.retry.delay(attempt + 1, e)
    }

    /// The retry helper's second half: tells the user, then waits `delay` (commands keep
    /// arriving meanwhile; Cancel ends the wait).
    pub(crate) async fn retry_wait(
        &mut self,
        e: &LlmError,
        attempt: u32,
        delay: std::time::Duration,
        cancel: &CancellationToken,
    ) -> Result<(), AgentError> {
        self.retry_notice(e, attempt, delay);
        let wait = async {
            tokio::select! {
                _ = tokio::time::sleep(delay) => Ok(()),
                _ = cancel.cancelled() => Err(AgentError::Cancelled),
            }
        };
        self.inbox.during(wait).await
    }

    /// Tells the UI a failed attempt will be retried: a transient status, not a notice,
    /// so retries that end in success leave nothing behind (§14.5).
    pub(super) fn retry_notice(&self, e: &LlmError, attempt: u32, delay: std::time::Duration) {
        self.events
            .emit(AgentEvent::Retrying(crate::agent::protocol::RetryStatus {
                attempt,
                max: self.services.retry.max_retries,
                cause: crate::llm::cause::Cause::of(e),
                seconds: delay.as_secs_f64(),
            }));
    }

    /// Adds a request's usage to the session's; an unknown one adds nothing.
    pub(super) fn add_usage(&mut self, u: Option<&Usage>) {
        let Some(u) = u else { return };
        self.state.usage.add(u);
        self.events.emit(AgentEvent::SessionUsage(self.state.usage));
    }

    pub(super) fn commit_interrupted(
        &mut self,
        turn: u64,
        step: u64,
        partial: Completion,
        timing: Timing,
    ) -> Result<(), AgentError> {
        // Unanswered tool calls would break the pairing rule (W-8): keep only text and
        // reasoning of an interrupted message.
        let content: Vec<Block> = partial
            .content
            .into_iter()
            .filter(|b| !matches!(b, Block::ToolCall { .. }))
            .collect();
        if content.is_empty() {
            return Ok(());
        }
        // Counted only when logged, so a resumed session shows the same totals.
        self.add_usage(partial.usage.as_ref());
        self.push(EventKind::AssistantMessage(AssistantMessageData {
            turn,
            step,
            message: Message::new(Role::Assistant, content, Source::kind("model")),
            usage: partial.usage,
            timing: Some(timing),
            interrupted: Some(true),
        }))
    }

    pub(super) async fn commit_completion(
        &mut self,
        turn: u64,
        step: u64,
        c: Completion,
        timing: Timing,
        cancel: &CancellationToken,
        final_text: &mut String,
    ) -> Result<bool, AgentError> {
        self.add_usage(c.usage.as_ref());
        let mut content = c.content;
        let mut repairs = c.id_repairs;
        // Ids must also be unique across the conversation, or later requests break (D3).
        // Every earlier id counts (a replacement must not take one either). They are read
        // from the log's events by reference (deriving the messages would copy the whole
        // history), and not at all when the reply calls no tool.
        let taken: std::collections::HashSet<String> = {
            let calls_tools = content.iter().any(|b| matches!(b, Block::ToolCall { .. }));
            if !calls_tools {
                std::collections::HashSet::new()
            } else {
                self.state
                    .session
                    .events()
                    .iter()
                    .filter_map(|e| match &e.kind {
                        EventKind::AssistantMessage(a) => Some(&a.message),
                        _ => None,
                    })
                    .flat_map(|m| m.tool_calls().map(|(id, _, _)| id.to_string()))
                    .collect()
            }
        };
        repairs.extend(crate::llm::tool_ids::assign_unique_ids(
            &mut content,
            &taken,
            |_, i, _| format!("call_{turn}_{step}_{i}"),
        ));
        if !repairs.is_empty() {
            let renamed = crate::llm::tool_ids::ToolIdRepair::describe(&repairs);
            tracing::warn!(%renamed, "renamed tool-call ids before committing the reply");
            self.events.emit(Notice::new(
                NoticeLevel::Warn,
                "agent-tool-ids-repaired",
                vec![("renamed", Arg::from(renamed))],
            ));
        }
        let message = Message::new(Role::Assistant, content, Source::kind("model"));
        let calls: Vec<ToolCall> = message
            .tool_calls()
            .map(|(id, name, arguments)| ToolCall {
                id: id.to_string(),
                name: name.to_string(),
                arguments: arguments.to_string(),
            })
            .collect();
        let has_text = message
            .content
            .iter()
            .any(|b| matches!(b, Block::Text { text } if !text.is_empty()));
        self.push(EventKind::AssistantMessage(AssistantMessageData {
            turn,
            step,
            message,
            // An impossible usage stays out of the log, as unknown.
            usage: c.usage,
            timing: Some(timing),
            interrupted: None,
        }))?;
        // The answer is copied only after the log line is written, so a large reply is
        // held at most twice at once.
        if has_text
            && let Some(EventKind::AssistantMessage(a)) =
                self.state.session.events().last().map(|e| &e.kind)
        {
            *final_text = a.message.joined_text();
        }
        if calls.is_empty() {
            if c.stop_reason == StopReason::MaxTokens {
                self.events
                    .emit(Notice::new(NoticeLevel::Warn, "agent-max-tokens", vec![]));
            }
            return Ok(false);
        }
        self.run_tools(
            turn,
            step,
            calls,
            c.stop_reason == StopReason::MaxTokens,
            cancel,
        )
        .await?;
        if cancel.is_cancelled() {
            return Err(AgentError::Cancelled);
        }
        Ok(true)
    }
}
