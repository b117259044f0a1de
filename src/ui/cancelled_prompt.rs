//! Which prompt a cancelled turn gives back (§14.5): the live turn's user messages, and
//! whether the model answered anything (reasoning, text or a tool call, streamed or
//! committed). A turn cancelled before any answer returns its prompt to the composer.
//! (Decision note: docs/decisions/0036-readline-composer.md.)

use crate::llm::types::StreamEvent;
use crate::session::event::{Event, EventKind, SurfaceOp, TurnOutcome};

/// Follows the running turn.
#[derive(Debug, Default)]
pub struct PromptWatch {
    turn: Option<Turn>,
}

#[derive(Debug, Default)]
struct Turn {
    prompts: Vec<String>,
    answered: bool,
}

impl PromptWatch {
    /// A live committed event. Returns the prompt to put back when `e` ends a turn that
    /// was cancelled before any answer (its messages joined by a blank line, when
    /// steering added more).
    pub fn committed(&mut self, e: &Event) -> Option<String> {
        match &e.kind {
            EventKind::TurnStart(_) => self.turn = Some(Turn::default()),
            EventKind::UserMessage(d)
                if d.message.source.kind == "user"
                    && !matches!(e.surface_op, Some(SurfaceOp::Replace(_))) =>
            {
                if let Some(t) = &mut self.turn {
                    t.prompts.push(crate::agent::mentions::split(&d.message).0);
                }
            }
            EventKind::AssistantMessage(_) => self.answered(),
            EventKind::TurnEnd(end) => {
                let t = self.turn.take()?;
                let cancelled = end.outcome == Some(TurnOutcome::Cancelled);
                return (cancelled && !t.answered && !t.prompts.is_empty())
                    .then(|| t.prompts.join("\n\n"));
            }
            _ => {}
        }
        None
    }

    /// A streamed event: anything the user can read counts as an answer.
    pub fn streamed(&mut self, ev: &StreamEvent) {
        if matches!(
            ev,
            StreamEvent::ReasoningDelta(_)
                | StreamEvent::TextDelta(_)
                | StreamEvent::ToolCallStart { .. }
        ) {
            self.answered();
        }
    }

    fn answered(&mut self) {
        if let Some(t) = &mut self.turn {
            t.answered = true;
        }
    }
}
