//! The built-in demo policy: deterministic replies when the script queue is empty.
//!
//! - The prompt ends with tool results → summarise them.
//! - The latest user text names an offered tool → call it once with arguments derived
//!   from its schema (and the user's words).
//! - Otherwise → a short friendly markdown answer echoing the question.
//!
//! The replies are in the interface language ([`DemoLocale`], `locales/*/demo.ftl`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use serde_json::{Map, Value};

use crate::i18n::{Arg, Locale, Localizer};

use super::script::{ScriptedReply, ScriptedToolCall};
use super::validate::{LastTurn, Parsed, ToolInfo};

/// The language of the demo replies, shared between the simulator and the app (a language
/// switch changes the next reply). Default en-US.
#[derive(Debug, Clone, Default)]
pub struct DemoLocale(Arc<AtomicU8>);

impl DemoLocale {
    /// A handle starting in `locale`.
    pub fn new(locale: Locale) -> Self {
        let d = DemoLocale::default();
        d.set(locale);
        d
    }

    /// The current language.
    pub fn get(&self) -> Locale {
        match self.0.load(Ordering::Relaxed) {
            1 => Locale::ZhCn,
            _ => Locale::EnUs,
        }
    }

    /// Switches the language of the next replies.
    pub fn set(&self, locale: Locale) {
        let n = match locale {
            Locale::EnUs => 0,
            Locale::ZhCn => 1,
        };
        self.0.store(n, Ordering::Relaxed);
    }
}

fn short(s: &str, max_chars: usize) -> String {
    let t: String = s.chars().take(max_chars).collect();
    if s.chars().count() > max_chars {
        format!("{t}…")
    } else {
        t
    }
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .collect()
}

/// Find the first offered tool whose name the text mentions (as a word, case-insensitive;
/// `read_file` also matches "read file").
pub fn named_tool<'a>(text: &str, offered: &'a [ToolInfo]) -> Option<&'a ToolInfo> {
    let ws = words(text);
    let lower = text.to_lowercase();
    offered.iter().find(|t| {
        let n = t.name.to_lowercase();
        ws.contains(&n) || (n.contains('_') && lower.contains(&n.replace('_', " ")))
    })
}

/// A token from the user text that looks like a path (contains `/` or `.`), or a quoted string.
fn user_argument(text: &str, tool_name: &str) -> Option<String> {
    for quote in ['`', '"', '\''] {
        let mut parts = text.split(quote);
        parts.next();
        if let Some(inner) = parts.next()
            && !inner.is_empty()
            && parts.next().is_some()
            && inner != tool_name
        {
            return Some(inner.to_string());
        }
    }
    text.split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, ',' | '?' | '!' | ';' | ':' | '(' | ')')))
        .map(|w| w.trim_end_matches('.'))
        .find(|w| (w.contains('/') || w.contains('.')) && w.len() > 1 && *w != tool_name)
        .map(str::to_string)
}

/// Arguments for the acting tools (SPEC §14.1) that show what they do: a command to run,
/// a small file to write, an edit of it, a patch that adds one. A quoted or path-like
/// word of the user's is the command or the file.
/// In the guided demo (`guided`) only a word that stays inside the sample's copy is
/// taken (`guided::safe_path`, `guided::safe_command`).
fn acting_arguments(tool: &str, user_text: &str, guided: bool) -> Option<Value> {
    let user = user_argument(user_text, tool);
    let file = user
        .clone()
        .filter(|u| !u.contains(char::is_whitespace))
        .filter(|u| !guided || super::guided::safe_path(u))
        .unwrap_or_else(|| "demo.txt".to_string());
    let command = user.filter(|c| !guided || super::guided::safe_command(c));
    Some(match tool {
        "shell" => serde_json::json!({"command": command.unwrap_or_else(|| "ls -la".to_string())}),
        "write_file" => serde_json::json!({
            "path": file,
            "content": "Hello from the deepterm demo.\nThis file was written by write_file.\n",
        }),
        "edit_file" => serde_json::json!({
            "path": file,
            "old_string": "Hello",
            "new_string": "Hi",
        }),
        "apply_patch" => serde_json::json!({
            "patch": "*** Begin Patch\n*** Add File: demo-patch.txt\n+Added by apply_patch in the deepterm demo.\n+Second line.\n*** End Patch\n",
        }),
        _ => return None,
    })
}

