//! What a server's `tools/list` answer may contain, checked tool by tool before rmcp sees it.
//!
//! rmcp parses an answer as a whole: one malformed tool makes the whole listing fail with
//! "Unexpected response type", naming no tool, and a schema nested past serde_json's
//! recursion limit makes the message unparsable, so it is dropped and the connect waits
//! for its timeout. [`screen_answer`] instead parses the answer with a depth bound, keeps
//! the tools that are well formed and within the limits below, and names every other one
//! ([`Skipped`]); an answer that is not a tool list at all becomes a JSON-RPC error, so the
//! listing fails at once as a parse failure (decision 0033).

use std::cell::Cell;

use rmcp::model::{RequestId, Tool};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Deepest nesting of one tool's JSON (the tool object is level 1). Far below serde_json's
/// limit of 128, so the tool still parses inside a message, a session log event or a
/// request body.
pub const MAX_TOOL_DEPTH: usize = 64;

/// Largest input schema (serialized) a tool may declare: every request carries it.
pub const MAX_SCHEMA_BYTES: usize = 64 * 1024;

/// Longest description sent to the model; a longer one is cut with a note.
pub const MAX_DESCRIPTION_BYTES: usize = 16 * 1024;

/// Why a listed tool was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// Its definition is nested deeper than [`MAX_TOOL_DEPTH`].
    TooDeep,
    /// Its input schema is this many bytes, over [`MAX_SCHEMA_BYTES`].
    SchemaTooLarge(usize),
    /// It is not a valid MCP tool (the parser's message).
    Malformed(String),
}

/// A tool the server listed that is not registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Its name as listed, or `#N` (1-based position) when it has none.
    pub tool: String,
    /// Why.
    pub reason: SkipReason,
}

/// A JSON value built with a depth bound: past it, the rest is skipped without recursion
/// (serde_json skips ignored values iteratively) and `too_deep` is set.
struct Bounded<'a> {
    depth: usize,
    too_deep: &'a Cell<bool>,
}

impl<'de> DeserializeSeed<'de> for Bounded<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Bounded<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        if self.depth > MAX_TOOL_DEPTH {
            self.too_deep.set(true);
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(Value::Null);
        }
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Bounded {
            depth: self.depth + 1,
            too_deep: self.too_deep,
        })? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        if self.depth > MAX_TOOL_DEPTH {
            self.too_deep.set(true);
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            return Ok(Value::Null);
        }
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            let v = map.next_value_seed(Bounded {
                depth: self.depth + 1,
                too_deep: self.too_deep,
            })?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

/// The `tools` array: each element bounded on its own, with whether it went too deep.
struct ToolArray(Vec<(Value, bool)>);

impl<'de> Deserialize<'de> for ToolArray {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ToolArray;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of tools")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ToolArray, A::Error> {
                let mut out = Vec::new();
                loop {
                    let flag = Cell::new(false);
                    let seed = Bounded {
                        // The tool object itself is level 1.
                        depth: 1,
                        too_deep: &flag,
                    };
                    match seq.next_element_seed(seed)? {
                        Some(v) => out.push((v, flag.get())),
                        None => return Ok(ToolArray(out)),
                    }
                }
            }
        }
        d.deserialize_seq(V)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListBody {
    tools: ToolArray,
    #[serde(default)]
    next_cursor: Option<String>,
}

#[derive(Deserialize)]
struct Answer {
    result: ListBody,
}

/// Just enough of a message to see whether it answers a given request.
#[derive(Deserialize)]
struct Probe {
    id: Option<RequestId>,
    result: Option<IgnoredAny>,
}

/// The id of a successful response (`result` present), if `line` is one.
pub fn response_id(line: &[u8]) -> Option<RequestId> {
    let p: Probe = serde_json::from_slice(line).ok()?;
    p.result.and(p.id)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CleanBody {
    tools: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
}

#[derive(Serialize)]
struct CleanAnswer<'a> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    result: CleanBody,
}

#[derive(Serialize)]
struct ErrorBody {
    code: i32,
    message: String,
}

#[derive(Serialize)]
struct ErrorAnswer<'a> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    error: ErrorBody,
}

/// JSON-RPC "Parse error".
const PARSE_ERROR: i32 = -32700;

/// Longest text quoted from what a server sent (a tool name, a parser message that quotes
/// a value) in a warning or error.
const MAX_QUOTE_CHARS: usize = 200;

/// `s`, cut to [`MAX_QUOTE_CHARS`] characters with `…`.
fn quote(s: &str) -> String {
    quote_chars(s, MAX_QUOTE_CHARS)
}

/// `s`, cut to `max` characters with `…`.
pub fn quote_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &s[..end]),
        None => s.to_string(),
    }
}

