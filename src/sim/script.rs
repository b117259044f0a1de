//! Reply scripts: a queue of scripted replies and faults consumed one per model request.
//!
//! The file format (JSON or TOML) is documented in `docs/simulator.md`.

use std::path::Path;

use serde_json::{Map, Value};

use super::SimError;

/// One tool call in a scripted reply.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedToolCall {
    /// Tool name; must be in the effective tool set at the end of the prompt.
    pub name: String,
    /// Tool input (a JSON object).
    pub input: Value,
    /// Call id to send instead of a generated `call_NN_…` one (may be empty or repeated,
    /// to test how a client copes with a faulty provider).
    pub id: Option<String>,
}

/// A fault injected instead of (or while streaming) a normal reply.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// Answer with this HTTP status and an OpenAI-style error body.
    HttpError {
        /// HTTP status code (400, 401, 402, 422, 429, 500, 503, …).
        status: u16,
        /// Error message placed in `error.message`.
        message: String,
        /// Optional `Retry-After` header value in seconds.
        retry_after: Option<u64>,
    },
    /// Answer with this HTTP status and an error body naming `error_type` as its `type`,
    /// with `Retry-After` sent verbatim: a provider's odd answers (a 400 whose body says
    /// `rate_limit_error`, a 429 with an HTTP-date or a garbled `Retry-After`), which a
    /// client must classify by the status (§8).
    OddHttpError {
        /// HTTP status code.
        status: u16,
        /// `error.type` in the body.
        error_type: String,
        /// Error message placed in `error.message`.
        message: String,
        /// The `Retry-After` header's value as sent, if any.
        retry_after: Option<String>,
    },
    /// Start the stream, then send an in-stream error (`event: error` / OpenAI error chunk) and close.
    StreamError {
        /// Error message.
        message: String,
    },
    /// Send only the first `n` stream events (chunks) and close without the terminator.
    CutAfterEvents(usize),
    /// Send only keep-alive comments for `ms` milliseconds, then continue (or close).
    Stall {
        /// Stall duration in milliseconds.
        ms: u64,
        /// Close the connection after the stall instead of continuing with the reply.
        close: bool,
    },
    /// Stop with `max_tokens`/`length` in the middle of the (first) tool call's JSON.
    TruncateToolJson,
    /// A completed message with no content blocks (`end_turn` / `stop`).
    Empty,
}

/// One entry of a reply script: reply content and/or a fault.
///
/// Content fields that are all empty mean "let the demo policy write the content"
/// (useful together with a stream fault).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScriptedReply {
    /// Reasoning text (emitted only when the request has thinking enabled).
    pub thinking: Option<String>,
    /// Assistant text.
    pub text: Option<String>,
    /// Tool calls, in order.
    pub tool_calls: Vec<ScriptedToolCall>,
    /// Explicit stop reason (Anthropic names; mapped for the OpenAI route).
    pub stop_reason: Option<String>,
    /// Optional fault.
    pub fault: Option<Fault>,
    /// Only a request whose rendered prompt contains this text takes this reply (a
    /// subagent's requests carry its task message). Such a request takes
    /// the first matching entry before any entry without `when`.
    pub when: Option<String>,
}

