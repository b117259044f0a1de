//! The two documents the request viewer shows, built from the body bytes: the sections
//! (settings, system, tools with their schemas, messages block by block, SPEC §14.5) and
//! the raw JSON. Both are lists of logical lines (an indent and one line of safe text);
//! wrapping happens later, per width, in `layout`.

use serde_json::{Map, Value};

use crate::i18n::{Arg, Localizer};
use crate::ui::text::sanitized;

/// How a line is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// Content: text, arguments, results, JSON.
    Plain,
    /// A section heading (System, Tools, Messages).
    Heading,
    /// One numbered tool or message.
    Item,
    /// A block's label (text, thinking, tool call …).
    Label,
    /// Secondary facts ("none", settings).
    Dim,
}

/// One logical line: escaped text (no control characters, no newline) at an indent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocLine {
    /// Columns of indent, kept on every wrapped row.
    pub indent: u16,
    /// The line's text.
    pub text: String,
    /// How it is drawn.
    pub tone: Tone,
}

/// A document: its logical lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Doc {
    /// The lines, in order.
    pub lines: Vec<DocLine>,
}

impl Doc {
    /// Appends `text` at `indent`, one logical line per source line; control characters
    /// are escaped (only deepterm writes escape sequences to the terminal).
    pub fn push(&mut self, indent: u16, tone: Tone, text: &str) {
        let safe = sanitized(text);
        for line in safe.split('\n') {
            self.lines.push(DocLine {
                indent,
                text: line.to_string(),
                tone,
            });
        }
    }

    /// The document as plain text (indents as spaces, one logical line per line): what
    /// `y` copies from the sections view.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (i, l) in self.lines.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.extend(std::iter::repeat_n(' ', l.indent as usize));
            out.push_str(&l.text);
        }
        out
    }

    fn json(&mut self, indent: u16, v: &Value) {
        let pretty = serde_json::to_string_pretty(v).unwrap_or_default();
        for (extra, text) in pretty_lines(&pretty) {
            self.lines.push(DocLine {
                indent: indent + extra,
                text,
                tone: Tone::Plain,
            });
        }
    }
}

/// The JSON text `src` pretty-printed token for token: the bytes of every string, number
/// and literal are kept exactly as sent (no re-encoding of escapes or numbers), only
/// whitespace between tokens changes. Each line is its indent (2 columns a level) and text.
/// Text that is not JSON comes out re-indented at its brackets, never lost.
pub fn pretty_lines(src: &str) -> Vec<(u16, String)> {
    let b = src.as_bytes();
    let mut out: Vec<(u16, String)> = Vec::new();
    let mut cur: Vec<u8> = Vec::new();
    let mut depth: u16 = 0;
    let (mut in_str, mut esc) = (false, false);
    let flush = |cur: &mut Vec<u8>, out: &mut Vec<(u16, String)>, depth: u16| {
        if !cur.is_empty() {
            let text = String::from_utf8_lossy(cur);
            out.push((depth.saturating_mul(2), sanitized(&text).into_owned()));
            cur.clear();
        }
    };
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        i += 1;
        if in_str {
            cur.push(c);
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
            }
            continue;
        }
        match c {
            b' ' | b'\n' | b'\r' | b'\t' => {}
            b'"' => {
                cur.push(c);
                in_str = true;
            }
            b'{' | b'[' => {
                cur.push(c);
                let close = if c == b'{' { b'}' } else { b']' };
                let mut j = i;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                if j < b.len() && b[j] == close {
                    // `{}` and `[]` stay on one line.
                    cur.push(close);
                    i = j + 1;
                } else {
                    flush(&mut cur, &mut out, depth);
                    depth = depth.saturating_add(1);
                }
            }
            b'}' | b']' => {
                flush(&mut cur, &mut out, depth);
                depth = depth.saturating_sub(1);
                cur.push(c);
            }
            b',' => {
                cur.push(c);
                flush(&mut cur, &mut out, depth);
            }
            b':' => cur.extend_from_slice(b": "),
            _ => cur.push(c),
        }
    }
    flush(&mut cur, &mut out, depth);
    out
}

