//! Deferred catalogues (SPEC §15.1, decision 0140): tools that are not declared are
//! announced by name and one-line description in a *catalogue note*, a text-only developer
//! message ([`CATALOGUE_NOTE_SOURCE`]) appended to the log and sent on every route like a
//! mode note. A note is appended only when the announced set changes, and never rewrites an
//! earlier one: the next request repeats the previous bytes and adds the note's. The note
//! keeps the set it leaves announced as data in its source (`tools`), so what the model was
//! last told is read back from the request messages themselves: a compaction or a rewind
//! that drops a note also forgets it, and the next request announces again.
//!
//! A same-name definition change of a declared tool is told the same way (decision 0141):
//! the request keeps the logged definition, so the declarations do not change, and a
//! *definition note* ([`DEFINITION_NOTE_SOURCE`]) names the tool and its new first line,
//! once per definition (its source keeps a fingerprint of each definition it told).

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;

use crate::llm::bridge::one_line;
use crate::session::event::{
    Block, CATALOGUE_NOTE_SOURCE, DEFINITION_NOTE_SOURCE, Message, Role, Source, ToolSchema,
};
use crate::session::tool_history::schema_json;

/// The key of a catalogue note's source that lists the names it leaves announced.
pub const NAMES_KEY: &str = "tools";

/// Whether `m` is a catalogue note.
pub fn is_catalogue_note(m: &Message) -> bool {
    m.role == Role::Developer && m.source.kind == CATALOGUE_NOTE_SOURCE
}

/// The names the latest catalogue note among `messages` leaves announced (developer
/// messages at `developer`, ascending); `None` when the messages hold none.
pub fn announced(messages: &[Arc<Message>], developer: &[usize]) -> Option<BTreeSet<String>> {
    developer
        .iter()
        .rev()
        .filter_map(|&i| messages.get(i))
        .find(|m| is_catalogue_note(m))
        .map(|m| {
            m.source
                .extra
                .get(NAMES_KEY)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default()
        })
}

/// Most characters of one announced line: a server's long first line would make the
/// note cost what declaring the tool costs.
pub const LINE_CHARS: usize = 120;

/// `line` cut at [`LINE_CHARS`] characters.
fn short(line: &str) -> String {
    match line.char_indices().nth(LINE_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    }
}

/// The note owed when the model was last told `announced` and the deferred tools are now
/// `deferred` (name order): new names with their one-line descriptions, and names that are
/// gone. `declared` says whether a name is declared, now or earlier in the series: such a
/// name's removal is told by the tool-change machinery, not here. `None` when nothing
/// changed for the model.
pub fn catalogue_note(
    announced: Option<&BTreeSet<String>>,
    deferred: &[ToolSchema],
    declared: &dyn Fn(&str) -> bool,
) -> Option<Message> {
    let empty = BTreeSet::new();
    let before = announced.unwrap_or(&empty);
    let now: BTreeSet<&str> = deferred.iter().map(|t| t.name.as_str()).collect();
    let added: Vec<&ToolSchema> = deferred
        .iter()
        .filter(|t| !before.contains(&t.name))
        .collect();
    let removed: Vec<&str> = before
        .iter()
        .map(String::as_str)
        .filter(|n| !now.contains(n) && !declared(n))
        .collect();
    if added.is_empty() && removed.is_empty() {
        return None;
    }
    let mut text = String::new();
    if !added.is_empty() {
        text.push_str(if before.is_empty() {
            "[deepterm] More tools are available than are declared here. tool_search returns \
             a tool's description and JSON schema; call a tool after tool_search returned it.\n\
             Tools available through tool_search:"
        } else {
            "[deepterm] More tools are available through tool_search:"
        });
        for t in &added {
            text.push_str("\n- ");
            text.push_str(&short(&one_line(t)));
        }
    }
    if !removed.is_empty() {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str("[deepterm] No longer available: ");
        text.push_str(&removed.join(", "));
        text.push('.');
    }
    let mut source = Source::kind(CATALOGUE_NOTE_SOURCE);
    source.extra.insert(
        NAMES_KEY.into(),
        Value::Array(now.iter().map(|n| Value::from(*n)).collect()),
    );
    Some(Message::new(
        Role::Developer,
        vec![Block::text(text)],
        source,
    ))
}

/// The key of a definition note's source: each told tool's definition fingerprint.
pub const DEFINITIONS_KEY: &str = "definitions";

/// A stable fingerprint of a definition (FNV-1a 64 over its canonical JSON text): the
/// same bytes on every run, so a rebuilt request finds the same notes.
pub fn fingerprint(tool: &ToolSchema) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in schema_json(tool).bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Whether a definition note among `messages` (developer messages at `developer`) told
/// the model of `tool`'s definition as it is now.
pub fn definition_told(messages: &[Arc<Message>], developer: &[usize], tool: &ToolSchema) -> bool {
    let fp = fingerprint(tool);
    developer
        .iter()
        .rev()
        .filter_map(|&i| messages.get(i))
        .filter(|m| m.role == Role::Developer && m.source.kind == DEFINITION_NOTE_SOURCE)
        .filter_map(|m| m.source.extra.get(DEFINITIONS_KEY))
        .filter_map(|d| d.get(&tool.name))
        .next()
        .is_some_and(|v| v.as_str() == Some(fp.as_str()))
}

/// The note that tells the model `changed` tools have new definitions under the same
/// names, while their declarations keep the earlier ones; `None` when there are none.
pub fn definition_note(changed: &[ToolSchema]) -> Option<Message> {
    if changed.is_empty() {
        return None;
    }
    let mut text = String::from(
        "[deepterm] These tools changed; their declarations here are out of date, and \
         tool_search returns the current schema:",
    );
    let mut told = serde_json::Map::new();
    for t in changed {
        text.push_str("\n- ");
        text.push_str(&short(&one_line(t)));
        told.insert(t.name.clone(), Value::from(fingerprint(t)));
    }
    let mut source = Source::kind(DEFINITION_NOTE_SOURCE);
    source
        .extra
        .insert(DEFINITIONS_KEY.into(), Value::Object(told));
    Some(Message::new(
        Role::Developer,
        vec![Block::text(text)],
        source,
    ))
}

#[cfg(test)]
#[path = "bridge_catalogue_tests.rs"]
mod tests;
