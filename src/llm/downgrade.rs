//! The live fallback (SPEC §15.1, decision 0121): a provider that answers HTTP 400 naming
//! a tool-change block (`tool_addition`, `tool_removal`, `defer_loading`) or the
//! role-`system` blocks loses that capability for the rest of the session, as narrowly as
//! the refusal: a route refusing only removals keeps `tool_addition` and is told of
//! removals in text; any other refusal sends every change through the tool bridge. The
//! narrowed capabilities reach the log in the next `request/context`, so a rebuilt request
//! still equals the sent one; the `route/downgrade` event keeps the provider's words.

use crate::llm::types::{ErrorCode, LlmError};
pub use crate::session::event::downgrade::{Narrowed, RouteDowngrade};
use crate::session::event::{Capabilities, ToolRemoval, ToolUpdateMode};

/// The blocks a provider's message names.
fn named_blocks(message: &str) -> Vec<String> {
    let m = message.to_ascii_lowercase();
    let mut out: Vec<String> = ["tool_addition", "tool_removal", "defer_loading"]
        .into_iter()
        .filter(|b| m.contains(b) || m.contains(&b.replace('_', "-")))
        .map(str::to_string)
        .collect();
    if m.contains("role 'system'")
        || m.contains("role \"system\"")
        || m.contains("role: system")
        || m.contains("system role")
        || m.contains("role `system`")
    {
        out.push("system".to_string());
    }
    out
}

/// What a failed request's error leaves the route with `caps`, when it is a refusal of a
/// capability the route still uses; `None` for every other error (which is not retried
/// this way).
pub fn narrowing(caps: &Capabilities, e: &LlmError) -> Option<(Narrowed, Vec<String>)> {
    if e.status != Some(400) || !matches!(e.code, ErrorCode::InvalidRequest) {
        return None;
    }
    let blocks = named_blocks(&e.message);
    if blocks.is_empty() {
        return None;
    }
    let only_removal = blocks.iter().all(|b| b == "tool_removal");
    let tool_update = match caps.tool_update {
        Some(ToolUpdateMode::InHistory) if only_removal => Some(ToolUpdateMode::AdditionOnly),
        _ => None,
    };
    let system_prompt_update = if blocks.iter().any(|b| b == "system") {
        None
    } else {
        caps.system_prompt_update
    };
    let to = Narrowed {
        tool_update,
        system_prompt_update,
    };
    let same = caps.tool_update == to.tool_update
        && caps.system_prompt_update == to.system_prompt_update
        && caps.tool_removal == ToolRemoval::Retain;
    (!same).then_some((to, blocks))
}

#[cfg(test)]
#[path = "downgrade_tests.rs"]
mod tests;
