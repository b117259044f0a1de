//! What the loop keeps about background changes between turns: the channel tool sources
//! and MCP servers report on, the servers, and the warnings last given. Apart from the
//! turn runner's own file, which applies the changes, so the runner's type and this state
//! do not name each other.

use tokio::sync::mpsc;

use crate::tools::registry::NameClash;
use crate::tools::source::Background;

/// The channel tool sources and MCP servers report on, the servers, and what was last
/// warned about (each warning is said once per change).
pub struct BackgroundChanges {
    pub(crate) tx: mpsc::UnboundedSender<Background>,
    pub(crate) rx: mpsc::UnboundedReceiver<Background>,
    /// The MCP servers, once attached.
    pub(crate) mcp: Option<crate::tools::mcp::McpManager>,
    /// Names last reported as dropped by the tool limit (warned once per change).
    pub(crate) dropped_tools: Vec<String>,
    /// Name clashes between sources last warned about (once per clash).
    pub(crate) name_clashes: Vec<NameClash>,
}

impl BackgroundChanges {
    /// An empty channel, no servers, nothing warned about.
    pub fn new() -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        BackgroundChanges {
            tx,
            rx,
            mcp: None,
            dropped_tools: Vec::new(),
            name_clashes: Vec::new(),
        }
    }
}

impl Default for BackgroundChanges {
    fn default() -> Self {
        Self::new()
    }
}
