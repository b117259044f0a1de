//! A small MCP server over stdio for deepterm's tests and benchmarks.
//!
//! Tools: `echo {text}`, `add {a, b}`, `fail {text}` (an `isError` result),
//! `fixture_add_tool {name}` / `fixture_remove_tool {name}` (change the tool list and send
//! `notifications/tools/list_changed`), `fixture_crash {}` (the process exits without
//! answering). A tool added by name answers like `echo` with its arguments.
//! `fixture_big {size}` (only when listed in `FIXTURE_TOOLS`) answers with a text of
//! `size` bytes. Not in the default list either (add it with `FIXTURE_TOOLS`):
//! `env {name?}` answers the value of the
//! environment variable `name` (`(unset)` when it is not set), or without `name` every
//! variable as sorted `NAME=value` lines (for the secrets test).
//!
//! Environment: `FIXTURE_TOOLS=a,b` (initial tool list; default: all of the above),
//! `FIXTURE_GENERATED_TOOLS=N` (adds `gen_001` … `gen_N`, echo-like),
//! `FIXTURE_STDERR_BYTES=N` (writes N bytes to stderr with no newline, then a last
//! message, and exits without serving),
//! `FIXTURE_START_DELAY_MS` (sleep before serving), `FIXTURE_CRASH_AFTER_MS` (exit after
//! that long), `FIXTURE_FAIL_MARKER=PATH` (`fixture_crash` creates the file; a start that
//! finds it exits at once, so reconnects fail).

use std::borrow::Cow;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};

const DEFAULT_TOOLS: [&str; 6] = [
    "echo",
    "add",
    "fail",
    "fixture_add_tool",
    "fixture_remove_tool",
    "fixture_crash",
];

fn schema(v: Value) -> Arc<Map<String, Value>> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => Arc::new(Map::new()),
    }
}

fn text_schema(field: &str) -> Arc<Map<String, Value>> {
    schema(json!({
        "type": "object",
        "properties": { field: { "type": "string" } },
        "required": [field]
    }))
}

fn tool(name: &str) -> Tool {
    let (desc, input): (String, _) = match name {
        "echo" => ("Echo the text back.".into(), text_schema("text")),
        "add" => (
            "Add two numbers.".into(),
            schema(json!({
                "type": "object",
                "properties": { "a": { "type": "number" }, "b": { "type": "number" } },
                "required": ["a", "b"]
            })),
        ),
        "fail" => ("Always fails with the text.".into(), text_schema("text")),
        "fixture_add_tool" => ("Add a tool to this server.".into(), text_schema("name")),
        "fixture_remove_tool" => (
            "Remove a tool from this server.".into(),
            text_schema("name"),
        ),
        "fixture_big" => (
            "Answer with a text of `size` bytes.".into(),
            text_schema("size"),
        ),
        "fixture_crash" => (
            "Exit the server process at once.".into(),
            schema(json!({ "type": "object", "properties": {} })),
        ),
        "env" => (
            "Show an environment variable of the server (or all of them).".into(),
            schema(json!({ "type": "object", "properties": { "name": { "type": "string" } } })),
        ),
        other => (
            format!("Fixture tool {other}: echoes its arguments."),
            schema(json!({ "type": "object", "properties": { "text": { "type": "string" } } })),
        ),
    };
    Tool::new(Cow::Owned(name.to_string()), desc, input)
}

struct Fixture {
    tools: Mutex<Vec<String>>,
    fail_marker: Option<String>,
}

