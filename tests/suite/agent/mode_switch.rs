//! A sandbox mode switch (SPEC §14.2; decision 0060) through the real loop against the
//! simulator: the request after `/mode read-only` repeats the previous request's bytes,
//! tools included, and only appends the note; the log holds the note once; the tool list
//! does not change.

use crate::common;

use std::sync::{Arc, Mutex};

use common::PromptEnv;
use deepterm::agent::run::{Agent, ApprovalMode};
use deepterm::config::{ApiKey, Config};
use deepterm::i18n::{Locale, Localizer};
use deepterm::sandbox::{AgentMode, SandboxMode};
use deepterm::session::Session;
use deepterm::session::event::{EventKind, MODE_NOTE_SOURCE, ToolSchema};
use deepterm::sim::{self, RecordedRequest, ScriptedReply, SimConfig};
use deepterm::tools::{Approval, RegisteredTool, ToolExecutor, ToolOutcome, ToolSource};
use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The simulator's cache unit in tokens.
const UNIT: u64 = 64;

struct Fixed;

impl ToolExecutor for Fixed {
    fn call<'a>(&'a self, _: Value, _: &'a CancellationToken) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(async { ToolOutcome::ok("done") })
    }
}

fn registry() -> deepterm::tools::ToolRegistry {
    let mut r = deepterm::tools::ToolRegistry::new();
    r.set_source_tools(
        ToolSource::Builtin,
        vec![RegisteredTool {
            schema: ToolSchema {
                name: "write_file".into(),
                description: "Create or replace a file.".into(),
                parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
                defer_loading: None,
            },
            approval: Approval::Never,
            enabled: true,
            executor: Arc::new(Fixed),
            parallel_safe: false,
        }],
    );
    r
}

struct Run {
    reqs: Vec<RecordedRequest>,
    notes: usize,
    mode: SandboxMode,
}

/// Two turns on `route` with `/mode read-only` between them.
async fn run(kind: &str, path: &str, model_caps: &str) -> Run {
    let sim = sim::start(SimConfig::default()).await.expect("simulator");
    let text = format!(
        r#"model = "sim/deepseek-flash"

[providers.sim]
kind = "{kind}"
base_url = "{}{path}"
api_key_env = "DEEPTERM_MODE_SWITCH_KEY_UNUSED"

[[providers.sim.models]]
id = "deepseek-flash"
{model_caps}
"#,
        sim.base_url()
    );
    let cfg = Config::parse(&text, None).expect("config parses");
    let route = cfg.resolve_route(None).expect("route resolves");
    let (tx, _rx) = mpsc::unbounded_channel();
    let mut agent = Agent::builder(
        Session::new("mode-switch", "/tmp"),
        route,
        Box::new(PromptEnv {
            prompt: Arc::new(Mutex::new("You are a test assistant.".to_string())),
        }),
        Localizer::new(Locale::default()),
        tx,
    )
    .key(Some(ApiKey::new("sk-mode-switch")))
    .tools(registry())
    .approval(ApprovalMode::AllowAll)
    .build()
    .expect("agent builds");
    let long: String = (0..40)
        .map(|i| format!("line {i:02}: a unique fact number {} to cache.\n", i * 7919))
        .collect();
    sim.push_reply(ScriptedReply::text("OK one"));
    assert_eq!(
        agent.handle_line(&format!("Remember:\n{long}")).await.error,
        None
    );
    assert_eq!(agent.handle_line("/mode read-only").await.error, None);
    sim.push_reply(ScriptedReply::text("OK two"));
    assert_eq!(agent.handle_line("Now what can you do?").await.error, None);
    let reqs = sim.requests();
    for r in &reqs {
        assert_eq!(r.status, 200, "request {} failed: {:?}", r.index, r.error);
    }
    let notes = agent
        .session()
        .events()
        .iter()
        .filter(|e| {
            matches!(&e.kind, EventKind::DeveloperMessage(d)
                if d.message.source.kind == MODE_NOTE_SOURCE)
        })
        .count();
    Run {
        reqs,
        notes,
        mode: agent.sandbox_mode(),
    }
}

/// The raw body up to the end of its messages (the `tools` key follows them).
fn messages_part(raw: &str) -> &str {
    let end = raw
        .rfind("],\"tools\":[")
        .expect("the body declares tools after its messages");
    &raw[..end]
}

