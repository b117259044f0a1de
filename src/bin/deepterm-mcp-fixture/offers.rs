//! What the fixture offers besides tools: prompts and resources.
//!
//! - `FIXTURE_HOSTILE_PROMPTS=1`: prompts whose names hold an escape sequence, a space or
//!   300 characters, next to `greet` (argument `who`, required) whose description holds
//!   control characters and is 10,000 characters long; `greet` answers "Hello WHO".
//! - `FIXTURE_PROMPTS=a,b`: plain prompts without arguments, each answering
//!   "Prompt NAME says hello."; the one named `stall` never answers: it appends
//!   `waiting prompts/get` to `FIXTURE_CANCEL_LOG`, waits until the client cancels it
//!   (`notifications/cancelled`), then appends `cancelled prompts/get`. The list announces `listChanged`: the tools
//!   `fixture_add_prompt {name}` and `fixture_remove_prompt {name}` (when named in
//!   `FIXTURE_TOOLS`) change it and send `notifications/prompts/list_changed` before
//!   they answer.
//! - `FIXTURE_RESOURCES=1`: the resources `fixture://hello` (a line of text) and
//!   `fixture://stall`, whose read waits like the `stall` prompt and logs
//!   `waiting resources/read`, then `cancelled resources/read`.

use std::sync::Mutex;

use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult,
    ListResourcesResult, Prompt, PromptArgument, PromptMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, Role, ServerCapabilities,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, Peer};

use super::append_line;

/// The fixture's prompts and resources.
pub struct Offers {
    hostile: bool,
    /// `FIXTURE_PROMPTS` was set: plain prompts, changeable by the tools.
    plain: bool,
    prompts: Mutex<Vec<String>>,
    resources: bool,
}

fn flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v == "1")
}

impl Offers {
    /// The offers the environment asks for.
    pub fn from_env() -> Offers {
        let listed = std::env::var("FIXTURE_PROMPTS").ok();
        Offers {
            hostile: flag("FIXTURE_HOSTILE_PROMPTS"),
            plain: listed.is_some(),
            prompts: Mutex::new(
                listed
                    .unwrap_or_default()
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect(),
            ),
            resources: flag("FIXTURE_RESOURCES"),
        }
    }

    /// Adds the prompts and resources capabilities the offers need to `caps`.
    pub fn capabilities(&self, caps: &mut ServerCapabilities) {
        if self.plain {
            caps.prompts = ServerCapabilities::builder()
                .enable_prompts()
                .enable_prompts_list_changed()
                .build()
                .prompts;
        } else if self.hostile {
            caps.prompts = ServerCapabilities::builder()
                .enable_prompts()
                .build()
                .prompts;
        }
        if self.resources {
            caps.resources = ServerCapabilities::builder()
                .enable_resources()
                .build()
                .resources;
        }
    }

    fn names(&self) -> Vec<String> {
        self.prompts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// `fixture_add_prompt` / `fixture_remove_prompt`: changes the list and says so.
    pub async fn change(&self, add: bool, name: &str, peer: &Peer<RoleServer>) -> String {
        {
            let mut list = self.prompts.lock().unwrap_or_else(|p| p.into_inner());
            if add {
                if !list.iter().any(|p| p == name) {
                    list.push(name.to_string());
                }
            } else {
                list.retain(|p| p != name);
            }
        }
        let _ = peer.notify_prompt_list_changed().await;
        format!("prompts now: {}", self.names().join(","))
    }

    pub fn list_prompts(&self) -> ListPromptsResult {
        let mut out: Vec<Prompt> = self
            .names()
            .into_iter()
            .map(|n| Prompt::new(n.clone(), Some(format!("The fixture's {n} prompt")), None))
            .collect();
        if self.hostile {
            let plain = |name: String| Prompt::new(name, Some("a prompt"), None);
            let description = format!("Greets\n\u{1b}[2Jsomeone\u{7}{}", "x".repeat(10_000));
            out.extend([
                plain("evil\u{1b}[31m".into()),
                plain("two words".into()),
                plain("p".repeat(300)),
                Prompt::new(
                    "greet",
                    Some(description),
                    Some(vec![PromptArgument::new("who").with_required(true)]),
                ),
            ]);
        }
        ListPromptsResult::with_all_items(out)
    }

    pub async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let text = match request.name.as_str() {
            "stall" => {
                stall(&context, "cancelled prompts/get").await;
                return Err(ErrorData::internal_error("cancelled", None));
            }
            "greet" if self.hostile => {
                let args = request.arguments.unwrap_or_default();
                let who = args.get("who").and_then(|v| v.as_str()).unwrap_or_default();
                format!("Hello {who}")
            }
            n if self.names().iter().any(|p| p == n) => format!("Prompt {n} says hello."),
            n => {
                return Err(ErrorData::invalid_params(
                    format!("no prompt named {n}"),
                    None,
                ));
            }
        };
        Ok(GetPromptResponse::Complete(GetPromptResult::new(vec![
            PromptMessage::new_text(Role::User, text),
        ])))
    }

    pub fn list_resources(&self) -> ListResourcesResult {
        ListResourcesResult::with_all_items(vec![
            Resource::new("fixture://hello", "hello").with_mime_type("text/plain"),
            Resource::new("fixture://stall", "stall").with_mime_type("text/plain"),
        ])
    }

    pub async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        match request.uri.as_str() {
            "fixture://hello" => Ok(ReadResourceResponse::Complete(ReadResourceResult::new(
                vec![ResourceContents::text(
                    "hello from the fixture",
                    "fixture://hello",
                )],
            ))),
            "fixture://stall" => {
                stall(&context, "cancelled resources/read").await;
                Err(ErrorData::internal_error("cancelled", None))
            }
            other => Err(ErrorData::resource_not_found(
                format!("no resource {other}"),
                None,
            )),
        }
    }
}

/// Logs `waiting METHOD`, waits until the client cancels the request, then logs `line`.
async fn stall(context: &RequestContext<RoleServer>, line: &str) {
    let log = std::env::var("FIXTURE_CANCEL_LOG").ok();
    if let Some(path) = &log {
        append_line(path, &line.replace("cancelled", "waiting"));
    }
    context.ct.cancelled().await;
    if let Some(path) = &log {
        append_line(path, line);
    }
}
