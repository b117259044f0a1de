//! Request body for DeepSeek's Anthropic-format Messages API (reference W-1…W-9,
//! deepseek-wire §1–2). Pure: takes projected messages and tools, returns JSON.
//!
//! The body is written in one pass straight into the output buffer (decision 0100): keys
//! are literals, the history's strings are escaped in place, and only a user turn's list of
//! source messages is held back (its tool results go first, W-8). The bytes are those the
//! earlier `serde` wire structs wrote, key order included
//! (`llm::wire_reference`, checked by `llm::wire_equivalence_proptests`).

use serde_json::Value;

use crate::llm::adapter::{RequestParts, SerializedBody};
use crate::llm::lookahead;
use crate::llm::types::{ErrorCode, LlmError, Thinking};
use crate::llm::wire_json::{
    escaped, is_canonical_object, key, next_key, string, string_field, value,
};
#[cfg(test)]
use crate::session::event::ToolSchema;
use crate::session::event::{Block, Message, Role, SystemPromptUpdate};

/// The beta owed when any wire message carries a tool-change block (W-9).
pub const TOOL_CHANGES_BETA: &str = "mid-conversation-tool-changes-2026-07-01";

fn unsupported(what: &str) -> LlmError {
    LlmError::new(
        ErrorCode::UnsupportedContent,
        format!("DeepSeek Messages cannot represent {what}"),
    )
}

fn invalid(what: &str) -> LlmError {
    LlmError::new(
        ErrorCode::InvalidContent,
        format!("DeepSeek Messages {what}"),
    )
}

fn block_type(block: &Block) -> &'static str {
    match block {
        Block::Text { .. } => "text",
        Block::Reasoning { .. } => "reasoning",
        Block::ToolCall { .. } => "tool-call",
        Block::ToolAddition { .. } => "tool-addition",
        Block::ToolRemoval { .. } => "tool-removal",
    }
}

/// Checks a developer message's blocks (W-2, W-3); true when it maps to any wire block.
fn developer_content(message: &Message) -> Result<bool, LlmError> {
    let mut any = false;
    for block in &message.content {
        match block {
            Block::Text { text } => any |= !text.is_empty(),
            Block::ToolAddition { .. } | Block::ToolRemoval { .. } => any = true,
            other => {
                return Err(unsupported(&format!(
                    "developer content {}",
                    block_type(other)
                )));
            }
        }
    }
    Ok(any)
}

/// A system update waiting for the next assistant turn or the end (W-5).
enum Queued<'a> {
    /// A developer message's text and tool-change blocks (W-2).
    Developer(&'a Message),
    /// An in-history prompt update (W-7).
    Prompt(String),
}

/// Role of a wire message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WireRole {
    User,
    Assistant,
    System,
}

impl WireRole {
    fn as_str(self) -> &'static str {
        match self {
            WireRole::User => "user",
            WireRole::Assistant => "assistant",
            WireRole::System => "system",
        }
    }
}

/// The one-pass writer's state.
struct Writer<'a, 'o> {
    parts: &'a RequestParts<'a>,
    out: &'o mut Vec<u8>,
    in_history: bool,
    /// Top-level `system` text from the history (W-7).
    history_system: Option<String>,
    /// The body's fields before `messages` are written (at the first wire message, when
    /// the top-level system text is settled).
    header_written: bool,
    /// Role of the last wire message, open or not.
    last: Option<WireRole>,
    /// The last wire message is still open (its content array not yet closed).
    open: bool,
    /// Blocks written so far into the content array being written.
    blocks: usize,
    /// The open user message's source messages, written when it closes (W-8: results first).
    user: Vec<&'a Message>,
    queued: Vec<Queued<'a>>,
    /// Tool calls awaiting their results (W-8).
    pending: Vec<&'a str>,
    /// The first W-8 violation, in wire order; reported after every scan error, as when
    /// the whole wire list was checked after it was built.
    order_error: Option<LlmError>,
    beta: bool,
}

impl<'a, 'o> Writer<'a, 'o> {
    fn new(parts: &'a RequestParts<'a>, out: &'o mut Vec<u8>) -> Self {
        let in_history = parts.system_prompt_update == Some(SystemPromptUpdate::InHistory);
        // Without in-history updates every system message overwrites the top level, so
        // the last one is the text; with them, the header waits for the first wire message.
        let history_system = if in_history {
            None
        } else {
            parts
                .messages
                .iter()
                .rev()
                .find(|m| m.role == Role::System)
                .map(|m| m.joined_text())
        };
        Writer {
            parts,
            out,
            in_history,
            history_system,
            header_written: false,
            last: None,
            open: false,
            blocks: 0,
            user: Vec::new(),
            queued: Vec::new(),
            pending: Vec::new(),
            order_error: None,
            beta: false,
        }
    }

