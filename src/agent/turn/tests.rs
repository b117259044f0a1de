//! The turn runner over parts of its own, with no agent around it (decision 0106): what it
//! needs is what it is given.

use std::path::PathBuf;

use tokio::sync::mpsc;

use super::*;
use crate::agent::env_error::EnvError;
use crate::agent::environment::Environment;
use crate::agent::hooks::Hooks;
use crate::agent::request::sample_session::route;
use crate::agent::tool_runner::ToolRunner;
use crate::checkpoint::Checkpointer;
use crate::config::ApiKey;
use crate::i18n::Locale;
use crate::llm::client::ProviderClient;
use crate::llm::retry::RetryPolicy;
use crate::llm::types::{ProviderKind, Route};
use crate::sandbox::handle::SandboxHandle;
use crate::session::Session;
use crate::session::event::{AssistantMessageData, Block, Message, Role, Source};
use crate::tools::registry::ToolRegistry;

/// Surroundings that offer nothing but a base prompt.
struct Bare;

impl Environment for Bare {
    fn resolve_route(&self, _spec: &str) -> Result<(Route, Option<ApiKey>), EnvError> {
        Err(EnvError::Unsupported)
    }
    fn save_locale(&self, _locale: Locale) -> Result<(), EnvError> {
        Err(EnvError::Unsupported)
    }
    fn base_prompt(&self) -> String {
        "base".into()
    }
    fn new_session(&self) -> Result<(Session, PathBuf), EnvError> {
        Err(EnvError::Unsupported)
    }
    fn open_session(
        &self,
        _query: &str,
        _current_id: &str,
    ) -> Result<(Session, PathBuf, Option<crate::session::store::TornTail>), EnvError> {
        Err(EnvError::Unsupported)
    }
    fn list_sessions(&self, _current_id: &str) -> Vec<String> {
        vec![]
    }
}

#[test]
fn a_runner_built_from_parts_answers_the_calls_a_stopped_session_left_open() {
    // A log that ends with a tool call and no result (deepterm stopped while it ran).
    let mut session = Session::new("s", "/tmp");
    session
        .push(EventKind::AssistantMessage(AssistantMessageData {
            turn: 1,
            step: 1,
            message: Message::new(
                Role::Assistant,
                vec![Block::ToolCall {
                    id: "call_1".into(),
                    name: "shell".into(),
                    arguments: "{}".into(),
                }],
                Source::kind("model"),
            ),
            usage: None,
            timing: None,
            interrupted: None,
        }))
        .unwrap();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let route = route(ProviderKind::DeepseekMessages);
    let mut state = SessionState::open(session);
    let mut inbox = Inbox::detached(tx.clone());
    let mut tools = ToolRunner::new(
        ToolRegistry::new(),
        ApprovalMode::DenyAll,
        None,
        Default::default(),
    );
    let events = Emitter::new(tx);
    let mut services = TurnServices {
        client: ProviderClient::new(route.clone(), None).unwrap(),
        route,
        retry: RetryPolicy::default(),
        env: Box::new(Bare),
        hooks: Hooks::default(),
        checkpoints: Checkpointer::default(),
        sandbox: SandboxHandle::for_workspace(std::path::Path::new("/tmp")),
        max_subagents: 4,
    };
    let mut background = BackgroundChanges::new();
    let mut runner = TurnRunner {
        state: &mut state,
        inbox: &mut inbox,
        tools: &mut tools,
        events: &events,
        services: &mut services,
        background: &mut background,
        l: Localizer::new(Locale::EnUs),
    };
    assert_eq!(runner.render_prompt(), "base");
    runner.repair_unanswered_calls().unwrap();

    // The answer is in the session it was lent, and the UI heard of it through the
    // emitter it was lent.
    let last = state.session.events().last().unwrap().clone();
    match &last.kind {
        EventKind::ToolResult(r) => {
            assert_eq!(r.message.tool_call_id.as_deref(), Some("call_1"));
            assert_eq!(r.message.is_error, Some(true));
        }
        other => panic!("expected the repaired result, got {other:?}"),
    }
    let told = std::iter::from_fn(|| rx.try_recv().ok())
        .any(|e| matches!(e, AgentEvent::Committed(ev) if ev.seq == last.seq));
    assert!(told, "the committed result reached the emitter's channel");
}
