//! The session event and message vocabulary (SPEC §4, reference E-1…E-6, D-1…D-6).
//!
//! Plain serde data with no behaviour; everything else in the crate depends on it.
//! Field names are camelCase on disk.

use serde::{Deserialize, Serialize};

pub mod downgrade;
mod message;
mod payload;
mod route;
mod usage;

pub use message::{
    Block, CATALOGUE_NOTE_SOURCE, DEFINITION_NOTE_SOURCE, MODE_NOTE_SOURCE, Message, Role, Source,
    TOOL_NOTE_SOURCE,
};
pub use payload::*;
pub use route::*;
pub use usage::{Timing, Usage};

/// Current session log format.
pub const LOG_FORMAT: u32 = 1;

/// One line of the JSONL session log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// Type tag and payload (`type` and `data` on disk).
    #[serde(flatten)]
    pub kind: EventKind,
    /// Contiguous index from 0.
    pub seq: u64,
    /// RFC 3339 timestamp.
    pub time: String,
    /// Surface operation; present exactly on surface events (E-2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface_op: Option<SurfaceOp>,
    /// Shadowed surface nodes cited by a replacement (E-2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_event_seqs: Option<Vec<u64>>,
}

/// How a surface event changes the surface (E-2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SurfaceOp {
    /// The literal string `"append"`.
    Append(AppendTag),
    /// `{op: "replace", startSeq, endSeq}`: shadows a contiguous range of surface nodes.
    Replace(ReplaceOp),
}

impl SurfaceOp {
    /// The `append` operation.
    pub fn append() -> Self {
        SurfaceOp::Append(AppendTag::Append)
    }
    /// A replacement of the surface nodes whose event seqs lie in `start..=end`.
    pub fn replace(start_seq: u64, end_seq: u64) -> Self {
        SurfaceOp::Replace(ReplaceOp {
            op: ReplaceTag::Replace,
            start_seq,
            end_seq,
        })
    }
}

/// The string tag `"append"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AppendTag {
    /// `"append"`.
    Append,
}

/// The string tag `"replace"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReplaceTag {
    /// `"replace"`.
    Replace,
}

/// A replacement surface operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplaceOp {
    /// Always `replace`.
    pub op: ReplaceTag,
    /// Event seq of the first shadowed surface node.
    pub start_seq: u64,
    /// Event seq of the last shadowed surface node (inclusive).
    pub end_seq: u64,
}

/// Event type and payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "data")]
pub enum EventKind {
    /// Always seq 0.
    #[serde(rename = "session/start")]
    SessionStart(SessionStart),
    /// A turn begins with a user submission.
    #[serde(rename = "turn/start")]
    TurnStart(TurnRef),
    /// A turn ends.
    #[serde(rename = "turn/end")]
    TurnEnd(TurnEnd),
    /// A step (one model request) begins.
    #[serde(rename = "step/start")]
    StepStart(StepRef),
    /// A step ends.
    #[serde(rename = "step/end")]
    StepEnd(StepRef),
    /// A system prompt node.
    #[serde(rename = "system/message")]
    SystemMessage(StepMessage),
    /// A user message (also the compaction checkpoint).
    #[serde(rename = "user/message")]
    UserMessage(UserMessageData),
    /// A developer message (tool-registry changes, E-5).
    #[serde(rename = "developer/message")]
    DeveloperMessage(DeveloperMessageData),
    /// The settled assistant message of one attempt.
    #[serde(rename = "assistant/message")]
    AssistantMessage(AssistantMessageData),
    /// A failed model attempt (kept for the Trajectory).
    #[serde(rename = "assistant/attempt")]
    AssistantAttempt(AssistantAttempt),
    /// The loop is about to execute a tool call.
    #[serde(rename = "tool/call")]
    ToolCall(ToolCallData),
    /// A tool result message.
    #[serde(rename = "tool/result")]
    ToolResult(ToolResultData),
    /// The active request header (E-3).
    #[serde(rename = "request/header")]
    RequestHeader(RequestHeaderData),
    /// The route of the following requests (E-4 plus `toolUpdate`).
    #[serde(rename = "request/context")]
    RequestContext(RequestContext),
    /// An MCP server lifecycle change.
    #[serde(rename = "mcp/status")]
    McpStatus(McpStatus),
    /// Compaction begins.
    #[serde(rename = "compaction/start")]
    CompactionStart(CompactionStart),
    /// The summary a compaction produced.
    #[serde(rename = "compaction/summary")]
    CompactionSummary(CompactionSummary),
    /// Compaction ends.
    #[serde(rename = "compaction/end")]
    CompactionEnd(CompactionEnd),
    /// A checkpoint before a turn first changed the workspace (SPEC §14.3).
    #[serde(rename = "checkpoint/taken")]
    CheckpointTaken(crate::session::checkpoint_event::CheckpointTaken),
    /// The workspace as a checkpointed turn left it.
    #[serde(rename = "checkpoint/settled")]
    CheckpointSettled(crate::session::checkpoint_event::CheckpointSettled),
    /// A turn's file changes were put back.
    #[serde(rename = "checkpoint/undo")]
    CheckpointUndo(crate::session::checkpoint_event::CheckpointUndo),
    /// The session went back to before a prompt (SPEC §14.3).
    #[serde(rename = "session/rewind")]
    SessionRewind(crate::session::checkpoint_event::SessionRewind),
    /// One hook ran (SPEC §14.4; additive, see `session::hook_event`).
    #[serde(rename = "hook/run")]
    HookRun(crate::session::hook_event::HookRunData),
    /// The active tool set changed (additive, see `session::tools_event`).
    #[serde(rename = "tools/changed")]
    ToolsChanged(crate::session::tools_event::ToolsChangedData),
    /// The provider refused a tool-change block: the route sends such changes as text for
    /// the rest of the session (SPEC §15.1; additive, see `session::downgrade_event`).
    #[serde(rename = "route/downgrade")]
    RouteDowngrade(crate::session::event::downgrade::RouteDowngrade),
    /// A `task` call started a subagent (SPEC §15.3; additive, see
    /// `session::subagent_event`).
    #[serde(rename = "subagent/start")]
    SubagentStart(crate::session::subagent_event::SubagentStart),
    /// One event of a subagent's conversation (additive, see `session::subagent_event`).
    #[serde(rename = "subagent/event")]
    SubagentEvent(SubagentEvent),
}