    fn order_error(&mut self, e: LlmError) {
        self.order_error.get_or_insert(e);
    }

    fn header(&mut self) -> Result<(), LlmError> {
        let parts = self.parts;
        let out = &mut *self.out;
        out.push(b'{');
        key(out, "model");
        string(out, parts.model);
        out.extend_from_slice(b",\"stream\":true");
        next_key(out, "max_tokens");
        value(out, &parts.max_tokens)?;
        if let Some(thinking) = parts.thinking.wire_value() {
            next_key(out, "thinking");
            value(out, &thinking)?;
        }
        if let Some(effort) = parts
            .effort
            .filter(|_| parts.thinking != Thinking::Disabled)
        {
            next_key(out, "output_config");
            out.push(b'{');
            key(out, "effort");
            string(out, effort);
            out.push(b'}');
        }
        let system = [parts.system, self.history_system.as_deref()]
            .into_iter()
            .flatten()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n");
        if !system.is_empty() {
            string_field(out, "system", &system);
        }
        if let Some(t) = parts.temperature {
            next_key(out, "temperature");
            value(out, &t)?;
        }
        if let Some(stop) = parts.stop {
            next_key(out, "stop_sequences");
            value(out, stop)?;
        }
        next_key(out, "messages");
        out.push(b'[');
        self.header_written = true;
        Ok(())
    }

    /// Starts a new wire message of `role` (its content array open).
    fn open(&mut self, role: WireRole) -> Result<(), LlmError> {
        self.close()?;
        if !self.header_written {
            self.header()?;
        }
        if self.last.is_some() {
            self.out.push(b',');
        }
        self.out.extend_from_slice(b"{\"role\":\"");
        self.out.extend_from_slice(role.as_str().as_bytes());
        self.out.extend_from_slice(b"\",\"content\":[");
        self.last = Some(role);
        self.open = true;
        self.blocks = 0;
        if role == WireRole::Assistant && !self.pending.is_empty() {
            self.order_error(invalid("tool calls need immediate results"));
            // Only the first error is kept: the list goes on holding one turn's calls.
            self.pending.clear();
        }
        Ok(())
    }

    /// Ends the open wire message, writing a held user message first.
    fn close(&mut self) -> Result<(), LlmError> {
        if !self.open {
            return Ok(());
        }
        if self.last == Some(WireRole::User) {
            self.write_user();
        }
        self.out.extend_from_slice(b"]}");
        self.open = false;
        Ok(())
    }

    fn separator(&mut self) {
        if self.blocks > 0 {
            self.out.push(b',');
        }
        self.blocks += 1;
    }

    /// `push_merged`: content of `role` joins the last wire message when it has the same
    /// role and is still open, else starts one.
    fn merge_into(&mut self, role: WireRole) -> Result<(), LlmError> {
        if self.last != Some(role) || !self.open {
            self.open(role)?;
        }
        Ok(())
    }

    fn text_block(&mut self, text: &str) {
        self.separator();
        self.out
            .extend_from_slice(b"{\"type\":\"text\",\"text\":\"");
        escaped(self.out, text);
        self.out.extend_from_slice(b"\"}");
    }

    fn tool_ref(&mut self, kind: &str, name: &str) {
        self.separator();
        self.out.extend_from_slice(b"{\"type\":\"");
        self.out.extend_from_slice(kind.as_bytes());
        self.out
            .extend_from_slice(b"\",\"tool\":{\"type\":\"tool_reference\",\"name\":");
        string(self.out, name);
        self.out.extend_from_slice(b"}}");
    }

