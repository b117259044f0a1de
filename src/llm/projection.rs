//! `project_tool_updates` (reference P-1…P-14): pure projection of request messages and
//! tool declarations for a route's tool-update mode.

use std::borrow::Cow;
use std::sync::Arc;

use crate::llm::types::ToolHistory;
use crate::session::event::{Message, ToolSchema, ToolUpdateMode};

/// Result of a projection. `Cow::Borrowed` means "the input itself, unchanged".
#[derive(Debug, Clone)]
pub struct Projection<'a> {
    /// Messages to send.
    pub messages: Cow<'a, [Arc<Message>]>,
    /// Declarations to send (`None` = no `tools` at all).
    pub tools: Option<Cow<'a, [ToolSchema]>>,
}

/// Projects `messages` and `tools` for `mode` using the fold snapshot `history`.
pub fn project_tool_updates<'a>(
    messages: &'a [Arc<Message>],
    tools: Option<&'a [ToolSchema]>,
    mode: Option<ToolUpdateMode>,
    history: Option<&ToolHistory>,
) -> Projection<'a> {
    // Placeholder until the P-rules land (core branch).
    let _ = (mode, history);
    Projection {
        messages: Cow::Borrowed(messages),
        tools: tools.map(Cow::Borrowed),
    }
}