/// One listed tool checked: kept as listed, or skipped with the reason.
fn screen_tool(i: usize, v: Value, too_deep: bool) -> Result<Value, Skipped> {
    let tool = match v.get("name").and_then(Value::as_str) {
        Some(n) => quote(n),
        None => format!("#{}", i + 1),
    };
    let skip = |reason| Skipped {
        tool: tool.clone(),
        reason,
    };
    if too_deep {
        return Err(skip(SkipReason::TooDeep));
    }
    let parsed: Tool = match serde_json::from_value(v.clone()) {
        Ok(t) => t,
        Err(e) => return Err(skip(SkipReason::Malformed(quote(&e.to_string())))),
    };
    let size = serde_json::to_vec(&parsed.input_schema).map_or(0, |b| b.len());
    if size > MAX_SCHEMA_BYTES {
        return Err(skip(SkipReason::SchemaTooLarge(size)));
    }
    Ok(v)
}

/// How the error that replaces an unreadable `tools/list` answer starts (the failure is
/// told as "not a tool list" from it).
pub const UNPARSABLE_LIST: &str = "the tools/list answer could not be parsed";

/// Screens the answer `line` to the `tools/list` request `id`: returns the message to hand
/// to rmcp instead (the well-formed tools only, or a parse error when `line` is no tool
/// list) and the tools that were left out.
pub fn screen_answer(line: &[u8], id: &RequestId) -> (Vec<u8>, Vec<Skipped>) {
    let parsed = Answer::deserialize(&mut serde_json::Deserializer::from_slice(line));
    let answer = match parsed {
        Ok(a) => a,
        Err(e) => {
            let err = ErrorAnswer {
                jsonrpc: "2.0",
                id,
                error: ErrorBody {
                    code: PARSE_ERROR,
                    message: format!("{UNPARSABLE_LIST}: {}", quote(&e.to_string())),
                },
            };
            return (serde_json::to_vec(&err).unwrap_or_default(), Vec::new());
        }
    };
    let mut tools = Vec::new();
    let mut skipped = Vec::new();
    for (i, (v, too_deep)) in answer.result.tools.0.into_iter().enumerate() {
        match screen_tool(i, v, too_deep) {
            Ok(v) => tools.push(v),
            Err(s) => skipped.push(s),
        }
    }
    let clean = CleanAnswer {
        jsonrpc: "2.0",
        id,
        result: CleanBody {
            tools,
            next_cursor: answer.result.next_cursor,
        },
    };
    (serde_json::to_vec(&clean).unwrap_or_default(), skipped)
}

