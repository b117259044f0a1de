//! The loop's side of the tool bridge (SPEC §15.1, decision 0120): a `call_tool` call is
//! run as the call it names, and a retained tool's error names the turn that removed it.

use super::TurnRunner;
use crate::agent::tool_runner::ToolCall;
use crate::llm::types::Route;
use crate::session::Session;
use crate::session::event::{Block, EventKind};
use crate::tools::bridge::{CALL_TOOL, unwrap_call};

/// `calls` with every `call_tool` call that names a tool replaced by that tool's call
/// (same id, so its result answers the model's `call_tool` call). One whose arguments
/// name no tool stays as it is and gets its error from the registry.
pub(crate) fn unwrap_bridged(calls: Vec<ToolCall>) -> Vec<ToolCall> {
    calls
        .into_iter()
        .map(|c| {
            if c.name != CALL_TOOL {
                return c;
            }
            match unwrap_call(&c.arguments) {
                Ok((name, arguments)) => ToolCall {
                    id: c.id,
                    name,
                    arguments,
                },
                Err(_) => c,
            }
        })
        .collect()
}

/// Each of `names` with the turn of the latest developer message that removed it, read
/// from the log (newest first, stopping once every name is placed).
pub(super) fn removal_turns(session: &Session, names: Vec<String>) -> Vec<(String, Option<u64>)> {
    let mut out: Vec<(String, Option<u64>)> = names.into_iter().map(|n| (n, None)).collect();
    let mut left = out.len();
    for e in session.events().iter().rev() {
        if left == 0 {
            break;
        }
        if let EventKind::DeveloperMessage(d) = &e.kind {
            for b in &d.message.content {
                if let Block::ToolRemoval { tool_name } = b
                    && let Some(slot) = out.iter_mut().find(|(n, t)| n == tool_name && t.is_none())
                {
                    slot.1 = Some(d.turn);
                    left -= 1;
                }
            }
        }
    }
    out
}

impl TurnRunner<'_> {
    /// The route requests go to, with the capabilities a provider's refusal left it this
    /// session (SPEC §15.1, decision 0121).
    pub(super) fn effective_route(&self) -> Route {
        let mut route = self.services.route.clone();
        if let Some((id, narrowed)) = &self.state.downgrade
            && *id == route.id()
        {
            route.caps = narrowed.apply(&route.caps);
        }
        route
    }
}
