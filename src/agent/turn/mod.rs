//! The turn runner (decision 0106): a turn's steps, each step's attempts in E-16 order with
//! one retry helper shared by steps and compaction, the reply's commit and the tool calls it
//! makes. [`TurnRunner`] is its own type: the agent lends it the session state, the inbox,
//! the tool runner, the event emitter and the services a turn calls (the provider route and
//! client, hooks, checkpoints, the background changes, the instructions); it reaches
//! nothing else. Commands that do a turn's work (`/compact`, a custom command's prompt) get
//! one from [`crate::agent::run::Agent`] the same way.

use crate::agent::emitter::Emitter;
use crate::agent::inbox::Inbox;
use crate::agent::protocol::{AgentEvent, Notice, NoticeLevel, TurnPhase};
use crate::agent::state::SessionState;
use crate::agent::tool_runner::{ApprovalMode, ToolRunner};
use crate::i18n::{Arg, Localizer};
use crate::llm::types::{ErrorCode, LlmError};
use crate::session::SessionError;
use crate::session::effort::Effort;
use crate::session::event::{EventKind, TurnEnd, TurnOutcome, UserMessageData};

mod background;
mod bridged;
mod changes;
mod compaction;
mod services;
mod step;
mod task;
#[cfg(test)]
mod tests;
mod tools;

pub(crate) use bridged::unwrap_bridged;
pub use changes::BackgroundChanges;
pub use compaction::{
    AUTO_COMPACT_RATIO, CHECKPOINT_PREFIX, COMPACTION_INSTRUCTION, compaction_messages,
};
pub use services::TurnServices;

/// Most steps one turn may take before the loop stops it.
pub const MAX_STEPS_PER_TURN: u64 = 64;

/// Errors that stop a turn.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The session log refused an event or could not be written.
    #[error("{0}")]
    Session(#[from] SessionError),
    /// The provider failed (after retries).
    #[error("{0}")]
    Llm(LlmError),
    /// The user cancelled.
    #[error("cancelled")]
    Cancelled,
    /// The turn took more than [`MAX_STEPS_PER_TURN`] steps.
    #[error("more than {MAX_STEPS_PER_TURN} steps in one turn")]
    TooManySteps,
}

impl AgentError {
    /// The error as a message in the interface language.
    pub fn text(&self) -> crate::i18n::Text {
        use crate::i18n::Text;
        match self {
            AgentError::Session(e) => e.text(),
            AgentError::Llm(e) => Text::new(
                e.code.message_id(),
                vec![("message", Arg::from(e.message.clone()))],
            ),
            AgentError::Cancelled => Text::new("llm-error-cancelled", vec![]),
            AgentError::TooManySteps => Text::new(
                "agent-too-many-steps",
                vec![("count", Arg::from(MAX_STEPS_PER_TURN))],
            ),
        }
    }
}

/// What handling one composer line produced (for `exec`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineOutcome {
    /// Final assistant text when a turn ran.
    pub text: Option<String>,
    /// One-line localized error when the turn or command failed.
    pub error: Option<String>,
    /// `/quit` was given.
    pub quit: bool,
}

/// One turn's worth of the agent, borrowed: what a turn reads and writes, passed in by the
/// agent ([`crate::agent::run::Agent::runner`]) rather than reached through accessors.
pub struct TurnRunner<'a> {
    /// The open session: its log, series, counters and unsent input.
    pub(crate) state: &'a mut SessionState,
    /// The command channel the running turn keeps reading (Cancel, approvals, steering).
    pub(crate) inbox: &'a mut Inbox,
    /// Approvals, the registry and execution of tool calls.
    pub(crate) tools: &'a mut ToolRunner,
    /// The one way to tell the UI (or `exec`) something.
    pub(crate) events: &'a Emitter,
    /// What a turn calls: route, client, retry policy, environment, hooks, checkpoints,
    /// sandbox.
    pub(crate) services: &'a mut TurnServices,
    /// Tool-source and MCP changes waiting to be applied at an attempt boundary.
    pub(crate) background: &'a mut BackgroundChanges,
    /// The interface language of the loop's own lines.
    pub(crate) l: Localizer,
}