    fn assistant(&mut self, message: &'a Message) -> Result<(), LlmError> {
        self.merge_into(WireRole::Assistant)?;
        for block in &message.content {
            match block {
                Block::Text { text } => self.text_block(text),
                Block::Reasoning { text, signature } => {
                    self.separator();
                    self.out
                        .extend_from_slice(b"{\"type\":\"thinking\",\"thinking\":");
                    string(self.out, text);
                    if let Some(signature) = signature {
                        string_field(self.out, "signature", signature);
                    }
                    self.out.push(b'}');
                }
                Block::ToolCall {
                    id,
                    name,
                    arguments,
                } => {
                    if self.pending.contains(&id.as_str()) {
                        self.order_error(invalid(&format!("duplicate tool call id {id}")));
                    }
                    self.pending.push(id);
                    self.separator();
                    self.out.extend_from_slice(b"{\"type\":\"tool_use\"");
                    string_field(self.out, "id", id);
                    string_field(self.out, "name", name);
                    next_key(self.out, "input");
                    tool_input(self.out, arguments)?;
                    self.out.push(b'}');
                }
                // Tool-change blocks were rejected before (W-4).
                Block::ToolAddition { .. } | Block::ToolRemoval { .. } => {}
            }
        }
        Ok(())
    }

    /// Writes the held user message: its tool results first, then the other text (W-8),
    /// and checks the results answer exactly the pending calls.
    fn write_user(&mut self) {
        let held = std::mem::take(&mut self.user);
        for message in held.iter().filter(|m| m.role == Role::Tool) {
            let id = message.tool_call_id.as_deref().unwrap_or_default();
            match self.pending.iter().position(|p| *p == id) {
                Some(i) => {
                    self.pending.remove(i);
                }
                None => {
                    self.order_error(invalid(&format!("tool result {id} has no matching call")))
                }
            }
            self.tool_result(message);
        }
        if !self.pending.is_empty() {
            self.order_error(invalid("tool calls need immediate results"));
            self.pending.clear();
        }
        for message in held.iter().filter(|m| m.role != Role::Tool) {
            for block in &message.content {
                match block {
                    Block::Text { text } if !text.is_empty() => self.text_block(text),
                    _ => {}
                }
            }
        }
        // The buffer is kept for the next user message.
        self.user = held;
        self.user.clear();
    }

    fn tool_result(&mut self, message: &Message) {
        self.separator();
        self.out
            .extend_from_slice(b"{\"type\":\"tool_result\",\"tool_use_id\":");
        string(
            self.out,
            message.tool_call_id.as_deref().unwrap_or_default(),
        );
        self.out.extend_from_slice(b",\"content\":[");
        // DeepSeek ignores `is_error`, so the failure is also marked in the text.
        let mark = message.is_error == Some(true);
        let mut first = true;
        for block in &message.content {
            let Block::Text { text } = block else {
                continue;
            };
            if text.is_empty() {
                continue;
            }
            if !first {
                self.out.push(b',');
            }
            self.out
                .extend_from_slice(b"{\"type\":\"text\",\"text\":\"");
            if first && mark && !text.starts_with("Error: ") {
                self.out.extend_from_slice(b"Error: ");
            }
            escaped(self.out, text);
            self.out.extend_from_slice(b"\"}");
            first = false;
        }
        if first && mark {
            self.out
                .extend_from_slice(b"{\"type\":\"text\",\"text\":\"Error: (no output)\"}");
        }
        self.out.push(b']');
        if let Some(is_error) = message.is_error {
            next_key(self.out, "is_error");
            self.out
                .extend_from_slice(if is_error { b"true" } else { b"false" });
        }
        self.out.push(b'}');
    }

    /// Moves queued system updates into the wire list before an assistant message or at the
    /// end (W-5).
    fn flush(&mut self) -> Result<(), LlmError> {
        if self.queued.is_empty() {
            return Ok(());
        }
        if self.last != Some(WireRole::User) {
            return Err(unsupported(
                "system update without a preceding user or tool-result turn",
            ));
        }
        self.close()?;
        for queued in std::mem::take(&mut self.queued) {
            self.open(WireRole::System)?;
            match queued {
                Queued::Prompt(text) => self.text_block(&text),
                Queued::Developer(message) => {
                    for block in &message.content {
                        match block {
                            Block::Text { text } if !text.is_empty() => self.text_block(text),
                            Block::ToolAddition { tool_name, .. } => {
                                self.tool_ref("tool_addition", tool_name)
                            }
                            Block::ToolRemoval { tool_name } => {
                                self.tool_ref("tool_removal", tool_name)
                            }
                            _ => {}
                        }
                    }
                }
            }
            self.close()?;
        }
        Ok(())
    }

