//! The `tools/changed` event: the active tool set changed, logged when the change happens
//! (decision 0097). It is the one fact Chat folds into a tool-change node, live and on a
//! resumed log; the next request still logs its own tool-registry `developer/message`
//! (E-16), which is what the model sees. Additive: a log without it loads as before, and
//! it is no surface event (nothing of it is sent to the model).

use serde::{Deserialize, Serialize};

/// Where a changed tool comes from, as the log names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ChangedToolSource {
    /// A built-in tool.
    Builtin,
    /// A `[tools.command.*]` tool.
    Command,
    /// An MCP server's tool.
    Mcp {
        /// The server's configured name.
        server: String,
    },
}

/// One tool of a change: its name, source and description (the node's expansion shows
/// them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChangedTool {
    /// Model-facing name.
    pub name: String,
    /// Where it comes from.
    pub source: ChangedToolSource,
    /// The declaration's description (empty when unknown, as for a removed tool a resumed
    /// log no longer lists).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
}

/// `tools/changed` payload: relative to what the model was last offered, or to the
/// previous change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolsChangedData {
    /// Tools now available that were not, in name order.
    pub added: Vec<ChangedTool>,
    /// Tools no longer available, in name order.
    pub removed: Vec<ChangedTool>,
}
