//! How tool sources report to the agent loop: a [`Background`] message on a channel that
//! the loop drains at attempt boundaries. `tools` owns the message type, so a source (an MCP
//! server, a tool that registers tools) never depends on the loop that consumes it.

use std::sync::{Arc, Mutex};

use crate::i18n::Text;
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
    /// Like `Tools`, for a source whose list may change faster than the loop takes it
    /// (an MCP server that sends `list_changed` in a burst): the list is in `slot`, which
    /// the source overwrites while the loop has not taken it, so one message covers a
    /// whole burst and the queue never holds more than one per source.
    LatestTools {
        /// Which source.
        source: ToolSource,
        /// Its latest tools (empty once taken by an earlier message).
        slot: Arc<ToolSlot>,
    },
    /// An MCP server changed state (logged as `mcp/status`).
    Mcp(McpStatus),
    /// A warning for the user about a source (a tool it offered was left out or cut).
    Warning(Text),
    /// An MCP server's prompts or resource list changed: the loop offers the lists anew
    /// (`McpManager::prompts`, `McpManager::resource_mentions`).
    McpCatalog,
}

/// The latest tool list of one source, not yet taken by the loop (see
/// [`Background::LatestTools`]).
#[derive(Debug, Default)]
pub struct ToolSlot(Mutex<Option<Vec<RegisteredTool>>>);

impl ToolSlot {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Vec<RegisteredTool>>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Stores `tools` over any list not taken yet; returns whether the slot was empty
    /// (then the loop needs a new message to take it).
    pub fn put(&self, tools: Vec<RegisteredTool>) -> bool {
        self.lock().replace(tools).is_none()
    }

    /// Takes the latest list, if there is one.
    pub fn take(&self) -> Option<Vec<RegisteredTool>> {
        self.lock().take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_of_lists_needs_one_message_and_delivers_the_last() {
        let slot = ToolSlot::default();
        assert!(slot.put(Vec::new()), "the first list needs a message");
        assert!(!slot.put(Vec::new()), "later ones ride on it");
        assert!(slot.take().is_some());
        assert!(slot.take().is_none(), "taken once");
        assert!(slot.put(Vec::new()), "after a take, a new message again");
    }
}
