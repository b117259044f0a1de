//! Compaction (SPEC §5, reference R-4, E-6): one summarizer request replays the shadowed
//! region with the current tools and the fold snapshot, then a checkpoint `user/message`
//! replaces the region. The replacement bumps the surface generation, so the next loop
//! request starts a new series (L-1b) and the tool history restarts (F-3). A failed
//! summary leaves the history untouched.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::{AgentError, TurnRunner};
use crate::agent::protocol::{AgentEvent, Notice, NoticeLevel, TurnPhase};
use crate::i18n::Arg;
use crate::llm::types::{Completion, ErrorCode, GenerateOptions, LlmError, StreamEvent};
use crate::session::event::{
    CompactionEnd, CompactionOutcome, CompactionStart, CompactionSummary, CompactionTrigger, Event,
    EventKind, Message, Role, Source, UserMessageData,
};

pub use crate::agent::request::{COMPACTION_INSTRUCTION, compaction_messages};

/// Prefix of the checkpoint message that replaces the summarized region.
pub const CHECKPOINT_PREFIX: &str = "Summary of the earlier conversation (compacted):\n\n";

/// Share of the context window above which the loop compacts automatically.
pub const AUTO_COMPACT_RATIO: f64 = 0.8;

impl TurnRunner<'_> {
    /// The surface node range `(start_seq, end_seq)` compaction would shadow, or `None`
    /// when there is too little to summarize. Node 0 (the system prompt) is kept; with
    /// `keep_latest_turn`, the latest user message and everything after it stay verbatim.
    pub(crate) fn compaction_region(&self, keep_latest_turn: bool) -> Option<(u64, u64)> {
        let nodes = self.state.session.surface().nodes();
        let start = usize::from(
            nodes
                .first()
                .is_some_and(|n| n.event_type == "system/message"),
        );
        let end_excl = if keep_latest_turn {
            nodes
                .iter()
                .rposition(|n| n.event_type == "user/message" && n.message.source.kind == "user")
                .unwrap_or(nodes.len())
        } else {
            nodes.len()
        };
        if end_excl <= start {
            return None;
        }
        let region = &nodes[start..end_excl];
        let messages = region.iter().filter(|n| n.derives_message()).count();
        if messages < 2 {
            return None;
        }
        Some((region[0].seq, region[region.len() - 1].seq))
    }

    /// Whether the last request used more than [`AUTO_COMPACT_RATIO`] of the context window.
    /// A completed compaction since that request means its usage no longer describes the
    /// history (so a failed step after a compaction cannot trigger another one at once).
    pub(crate) fn needs_auto_compaction(&self) -> bool {
        let last = self
            .state
            .session
            .events()
            .iter()
            .rev()
            .find_map(|e| match &e.kind {
                EventKind::AssistantMessage(m) => Some(m.usage),
                EventKind::CompactionEnd(c) if c.outcome == CompactionOutcome::Completed => {
                    Some(None)
                }
                _ => None,
            });
        let Some(Some(u)) = last else { return false };
        let used = u.total_input().saturating_add(u.output_tokens);
        used as f64 > AUTO_COMPACT_RATIO * self.services.route.caps.context_window as f64
    }

    /// Summarizes and replaces the region. `Ok(true)` when the history was compacted,
    /// `Ok(false)` when there was nothing to do or the summary failed (history untouched).
    pub(crate) async fn compact(
        &mut self,
        trigger: CompactionTrigger,
        keep_latest_turn: bool,
        cancel: &CancellationToken,
    ) -> Result<bool, AgentError> {
        let Some((start_seq, end_seq)) = self.compaction_region(keep_latest_turn) else {
            if trigger != CompactionTrigger::Auto {
                self.events
                    .emit(Notice::new(NoticeLevel::Info, "compact-nothing", vec![]));
            }
            return Ok(false);
        };
        // Built before `compaction/start` is logged, so a failure here leaves no unmatched
        // start; the request depends only on the history, not on that event.
        let opts = self.compaction_request(start_seq, end_seq)?;
        self.events.emit(AgentEvent::Phase(TurnPhase::Compacting));
        self.push(EventKind::CompactionStart(CompactionStart {
            trigger,
            start_seq,
            end_seq,
        }))?;
        if let Err(e) = self.state.session.sync() {
            self.push(EventKind::CompactionEnd(CompactionEnd {
                outcome: CompactionOutcome::Failed,
                error: Some(e.to_string()),
            }))?;
            return Err(e.into());
        }
        let result = self.summarize(&opts, cancel).await;
        let outcome = match result {
            Ok(c) => {
                self.add_usage(c.usage.as_ref());
                let text = Message::new(Role::Assistant, c.content, Source::kind("model"))
                    .joined_text()
                    .trim()
                    .to_string();
                if text.is_empty() {
                    Err(LlmError::new(
                        ErrorCode::EmptyResponse,
                        "the summary was empty",
                    ))
                } else {
                    Ok((text, c.usage))
                }
            }
            Err(e) => Err(e),
        };
        match outcome {
            Ok((text, usage)) => {
                self.push(EventKind::CompactionSummary(CompactionSummary {
                    text: text.clone(),
                    usage,
                }))?;
                let checkpoint = Message::text(
                    Role::User,
                    format!("{CHECKPOINT_PREFIX}{text}"),
                    Source::kind("compaction"),
                );
                let ev = self.state.session.replace(
                    EventKind::UserMessage(UserMessageData {
                        message: checkpoint,
                    }),
                    start_seq,
                    end_seq,
                )?;
                self.events.emit(AgentEvent::Committed(ev));
                self.push(EventKind::CompactionEnd(CompactionEnd {
                    outcome: CompactionOutcome::Completed,
                    error: None,
                }))?;
                self.state.session.sync()?;
                self.events
                    .emit(Notice::new(NoticeLevel::Info, "compact-done", vec![]));
                Ok(true)
            }
            Err(e) => {
                self.push(EventKind::CompactionEnd(CompactionEnd {
                    outcome: CompactionOutcome::Failed,
                    error: Some(e.message.clone()),
                }))?;
                self.state.session.sync()?;
                if e.code == ErrorCode::Cancelled {
                    return Err(AgentError::Cancelled);
                }
                self.events.emit(Notice::new(
                    NoticeLevel::Warn,
                    "compact-failed",
                    vec![("message", Arg::from(e.message.as_str()))],
                ));
                Ok(false)
            }
        }
    }

    /// `[system head?, shadowed region…, instruction]` with the latest header's tools
    /// and the session fold, built from the log like every request (logs `request/context`
    /// first when the route changed since the last request).
    fn compaction_request(
        &mut self,
        start_seq: u64,
        end_seq: u64,
    ) -> Result<GenerateOptions, AgentError> {
        let events = self.events.clone();
        let mut on_commit = |ev: Arc<Event>| {
            events.emit(AgentEvent::Committed(ev));
        };
        // The route as a provider's refusal left it (SPEC §15.1), like a step's.
        let route = self.effective_route();
        let effort = self.effort();
        Ok(crate::agent::request::compaction_request(
            &mut self.state.session,
            &route,
            effort,
            start_seq,
            end_seq,
            &mut on_commit,
        )?)
    }

    async fn summarize(
        &mut self,
        opts: &GenerateOptions,
        cancel: &CancellationToken,
    ) -> Result<Completion, LlmError> {
        let cancelled = || LlmError::new(ErrorCode::Cancelled, "cancelled");
        let mut attempt = 0;
        loop {
            let mut ignore = |_ev: StreamEvent| {};
            let client = &self.services.client;
            let res = self
                .inbox
                .during(client.stream(opts, &mut ignore, cancel))
                .await;
            match res {
                Ok(c) => return Ok(c),
                Err(f) => {
                    if cancel.is_cancelled() {
                        return Err(cancelled());
                    }
                    // The same retry helper as a step's attempts.
                    let Some(delay) = self.retry_delay(attempt, &f.error) else {
                        return Err(f.error);
                    };
                    attempt += 1;
                    if self
                        .retry_wait(&f.error, attempt, delay, cancel)
                        .await
                        .is_err()
                    {
                        return Err(cancelled());
                    }
                }
            }
        }
    }
}