impl TurnRunner<'_> {
    /// Appends `kind` to the log and tells the UI.
    pub(crate) fn push(&mut self, kind: EventKind) -> Result<(), AgentError> {
        let ev = self.state.session.push(kind)?;
        self.events.emit(AgentEvent::Committed(ev));
        Ok(())
    }

    /// Whether a person answers (the TUI) rather than a script (`exec`).
    pub(crate) fn is_interactive(&self) -> bool {
        self.tools.mode() == ApprovalMode::Interactive
    }

    /// The effort of the next request (SPEC §14.4).
    pub(crate) fn effort(&self) -> Option<Effort> {
        self.services.effort(self.state.effort)
    }

    /// The rendered system prompt (base and `/system` text) and the instruction files'
    /// warnings, once per change.
    pub(crate) fn render_prompt(&self) -> String {
        let p = crate::agent::environment::render_prompt(
            &*self.services.env,
            self.state.extra_instructions.as_deref(),
        );
        crate::agent::environment::report_prompt_notices(&*self.services.env, self.events);
        p
    }

    /// Sends `text` as the next prompt, unless a `user_prompt_submit` hook refuses it (its
    /// notice says why; nothing is sent or logged as a message).
    pub(crate) async fn send_prompt(&mut self, text: String) -> LineOutcome {
        let cancel = self.inbox.new_cancel();
        if self.prompt_refused(&text, &cancel).await {
            return LineOutcome::default();
        }
        self.run_turn(text).await
    }

    /// The user message for `text`: `@path` mentions attach files, `@NAME:URI` an MCP
    /// server's resource (SPEC §15.2); a resource that could not be read is also told.
    /// While servers are read the UI is busy and Cancel (Esc) stops the reads: the turn's
    /// first step then sees `cancel` and ends the turn as cancelled, keeping the message.
    pub(crate) async fn user_message(
        &mut self,
        text: String,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> crate::session::event::Message {
        let mut m = crate::agent::mentions::user_message(
            &crate::tools::walk::current_root(),
            text,
            crate::agent::mentions::MAX_MENTION_BYTES,
        );
        if let Some(mcp) = self.background.mcp.clone() {
            let secrets = self.tools.secrets().clone();
            let redact = move |s: &str| secrets.redact(s).into_owned();
            if crate::agent::resource_mentions::mentions_any(&mcp, &m) {
                self.events.emit(AgentEvent::Phase(TurnPhase::AskingServer));
            }
            // Boxed: the reads and the inbox's select are large futures, and held inline
            // they would make every turn's future (and the stack of whoever polls it in a
            // debug build) larger for a wait that most messages never have.
            let failures = Box::pin(self.inbox.during(crate::agent::resource_mentions::attach(
                &mcp, &mut m, &redact, cancel,
            )))
            .await;
            for e in failures {
                self.events.emit(AgentEvent::Notice(Notice {
                    level: NoticeLevel::Warn,
                    key: e.key,
                    args: e.args,
                }));
            }
        }
        m
    }

    pub(crate) async fn run_turn(&mut self, text: String) -> LineOutcome {
        if let Err(e) = self.repair_unanswered_calls() {
            let line = self.session_error_line(e.text());
            return LineOutcome {
                text: None,
                error: Some(line),
                quit: false,
            };
        }
        // A resumed session's first turn waits (bounded) for the MCP servers it had
        // connected, so its first request declares the same tools.
        if let Some(mcp) = self.background.mcp.clone() {
            mcp.wait_restored(std::time::Duration::from_secs(15)).await;
        }
        self.state.turn += 1;
        let turn = self.state.turn;
        let cancel = self.inbox.new_cancel();
        // `@path` mentions attach the files' content, `@NAME:URI` a server's resource.
        let message = self.user_message(text, &cancel).await;
        self.state.pending_user.push(message);
        let mut final_text = String::new();
        let mut started = false;
        // Boxed: the steps, their streams and tool runs make the largest future in the
        // agent; on the heap it no longer weighs on every caller's future and stack (a
        // debug build's test thread has 2 MiB).
        let result = Box::pin(self.turn_body(turn, &cancel, &mut final_text, &mut started)).await;
        let (outcome, mut error) = match &result {
            Ok(()) => (TurnOutcome::Completed, None),
            Err(AgentError::Cancelled) => {
                // Once the turn has started, its logged `turn/end` is the fact the TUI's
                // Chat folds into "Turn cancelled.", live and on resume alike; `exec` has
                // no fold and prints the notice.
                if !started || !self.is_interactive() {
                    self.events.emit(Notice::new(
                        NoticeLevel::Warn,
                        "agent-turn-cancelled",
                        vec![],
                    ));
                }
                (TurnOutcome::Cancelled, None)
            }
            Err(AgentError::Llm(e)) => {
                let line = self.llm_error_line(e, started);
                (TurnOutcome::Error, Some(line))
            }
            Err(AgentError::TooManySteps) => {
                let args = vec![("count", Arg::from(MAX_STEPS_PER_TURN))];
                let line = self.l.tra("agent-too-many-steps", &args);
                self.events.emit(Notice::new(
                    NoticeLevel::Error,
                    "agent-too-many-steps",
                    args,
                ));
                (TurnOutcome::Error, Some(line))
            }
            Err(AgentError::Session(e)) => {
                (TurnOutcome::Error, Some(self.session_error_line(e.text())))
            }
        };
        if started {
            // Input that never reached a request (cancelled or failed before it) is still
            // the user's: keep it in the log rather than dropping it.
            for m in std::mem::take(&mut self.state.pending_user) {
                if let Err(e) = self.push(EventKind::UserMessage(UserMessageData { message: m })) {
                    error.get_or_insert_with(|| self.session_error_line(e.text()));
                }
            }
            // The state a checkpointed turn left, before its end (SPEC §14.3).
            self.settle_checkpoint(turn);
            if let Err(e) = self.push(EventKind::TurnEnd(TurnEnd {
                turn,
                outcome: Some(outcome),
            })) {
                error.get_or_insert_with(|| self.session_error_line(e.text()));
            }
            // `stop` hooks (SPEC §14.4), not after a turn the user cancelled.
            if outcome != TurnOutcome::Cancelled {
                self.stop_hooks(turn).await;
            }
        }
        self.state.pending_user.clear();
        if let Err(e) = self.state.session.sync() {
            error.get_or_insert_with(|| self.session_error_line(e.text()));
        }
        self.events.emit(AgentEvent::Phase(TurnPhase::Idle));
        self.events.emit(AgentEvent::TurnFinished);
        LineOutcome {
            text: Some(final_text),
            error,
            quit: false,
        }
    }

    /// Notifies and returns the localized line for a session log failure.
    pub(crate) fn session_error_line(&self, e: crate::i18n::Text) -> String {
        let args = vec![("error", Arg::from(e))];
        let line = self.l.tra("agent-session-error", &args);
        self.events
            .emit(Notice::new(NoticeLevel::Error, "agent-session-error", args));
        line
    }

    /// A failed turn's error as a message: a transport failure says its cause in plain
    /// words, with a hint where one fits, not the transport's whole error chain (the log
    /// keeps that, per attempt; §14.5).
    pub(crate) fn llm_error_text(&self, e: &LlmError) -> crate::i18n::Text {
        use crate::i18n::Text;
        use crate::llm::cause::{Cause, origin};
        let cause = Cause::of(e);
        let message = if e.code == ErrorCode::Transport && cause != Cause::Other {
            let said = Text::new(cause.key(), vec![]);
            match cause.hint_key() {
                Some(hint) => {
                    let origin = origin(&self.services.route.base_url);
                    let hint = Text::new(hint, vec![("origin", Arg::from(origin))]);
                    Arg::from(Text::new(
                        "llm-cause-with-hint",
                        vec![("cause", Arg::from(said)), ("hint", Arg::from(hint))],
                    ))
                }
                None => Arg::from(said),
            }
        } else {
            Arg::from(e.message.clone())
        };
        Text::new(e.code.message_id(), vec![("message", message)])
    }

    /// The localized line of a failed turn. Once the turn has started, the TUI's Chat
    /// folds the logged final attempt into its one line, live and on resume alike;
    /// `exec` has no fold and prints the notice.
    pub(crate) fn llm_error_line(&self, e: &LlmError, started: bool) -> String {
        let t = self.llm_error_text(e);
        if !started || !self.is_interactive() {
            self.events.emit(Notice {
                level: NoticeLevel::Error,
                key: t.key.clone(),
                args: t.args.clone(),
            });
        }
        self.l.text(&t)
    }
}
