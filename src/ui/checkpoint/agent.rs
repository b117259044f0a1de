//! What the checkpoint overlays ask of the agent, in one place: the list of earlier
//! prompts (Esc Esc) and the rewind the picker chose, as typed commands (no command line
//! for the agent to parse again).

use crate::agent::command_spec::Command;
use crate::agent::protocol::AgentCommand;
use crate::session::checkpoint_event::RewindScope;

/// Asks for the earlier prompts: the agent answers with
/// [`crate::agent::protocol::AgentEvent::RewindChoices`], which opens the picker.
pub fn list_prompts() -> AgentCommand {
    AgentCommand::Run(Command::Rewind {
        to: None,
        scope: RewindScope::Both,
        force: false,
    })
}

/// The rewind the picker chose: back to before prompt `n`, taking back `scope`.
pub fn rewind_to(n: usize, scope: RewindScope) -> AgentCommand {
    AgentCommand::Run(Command::Rewind {
        to: Some(n),
        scope,
        force: false,
    })
}
