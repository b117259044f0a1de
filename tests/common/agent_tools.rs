//! In-process tools for tests that drive the agent loop directly: a tool from a closure,
//! registering a batch as an MCP-like source, and the T-2 cache fixture's control tool
//! (SPEC T-2) and the developer messages it logs, shared by the simulator scenarios and the
//! live run.

use std::sync::{Arc, Mutex};

use deepterm::agent::protocol::AgentEvent;
use deepterm::agent::run::{Agent, ApprovalMode, Background};
use deepterm::config::ApiKey;
use deepterm::i18n::{Locale, Localizer};
use deepterm::llm::types::Route;
use deepterm::session::Session;
use deepterm::session::event::{Block, Event, EventKind, ToolSchema};
use deepterm::tools::{Approval, RegisteredTool, ToolExecutor, ToolOutcome, ToolSource};
use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The prompt guidance the T-2 fixture adds when it also updates the prompt.
pub const GUIDANCE: &str = "Place each generated sample label on its own line.";

/// A tool executor from a closure.
pub struct FnTool<F>(pub F);

impl<F> ToolExecutor for FnTool<F>
where
    F: Fn(Value) -> ToolOutcome + Send + Sync,
{
    fn call<'a>(
        &'a self,
        arguments: Value,
        _cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, ToolOutcome> {
        let out = (self.0)(arguments);
        Box::pin(async move { out })
    }
}

/// A tool schema that is declared in full (not deferred).
pub fn schema(name: &str, description: &str, parameters: Value) -> ToolSchema {
    ToolSchema {
        name: name.into(),
        description: description.into(),
        parameters,
        defer_loading: None,
    }
}

/// An enabled tool that needs no approval and runs alone.
pub fn tool(schema: ToolSchema, executor: Arc<dyn ToolExecutor>) -> RegisteredTool {
    RegisteredTool {
        schema,
        approval: Approval::Never,
        enabled: true,
        executor,
        parallel_safe: false,
    }
}

/// Registers tools under an MCP-like source (applied at the next attempt boundary).
pub fn register(bg: &mpsc::UnboundedSender<Background>, source: &str, tools: Vec<RegisteredTool>) {
    bg.send(Background::Tools {
        source: ToolSource::Mcp(source.into()),
        tools,
    })
    .expect("the loop receives background changes");
}

/// The T-2 fixture's `cache_tool_control(action: add|remove)`: `add` registers `sample`
/// under the source `fixture` and, with `update_prompt`, appends [`GUIDANCE`] to `prompt`;
/// `remove` unregisters it.
pub fn cache_tool_control(
    bg: &mpsc::UnboundedSender<Background>,
    prompt: &Arc<Mutex<String>>,
    sample: RegisteredTool,
    update_prompt: bool,
) -> RegisteredTool {
    let (bg, prompt) = (bg.clone(), prompt.clone());
    tool(
        schema(
            "cache_tool_control",
            "Add or remove the cache_sample tool.",
            json!({
                "type": "object",
                "properties": {"action": {"type": "string", "enum": ["add", "remove"]}},
                "required": ["action"]
            }),
        ),
        Arc::new(FnTool(move |args: Value| {
            match args.get("action").and_then(Value::as_str) {
                Some("add") => {
                    register(&bg, "fixture", vec![sample.clone()]);
                    if update_prompt {
                        let mut p = prompt.lock().unwrap();
                        p.push_str("\n\n");
                        p.push_str(GUIDANCE);
                    }
                    ToolOutcome::ok("cache_sample is now available")
                }
                Some("remove") => {
                    register(&bg, "fixture", vec![]);
                    ToolOutcome::ok("cache_sample was removed")
                }
                _ => ToolOutcome::error("action must be add or remove"),
            }
        })),
    )
}

/// Developer messages as lists of `tool-addition NAME` / `tool-removal NAME`.
pub fn developer_blocks(events: &[Arc<Event>]) -> Vec<Vec<String>> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::DeveloperMessage(d) => Some(
                d.message
                    .content
                    .iter()
                    .map(|b| match b {
                        Block::ToolAddition { tool_name, .. } => {
                            format!("tool-addition {tool_name}")
                        }
                        Block::ToolRemoval { tool_name } => format!("tool-removal {tool_name}"),
                        other => format!("{other:?}"),
                    })
                    .collect(),
            ),
            _ => None,
        })
        .collect()
}

/// An agent on `route` for loop tests that drive it in process: a new session `id`, no
/// registered tools, the base prompt read from `prompt` ([`super::PromptEnv`]), the default
/// locale, and every tool call allowed.
pub fn prompt_agent(
    id: &str,
    route: Route,
    key: ApiKey,
    prompt: &Arc<Mutex<String>>,
    events: mpsc::UnboundedSender<AgentEvent>,
) -> Agent {
    prompt_agent_builder(id, route, key, prompt, events)
        .build()
        .expect("agent builds")
}

/// [`prompt_agent`]'s parts, for a test that adds its own (a short retry policy, a short
/// idle timeout) before building.
pub fn prompt_agent_builder(
    id: &str,
    route: Route,
    key: ApiKey,
    prompt: &Arc<Mutex<String>>,
    events: mpsc::UnboundedSender<AgentEvent>,
) -> deepterm::agent::run::AgentBuilder {
    Agent::builder(
        Session::new(id, "/tmp"),
        route,
        Box::new(super::PromptEnv {
            prompt: prompt.clone(),
        }),
        Localizer::new(Locale::default()),
        events,
    )
    .key(Some(key))
    .tools(deepterm::tools::ToolRegistry::new())
    .approval(ApprovalMode::AllowAll)
}