/// Plausible arguments for a tool from its JSON schema.
pub fn arguments_for(tool: &ToolInfo, user_text: &str) -> Value {
    arguments_in(tool, user_text, false)
}

/// [`arguments_for`], kept inside the sample's copy when `guided`.
fn arguments_in(tool: &ToolInfo, user_text: &str, guided: bool) -> Value {
    if let Some(v) = acting_arguments(&tool.name, user_text, guided) {
        return v;
    }
    let mut args = Map::new();
    let props = tool.schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = tool
        .schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let user_arg = user_argument(user_text, &tool.name);
    if let Some(props) = props {
        for (name, schema) in props {
            if !required.is_empty() && !required.contains(&name.as_str()) {
                continue;
            }
            args.insert(name.clone(), value_for(name, schema, user_arg.as_deref()));
        }
    }
    Value::Object(args)
}

fn value_for(name: &str, schema: &Value, user_arg: Option<&str>) -> Value {
    if let Some(d) = schema.get("default") {
        return d.clone();
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    let ty = match schema.get("type") {
        Some(Value::String(s)) => s.as_str(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("string"),
        _ => "string",
    };
    let n = name.to_lowercase();
    match ty {
        "integer" => Value::from(1),
        "number" => Value::from(1.0),
        "boolean" => Value::Bool(false),
        "array" => Value::Array(Vec::new()),
        "object" => Value::Object(Map::new()),
        _ => {
            let s = if let Some(u) = user_arg {
                u.to_string()
            } else if n.contains("path") || n.contains("file") || n.contains("dir") {
                ".".to_string()
            } else if n.contains("url") {
                "https://example.com".to_string()
            } else if n.contains("command") || n == "cmd" {
                "echo hello".to_string()
            } else if n.contains("pattern") || n.contains("query") || n.contains("regex") {
                "TODO".to_string()
            } else {
                "example".to_string()
            };
            Value::String(s)
        }
    }
}

/// The demo policy's reply for a validated request, in the language of `l`. `guided`: the
/// in-process simulator of `deepterm --demo`, working in a copy of the sample project
/// (SPEC §15.4): it also runs the guided task and answers anything else honestly.
pub fn demo_reply(parsed: &Parsed, l: Localizer, guided: bool) -> ScriptedReply {
    let offered: Vec<String> = parsed
        .offered
        .iter()
        .map(|t| format!("`{}`", t.name))
        .collect();
    match &parsed.last_turn {
        LastTurn::ToolResults(results) => {
            if guided && let Some(r) = super::guided::next(results, &parsed.offered, l) {
                return r;
            }
            let mut text = format!("{}\n\n", l.tr("demo-results-intro"));
            for (name, content) in results {
                let lines = content.lines().count();
                let name = if name.is_empty() { "tool" } else { name };
                let start =
                    short(content.lines().next().unwrap_or("").trim(), 60).replace('`', "'");
                let line = l.tra(
                    "demo-result-line",
                    &[
                        ("lines", Arg::from(lines)),
                        ("chars", Arg::from(content.chars().count())),
                    ],
                );
                text.push_str(&format!("- **{name}**: {line} `{start}`\n"));
            }
            text.push_str(&format!("\n*({})*", l.tr("demo-footer")));
            ScriptedReply {
                thinking: Some(l.tr("demo-thinking-results")),
                text: Some(text),
                ..ScriptedReply::default()
            }
        }
        LastTurn::UserText(user) => {
            if let Some(tool) = named_tool(user, &parsed.offered) {
                let input = arguments_in(tool, user, guided);
                let name = || Arg::from(format!("`{}`", tool.name));
                return ScriptedReply {
                    thinking: Some(l.tra(
                        "demo-thinking-call",
                        &[("tool", name()), ("input", Arg::from(input.to_string()))],
                    )),
                    text: Some(l.tra("demo-call", &[("tool", name())])),
                    tool_calls: vec![ScriptedToolCall {
                        name: tool.name.clone(),
                        input,
                        id: None,
                    }],
                    ..ScriptedReply::default()
                };
            }
            if guided && let Some(r) = super::guided::start(user, &parsed.offered, l) {
                return r;
            }
            let question = short(user.trim(), 200);
            let quoted: String = question.lines().map(|l| format!("> {l}\n")).collect();
            let tools_line = if offered.is_empty() {
                l.tr("demo-no-tools")
            } else {
                l.tra(
                    "demo-tools-on-offer",
                    &[("tools", Arg::List(offered.clone()))],
                )
            };
            let thinking = Some(l.tra(
                "demo-thinking-echo",
                &[("question", Arg::from(short(user.trim(), 80)))],
            ));
            if guided {
                // What the demo can show, and how to connect a real model (SPEC §15.4).
                return ScriptedReply {
                    thinking,
                    text: Some(format!(
                        "**{}**\n\n{}\n\n{quoted}\n{}\n\n{}\n\n- {tools_line}\n",
                        l.tr("demo-hello"),
                        l.tr("demo-you-asked"),
                        l.tr("demo-guided-can-show"),
                        l.tr("demo-guided-connect"),
                    )),
                    ..ScriptedReply::default()
                };
            }
            ScriptedReply {
                thinking,
                text: Some(format!(
                    "**{}**\n\n{}\n\n{quoted}\n{}\n\n- {}\n- {}\n- {tools_line}\n",
                    l.tr("demo-hello"),
                    l.tr("demo-you-asked"),
                    l.tr("demo-not-a-model"),
                    l.tr("demo-point-chunks"),
                    l.tr("demo-point-reasoning"),
                )),
                ..ScriptedReply::default()
            }
        }
        LastTurn::Other => ScriptedReply {
            text: Some(format!(
                "*({})* {}",
                l.tr("demo-label"),
                l.tr("demo-nothing-yet")
            )),
            ..ScriptedReply::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, schema: Value) -> ToolInfo {
        ToolInfo {
            name: name.into(),
            description: String::new(),
            schema,
        }
    }

    #[test]
    fn names_tool_by_word_or_spaced_name() {
        let offered = vec![tool("read_file", json!({})), tool("grep", json!({}))];
        assert_eq!(
            named_tool("please grep for x", &offered).unwrap().name,
            "grep"
        );
        assert_eq!(
            named_tool("Read file Cargo.toml", &offered).unwrap().name,
            "read_file"
        );
        assert!(named_tool("grepping", &offered).is_none());
    }

    #[test]
    fn the_demo_locale_is_shared_and_switches() {
        let d = DemoLocale::new(Locale::ZhCn);
        let other = d.clone();
        assert_eq!(other.get(), Locale::ZhCn);
        d.set(Locale::EnUs);
        assert_eq!(other.get(), Locale::EnUs);
        assert_eq!(DemoLocale::default().get(), Locale::EnUs);
    }

    #[test]
    fn arguments_follow_schema_and_user_text() {
        let t = tool(
            "read_file",
            json!({"type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}, "x": {"type": "string"}}, "required": ["path", "limit"]}),
        );
        assert_eq!(
            arguments_for(&t, "read_file src/main.rs please"),
            json!({"path": "src/main.rs", "limit": 1})
        );
        assert_eq!(
            arguments_for(&t, "use read_file"),
            json!({"path": ".", "limit": 1})
        );
    }
}