fn assert_switch_kept_the_prefix(r: &Run) {
    assert_eq!(r.reqs.len(), 2, "the switch itself sends nothing");
    assert_eq!(r.mode, SandboxMode::ReadOnly);
    assert_eq!(r.notes, 1, "the log holds the change once");
    let (before, after) = (&r.reqs[0], &r.reqs[1]);
    // Byte prefix: everything the first request sent, in the same bytes.
    let prefix = messages_part(&before.raw_body);
    let prefix = prefix.trim_end_matches(['}', ']']);
    assert!(
        after.raw_body.starts_with(prefix),
        "the request after the switch must repeat the previous bytes"
    );
    // The tool list does not change: the edit tools stay declared and refuse instead.
    assert_eq!(after.body["tools"], before.body["tools"]);
    assert!(after.raw_body.contains("The sandbox mode is read-only"));
    assert!(!before.raw_body.contains("The sandbox mode is read-only"));
    let (b, a) = (before.cache.as_ref(), after.cache.as_ref());
    if let (Some(b), Some(a)) = (b, a) {
        assert!(
            a.hit_tokens + UNIT >= b.total_tokens,
            "the switch cost the cache: {a:?} after {b:?}"
        );
    }
}

#[tokio::test]
async fn a_mode_switch_on_deepseek_flash_keeps_the_cached_prefix_and_logs_the_note_once() {
    let r = run(
        "deepseek-messages",
        "/anthropic",
        "system_prompt_update = \"in-history\"\ntool_update = \"addition-only\"",
    )
    .await;
    assert_switch_kept_the_prefix(&r);
    // On the Messages route the note is user text, never a system message: DeepSeek
    // reads the latest system message as the whole prompt.
    let msgs = r.reqs[1].body["messages"].as_array().unwrap().clone();
    let with_note: Vec<&Value> = msgs
        .iter()
        .filter(|m| m.to_string().contains("The sandbox mode is read-only"))
        .collect();
    assert_eq!(with_note.len(), 1);
    assert_eq!(with_note[0]["role"], "user");
}

#[tokio::test]
async fn a_mode_switch_on_a_route_without_tool_updates_still_reaches_the_model_after_the_prefix() {
    let r = run("openai-chat", "", "").await;
    assert_switch_kept_the_prefix(&r);
    let msgs = r.reqs[1].body["messages"].as_array().unwrap().clone();
    let i = msgs
        .iter()
        .position(|m| m.to_string().contains("The sandbox mode is read-only"))
        .expect("the note is sent");
    assert_eq!(msgs[i]["role"], "user");
    assert_eq!(
        i,
        msgs.len() - 2,
        "the note sits before the new user message"
    );
}

fn agent_on(session: Session, mode: SandboxMode) -> Agent {
    let cfg = Config::parse(
        "model = \"sim/deepseek-flash\"\n[providers.sim]\nkind = \"deepseek-messages\"\n\
         base_url = \"http://127.0.0.1:9/anthropic\"\napi_key_env = \"DEEPTERM_MODE_RESUME_UNUSED\"\n",
        None,
    )
    .expect("config parses");
    let dir = std::env::temp_dir();
    let handle = deepterm::sandbox::handle::SandboxHandle::for_workspace(&dir);
    handle.scope.write().unwrap().mode = mode;
    let (tx, _rx) = mpsc::unbounded_channel();
    Agent::builder(
        session,
        cfg.resolve_route(None).expect("route"),
        Box::new(PromptEnv {
            prompt: Arc::new(Mutex::new("You are a test assistant.".to_string())),
        }),
        Localizer::new(Locale::default()),
        tx,
    )
    .key(Some(ApiKey::new("sk-mode-resume")))
    .tools(registry())
    .approval(ApprovalMode::AllowAll)
    .sandbox(handle)
    .build()
    .expect("agent builds")
}

/// A resumed session keeps a stricter mode it switched to, but a log cannot widen the
/// sandbox: a logged `full-access` over a configured `workspace-write` stays
/// `workspace-write`, and the model is told so with a new note.
#[tokio::test]
async fn resume_keeps_a_stricter_logged_mode_and_never_widens_the_sandbox() {
    for (logged, configured, expected, notes_after) in [
        (
            SandboxMode::ReadOnly,
            SandboxMode::WorkspaceWrite,
            SandboxMode::ReadOnly,
            1,
        ),
        (
            SandboxMode::FullAccess,
            SandboxMode::WorkspaceWrite,
            SandboxMode::WorkspaceWrite,
            2,
        ),
    ] {
        let mut first = agent_on(Session::new("mode-resume", "/tmp"), SandboxMode::ReadOnly);
        if logged != SandboxMode::ReadOnly {
            assert_eq!(
                first
                    .handle_line(&format!("/mode {}", logged.as_str()))
                    .await
                    .error,
                None
            );
        } else {
            assert_eq!(first.handle_line("/mode workspace-write").await.error, None);
            assert_eq!(first.handle_line("/mode read-only").await.error, None);
        }
        let events: Vec<_> = first
            .session()
            .events()
            .iter()
            .map(|e| (**e).clone())
            .collect();
        let before = events.len();
        let mut resumed = agent_on(Session::from_events(events).unwrap(), configured);
        resumed.restore_tool_state();
        assert_eq!(resumed.sandbox_mode(), expected, "logged {logged:?}");
        let notes = resumed.session().events()[before..]
            .iter()
            .filter(|e| {
                matches!(&e.kind, EventKind::DeveloperMessage(d)
                if d.message.source.kind == MODE_NOTE_SOURCE)
            })
            .count();
        assert_eq!(
            notes,
            notes_after - 1,
            "logged {logged:?}: a note only when widening was refused"
        );
    }
}

