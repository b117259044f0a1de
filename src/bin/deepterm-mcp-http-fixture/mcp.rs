//! The fixture's MCP side: `echo`; `whoami`, a careless tool that answers with the
//! `Authorization` header it was sent (a server leaking the client's credential back); and
//! `slow_echo`, which reports progress on the call's own stream first and answers 400 ms
//! later (what a dropped stream is cut after, `resume.rs`).
//!
//! With `FIXTURE_LEAKY=1` it also offers the prompt `leaky` and the resource
//! `fixture://leaky`, and fails both with an error that quotes the `Authorization` header
//! it was sent, eight times over (a careless server whose error messages leak the
//! client's credential; long enough that a client cutting the text for display cuts it
//! inside a quoted credential).

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, ListPromptsResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, Prompt, ReadResourceRequestParams, ReadResourceResponse, Resource,
    ServerCapabilities, ServerConfig, Tool,
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

/// The `Authorization` header of the request `context` answers, as sent.
fn authorization(context: &RequestContext<RoleServer>) -> String {
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|p| p.headers.get(axum::http::header::AUTHORIZATION))
        .and_then(|v| v.to_str().ok())
        .unwrap_or("(nothing)")
        .to_string()
}

fn leaky() -> bool {
    std::env::var("FIXTURE_LEAKY").is_ok_and(|v| v == "1")
}

/// The leaky offers' error: the credential quoted again and again.
fn leak(what: &str, context: &RequestContext<RoleServer>) -> ErrorData {
    let sent = authorization(context);
    let quoted: Vec<String> = (1..=8).map(|i| format!("try {i}: {sent}")).collect();
    ErrorData::invalid_request(
        format!("{what} refused for the credentials {}", quoted.join("; ")),
        None,
    )
}

impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        let mut caps = ServerCapabilities::builder().enable_tools().build();
        if leaky() {
            caps.prompts = ServerCapabilities::builder()
                .enable_prompts()
                .build()
                .prompts;
            caps.resources = ServerCapabilities::builder()
                .enable_resources()
                .build()
                .resources;
        }
        ServerConfig::new(caps)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "leaky",
            Some("Fails, quoting your credentials"),
            None,
        )]))
    }

    async fn get_prompt(
        &self,
        _request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        Err(leak("prompt", &context))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![Resource::new(
            "fixture://leaky",
            "leaky",
        )]))
    }

    async fn read_resource(
        &self,
        _request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        Err(leak("resource", &context))
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
            let sent = authorization(&context);
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
