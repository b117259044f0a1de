//! The request path's sample session (benches/request_path.rs, examples/write_body.rs):
//! about `n` messages of turns user → assistant tool call → tool result → assistant
//! answer, on a DeepSeek-like route of either wire protocol, planned through the one
//! request path so the header is logged as in a real session.

use serde_json::json;

use crate::agent::prompt::RequestSeries;
use crate::agent::request::{AttemptInput, plan_attempt};
use crate::llm::types::{ProviderKind, Route};
use crate::session::Session;
use crate::session::event::*;

pub fn route(kind: ProviderKind) -> Route {
    let messages = kind == ProviderKind::DeepseekMessages;
    Route {
        provider: "deepseek".into(),
        model: "deepseek-flash".into(),
        kind,
        base_url: "http://127.0.0.1:1".into(),
        api_key_env: "KEY".into(),
        caps: crate::llm::types::Capabilities {
            context_window: 1_000_000,
            system_prompt_update: messages.then_some(SystemPromptUpdate::InHistory),
            tool_update: messages.then_some(ToolUpdateMode::InHistory),
            tool_removal: Default::default(),
            image_input: false,
            max_tools: 128,
            prices: None,
        },
    }
}

pub fn tools() -> Vec<ToolSchema> {
    (0..20)
        .map(|i| ToolSchema {
            name: format!("tool_{i:02}"),
            description: format!("tool {i}: does one thing."),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            defer_loading: None,
        })
        .collect()
}

const PROMPT: &str = "You are a helpful assistant.";

pub fn input(pending: Vec<Message>, turn: u64) -> AttemptInput<'static> {
    AttemptInput {
        rendered: PROMPT,
        tools: tools(),
        deferred: Vec::new(),
        pending_user: pending,
        turn,
        step: 1,
        explicit_series_start: false,
        effort: None,
    }
}

/// A session of about `n` messages: turns of user → assistant tool call → tool result →
/// assistant answer (~100-byte texts), planned once so the header is logged.
pub fn session(n: usize, route: &Route) -> (Session, RequestSeries) {
    let mut s = Session::new("bench", "/");
    let mut series = RequestSeries::attach(&s);
    let mut turn = 0;
    let text =
        "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt";
    while (turn as usize) * 4 < n {
        turn += 1;
        let user = Message::text(Role::User, format!("{turn}: {text}"), Source::kind("user"));
        plan_attempt(
            &mut s,
            &mut series,
            route,
            input(vec![user], turn),
            &mut |_| {},
        )
        .expect("plan");
        let call = Message::new(
            Role::Assistant,
            vec![Block::ToolCall {
                id: format!("call_{turn}"),
                name: "tool_01".into(),
                arguments: "{\"path\":\"/tmp/x\"}".into(),
            }],
            Source::kind("model"),
        );
        let push = |s: &mut Session, message: Message, kind: &str| {
            let ev = match kind {
                "assistant" => EventKind::AssistantMessage(AssistantMessageData {
                    turn,
                    step: 1,
                    message,
                    usage: None,
                    timing: None,
                    interrupted: None,
                }),
                _ => EventKind::ToolResult(ToolResultData {
                    turn,
                    step: 1,
                    message,
                    error: None,
                    sandbox_retry: None,
                }),
            };
            s.push(ev).expect("push");
        };
        push(&mut s, call, "assistant");
        let mut result = Message::text(Role::Tool, text, Source::kind("tool"));
        result.tool_call_id = Some(format!("call_{turn}"));
        push(&mut s, result, "tool");
        push(
            &mut s,
            Message::text(Role::Assistant, text, Source::kind("model")),
            "assistant",
        );
    }
    (s, series)
}