impl ScriptedReply {
    /// A reply consisting of one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            ..Self::default()
        }
    }

    /// A reply that calls one tool.
    pub fn tool_call(name: impl Into<String>, input: Value) -> Self {
        Self {
            tool_calls: vec![ScriptedToolCall {
                name: name.into(),
                input,
                id: None,
            }],
            ..Self::default()
        }
    }

    /// A pure fault entry (the demo policy supplies content where the fault needs some).
    pub fn fault(fault: Fault) -> Self {
        Self {
            fault: Some(fault),
            ..Self::default()
        }
    }

    /// Set the reasoning text.
    pub fn with_thinking(mut self, thinking: impl Into<String>) -> Self {
        self.thinking = Some(thinking.into());
        self
    }

    /// Add a tool call.
    pub fn with_tool_call(mut self, name: impl Into<String>, input: Value) -> Self {
        self.tool_calls.push(ScriptedToolCall {
            name: name.into(),
            input,
            id: None,
        });
        self
    }

    /// Only for a request whose prompt contains `text` (see [`ScriptedReply::when`]).
    pub fn when(mut self, text: impl Into<String>) -> Self {
        self.when = Some(text.into());
        self
    }

    /// Attach a fault.
    pub fn with_fault(mut self, fault: Fault) -> Self {
        self.fault = Some(fault);
        self
    }

    /// True when no content field is set.
    pub fn has_no_content(&self) -> bool {
        self.thinking.is_none() && self.text.is_none() && self.tool_calls.is_empty()
    }

    /// Parse one script entry from a JSON value (`what` names the entry in errors).
    pub fn from_value(value: &Value, what: &str) -> Result<Self, SimError> {
        let obj = value
            .as_object()
            .ok_or_else(|| script_err(what, "expected an object (a table)"))?;
        let mut reply = ScriptedReply::default();
        let mut faults: Vec<Fault> = Vec::new();
        for (key, v) in obj {
            match key.as_str() {
                "thinking" => reply.thinking = Some(string_field(v, what, key)?),
                "text" => reply.text = Some(string_field(v, what, key)?),
                "when" => reply.when = Some(string_field(v, what, key)?),
                "stop_reason" => {
                    let s = string_field(v, what, key)?;
                    if !matches!(
                        s.as_str(),
                        "end_turn" | "tool_use" | "max_tokens" | "stop_sequence"
                    ) {
                        return Err(script_err(
                            what,
                            &format!(
                                "stop_reason `{s}` is not one of end_turn, tool_use, max_tokens, stop_sequence"
                            ),
                        ));
                    }
                    reply.stop_reason = Some(s);
                }
                "tool_calls" => {
                    let arr = v
                        .as_array()
                        .ok_or_else(|| script_err(what, "`tool_calls` must be a list"))?;
                    for (i, call) in arr.iter().enumerate() {
                        let c = call.as_object().ok_or_else(|| {
                            script_err(what, &format!("tool_calls[{i}] must be an object"))
                        })?;
                        let name = c.get("name").and_then(Value::as_str).ok_or_else(|| {
                            script_err(what, &format!("tool_calls[{i}] needs a string `name`"))
                        })?;
                        let input = c
                            .get("input")
                            .cloned()
                            .unwrap_or_else(|| Value::Object(Map::new()));
                        if !input.is_object() {
                            return Err(script_err(
                                what,
                                &format!("tool_calls[{i}].input must be an object"),
                            ));
                        }
                        let id = match c.get("id") {
                            None => None,
                            Some(Value::String(s)) => Some(s.clone()),
                            Some(_) => {
                                return Err(script_err(
                                    what,
                                    &format!("tool_calls[{i}].id must be a string"),
                                ));
                            }
                        };
                        for k in c.keys() {
                            if k != "name" && k != "input" && k != "id" {
                                return Err(script_err(
                                    what,
                                    &format!("tool_calls[{i}]: unknown key `{k}`"),
                                ));
                            }
                        }
                        reply.tool_calls.push(ScriptedToolCall {
                            name: name.to_string(),
                            input,
                            id,
                        });
                    }
                }
                "http_error" => {
                    let status =
                        v.as_u64()
                            .filter(|s| (400..=599).contains(s))
                            .ok_or_else(|| {
                                script_err(what, "`http_error` must be a status code 400..599")
                            })?;
                    let message = obj
                        .get("message")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .unwrap_or_else(|| default_http_message(status as u16).to_string());
                    let error_type =
                        match obj.get("error_type") {
                            None => None,
                            Some(t) => Some(t.as_str().map(str::to_string).ok_or_else(|| {
                                script_err(what, "`error_type` must be a string")
                            })?),
                        };
                    let fault = match (obj.get("retry_after"), error_type) {
                        (None | Some(Value::Number(_)), None) => {
                            let retry_after = match obj.get("retry_after") {
                                None => None,
                                Some(r) => Some(r.as_u64().ok_or_else(|| {
                                    script_err(
                                        what,
                                        "`retry_after` must be a number of seconds or a string",
                                    )
                                })?),
                            };
                            Fault::HttpError {
                                status: status as u16,
                                message,
                                retry_after,
                            }
                        }
                        (r, error_type) => {
                            let retry_after = match r {
                                None => None,
                                Some(Value::String(s)) => Some(s.clone()),
                                Some(Value::Number(n)) => Some(n.to_string()),
                                Some(_) => {
                                    return Err(script_err(
                                        what,
                                        "`retry_after` must be a number of seconds or a string",
                                    ));
                                }
                            };
                            Fault::OddHttpError {
                                status: status as u16,
                                error_type: error_type
                                    .unwrap_or_else(|| kind_for(status as u16).to_string()),
                                message,
                                retry_after,
                            }
                        }
                    };
                    faults.push(fault);
                }
                "message" | "retry_after" | "error_type" => {
                    if !obj.contains_key("http_error") {
                        return Err(script_err(
                            what,
                            &format!("`{key}` is only valid together with `http_error`"),
                        ));
                    }
                }
                "stream_error" => faults.push(Fault::StreamError {
                    message: string_field(v, what, key)?,
                }),
                "cut_after_events" => {
                    let n = v.as_u64().ok_or_else(|| {
                        script_err(what, "`cut_after_events` must be a non-negative integer")
                    })?;
                    faults.push(Fault::CutAfterEvents(n as usize));
                }
                "stall_ms" => {
                    let ms = v.as_u64().ok_or_else(|| {
                        script_err(what, "`stall_ms` must be a non-negative integer")
                    })?;
                    let close = match obj.get("then") {
                        None => false,
                        Some(t) => match t.as_str() {
                            Some("continue") => false,
                            Some("close") => true,
                            _ => {
                                return Err(script_err(
                                    what,
                                    "`then` must be \"continue\" or \"close\"",
                                ));
                            }
                        },
                    };
                    faults.push(Fault::Stall { ms, close });
                }
                "then" => {
                    if !obj.contains_key("stall_ms") {
                        return Err(script_err(what, "`then` is only valid with `stall_ms`"));
                    }
                }
                "truncate_tool_json" => {
                    if v.as_bool()
                        .ok_or_else(|| script_err(what, "`truncate_tool_json` must be a boolean"))?
                    {
                        faults.push(Fault::TruncateToolJson);
                    }
                }
                "empty" => {
                    if v.as_bool()
                        .ok_or_else(|| script_err(what, "`empty` must be a boolean"))?
                    {
                        faults.push(Fault::Empty);
                    }
                }
                other => {
                    return Err(script_err(what, &format!("unknown key `{other}`")));
                }
            }
        }
        if faults.len() > 1 {
            return Err(script_err(what, "at most one fault per entry"));
        }
        reply.fault = faults.pop();
        Ok(reply)
    }
}