impl Fixture {
    fn names(&self) -> Vec<String> {
        self.tools.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

fn text(s: impl Into<String>) -> Result<CallToolResponse, ErrorData> {
    Ok(CallToolResponse::Complete(CallToolResult::success(vec![
        ContentBlock::text(s),
    ])))
}

fn arg_str(args: &Map<String, Value>, key: &str) -> String {
    match args.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    }
}

fn arg_num(args: &Map<String, Value>, key: &str) -> f64 {
    match args.get(key) {
        Some(Value::Number(n)) => n.as_f64().unwrap_or(0.0),
        Some(Value::String(s)) => s.parse().unwrap_or(0.0),
        _ => 0.0,
    }
}

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.names().iter().map(|n| tool(n)).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if !self.names().contains(&name) {
            return Err(ErrorData::invalid_params(
                format!("unknown tool {name}"),
                None,
            ));
        }
        let args = request.arguments.unwrap_or_default();
        match name.as_str() {
            "echo" => text(arg_str(&args, "text")),
            "add" => {
                let sum = arg_num(&args, "a") + arg_num(&args, "b");
                text(format!("{sum}"))
            }
            "fail" => Ok(CallToolResponse::Complete(CallToolResult::error(vec![
                ContentBlock::text(format!("fixture failure: {}", arg_str(&args, "text"))),
            ]))),
            "fixture_add_tool" | "fixture_remove_tool" => {
                let target = arg_str(&args, "name");
                {
                    let mut tools = self.tools.lock().unwrap_or_else(|p| p.into_inner());
                    if name == "fixture_add_tool" {
                        if !tools.contains(&target) {
                            tools.push(target.clone());
                        }
                    } else {
                        tools.retain(|t| *t != target);
                    }
                }
                // The notification goes out before the reply.
                let _ = context.peer.notify_tool_list_changed().await;
                text(format!("tools now: {}", self.names().join(",")))
            }
            "fixture_big" => {
                let size: usize = arg_str(&args, "size").trim().parse().unwrap_or(0);
                text("b".repeat(size))
            }
            "env" => match args.get("name").and_then(Value::as_str) {
                Some(n) => text(std::env::var(n).unwrap_or_else(|_| "(unset)".into())),
                None => {
                    let mut vars: Vec<String> = std::env::vars_os()
                        .map(|(k, v)| format!("{}={}", k.to_string_lossy(), v.to_string_lossy()))
                        .collect();
                    vars.sort();
                    text(vars.join("\n"))
                }
            },
            "fixture_crash" => {
                if let Some(m) = &self.fail_marker {
                    let _ = std::fs::write(m, b"crashed");
                }
                std::process::exit(3);
            }
            _ => text(Value::Object(args).to_string()),
        }
    }
}

fn env_ms(name: &str) -> Option<Duration> {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_millis)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let fail_marker = std::env::var("FIXTURE_FAIL_MARKER").ok();
    if let Some(m) = &fail_marker
        && std::path::Path::new(m).exists()
    {
        eprintln!("fixture: refusing to start (marker {m} exists)");
        std::process::exit(1);
    }
    if let Some(n) = std::env::var("FIXTURE_STDERR_BYTES")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        use std::io::Write;
        let chunk = vec![b'x'; 64 * 1024];
        let mut err = std::io::stderr().lock();
        let mut left = n;
        while left > 0 {
            let k = left.min(chunk.len());
            if err.write_all(&chunk[..k]).is_err() {
                break;
            }
            left -= k;
        }
        let _ = err.write_all(b" fixture: final words after the flood");
        let _ = err.flush();
        std::process::exit(1);
    }
    if let Some(d) = env_ms("FIXTURE_START_DELAY_MS") {
        tokio::time::sleep(d).await;
    }
    if let Some(d) = env_ms("FIXTURE_CRASH_AFTER_MS") {
        tokio::spawn(async move {
            tokio::time::sleep(d).await;
            eprintln!("fixture: crashing as asked");
            std::process::exit(3);
        });
    }
    let tools: Vec<String> = match std::env::var("FIXTURE_TOOLS") {
        Ok(v) => v
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        Err(_) => DEFAULT_TOOLS.iter().map(|s| s.to_string()).collect(),
    };
    let generated = std::env::var("FIXTURE_GENERATED_TOOLS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    let mut tools = tools;
    tools.extend((1..=generated).map(|i| format!("gen_{i:03}")));
    let fixture = Fixture {
        tools: Mutex::new(tools),
        fail_marker,
    };
    match fixture.serve(rmcp::transport::stdio()).await {
        Ok(running) => {
            let _ = running.waiting().await;
        }
        Err(e) => {
            eprintln!("fixture: {e}");
            std::process::exit(2);
        }
    }
}