/// The raw view: the body pretty-printed as sent, or its lines as text when it is not JSON.
pub fn raw(body: &str, is_json: bool) -> Doc {
    let mut doc = Doc::default();
    if is_json {
        for (indent, text) in pretty_lines(body) {
            doc.lines.push(DocLine {
                indent,
                text,
                tone: Tone::Plain,
            });
        }
    } else {
        doc.push(0, Tone::Plain, body);
    }
    doc
}

/// Indents of the sections view: heading, item, block label, content.
const ITEM: u16 = 2;
const LABEL: u16 = 4;
const BODY: u16 = 6;

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn str_of<'a>(o: &'a Map<String, Value>, k: &str) -> &'a str {
    o.get(k).and_then(Value::as_str).unwrap_or("")
}

/// The sections view of a parsed body (either wire protocol: Messages or Chat
/// Completions). Tools and messages are numbered from 1, as everywhere in the inspector
/// (SPEC §14.5).
pub fn sections(v: &Value, l: Localizer) -> Doc {
    let mut doc = Doc::default();
    let Some(obj) = v.as_object() else {
        doc.json(0, v);
        return doc;
    };
    let messages: &[Value] = obj
        .get("messages")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let tools: &[Value] = obj
        .get("tools")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);

    doc.push(0, Tone::Heading, &l.tr("inspector-view-settings"));
    for (k, val) in obj {
        if !matches!(k.as_str(), "system" | "messages" | "tools") {
            doc.push(ITEM, Tone::Dim, &format!("{k}: {}", compact(val)));
        }
    }

    doc.push(0, Tone::Heading, &l.tr("inspector-view-system"));
    match obj.get("system") {
        Some(Value::String(s)) => text_or_empty(&mut doc, ITEM, s, l),
        Some(Value::Array(blocks)) => {
            for b in blocks {
                match b.get("text").and_then(Value::as_str) {
                    Some(t) => text_or_empty(&mut doc, ITEM, t, l),
                    None => doc.json(ITEM, b),
                }
            }
        }
        Some(other) => doc.json(ITEM, other),
        None => {
            let first_is_system = messages
                .first()
                .and_then(|m| m.get("role"))
                .and_then(Value::as_str)
                == Some("system");
            let key = if first_is_system {
                "inspector-view-system-in-message"
            } else {
                "inspector-view-none"
            };
            doc.push(ITEM, Tone::Dim, &l.tr(key));
        }
    }

    doc.push(
        0,
        Tone::Heading,
        &l.tra("inspector-view-tools", &[("count", Arg::from(tools.len()))]),
    );
    if tools.is_empty() {
        doc.push(ITEM, Tone::Dim, &l.tr("inspector-view-none"));
    }
    for (i, t) in tools.iter().enumerate() {
        tool(&mut doc, i + 1, t, l);
    }

    doc.push(
        0,
        Tone::Heading,
        &l.tra(
            "inspector-view-messages",
            &[("count", Arg::from(messages.len()))],
        ),
    );
    if messages.is_empty() {
        doc.push(ITEM, Tone::Dim, &l.tr("inspector-view-none"));
    }
    for (i, m) in messages.iter().enumerate() {
        message(&mut doc, i + 1, m, l);
    }
    doc
}

fn text_or_empty(doc: &mut Doc, indent: u16, text: &str, l: Localizer) {
    if text.is_empty() {
        doc.push(indent, Tone::Dim, &l.tr("inspector-view-empty"));
    } else {
        doc.push(indent, Tone::Plain, text);
    }
}

