//! What a hook reads on stdin and what it may answer on stdout, in Claude Code's hook
//! format (its field names, its event names), so scripts written for Claude Code run
//! unchanged (SPEC §14.4, decision 0088). Pure functions.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::config::hooks::HookEvent;

/// The session a hook runs in.
#[derive(Debug, Clone, Copy)]
pub struct HookSession<'a> {
    /// The session id.
    pub session_id: &'a str,
    /// The session log, when it exists (`transcript_path`).
    pub transcript_path: Option<&'a Path>,
    /// The workspace (`cwd`; hooks run there).
    pub cwd: &'a Path,
}

/// What one event adds to the common fields.
#[derive(Debug, Clone, Copy)]
pub enum HookFacts<'a> {
    /// `PreToolUse`: the call.
    PreTool {
        /// Tool name.
        name: &'a str,
        /// Raw JSON arguments (sent parsed; as a string when they do not parse).
        arguments: &'a str,
        /// Call id (`tool_use_id`).
        call_id: &'a str,
    },
    /// `PostToolUse`: the call and its result.
    PostTool {
        /// Tool name.
        name: &'a str,
        /// Raw JSON arguments.
        arguments: &'a str,
        /// Call id.
        call_id: &'a str,
        /// The result the model gets.
        content: &'a str,
        /// Whether it is an error result.
        is_error: bool,
    },
    /// `UserPromptSubmit`: the prompt as it would be sent.
    Prompt(&'a str),
    /// `Stop`.
    Stop,
    /// `SessionStart`: `startup` or `resume`.
    SessionStart(&'a str),
}

fn arguments_value(arguments: &str) -> Value {
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_string()))
}

/// The one JSON object written to a hook's stdin.
pub fn payload(event: HookEvent, session: HookSession<'_>, facts: HookFacts<'_>) -> Value {
    let mut o = Map::new();
    o.insert("session_id".into(), session.session_id.into());
    if let Some(p) = session.transcript_path {
        o.insert("transcript_path".into(), p.display().to_string().into());
    }
    o.insert("cwd".into(), session.cwd.display().to_string().into());
    o.insert("hook_event_name".into(), event.claude_name().into());
    match facts {
        HookFacts::PreTool {
            name,
            arguments,
            call_id,
        } => {
            o.insert("tool_name".into(), name.into());
            o.insert("tool_input".into(), arguments_value(arguments));
            o.insert("tool_use_id".into(), call_id.into());
        }
        HookFacts::PostTool {
            name,
            arguments,
            call_id,
            content,
            is_error,
        } => {
            o.insert("tool_name".into(), name.into());
            o.insert("tool_input".into(), arguments_value(arguments));
            o.insert("tool_use_id".into(), call_id.into());
            o.insert(
                "tool_response".into(),
                json!({"content": content, "is_error": is_error}),
            );
        }
        HookFacts::Prompt(p) => {
            o.insert("prompt".into(), p.into());
        }
        HookFacts::Stop => {
            // deepterm never continues a turn for a stop hook, so this is always false.
            o.insert("stop_hook_active".into(), false.into());
        }
        HookFacts::SessionStart(source) => {
            o.insert("source".into(), source.into());
        }
    }
    Value::Object(o)
}

/// A decision to block that a hook printed on stdout (exit 0), in Claude Code's JSON
/// output format: `{"decision": "block", "reason": …}`, `{"continue": false,
/// "stopReason": …}`, or for `PreToolUse` `{"hookSpecificOutput": {"permissionDecision":
/// "deny", "permissionDecisionReason": …}}`. `Some(reason)` blocks; anything that is not
/// such an object (plain text, other JSON) does not.
pub fn json_block(event: HookEvent, stdout: &str) -> Option<String> {
    let Ok(Value::Object(o)) = serde_json::from_str::<Value>(stdout.trim()) else {
        return None;
    };
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
    if o.get("continue") == Some(&Value::Bool(false)) {
        return Some(text(o.get("stopReason")));
    }
    if event == HookEvent::PreToolUse
        && let Some(specific) = o.get("hookSpecificOutput").and_then(Value::as_object)
        && specific.get("permissionDecision").and_then(Value::as_str) == Some("deny")
    {
        return Some(text(specific.get("permissionDecisionReason")));
    }
    match o.get("decision").and_then(Value::as_str) {
        Some("block" | "deny") => Some(text(o.get("reason"))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> HookSession<'static> {
        HookSession {
            session_id: "s1",
            transcript_path: Some(Path::new("/s/s1.jsonl")),
            cwd: Path::new("/w"),
        }
    }

    #[test]
    fn payloads_use_claude_codes_field_and_event_names() {
        let pre = payload(
            HookEvent::PreToolUse,
            session(),
            HookFacts::PreTool {
                name: "shell",
                arguments: "{\"command\":\"ls\"}",
                call_id: "c1",
            },
        );
        assert_eq!(
            pre,
            json!({"session_id": "s1", "transcript_path": "/s/s1.jsonl", "cwd": "/w",
                   "hook_event_name": "PreToolUse", "tool_name": "shell",
                   "tool_input": {"command": "ls"}, "tool_use_id": "c1"})
        );
        let post = payload(
            HookEvent::PostToolUse,
            session(),
            HookFacts::PostTool {
                name: "shell",
                arguments: "not json",
                call_id: "c1",
                content: "out",
                is_error: false,
            },
        );
        assert_eq!(post["tool_input"], "not json");
        assert_eq!(post["tool_response"]["content"], "out");
        assert_eq!(post["hook_event_name"], "PostToolUse");
        let prompt = payload(
            HookEvent::UserPromptSubmit,
            session(),
            HookFacts::Prompt("hi"),
        );
        assert_eq!(prompt["prompt"], "hi");
        assert_eq!(prompt["hook_event_name"], "UserPromptSubmit");
        let stop = payload(HookEvent::Stop, session(), HookFacts::Stop);
        assert_eq!(stop["stop_hook_active"], false);
        let start = payload(
            HookEvent::SessionStart,
            session(),
            HookFacts::SessionStart("resume"),
        );
        assert_eq!(start["source"], "resume");
        assert_eq!(start["hook_event_name"], "SessionStart");
    }

    #[test]
    fn json_decisions_block_and_anything_else_does_not() {
        let e = HookEvent::UserPromptSubmit;
        assert_eq!(
            json_block(e, "{\"decision\": \"block\", \"reason\": \"no\"}\n").as_deref(),
            Some("no")
        );
        assert_eq!(
            json_block(e, "{\"continue\": false, \"stopReason\": \"halt\"}").as_deref(),
            Some("halt")
        );
        let deny = "{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \
                    \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"r\"}}";
        assert_eq!(
            json_block(HookEvent::PreToolUse, deny).as_deref(),
            Some("r")
        );
        assert_eq!(json_block(e, deny), None);
        for quiet in [
            "",
            "Current time: 12:00",
            "[1]",
            "{\"decision\": \"approve\"}",
        ] {
            assert_eq!(json_block(e, quiet), None, "{quiet}");
        }
    }
}