/// A queue of scripted replies, consumed in order (one per accepted model request).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Script {
    /// The entries, first consumed first.
    pub replies: Vec<ScriptedReply>,
}

impl Script {
    /// A script from a list of replies.
    pub fn new(replies: Vec<ScriptedReply>) -> Self {
        Self { replies }
    }

    /// Parse a script from JSON (a list, or `{"replies": [...]}`) or TOML (`[[replies]]` tables).
    pub fn parse(text: &str) -> Result<Script, SimError> {
        let trimmed = text.trim_start();
        let value: Value =
            if trimmed.starts_with('[') && !trimmed.starts_with("[[") || trimmed.starts_with('{') {
                serde_json::from_str(text).map_err(|e| SimError::Script {
                    message: format!("invalid JSON: {e}"),
                })?
            } else {
                let table: toml::Table = toml::from_str(text).map_err(|e| SimError::Script {
                    message: format!("invalid TOML: {e}"),
                })?;
                serde_json::to_value(table).map_err(|e| SimError::Script {
                    message: format!("invalid TOML: {e}"),
                })?
            };
        let list = match &value {
            Value::Array(items) => items.clone(),
            Value::Object(obj) => match obj.get("replies") {
                Some(Value::Array(items)) => {
                    if let Some(k) = obj.keys().find(|k| k.as_str() != "replies") {
                        return Err(SimError::Script {
                            message: format!("unknown top-level key `{k}` (expected `replies`)"),
                        });
                    }
                    items.clone()
                }
                _ => {
                    return Err(SimError::Script {
                        message: "expected a top-level list `replies`".to_string(),
                    });
                }
            },
            _ => {
                return Err(SimError::Script {
                    message: "expected a list of replies".to_string(),
                });
            }
        };
        let replies = list
            .iter()
            .enumerate()
            .map(|(i, v)| ScriptedReply::from_value(v, &format!("reply {}", i + 1)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Script { replies })
    }

    /// Read and parse a script file.
    pub fn load(path: impl AsRef<Path>) -> Result<Script, SimError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| SimError::ScriptIo {
            path: path.display().to_string(),
            source,
        })?;
        Script::parse(&text).map_err(|e| match e {
            SimError::Script { message } => SimError::Script {
                message: format!("{}: {message}", path.display()),
            },
            other => other,
        })
    }
}

fn string_field(v: &Value, what: &str, key: &str) -> Result<String, SimError> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| script_err(what, &format!("`{key}` must be a string")))
}

fn script_err(what: &str, message: &str) -> SimError {
    SimError::Script {
        message: format!("{what}: {message}"),
    }
}

/// The `error.type` the simulator names for a status.
pub(crate) fn kind_for(status: u16) -> &'static str {
    match status {
        400 | 422 => "invalid_request_error",
        401 => "authentication_error",
        402 => "unknown_error",
        429 => "rate_limit_error",
        503 => "overloaded_error",
        _ => "api_error",
    }
}

