//! The loop's side of the tool bridge (SPEC §15.1, decisions 0120 and 0140): a `call_tool`
//! call is run as the call it names, a retained tool's error names the turn that removed
//! it, and on a route with `tool_update` the deferred tools a `tool_search` found are
//! declared by the next request, so the model calls them natively.

use std::collections::BTreeSet;

use super::TurnRunner;
use crate::agent::tool_runner::{CallResult, ToolCall};
use crate::llm::bridge_catalogue::announced;
use crate::llm::types::Route;
use crate::session::Session;
use crate::session::event::{Block, EventKind};
use crate::tools::bridge::{CALL_TOOL, TOOL_SEARCH, found, is_bridge_tool, unwrap_call};
use crate::tools::registry::ToolPlan;

/// What a `tool_search` result adds when the tools it found are declared from the next
/// request: the model should call them directly, not through `call_tool`.
pub const LOADED_NOTE: &str =
    "These tools are declared from your next request on: call them directly.";

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
    /// What the next request declares and announces: the registry's plan after the
    /// latest logged header (SPEC §15.1).
    pub(super) fn tool_plan(&self) -> ToolPlan {
        self.tools
            .registry()
            .plan_after(self.state.session.latest_header().map(|(_, h)| &h.header))
    }

    /// The tools the model can reach now, declared or announced (the bridge's own two
    /// left out): what a `tools/changed` event compares.
    pub(super) fn reachable_now(&self) -> BTreeSet<String> {
        let plan = self.tool_plan();
        plan.declared
            .into_iter()
            .chain(plan.deferred)
            .map(|t| t.name)
            .filter(|n| !is_bridge_tool(n))
            .collect()
    }

    /// What the log says the model could reach: the names the tool-change fold makes
    /// available and the latest catalogue note's; `None` before the first request.
    pub(super) fn reachable_logged(&mut self) -> Option<BTreeSet<String>> {
        let available = self.state.session.available_tool_names().ok()??;
        let messages = self.state.session.derive_messages();
        let announced = announced(&messages, messages.developer_positions()).unwrap_or_default();
        Some(
            available
                .into_iter()
                .chain(announced)
                .filter(|n| !is_bridge_tool(n))
                .collect(),
        )
    }

    /// On a route with `tool_update`, the deferred tools each successful `tool_search`
    /// call found are loaded (declared by a `tool_addition` in the next request) and its
    /// result says so; elsewhere they stay reachable through `call_tool`.
    pub(super) fn load_found(&mut self, calls: &[ToolCall], results: &mut [CallResult]) {
        if self.effective_route().caps.tool_update.is_none() {
            return;
        }
        let deferred: Vec<String> = self
            .tool_plan()
            .deferred
            .into_iter()
            .map(|t| t.name)
            .collect();
        if deferred.is_empty() {
            return;
        }
        let enabled = self.tools.registry().enabled_tools();
        for (call, result) in calls.iter().zip(results.iter_mut()) {
            if call.name != TOOL_SEARCH || result.is_error {
                continue;
            }
            let names: Vec<String> = found(&enabled, &call.arguments)
                .into_iter()
                .filter(|n| deferred.contains(n))
                .collect();
            if !names.is_empty() && self.tools.registry_mut().load(names) {
                result.content.push_str("\n\n");
                result.content.push_str(LOADED_NOTE);
            }
        }
    }

    /// The route requests go to, with the capabilities a provider's refusal left it this
    /// session (SPEC §15.1).
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