/// The Shift+Tab cycle through plan mode (SPEC §15.3): workspace-write → plan → read-only →
/// workspace-write, a turn after each switch. Every request repeats the previous one's
/// bytes and tools and adds only the note and the new turn; the plan note asks for
/// `update_plan` and no change.
#[tokio::test]
async fn every_switch_of_the_shift_tab_cycle_through_plan_mode_keeps_the_cached_prefix() {
    let sim = sim::start(SimConfig::default()).await.expect("simulator");
    let text = format!(
        "model = \"sim/deepseek-flash\"\n[providers.sim]\nkind = \"deepseek-messages\"\n\
         base_url = \"{}/anthropic\"\napi_key_env = \"DEEPTERM_MODE_CYCLE_UNUSED\"\n\
         [[providers.sim.models]]\nid = \"deepseek-flash\"\n\
         system_prompt_update = \"in-history\"\ntool_update = \"addition-only\"\n",
        sim.base_url()
    );
    let cfg = Config::parse(&text, None).expect("config parses");
    let (tx, _rx) = mpsc::unbounded_channel();
    let mut agent = Agent::builder(
        Session::new("mode-cycle", "/tmp"),
        cfg.resolve_route(None).expect("route"),
        Box::new(PromptEnv {
            prompt: Arc::new(Mutex::new("You are a test assistant.".to_string())),
        }),
        Localizer::new(Locale::default()),
        tx,
    )
    .key(Some(ApiKey::new("sk-mode-cycle")))
    .tools(registry())
    .approval(ApprovalMode::AllowAll)
    .build()
    .expect("agent builds");
    let long: String = (0..40)
        .map(|i| format!("line {i:02}: a unique fact number {} to cache.\n", i * 7919))
        .collect();
    sim.push_reply(ScriptedReply::text("OK"));
    assert_eq!(
        agent.handle_line(&format!("Remember:\n{long}")).await.error,
        None
    );
    let mut mode = AgentMode::WorkspaceWrite;
    for _ in 0..3 {
        mode = deepterm::agent::mode::shift_tab_next(mode);
        assert_eq!(
            agent
                .handle_line(&format!("/mode {}", mode.as_str()))
                .await
                .error,
            None
        );
        assert_eq!(agent.agent_mode(), mode);
        sim.push_reply(ScriptedReply::text("OK"));
        assert_eq!(agent.handle_line("And now?").await.error, None);
    }
    assert_eq!(mode, AgentMode::WorkspaceWrite, "the cycle comes back");
    let reqs = sim.requests();
    assert_eq!(reqs.len(), 4);
    for pair in reqs.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        assert_eq!(after.status, 200, "{:?}", after.error);
        let prefix = messages_part(&before.raw_body).trim_end_matches(['}', ']']);
        assert!(
            after.raw_body.starts_with(prefix),
            "a switch kept the bytes"
        );
        assert_eq!(after.body["tools"], before.body["tools"]);
        if let (Some(b), Some(a)) = (before.cache.as_ref(), after.cache.as_ref()) {
            assert!(a.hit_tokens + UNIT >= b.total_tokens, "{a:?} after {b:?}");
        }
    }
    let plan_note = "The user switched to plan mode";
    assert!(!reqs[0].raw_body.contains(plan_note));
    assert!(reqs[1].raw_body.contains(plan_note));
    assert!(reqs[1].raw_body.contains("call update_plan with the steps"));
    assert!(reqs[1].raw_body.contains("Change nothing"));
}

/// A session left in plan mode resumes in plan mode: the mode is read-only underneath, so
/// it is no looser than a configured `workspace-write`.
#[tokio::test]
async fn a_session_left_in_plan_mode_resumes_in_plan_mode() {
    let mut first = agent_on(
        Session::new("plan-resume", "/tmp"),
        SandboxMode::WorkspaceWrite,
    );
    assert_eq!(first.handle_line("/mode plan").await.error, None);
    let events: Vec<_> = first
        .session()
        .events()
        .iter()
        .map(|e| (**e).clone())
        .collect();
    let mut resumed = agent_on(
        Session::from_events(events).unwrap(),
        SandboxMode::WorkspaceWrite,
    );
    resumed.restore_tool_state();
    assert_eq!(resumed.agent_mode(), AgentMode::Plan);
    assert_eq!(resumed.sandbox_mode(), SandboxMode::ReadOnly);
}
