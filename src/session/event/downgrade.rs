//! `route/downgrade` (SPEC §15.1, decision 0121; additive: older readers skip it): the
//! provider refused a tool-change block, and the route sends such changes as text for the
//! rest of the session. The decision is `llm::downgrade`'s; this is its record.

use serde::{Deserialize, Serialize};

use super::route::{Capabilities, SystemPromptUpdate, ToolRemoval, ToolUpdateMode};

/// The capabilities a refusal leaves a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Narrowed {
    /// Tool-update mode left (`None`: the tool bridge).
    pub tool_update: Option<ToolUpdateMode>,
    /// System-prompt update mode left.
    pub system_prompt_update: Option<SystemPromptUpdate>,
}

impl Narrowed {
    /// `caps` with this narrowing applied (removals always keep the prefix afterwards).
    pub fn apply(&self, caps: &Capabilities) -> Capabilities {
        Capabilities {
            tool_update: self.tool_update,
            system_prompt_update: self.system_prompt_update,
            tool_removal: ToolRemoval::Retain,
            ..*caps
        }
    }
}

/// `route/downgrade` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteDowngrade {
    /// Turn number.
    pub turn: u64,
    /// Step number.
    pub step: u64,
    /// The route (`provider/model`).
    pub route: String,
    /// The blocks the provider refused, as it named them.
    pub blocks: Vec<String>,
    /// What the route keeps.
    pub to: Narrowed,
    /// The provider's message, verbatim.
    pub message: String,
}