/// One tool: `n. name`, its description and its full schema (Messages: `name`,
/// `description`, `input_schema`, `defer_loading`; Chat: `function.{name, description,
/// parameters}`). An entry of another shape shows as its JSON.
fn tool(doc: &mut Doc, n: usize, t: &Value, l: Localizer) {
    let Some(o) = t.as_object() else {
        doc.push(ITEM, Tone::Item, &format!("{n}."));
        doc.json(LABEL, t);
        return;
    };
    let f = o.get("function").and_then(Value::as_object).unwrap_or(o);
    let schema = f.get("input_schema").or_else(|| f.get("parameters"));
    let mut head = format!("{n}. {}", str_of(f, "name"));
    if o.get("defer_loading").and_then(Value::as_bool) == Some(true) {
        head.push_str(" · ");
        head.push_str(&l.tr("inspector-view-deferred"));
    }
    doc.push(ITEM, Tone::Item, &head);
    if let Some(d) = f.get("description").and_then(Value::as_str) {
        doc.push(LABEL, Tone::Label, &l.tr("inspector-view-description"));
        text_or_empty(doc, BODY, d, l);
    }
    doc.push(LABEL, Tone::Label, &l.tr("inspector-view-schema"));
    match schema {
        Some(s) => doc.json(BODY, s),
        None => doc.push(BODY, Tone::Dim, &l.tr("inspector-view-none")),
    }
    // Keys the viewer does not know still show, so nothing sent is hidden.
    let known = [
        "type",
        "function",
        "name",
        "description",
        "input_schema",
        "parameters",
        "defer_loading",
    ];
    for (k, v) in o.iter().filter(|(k, _)| !known.contains(&k.as_str())) {
        doc.push(LABEL, Tone::Dim, &format!("{k}: {}", compact(v)));
    }
}

fn role_label(role: &str, l: Localizer) -> String {
    let key = match role {
        "user" => "inspector-view-role-user",
        "assistant" => "inspector-view-role-assistant",
        "system" => "inspector-view-role-system",
        "tool" => "inspector-view-role-tool",
        other => {
            return l.tra(
                "inspector-view-role-other",
                &[("role", Arg::from(other.to_string()))],
            );
        }
    };
    l.tr(key)
}

/// One wire message, `n. role`, then each block labelled with its content in full.
fn message(doc: &mut Doc, n: usize, m: &Value, l: Localizer) {
    let Some(o) = m.as_object() else {
        doc.push(ITEM, Tone::Item, &format!("{n}."));
        doc.json(LABEL, m);
        return;
    };
    let role = str_of(o, "role");
    doc.push(ITEM, Tone::Item, &format!("{n}. {}", role_label(role, l)));
    // Chat Completions: a tool message is one result for `tool_call_id`.
    if let Some(id) = o.get("tool_call_id").and_then(Value::as_str) {
        let error = o
            .get("content")
            .and_then(Value::as_str)
            .is_some_and(|c| c.starts_with("Error: "));
        result_label(doc, id, error, l);
        content(doc, o.get("content"), l);
    } else {
        match o.get("content") {
            Some(Value::Array(blocks)) => {
                for b in blocks {
                    block(doc, b, l);
                }
            }
            Some(Value::String(s)) if s.is_empty() && o.contains_key("tool_calls") => {}
            Some(c) => {
                doc.push(LABEL, Tone::Label, &l.tr("inspector-view-block-text"));
                content(doc, Some(c), l);
            }
            None => {}
        }
    }
    if let Some(r) = o.get("reasoning_content").and_then(Value::as_str) {
        doc.push(LABEL, Tone::Label, &l.tr("inspector-view-block-reasoning"));
        text_or_empty(doc, BODY, r, l);
    }
    if let Some(calls) = o.get("tool_calls").and_then(Value::as_array) {
        for c in calls {
            let f = c.get("function").and_then(Value::as_object);
            let name = f.map_or("", |f| str_of(f, "name"));
            let id = c.get("id").and_then(Value::as_str).unwrap_or("");
            let args = f
                .and_then(|f| f.get("arguments"))
                .and_then(Value::as_str)
                .and_then(|a| serde_json::from_str::<Value>(a).ok());
            call_label(doc, name, args.as_ref(), id, l);
            match f.and_then(|f| f.get("arguments")) {
                // Arguments travel as a JSON string; shown parsed when they parse.
                Some(Value::String(a)) => match serde_json::from_str::<Value>(a) {
                    Ok(v) => doc.json(BODY, &v),
                    Err(_) => {
                        doc.push(BODY, Tone::Dim, &l.tr("inspector-view-arguments-not-json"));
                        text_or_empty(doc, BODY, a, l);
                    }
                },
                Some(v) => doc.json(BODY, v),
                None => doc.push(BODY, Tone::Dim, &l.tr("inspector-view-none")),
            }
        }
    }
    let known = [
        "role",
        "content",
        "tool_call_id",
        "reasoning_content",
        "tool_calls",
    ];
    for (k, v) in o.iter().filter(|(k, _)| !known.contains(&k.as_str())) {
        doc.push(LABEL, Tone::Dim, &format!("{k}: {}", compact(v)));
    }
}

