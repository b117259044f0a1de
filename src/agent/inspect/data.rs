//! What the request inspector shows (`/inspect`), as plain data: it travels in
//! [`crate::agent::protocol::AgentEvent::Inspector`]. Built by `crate::agent::inspect`.

use serde::{Deserialize, Serialize};

/// Why the selected request differs from the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DiffReason {
    /// There is no earlier request.
    FirstRequest,
    /// A tool-registry developer message with an addition was appended.
    ToolAdditionAppended,
    /// A tool removal was appended on an in-history route.
    ToolRemovalAppended,
    /// A changed system prompt was appended after the history.
    PromptUpdateAppended,
    /// The prompt was consolidated at the head (a `system/message` replacement).
    Consolidation,
    /// A header started a new series.
    NewSeries,
    /// A tool was removed on an addition-only route (history is rewritten, P-6); the text
    /// says that `tool_removal = "retain"` would have kept the prefix.
    RemovalOnAdditionOnly,
    /// A tool was removed on an addition-only route with `tool_removal = "retain"` (its
    /// declaration stays, the prefix is kept).
    RemovalRetained,
    /// The update modes (or `tool_removal`) changed, on the same model.
    RouteChanged,
    /// The provider or the model changed: a model's cache is its own.
    ModelChanged,
    /// The context was compacted (a new series with the summary).
    Compacted,
    /// Only new history was appended.
    HistoryAppended,
    /// A rewind took the conversation back: the request repeats the prefix the session
    /// had at that prompt, which the cache still holds (SPEC §14.3).
    AfterRewind,
    /// The bodies are identical.
    Identical,
    /// The provider refused a tool-change block and the route was downgraded for the
    /// session (`route/downgrade`, SPEC §15.1): the same log was projected again, with
    /// the refused changes as text.
    RouteDowngraded,
}

/// One request as the inspector shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InspectedRequest {
    /// Request number; `None` = the next request (not sent yet). For a subagent's
    /// request, its number in the subagent's log.
    pub n: Option<usize>,
    /// A subagent's request is named by its Trajectory label (`T3.S2·a1.S1`) instead of
    /// its number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// `provider/model`.
    pub route: String,
    /// Top-level system text (Messages route), if any.
    pub system: Option<String>,
    /// Declared tools: name and whether `defer_loading` is set.
    pub tools: Vec<(String, bool)>,
    /// One line per wire message: `role: block summary, …`.
    pub messages: Vec<String>,
    /// The compact JSON body as sent.
    pub body: String,
    /// The `anthropic-beta` header, when owed.
    pub beta: Option<String>,
}

/// Where two requests first differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Divergence {
    /// First differing byte offset of the compact JSON bodies (`None` = identical).
    pub body_offset: Option<usize>,
    /// The top-level system text differs.
    pub system: bool,
    /// First tool index whose declaration differs (or the first extra one).
    pub tool: Option<usize>,
    /// First message index that differs (or the first extra one).
    pub message: Option<usize>,
}

/// Everything the inspector shows: the selected request next to the one before it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InspectorData {
    /// The earlier request (`None` when the selected one is the first).
    pub previous: Option<InspectedRequest>,
    /// The selected request (or the next one).
    pub selected: InspectedRequest,
    /// Where they first differ.
    pub divergence: Divergence,
    /// Why, from the events between them.
    pub reasons: Vec<DiffReason>,
}
