//! How tool sources report to the agent loop: a [`Background`] message on a channel that
//! the loop drains at attempt boundaries. `tools` owns the message type, so a source (an MCP
//! server, a tool that registers tools) never depends on the loop that consumes it.

use crate::session::event::McpStatus;
use crate::tools::registry::{RegisteredTool, ToolSource};

/// Changes that arrive from outside the loop (MCP servers, tools that register tools).
/// The loop applies them at the next attempt boundary, or at once while idle, so the
/// session log stays single-writer.
#[derive(Debug)]
pub enum Background {
    /// Replace every tool of a source (an empty list unregisters the source).
    Tools {
        /// Which source.
        source: ToolSource,
        /// Its tools now.
        tools: Vec<RegisteredTool>,
    },
    /// An MCP server changed state (logged as `mcp/status`).
    Mcp(McpStatus),
}
