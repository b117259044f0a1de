//! The log events of checkpoints, undo, rewind and fork (SPEC §14.3): plain serde data,
//! added to the vocabulary additively, so logs written before them still load.

use serde::{Deserialize, Serialize};

/// `checkpoint/taken`: the workspace as it was before a turn first changed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointTaken {
    /// The turn about to change the workspace.
    pub turn: u64,
    /// The snapshot's id in the checkpoint store.
    pub checkpoint: String,
    /// Files kept.
    pub files: u64,
    /// Files over the size cap (listed as not restorable).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
}

/// `checkpoint/settled`: the workspace as the turn left it (what `/undo` checks for
/// conflicts against).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointSettled {
    /// The turn.
    pub turn: u64,
    /// The snapshot's id.
    pub checkpoint: String,
}

/// `checkpoint/undo`: a turn's changes were put back (by `/undo` or a code rewind).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointUndo {
    /// The turn undone.
    pub turn: u64,
    /// Files put back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub restored: Vec<String>,
    /// Files changed since by someone else, left alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<String>,
    /// Whether the user confirmed overwriting conflicts.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forced: bool,
}

/// What a rewind takes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RewindScope {
    /// The conversation: the session continues from before the prompt.
    Conversation,
    /// The files only.
    Code,
    /// Both.
    Both,
}

impl RewindScope {
    /// Whether the conversation is taken back.
    pub fn conversation(self) -> bool {
        matches!(self, RewindScope::Conversation | RewindScope::Both)
    }
    /// Whether the files are taken back.
    pub fn code(self) -> bool {
        matches!(self, RewindScope::Code | RewindScope::Both)
    }
    /// The spelling in commands and the log.
    pub fn as_str(self) -> &'static str {
        match self {
            RewindScope::Conversation => "conversation",
            RewindScope::Code => "code",
            RewindScope::Both => "both",
        }
    }
    /// Parses a command argument.
    pub fn parse(s: &str) -> Option<RewindScope> {
        match s {
            "conversation" | "chat" => Some(RewindScope::Conversation),
            "code" | "files" => Some(RewindScope::Code),
            "both" => Some(RewindScope::Both),
            _ => None,
        }
    }
}

/// `session/rewind`: the session goes back to before a prompt. With the conversation in
/// scope, every event from `toSeq` (the prompt's `turn/start`) up to this one is left out
/// of the derived history and every later request; the log keeps them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRewind {
    /// Seq of the `turn/start` of the prompt rewound to.
    pub to_seq: u64,
    /// What was taken back.
    pub scope: RewindScope,
    /// The files a code rewind put back (what its Chat node counts).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub restored: Vec<String>,
}

/// Where a forked session came from (`session/start.forkedFrom`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ForkOrigin {
    /// The parent session's id.
    pub id: String,
    /// The parent's last seq the fork holds.
    pub seq: u64,
}