/// `s` cut to at most [`MAX_DESCRIPTION_BYTES`] (at a character boundary) with a note
/// saying so; returns whether it was cut.
pub fn cap_description(s: String) -> (String, bool) {
    if s.len() <= MAX_DESCRIPTION_BYTES {
        return (s, false);
    }
    let mut end = MAX_DESCRIPTION_BYTES;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = s[..end].to_string();
    out.push_str("… (description cut at 16 KiB)");
    (out, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deep(levels: usize) -> Value {
        let mut v = json!({"type": "string"});
        for _ in 0..levels {
            v = json!({"type": "object", "properties": {"next": v}});
        }
        v
    }

    fn tool(name: &str, schema: Value) -> Value {
        json!({"name": name, "description": "d", "inputSchema": schema})
    }

    fn answer(tools: Vec<Value>) -> Vec<u8> {
        json!({"jsonrpc": "2.0", "id": 7, "result": {"tools": tools}})
            .to_string()
            .into_bytes()
    }

    fn kept_names(out: &[u8]) -> Vec<String> {
        let v: Value = serde_json::from_slice(out).unwrap();
        v["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn a_malformed_tool_is_skipped_by_name_and_the_others_are_kept() {
        let line = answer(vec![
            tool("good", json!({"type": "object"})),
            tool("bad", json!("not an object")),
            json!({"description": "no name at all"}),
            tool("also_good", json!({"type": "object"})),
        ]);
        let (out, skipped) = screen_answer(&line, &RequestId::Number(7));
        assert_eq!(kept_names(&out), vec!["good", "also_good"]);
        assert_eq!(skipped.len(), 2, "{skipped:?}");
        assert_eq!(skipped[0].tool, "bad");
        assert!(matches!(skipped[0].reason, SkipReason::Malformed(_)));
        assert_eq!(skipped[1].tool, "#3");
        // What rmcp gets back parses as a tool list.
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["id"], 7);
        let list: rmcp::model::ListToolsResult =
            serde_json::from_value(v["result"].clone()).unwrap();
        assert_eq!(list.tools.len(), 2);
    }

    #[test]
    fn a_schema_past_the_recursion_limit_is_skipped_not_fatal() {
        let line = answer(vec![tool("deep", deep(70)), tool("fine", deep(10))]);
        // The whole message is beyond what serde_json parses in one piece.
        assert!(serde_json::from_slice::<Value>(&line).is_err());
        let (out, skipped) = screen_answer(&line, &RequestId::Number(7));
        assert_eq!(kept_names(&out), vec!["fine"]);
        assert_eq!(
            skipped,
            vec![Skipped {
                tool: "deep".into(),
                reason: SkipReason::TooDeep
            }]
        );
        // A schema of 31 levels (63 JSON levels in the tool) is kept; 32 is not.
        let (out, skipped) = screen_answer(
            &answer(vec![tool("a", deep(31)), tool("b", deep(32))]),
            &RequestId::Number(7),
        );
        assert_eq!(kept_names(&out), vec!["a"]);
        assert_eq!(skipped[0].tool, "b");
    }

    #[test]
    fn an_oversized_schema_is_skipped_with_its_size() {
        let props: Map<String, Value> = (0..2000)
            .map(|i| {
                (
                    format!("p{i:05}"),
                    json!({"type": "string", "description": "pad"}),
                )
            })
            .collect();
        let big = json!({"type": "object", "properties": props});
        let (out, skipped) = screen_answer(
            &answer(vec![
                tool("big", big),
                tool("small", json!({"type": "object"})),
            ]),
            &RequestId::Number(7),
        );
        assert_eq!(kept_names(&out), vec!["small"]);
        assert!(matches!(skipped[0].reason, SkipReason::SchemaTooLarge(n) if n > MAX_SCHEMA_BYTES));
    }

    #[test]
    fn an_answer_that_is_no_tool_list_becomes_a_parse_error_for_that_request() {
        let line = json!({"jsonrpc": "2.0", "id": "r1", "result": {"tools": "nope"}})
            .to_string()
            .into_bytes();
        let id = response_id(&line).unwrap();
        assert_eq!(id, RequestId::String("r1".into()));
        let (out, skipped) = screen_answer(&line, &id);
        assert!(skipped.is_empty());
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["id"], "r1");
        assert_eq!(v["error"]["code"], PARSE_ERROR);
        let msg = v["error"]["message"].as_str().unwrap();
        assert!(
            msg.starts_with("the tools/list answer could not be parsed"),
            "{msg}"
        );
    }

    #[test]
    fn what_a_warning_quotes_from_the_server_is_short() {
        let huge = "n".repeat(100_000);
        let line = answer(vec![
            tool(&huge, json!("s".repeat(100_000))),
            json!({"name": "x", "inputSchema": "q".repeat(100_000)}),
        ]);
        let (_, skipped) = screen_answer(&line, &RequestId::Number(7));
        assert_eq!(skipped.len(), 2);
        assert_eq!(skipped[0].tool.chars().count(), MAX_QUOTE_CHARS + 1);
        let SkipReason::Malformed(e) = &skipped[1].reason else {
            panic!("{skipped:?}");
        };
        assert!(
            e.chars().count() <= MAX_QUOTE_CHARS + 1,
            "{} chars",
            e.len()
        );
        let not_a_list =
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": "z".repeat(100_000)}});
        let (out, _) = screen_answer(not_a_list.to_string().as_bytes(), &RequestId::Number(1));
        assert!(out.len() < 1000, "{} bytes", out.len());
    }

    #[test]
    fn the_next_cursor_survives_screening() {
        let line = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [], "nextCursor": "p2"}})
            .to_string()
            .into_bytes();
        let (out, _) = screen_answer(&line, &RequestId::Number(1));
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["result"]["nextCursor"], "p2");
    }

    #[test]
    fn response_id_ignores_requests_notifications_and_errors() {
        assert_eq!(
            response_id(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#),
            Some(RequestId::Number(3))
        );
        assert_eq!(
            response_id(br#"{"jsonrpc":"2.0","method":"notifications/x"}"#),
            None
        );
        assert_eq!(
            response_id(br#"{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"m"}}"#),
            None
        );
        assert_eq!(
            response_id(br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#),
            None
        );
        assert_eq!(response_id(b"garbage"), None);
    }

    #[test]
    fn long_descriptions_are_cut_at_16_kib_with_a_note() {
        let (s, cut) = cap_description("short".into());
        assert_eq!((s.as_str(), cut), ("short", false));
        let exact = "x".repeat(MAX_DESCRIPTION_BYTES);
        assert!(!cap_description(exact).1);
        // A multi-byte character straddling the limit is not split.
        let long = format!(
            "{}é{}",
            "x".repeat(MAX_DESCRIPTION_BYTES - 1),
            "y".repeat(100)
        );
        let (s, cut) = cap_description(long);
        assert!(cut);
        assert!(
            s.ends_with("… (description cut at 16 KiB)"),
            "{}",
            &s[s.len() - 40..]
        );
        assert_eq!(
            s.len(),
            MAX_DESCRIPTION_BYTES - 1 + "… (description cut at 16 KiB)".len()
        );
    }
}