impl EventKind {
    /// The wire name of this event type.
    pub fn type_name(&self) -> &'static str {
        match self {
            EventKind::SessionStart(_) => "session/start",
            EventKind::TurnStart(_) => "turn/start",
            EventKind::TurnEnd(_) => "turn/end",
            EventKind::StepStart(_) => "step/start",
            EventKind::StepEnd(_) => "step/end",
            EventKind::SystemMessage(_) => "system/message",
            EventKind::UserMessage(_) => "user/message",
            EventKind::DeveloperMessage(_) => "developer/message",
            EventKind::AssistantMessage(_) => "assistant/message",
            EventKind::AssistantAttempt(_) => "assistant/attempt",
            EventKind::ToolCall(_) => "tool/call",
            EventKind::ToolResult(_) => "tool/result",
            EventKind::RequestHeader(_) => "request/header",
            EventKind::RequestContext(_) => "request/context",
            EventKind::McpStatus(_) => "mcp/status",
            EventKind::CompactionStart(_) => "compaction/start",
            EventKind::CompactionSummary(_) => "compaction/summary",
            EventKind::CompactionEnd(_) => "compaction/end",
            EventKind::CheckpointTaken(_) => "checkpoint/taken",
            EventKind::CheckpointSettled(_) => "checkpoint/settled",
            EventKind::CheckpointUndo(_) => "checkpoint/undo",
            EventKind::SessionRewind(_) => "session/rewind",
            EventKind::HookRun(_) => "hook/run",
            EventKind::ToolsChanged(_) => "tools/changed",
            EventKind::RouteDowngrade(_) => "route/downgrade",
            EventKind::SubagentStart(_) => "subagent/start",
            EventKind::SubagentEvent(_) => "subagent/event",
        }
    }

    /// Whether this type is a surface event (must carry `surfaceOp`, E-2).
    pub fn is_surface(&self) -> bool {
        matches!(
            self,
            EventKind::SystemMessage(_)
                | EventKind::UserMessage(_)
                | EventKind::DeveloperMessage(_)
                | EventKind::AssistantMessage(_)
                | EventKind::ToolResult(_)
        )
    }

    /// The message carried by a surface event.
    pub fn message(&self) -> Option<&Message> {
        match self {
            EventKind::SystemMessage(d) => Some(&d.message),
            EventKind::UserMessage(d) => Some(&d.message),
            EventKind::DeveloperMessage(d) => Some(&d.message),
            EventKind::AssistantMessage(d) => Some(&d.message),
            EventKind::ToolResult(d) => Some(&d.message),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_round_trips_with_its_type_and_data() {
        let ev = Event {
            kind: EventKind::DeveloperMessage(DeveloperMessageData {
                turn: 1,
                step: 2,
                message: Message::new(
                    Role::Developer,
                    vec![Block::addition("fetch")],
                    Source::kind("tool-registry"),
                ),
                header_seq: Some(4),
            }),
            seq: 5,
            time: "2026-01-01T00:00:00Z".into(),
            surface_op: Some(SurfaceOp::append()),
            source_event_seqs: None,
        };
        let line = serde_json::to_string(&ev).unwrap();
        assert!(
            line.starts_with(r#"{"type":"developer/message","data":{"#),
            "{line}"
        );
        assert!(line.contains(r#""surfaceOp":"append""#));
        assert!(line.contains(r#"{"type":"tool-addition","toolName":"fetch"}"#));
        let back: Event = serde_json::from_str(&line).unwrap();
        assert_eq!(back, ev);
    }

    #[test]
    fn a_replace_surface_op_has_its_wire_shape() {
        let op = SurfaceOp::replace(3, 9);
        let s = serde_json::to_string(&op).unwrap();
        assert_eq!(s, r#"{"op":"replace","startSeq":3,"endSeq":9}"#);
        assert_eq!(serde_json::from_str::<SurfaceOp>(&s).unwrap(), op);
    }
}

/// `subagent/event`: one event of a subagent's conversation, as its own log has it (see
/// `session::subagent_event`; defined here because it holds an [`Event`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubagentEvent {
    /// The subagent's id.
    pub agent: String,
    /// The event, with its seq in the subagent's log.
    pub event: Box<Event>,
}
