//! Key values never reach the log or a request body, whatever carries them: the system
//! prompt, a tool schema, user text, assistant text (decision 0030). Each case also runs
//! without the secrets set, showing the key does get through then, so the checks cannot
//! pass vacuously.

use std::sync::{Arc, Mutex};

use serde_json::json;

use super::*;
use crate::llm::client::build_wire;
use crate::secret::Secrets;
use crate::session::event::{
    AssistantMessageData, Block, SystemPromptUpdate, ToolRemoval, ToolUpdateMode,
};
use crate::session::{EventSink, SinkError};

const KEY: &str = "sk-redaction-canary-5d1e9f07";

/// A sink keeping every line as written.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

impl EventSink for Lines {
    fn write(&mut self, ev: &Event) -> Result<(), crate::session::SinkError> {
        let mut b = self.0.lock().unwrap();
        serde_json::to_writer(&mut *b, ev).map_err(|e| SinkError::Write(e.to_string()))?;
        b.push(b'\n');
        Ok(())
    }
    fn sync(&mut self) -> Result<(), SinkError> {
        Ok(())
    }
}

fn route() -> Route {
    Route {
        provider: "deepseek".into(),
        model: "deepseek-flash".into(),
        kind: ProviderKind::DeepseekMessages,
        base_url: "http://127.0.0.1:1".into(),
        api_key_env: "KEY".into(),
        caps: crate::llm::types::Capabilities {
            context_window: 100_000,
            system_prompt_update: Some(SystemPromptUpdate::InHistory),
            tool_update: Some(ToolUpdateMode::InHistory),
            tool_removal: ToolRemoval::Omit,
            image_input: false,
            max_tools: 128,
            prices: None,
        },
    }
}

/// One session through two attempts: a prompt and a tool description holding the key, a
/// user message holding it, and an assistant reply echoing it. Returns what was logged,
/// every body that would be sent, and the number of system-prompt events logged.
fn run(secrets: Option<&Secrets>) -> (String, Vec<String>, usize) {
    let lines = Lines::default();
    let mut session = Session::create("s", "/ws", Box::new(lines.clone())).unwrap();
    if let Some(s) = secrets {
        session.set_secrets(s.clone());
    }
    let mut series = RequestSeries::attach(&session);
    let prompt = format!("You are deepterm.\n\nDEEPSEEK_API_KEY={KEY}\nHOME=/home/u");
    let tools = vec![ToolSchema {
        name: "lookup".into(),
        description: format!("Looks things up with {KEY}."),
        parameters: json!({"type": "object", "properties": {KEY: {"type": "string"}}}),
        defer_loading: None,
    }];
    let mut bodies = vec![];
    for step in 1..=2u64 {
        let pending = if step == 1 {
            vec![Message::text(
                Role::User,
                format!("my key is {KEY}, keep it"),
                Source::kind("user"),
            )]
        } else {
            vec![]
        };
        let input = AttemptInput {
            rendered: &prompt,
            tools: tools.clone(),
            deferred: Vec::new(),
            pending_user: pending,
            turn: 1,
            step,
            explicit_series_start: false,
            effort: None,
        };
        let plan = plan_attempt(&mut session, &mut series, &route(), input, &mut |_| {}).unwrap();
        series.record_request(session.content_generation());
        let wire = build_wire(&plan.opts).unwrap();
        bodies.push(String::from_utf8(wire.bytes).unwrap());
        if step == 1 {
            session
                .push(EventKind::AssistantMessage(AssistantMessageData {
                    turn: 1,
                    step: 1,
                    message: Message::new(
                        Role::Assistant,
                        vec![Block::text(format!("Your key {KEY} is noted."))],
                        Source::kind("model"),
                    ),
                    usage: None,
                    timing: None,
                    interrupted: None,
                }))
                .unwrap();
        }
    }
    let prompts = session
        .events()
        .iter()
        .filter(|e| matches!(e.kind, EventKind::SystemMessage(_)))
        .count();
    let log = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
    (log, bodies, prompts)
}

#[test]
fn a_key_in_the_prompt_tools_user_and_assistant_text_is_neither_logged_nor_sent() {
    let secrets = Secrets::new();
    secrets.add(KEY);
    let (log, bodies, prompts) = run(Some(&secrets));
    assert!(!log.contains(KEY), "the key was logged:\n{log}");
    for b in &bodies {
        assert!(!b.contains(KEY), "the key was sent: {b}");
    }
    // Each carrier is still there, redacted.
    let last = &bodies[1];
    assert!(last.contains("DEEPSEEK_API_KEY=[REDACTED]"), "{last}");
    assert!(last.contains("my key is [REDACTED], keep it"), "{last}");
    assert!(last.contains("Your key [REDACTED] is noted."), "{last}");
    assert!(last.contains("Looks things up with [REDACTED]."), "{last}");
    // The redacted prompt is compared with the redacted log: no update on every request.
    assert_eq!(prompts, 1, "{log}");
    assert_eq!(
        log.matches("\"type\":\"request/header\"").count(),
        1,
        "the redacted tools are compared with the redacted header: no new header"
    );
}

#[test]
fn without_the_secrets_the_same_session_logs_and_sends_the_key() {
    let (log, bodies, prompts) = run(None);
    assert!(log.contains(KEY));
    assert!(bodies.iter().all(|b| b.contains(KEY)));
    assert_eq!(prompts, 1);
}