/// The default message DeepSeek-like servers use for a status code.
pub(crate) fn default_http_message(status: u16) -> &'static str {
    match status {
        400 => "Invalid Format",
        401 => "Authentication Fails",
        402 => "Insufficient Balance",
        422 => "Invalid Parameters",
        429 => "Rate Limit Reached",
        500 => "Server Error",
        503 => "Server Overloaded",
        _ => "Error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_json_list_with_replies_and_faults() {
        let s = Script::parse(
            r#"[
              {"thinking": "hmm", "text": "Hi", "tool_calls": [{"name": "grep", "input": {"pattern": "x"}}]},
              {"http_error": 429, "message": "slow down", "retry_after": 2},
              {"stream_error": "boom"},
              {"cut_after_events": 3},
              {"stall_ms": 50, "then": "close"},
              {"truncate_tool_json": true},
              {"empty": true}
            ]"#,
        )
        .unwrap();
        assert_eq!(s.replies.len(), 7);
        assert_eq!(s.replies[0].tool_calls[0].input, json!({"pattern": "x"}));
        assert_eq!(
            s.replies[1].fault,
            Some(Fault::HttpError {
                status: 429,
                message: "slow down".into(),
                retry_after: Some(2)
            })
        );
        assert_eq!(
            s.replies[4].fault,
            Some(Fault::Stall {
                ms: 50,
                close: true
            })
        );
        assert_eq!(s.replies[6].fault, Some(Fault::Empty));
    }

    #[test]
    fn an_error_type_or_a_string_retry_after_scripts_an_odd_provider_error() {
        let s = Script::parse(
            r#"[
              {"http_error": 400, "error_type": "rate_limit_error", "message": "slow"},
              {"http_error": 429, "retry_after": "Wed, 21 Oct 2015 07:28:00 GMT"},
              {"http_error": 503, "retry_after": 1, "error_type": "overloaded_error"}
            ]"#,
        )
        .unwrap();
        assert_eq!(
            s.replies[0].fault,
            Some(Fault::OddHttpError {
                status: 400,
                error_type: "rate_limit_error".into(),
                message: "slow".into(),
                retry_after: None,
            })
        );
        assert_eq!(
            s.replies[1].fault,
            Some(Fault::OddHttpError {
                status: 429,
                error_type: "rate_limit_error".into(),
                message: "Rate Limit Reached".into(),
                retry_after: Some("Wed, 21 Oct 2015 07:28:00 GMT".into()),
            })
        );
        assert_eq!(
            s.replies[2].fault,
            Some(Fault::OddHttpError {
                status: 503,
                error_type: "overloaded_error".into(),
                message: "Server Overloaded".into(),
                retry_after: Some("1".into()),
            })
        );
        let e = Script::parse(r#"[{"error_type": "x"}]"#).unwrap_err();
        assert!(
            e.to_string()
                .contains("only valid together with `http_error`")
        );
    }

    #[test]
    fn parses_toml_replies_tables() {
        let s = Script::parse(
            r#"
[[replies]]
text = "Hello"

[[replies]]
tool_calls = [{ name = "read_file", input = { path = "a.txt" } }]

[[replies]]
http_error = 503
"#,
        )
        .unwrap();
        assert_eq!(s.replies.len(), 3);
        assert_eq!(s.replies[0].text.as_deref(), Some("Hello"));
        assert_eq!(s.replies[1].tool_calls[0].name, "read_file");
        assert!(matches!(
            s.replies[2].fault,
            Some(Fault::HttpError { status: 503, .. })
        ));
    }

    #[test]
    fn rejects_unknown_keys_and_two_faults() {
        let e = Script::parse(r#"[{"txt": "x"}]"#).unwrap_err();
        assert!(e.to_string().contains("reply 1: unknown key `txt`"), "{e}");
        let e = Script::parse(r#"[{"empty": true, "stream_error": "x"}]"#).unwrap_err();
        assert!(e.to_string().contains("at most one fault"), "{e}");
        let e = Script::parse(r#"[{"text": "a", "stop_reason": "weird"}]"#).unwrap_err();
        assert!(e.to_string().contains("stop_reason"), "{e}");
    }

    #[test]
    fn tool_call_id_can_be_scripted() {
        let s = Script::parse(
            r#"[{"tool_calls": [{"name": "t", "id": "call_same"}, {"name": "t", "id": ""}, {"name": "t"}]}]"#,
        )
        .unwrap();
        let ids: Vec<Option<&str>> = s.replies[0]
            .tool_calls
            .iter()
            .map(|c| c.id.as_deref())
            .collect();
        assert_eq!(ids, [Some("call_same"), Some(""), None]);
        let e = Script::parse(r#"[{"tool_calls": [{"name": "t", "id": 3}]}]"#).unwrap_err();
        assert!(e.to_string().contains("id must be a string"), "{e}");
    }
}
