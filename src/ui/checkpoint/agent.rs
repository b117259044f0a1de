//! What the checkpoint overlays ask of the agent, in one place: the list of earlier
//! prompts (Esc Esc) and the rewind the picker chose. Both are ordinary command lines
//! today, run as `exec` runs them.

use crate::agent::protocol::AgentCommand;
use crate::session::checkpoint_event::RewindScope;

/// Asks for the earlier prompts: the agent answers with
/// [`crate::agent::protocol::AgentEvent::RewindChoices`], which opens the picker.
pub fn list_prompts() -> AgentCommand {
    AgentCommand::Submit("/rewind".into())
}

/// The rewind the picker chose: back to before prompt `n`, taking back `scope`.
pub fn rewind_to(n: usize, scope: RewindScope) -> AgentCommand {
    AgentCommand::Submit(format!("/rewind {n} {}", scope.as_str()))
}