    fn message(&mut self, message: &'a Message) -> Result<(), LlmError> {
        // A mode note is user text on every route: DeepSeek reads the latest system
        // message as the whole prompt, and routes without the capability refuse one.
        if message.is_mode_note() {
            self.merge_into(WireRole::User)?;
            self.user.push(message);
            return Ok(());
        }
        if message.role == Role::Developer {
            if developer_content(message)? {
                self.beta |= message.content.iter().any(Block::is_tool_change);
                self.queued.push(Queued::Developer(message));
            }
            return Ok(());
        }
        if message.content.iter().any(Block::is_tool_change) {
            return Err(unsupported("tool-change blocks outside developer messages"));
        }
        match message.role {
            Role::System => {
                if message
                    .content
                    .iter()
                    .any(|b| !matches!(b, Block::Text { .. }))
                {
                    return Err(unsupported("non-text system message"));
                }
                if !self.in_history {
                    // Settled before the pass (the last system message).
                } else if self.last.is_some() {
                    let text = message.joined_text();
                    if text.is_empty() {
                        return Err(unsupported("empty in-history system update"));
                    }
                    self.queued.push(Queued::Prompt(text));
                } else {
                    self.history_system = Some(message.joined_text());
                }
            }
            Role::Assistant => {
                self.flush()?;
                self.assistant(message)?;
            }
            Role::Tool => {
                self.merge_into(WireRole::User)?;
                self.user.push(message);
            }
            Role::User => {
                if message
                    .content
                    .iter()
                    .any(|b| matches!(b, Block::Text { text } if !text.is_empty()))
                {
                    self.merge_into(WireRole::User)?;
                    self.user.push(message);
                }
            }
            Role::Developer => {}
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Option<String>, LlmError> {
        self.flush()?;
        self.close()?;
        if let Some(e) = self.order_error.take() {
            return Err(e);
        }
        if !self.pending.is_empty() {
            return Err(invalid("history ends with unresolved tools"));
        }
        if !self.header_written {
            self.header()?;
        }
        self.out.push(b']');
        // SPEC §12.2: no `tools` key when nothing is declared.
        if let Some(tools) = self.parts.tools.filter(|t| !t.is_empty()) {
            let out = &mut *self.out;
            next_key(out, "tools");
            out.push(b'[');
            for (i, t) in tools.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.push(b'{');
                key(out, "name");
                string(out, &t.name);
                string_field(out, "description", &t.description);
                next_key(out, "input_schema");
                value(out, &t.parameters)?;
                if t.is_deferred() {
                    out.extend_from_slice(b",\"defer_loading\":true");
                }
                out.push(b'}');
            }
            out.push(b']');
        }
        self.out.push(b'}');
        Ok(self.beta.then(|| TOOL_CHANGES_BETA.to_string()))
    }
}

/// Tool-call arguments as the `input` object. Arguments that are not a JSON object (for
/// example a call truncated by `max_tokens`, which the loop already answered with a tool
/// error) are sent as `{}`: the Messages API only accepts an object here, and the durable
/// message keeps the raw text unchanged.
fn tool_input(out: &mut Vec<u8>, raw: &str) -> Result<(), LlmError> {
    // The usual arguments are already the bytes parsing and writing them would give.
    if is_canonical_object(raw) {
        out.extend_from_slice(raw.as_bytes());
        return Ok(());
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(v @ Value::Object(_)) => value(out, &v),
        _ => {
            out.extend_from_slice(b"{}");
            Ok(())
        }
    }
}

/// Writes one Messages API request body from projected parts straight into `out`, in one
/// pass over the history that fetches a few messages ahead. Returns the `anthropic-beta` value owed (W-9).
/// On an error `out` is left as it was.
pub fn write_body(parts: &RequestParts<'_>, out: &mut Vec<u8>) -> Result<Option<String>, LlmError> {
    let start = out.len();
    let mut writer = Writer::new(parts, out);
    lookahead::start(parts.messages);
    let result = parts
        .messages
        .iter()
        .enumerate()
        .try_for_each(|(i, m)| {
            lookahead::ahead(parts.messages, i);
            writer.message(m)
        })
        .and_then(|()| writer.finish());
    if result.is_err() {
        out.truncate(start);
    }
    result
}

/// Serializes one Messages API request from projected parts (the bytes of
/// [`write_body`], as JSON).
pub fn serialize(parts: &RequestParts<'_>) -> Result<SerializedBody, LlmError> {
    let mut out = Vec::new();
    let beta = write_body(parts, &mut out)?;
    SerializedBody::from_bytes(&out, beta)
}

#[cfg(test)]
mod tests;