/// The tool a call runs: a `call_tool` call through the tool bridge is shown under the
/// real tool's name with the bridge noted, as the card and the Trajectory show it (§15.1).
pub fn called_tool(name: &str, args: Option<&Value>, l: Localizer) -> String {
    match args.and_then(|a| a.get("name")).and_then(Value::as_str) {
        Some(real) if name == crate::llm::bridge::CALL_TOOL => {
            format!("{real} {}", l.tr("cache-first-bridged-call"))
        }
        _ => name.to_string(),
    }
}

fn call_label(doc: &mut Doc, name: &str, args: Option<&Value>, id: &str, l: Localizer) {
    doc.push(
        LABEL,
        Tone::Label,
        &l.tra(
            "inspector-view-block-tool-call",
            &[
                ("name", Arg::from(called_tool(name, args, l))),
                ("id", Arg::from(id.to_string())),
            ],
        ),
    );
}

fn result_label(doc: &mut Doc, id: &str, error: bool, l: Localizer) {
    let key = if error {
        "inspector-view-block-tool-result-error"
    } else {
        "inspector-view-block-tool-result"
    };
    doc.push(
        LABEL,
        Tone::Label,
        &l.tra(key, &[("id", Arg::from(id.to_string()))]),
    );
}

/// A content value: a string in full, text blocks' text in full, anything else as JSON.
fn content(doc: &mut Doc, c: Option<&Value>, l: Localizer) {
    match c {
        Some(Value::String(s)) => text_or_empty(doc, BODY, s, l),
        Some(Value::Array(parts)) => {
            if parts.is_empty() {
                doc.push(BODY, Tone::Dim, &l.tr("inspector-view-empty"));
            }
            for p in parts {
                match (
                    p.get("type").and_then(Value::as_str),
                    p.get("text").and_then(Value::as_str),
                ) {
                    (Some("text"), Some(t)) => text_or_empty(doc, BODY, t, l),
                    _ => doc.json(BODY, p),
                }
            }
        }
        Some(other) => doc.json(BODY, other),
        None => doc.push(BODY, Tone::Dim, &l.tr("inspector-view-none")),
    }
}

fn tool_name(b: &Map<String, Value>) -> String {
    b.get("tool")
        .and_then(|t| t.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// One Messages content block with its label.
fn block(doc: &mut Doc, b: &Value, l: Localizer) {
    let Some(o) = b.as_object() else {
        doc.json(LABEL, b);
        return;
    };
    match str_of(o, "type") {
        "text" => {
            doc.push(LABEL, Tone::Label, &l.tr("inspector-view-block-text"));
            text_or_empty(doc, BODY, str_of(o, "text"), l);
        }
        "thinking" => {
            let key = if o.contains_key("signature") {
                "inspector-view-block-thinking-signed"
            } else {
                "inspector-view-block-thinking"
            };
            doc.push(LABEL, Tone::Label, &l.tr(key));
            text_or_empty(doc, BODY, str_of(o, "thinking"), l);
        }
        "tool_use" => {
            call_label(doc, str_of(o, "name"), o.get("input"), str_of(o, "id"), l);
            match o.get("input") {
                Some(v) => doc.json(BODY, v),
                None => doc.push(BODY, Tone::Dim, &l.tr("inspector-view-none")),
            }
        }
        "tool_result" => {
            let error = o.get("is_error").and_then(Value::as_bool) == Some(true);
            result_label(doc, str_of(o, "tool_use_id"), error, l);
            content(doc, o.get("content"), l);
        }
        "tool_addition" => doc.push(
            LABEL,
            Tone::Label,
            &l.tra(
                "inspector-view-block-tool-addition",
                &[("name", Arg::from(tool_name(o)))],
            ),
        ),
        "tool_removal" => doc.push(
            LABEL,
            Tone::Label,
            &l.tra(
                "inspector-view-block-tool-removal",
                &[("name", Arg::from(tool_name(o)))],
            ),
        ),
        other => {
            doc.push(
                LABEL,
                Tone::Label,
                &l.tra(
                    "inspector-view-block-other",
                    &[("kind", Arg::from(other.to_string()))],
                ),
            );
            doc.json(BODY, b);
        }
    }
}
