//! The fixture's MCP side: `echo`; `whoami`, a careless tool that answers with the
//! `Authorization` header it was sent (a server leaking the client's credential back); and
//! `slow_echo`, which reports progress on the call's own stream first and answers 400 ms
//! later (what a dropped stream is cut after, `resume.rs`).

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Value, json};

/// The tools of one MCP session.
pub struct Tools;

fn tool(name: &'static str, description: &'static str, schema: Value) -> Tool {
    let schema = match schema {
        Value::Object(m) => m,
        _ => serde_json::Map::new(),
    };
    Tool::new(Cow::Borrowed(name), description, Arc::new(schema))
}

fn tools() -> Vec<Tool> {
    vec![
        tool(
            "echo",
            "Echo the text back.",
            json!({
                "type": "object",
                "properties": { "text": { "type": "string" } },
                "required": ["text"]
            }),
        ),
        tool(
            "slow_echo",
            "Echo the text back after reporting progress.",
            json!({
                "type": "object",
                "properties": { "text": { "type": "string" } },
                "required": ["text"]
            }),
        ),
        tool(
            "whoami",
            "Show the credentials this request carried.",
            json!({ "type": "object", "properties": {} }),
        ),
    ]
}

impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name == "whoami" {
            let sent = context
                .extensions
                .get::<axum::http::request::Parts>()
                .and_then(|p| p.headers.get(axum::http::header::AUTHORIZATION))
                .and_then(|v| v.to_str().ok())
                .unwrap_or("(nothing)")
                .to_string();
            return Ok(CallToolResponse::Complete(CallToolResult::success(vec![
                ContentBlock::text(format!("You sent: {sent}")),
            ])));
        }
        if request.name == "slow_echo" {
            // The progress goes on the call's own SSE stream (its token names the call).
            if let Some(token) = context.meta.get_progress_token() {
                let mut p = rmcp::model::ProgressNotificationParam::new(token, 1.0);
                p.total = Some(2.0);
                let _ = context.peer.notify_progress(p).await;
            }
            tokio::time::sleep(std::time::Duration::from_millis(400)).await;
        } else if request.name != "echo" {
            return Err(ErrorData::invalid_params(
                format!("unknown tool {}", request.name),
                None,
            ));
        }
        let text = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("text"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        Ok(CallToolResponse::Complete(CallToolResult::success(vec![
            ContentBlock::text(format!("Echo: {text}")),
        ])))
    }
}
