//! Subagents (SPEC §15.3, decisions 0170–0173): the `task` tool runs a conversation on the
//! parent's route whose first request repeats the parent's request prefix byte for byte, so
//! the provider's cache serves it, and whose final answer is the call's result.
//!
//! The subagent's conversation is a log of its own that starts as a copy of the parent's
//! (up to and including the reply that made the call). Every event it adds is written into
//! the parent's log wrapped in `subagent/event`, so the parent log alone rebuilds every
//! subagent request through the one request builder. This module holds the tool's
//! declaration, its arguments and the model-facing texts; `run.rs` the subagent's own loop;
//! the parent's side is `agent::turn::task`.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::session::event::ToolSchema;
pub use crate::session::subagent_event::SubagentMode;
use crate::tools::registry::RegisteredTool;
use crate::tools::{Approval, ToolExecutor, ToolOutcome};

pub mod log;
pub(crate) mod run;

/// The tool's name (SPEC §15.3).
pub const TASK: &str = "task";

/// The default of `[tools] max_subagents`: subagents of one step running at once.
pub use crate::config::DEFAULT_MAX_SUBAGENTS;

/// Most steps one subagent may take before it is stopped.
pub const MAX_SUBAGENT_STEPS: u64 = 32;

/// A subagent's answer is capped like an MCP tool's result.
pub const MAX_ANSWER_BYTES: usize = crate::tools::mcp::content::MAX_RESULT_BYTES;

/// The tools a read-only subagent may call: the built-in readers and the bridge's search.
/// Everything else (edits, `shell`, command and MCP tools, which may write) is refused.
pub const READ_ONLY_TOOLS: [&str; 4] = ["grep", "list_dir", "read_file", "tool_search"];

/// The declaration of `task`.
pub fn schema() -> ToolSchema {
    ToolSchema {
        name: TASK.to_string(),
        description: "Delegate a self-contained task to a subagent. The subagent sees this \
                      conversation up to this call, works with the same tools on its own, and \
                      its final answer is this call's result. Several `task` calls in one reply \
                      run at the same time. `mode` is `read-only` (the default: it may read and \
                      search, not change anything) or `inherit` (your tools and sandbox mode, \
                      with the same approvals). A subagent cannot start subagents."
            .to_string(),
        parameters: json!({
            "type": "object",
            "properties": {
                "description": {"type": "string", "description": "A short title of the task (3-6 words)."},
                "prompt": {"type": "string", "description": "The task: what to do and what to report back."},
                "mode": {"type": "string", "enum": ["read-only", "inherit"], "description": "What the subagent may do (default read-only)."}
            },
            "required": ["description", "prompt"]
        }),
        defer_loading: None,
    }
}

/// The `task` tool as the registry holds it: declared like any built-in, run by the loop.
pub fn tool() -> RegisteredTool {
    RegisteredTool {
        schema: schema(),
        // The subagent's own calls are approved one by one.
        approval: Approval::Never,
        enabled: true,
        executor: Arc::new(LoopOnly),
        parallel_safe: false,
    }
}

/// The registry's executor of `task`: the agent loop runs these calls itself (it owns the
/// log a subagent writes into), so a call that reaches the registry was made outside it.
struct LoopOnly;

impl ToolExecutor for LoopOnly {
    fn call<'a>(&'a self, _: Value, _: &'a CancellationToken) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(async {
            ToolOutcome::error("task can only be run by the agent loop, not as a plain tool call")
        })
    }
}

/// A `task` call's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskArgs {
    /// A short title.
    pub description: String,
    /// The task.
    pub prompt: String,
    /// What the subagent may do.
    pub mode: SubagentMode,
}

impl TaskArgs {
    /// Parses raw JSON arguments; the error is the tool error the model reads.
    pub fn parse(arguments: &str) -> Result<TaskArgs, String> {
        let v: Value = serde_json::from_str(arguments)
            .map_err(|e| format!("invalid arguments for tool \"task\": not valid JSON ({e})"))?;
        let field = |k: &str| v.get(k).and_then(Value::as_str).map(str::trim);
        let prompt = field("prompt").filter(|p| !p.is_empty()).ok_or(
            "invalid arguments for tool \"task\": `prompt` (a non-empty string) is required",
        )?;
        let description = field("description").unwrap_or_default();
        let mode = match v.get("mode") {
            None | Some(Value::Null) => SubagentMode::ReadOnly,
            Some(Value::String(s)) if s == "read-only" => SubagentMode::ReadOnly,
            Some(Value::String(s)) if s == "inherit" => SubagentMode::Inherit,
            Some(other) => {
                return Err(format!(
                    "invalid arguments for tool \"task\": `mode` is \"read-only\" or \"inherit\", \
                     not {other}"
                ));
            }
        };
        Ok(TaskArgs {
            description: description.to_string(),
            prompt: prompt.to_string(),
            mode,
        })
    }
}

/// The user message that gives a subagent its task (after the parent's prefix).
pub fn task_message(agent: &str, args: &TaskArgs) -> String {
    let mode = match args.mode {
        SubagentMode::ReadOnly => {
            "You are read-only: read and search, change nothing (tools that write or run \
             commands are refused)."
        }
        SubagentMode::Inherit => {
            "You have the agent's tools and sandbox mode; its approvals apply to your calls."
        }
    };
    format!(
        "You are subagent {agent}, started by the agent above through its `task` call. Work \
         on this task alone, with the tools. {mode} You cannot start subagents. End with a \
         final answer for the agent: it becomes the result of its call.\n\nTask: {}\n\n{}",
        args.description, args.prompt
    )
}

/// The result the subagent's conversation gives the `task` call that started it.
pub fn own_call_result(agent: &str) -> String {
    format!("This call runs as subagent {agent}: the task follows in the next message.")
}

/// The result the subagent's conversation gives the reply's other calls.
pub const OTHER_CALL_RESULT: &str =
    "This call is the agent's own; its result is not part of this subagent's conversation.";

/// The refusal of `task` inside a subagent.
pub const NESTED_REFUSAL: &str =
    "a subagent cannot start subagents: do this part of the task yourself";

/// The refusal of a tool a read-only subagent may not call.
pub fn read_only_refusal(agent: &str, name: &str) -> String {
    format!(
        "subagent {agent} is read-only: \"{name}\" may change something, so it is not run; \
         report what should be done instead"
    )
}

/// A subagent's final answer as the call's result: capped like any result, never empty.
pub fn answer(text: String) -> String {
    let mut text = text;
    if text.trim().is_empty() {
        return "the subagent ended without an answer".to_string();
    }
    if crate::tools::truncate_utf8(&mut text, MAX_ANSWER_BYTES) {
        text.push_str("\n[result truncated]");
    }
    text
}

#[cfg(test)]
mod tests;
