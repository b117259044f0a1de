//! Messages and their blocks (D-1…D-6).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Message role (D-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// System prompt.
    System,
    /// Developer (tool-registry) message.
    Developer,
    /// User.
    User,
    /// Assistant.
    Assistant,
    /// Tool result.
    Tool,
}

/// Where a message came from (D-5): `{kind, …}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// `system-prompt`, `tool-registry`, `user`, `model`, `tool`, `compaction`, …
    pub kind: String,
    /// Any other fields, kept losslessly.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Source {
    /// A source with only a kind.
    pub fn kind(kind: &str) -> Self {
        Source {
            kind: kind.to_string(),
            extra: Map::new(),
        }
    }
}

/// A durable message (D-5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// Stable id (UUID string).
    pub id: String,
    /// Role.
    pub role: Role,
    /// Content blocks.
    pub content: Vec<Block>,
    /// Producer.
    pub source: Source,
    /// Tool messages: the call this answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Tool messages: the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
}

/// Source kind of the developer note that tells the model its sandbox mode changed
/// (`/mode`, Shift+Tab; SPEC §14.2). Unlike a tool change it is meant for every route: the
/// projection keeps it where it drops tool-change messages.
pub const MODE_NOTE_SOURCE: &str = "sandbox-mode";

/// Source kind of a tool note: the text a tool change becomes on the tool bridge (SPEC
/// §15.1). Made by the projection only, never logged; sent like a mode note.
pub const TOOL_NOTE_SOURCE: &str = "tool-bridge";

/// Source kind of a catalogue note: the logged text that announces deferred tools by name
/// (SPEC §15.1 "Deferred catalogues"); sent like a mode note, on every route.
pub const CATALOGUE_NOTE_SOURCE: &str = "tool-catalogue";

/// Source kind of a definition note: the logged text that tells the model a declared tool's
/// definition changed under the same name while the request keeps the logged one (SPEC
/// §15.1); sent like a mode note, on every route.
pub const DEFINITION_NOTE_SOURCE: &str = "tool-definition";

impl Message {
    /// Whether this is a text-only note every route receives as it is: a mode note
    /// ([`MODE_NOTE_SOURCE`]), a tool note, a catalogue note or a definition note.
    pub fn is_mode_note(&self) -> bool {
        self.role == Role::Developer
            && (self.source.kind == MODE_NOTE_SOURCE
                || self.source.kind == TOOL_NOTE_SOURCE
                || self.source.kind == CATALOGUE_NOTE_SOURCE
                || self.source.kind == DEFINITION_NOTE_SOURCE)
            && !self.content.is_empty()
            && self.content.iter().all(|b| matches!(b, Block::Text { .. }))
    }

    /// A message with a fresh UUID id.
    pub fn new(role: Role, content: Vec<Block>, source: Source) -> Self {
        Message {
            id: uuid::Uuid::new_v4().to_string(),
            role,
            content,
            source,
            tool_call_id: None,
            is_error: None,
        }
    }

    /// A message holding one text block.
    pub fn text(role: Role, text: impl Into<String>, source: Source) -> Self {
        Message::new(role, vec![Block::text(text)], source)
    }

    /// What the user typed: the first text block when `@` mentions attached files (each
    /// attachment is a further text block, listed in `source.attachments`), else all text.
    pub fn typed_text(&self) -> String {
        if self.source.extra.contains_key("attachments") {
            return self
                .content
                .iter()
                .find_map(|b| match b {
                    Block::Text { text } => Some(text.clone()),
                    _ => None,
                })
                .unwrap_or_default();
        }
        self.joined_text()
    }

    /// All text blocks joined (for display and the system prompt).
    pub fn joined_text(&self) -> String {
        let len = self
            .content
            .iter()
            .map(|b| match b {
                Block::Text { text } => text.len(),
                _ => 0,
            })
            .sum();
        let mut out = String::with_capacity(len);
        for b in &self.content {
            if let Block::Text { text } = b {
                out.push_str(text);
            }
        }
        out
    }

    /// Tool calls in this message, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = (&str, &str, &str)> {
        self.content.iter().filter_map(|b| match b {
            Block::ToolCall {
                id,
                name,
                arguments,
            } => Some((id.as_str(), name.as_str(), arguments.as_str())),
            _ => None,
        })
    }
}

/// A content block (SPEC §4, D-3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Block {
    /// Plain text.
    #[serde(rename = "text")]
    Text {
        /// The text.
        text: String,
    },
    /// Model reasoning, replayed unchanged with its signature.
    #[serde(rename = "reasoning")]
    Reasoning {
        /// Reasoning text.
        text: String,
        /// Provider signature.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    /// A tool call made by the assistant.
    #[serde(rename = "tool-call")]
    ToolCall {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments as the raw JSON string.
        arguments: String,
    },
    /// Activates a tool defined by the referenced header (developer messages only).
    #[serde(rename = "tool-addition", rename_all = "camelCase")]
    ToolAddition {
        /// Tool name.
        tool_name: String,
        /// Reserved; must be absent (E-10). Kept so validation can name the error.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool: Option<Value>,
    },
    /// Deactivates a tool (developer messages only).
    #[serde(rename = "tool-removal", rename_all = "camelCase")]
    ToolRemoval {
        /// Tool name.
        tool_name: String,
    },
}

impl Block {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Block::Text { text: text.into() }
    }
    /// A `tool-addition` block.
    pub fn addition(name: impl Into<String>) -> Self {
        Block::ToolAddition {
            tool_name: name.into(),
            tool: None,
        }
    }
    /// A `tool-removal` block.
    pub fn removal(name: impl Into<String>) -> Self {
        Block::ToolRemoval {
            tool_name: name.into(),
        }
    }
    /// Whether this is a tool-addition or tool-removal block.
    pub fn is_tool_change(&self) -> bool {
        matches!(self, Block::ToolAddition { .. } | Block::ToolRemoval { .. })
    }
}
