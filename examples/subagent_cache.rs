//! What a subagent costs the cache, and how parallel subagents take time:
//! `cargo run --release --example subagent_cache`.
//!
//! Drives the real agent loop against the in-process simulator (SPEC §9's prefix-cache
//! model, 64-token units). First a 10-turn session on the `deepseek-flash` Messages route
//! whose 10th turn delegates with one `task` call: the table shows the tokens of the
//! parent's request that made the call and what the subagent's first request read from the
//! cache (SPEC §15.3: hit ≥ the parent's prefix). Then one reply with four `task` calls
//! against a simulator that streams with a fixed delay per event, the subagents' answers of
//! different lengths: the time the four took together against the slowest one alone and
//! against their sum (one after the other).
//!
//! The last lines read `subagent cache: parent prefix P tokens, first subagent request hit
//! H of T (miss M)` and `four subagents: W ms together, slowest S ms, sum U ms`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use deepterm::agent::env_error::EnvError;
use deepterm::agent::run::{Agent, ApprovalMode, Environment};
use deepterm::agent::subagent;
use deepterm::config::{ApiKey, Config};
use deepterm::i18n::{Locale, Localizer};
use deepterm::llm::types::Route;
use deepterm::sandbox::SandboxMode;
use deepterm::session::Session;
use deepterm::session::event::EventKind;
use deepterm::sim::{self, ScriptedReply, SimConfig, SimHandle};
use serde_json::json;

const PROMPT: &str = "You are deepterm, a terminal coding agent. Work in the user's \
workspace with the tools; delegate self-contained research to subagents with `task`.";

struct Env;

impl Environment for Env {
    fn resolve_route(&self, _spec: &str) -> Result<(Route, Option<ApiKey>), EnvError> {
        Err(EnvError::Unsupported)
    }
    fn save_locale(&self, _locale: Locale) -> Result<(), EnvError> {
        Err(EnvError::Unsupported)
    }
    fn base_prompt(&self) -> String {
        PROMPT.to_string()
    }
    fn new_session(&self) -> Result<(Session, PathBuf), EnvError> {
        Err(EnvError::Unsupported)
    }
    fn open_session(
        &self,
        _query: &str,
        _current_id: &str,
    ) -> Result<(Session, PathBuf, Option<deepterm::session::store::TornTail>), EnvError> {
        Err(EnvError::Unsupported)
    }
    fn list_sessions(&self, _current_id: &str) -> Vec<String> {
        vec![]
    }
}

fn agent(sim: &SimHandle, root: &Path) -> Agent {
    let text = format!(
        "model = \"sim/deepseek-flash\"\n[providers.sim]\nkind = \"deepseek-messages\"\n\
         base_url = \"{}/anthropic\"\napi_key_env = \"DEEPTERM_SUBAGENT_CACHE_UNUSED\"\n",
        sim.base_url()
    );
    let cfg = Config::parse(&text, None).expect("config parses");
    let route = cfg.resolve_route(None).expect("route resolves");
    let scope = deepterm::tools::edit::workspace_scope(root, SandboxMode::WorkspaceWrite);
    let registry = deepterm::tools::ToolRegistry::from_config_with_scope(
        &Config::default(),
        root,
        Arc::new(RwLock::new(scope)),
        vec![subagent::tool()],
    );
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    Agent::builder(
        Session::new("subagent-cache", "/tmp"),
        route,
        Box::new(Env),
        Localizer::new(Locale::default()),
        tx,
    )
    .key(Some(ApiKey::new("sk-example")))
    .tools(registry)
    .approval(ApprovalMode::AllowAll)
    .build()
    .expect("agent builds")
}

fn task(description: &str, prompt: &str) -> serde_json::Value {
    json!({"description": description, "prompt": prompt})
}

/// A user message of a few hundred tokens, different each turn.
fn question(turn: usize) -> String {
    let lines: String = (0..12)
        .map(|i| {
            format!(
                "- turn {turn}, note {i}: the module at src/part_{turn}_{i}.rs keeps fact {}.\n",
                turn * 131 + i * 17
            )
        })
        .collect();
    format!("Turn {turn}. Here is what I found so far:\n{lines}What should we look at next?")
}

async fn ten_turns() {
    let sim = sim::start(SimConfig::default()).await.expect("simulator");
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut agent = agent(&sim, dir.path());
    println!("turn  request            total   hit  miss");
    for turn in 1..=9 {
        sim.push_reply(ScriptedReply::text(format!(
            "Turn {turn}: noted. The next thing to read is src/part_{turn}_0.rs, then its callers."
        )));
        let out = agent.handle_line(&question(turn)).await;
        assert_eq!(out.error, None);
    }
    sim.push_reply(ScriptedReply::tool_call(
        "task",
        task(
            "find callers",
            "List every caller of parse_config and what it passes.",
        ),
    ));
    sim.push_reply(
        ScriptedReply::text(
            "parse_config is called from main and reload, both with the file path.",
        )
        .when("subagent a1"),
    );
    sim.push_reply(ScriptedReply::text("The subagent found two callers."));
    let out = agent.handle_line(&question(10)).await;
    assert_eq!(out.error, None);
    let reqs = sim.requests();
    for (i, r) in reqs.iter().enumerate() {
        let c = r.cache.as_ref().expect("cache record");
        let what = match i {
            i if i < 9 => format!("T{}.S1", i + 1),
            9 => "T10.S1 (calls task)".to_string(),
            10 => "T10.S1·a1.S1".to_string(),
            _ => "T10.S2".to_string(),
        };
        println!(
            "{:>4}  {:<18} {:>6} {:>5} {:>5}",
            i + 1,
            what,
            c.total_tokens,
            c.hit_tokens,
            c.miss_tokens
        );
    }
    let parent = reqs[9].cache.as_ref().unwrap();
    let sub = reqs[10].cache.as_ref().unwrap();
    // Byte for byte: the parent's request up to the end of its messages.
    let parent_raw = &reqs[9].raw_body;
    let end = parent_raw
        .rfind("],\"tools\":[")
        .expect("tools follow the messages");
    assert!(
        reqs[10]
            .raw_body
            .starts_with(parent_raw[..end].trim_end_matches(['}', ']']))
    );
    println!(
        "subagent cache: parent prefix {} tokens, first subagent request hit {} of {} (miss {})",
        parent.total_tokens, sub.hit_tokens, sub.total_tokens, sub.miss_tokens
    );
    sim.shutdown().await;
}

async fn four_at_once() {
    let sim = sim::start(SimConfig {
        latency: Duration::from_millis(15),
        max_chunk: 8,
        ..SimConfig::default()
    })
    .await
    .expect("simulator");
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut agent = agent(&sim, dir.path());
    let mut calls = ScriptedReply::default();
    for i in 1..=4 {
        calls = calls.with_tool_call("task", task(&format!("part {i}"), &format!("Part {i}.")));
    }
    sim.push_reply(calls);
    for (i, words) in [(1, 20), (2, 40), (3, 60), (4, 80)] {
        let answer: String = (0..words).map(|w| format!("w{w} ")).collect();
        sim.push_reply(ScriptedReply::text(answer).when(format!("subagent a{i}")));
    }
    sim.push_reply(ScriptedReply::text("All four done."));
    let t = Instant::now();
    let out = agent.handle_line("Split the work in four.").await;
    let wall = t.elapsed().as_millis() as u64;
    assert_eq!(out.error, None);
    let log = agent.session();
    let parent_ms: u64 = log
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::AssistantMessage(a) => a.timing.as_ref().map(|t| t.duration_ms),
            _ => None,
        })
        .sum();
    let mut each = Vec::new();
    for s in subagent::log::subagents(log) {
        let sub = subagent::log::subagent_log(log, &s.agent).unwrap().unwrap();
        let ms: u64 = sub
            .events()
            .iter()
            .filter(|e| e.seq > s.parent_seq)
            .filter_map(|e| match &e.kind {
                EventKind::AssistantMessage(a) => a.timing.as_ref().map(|t| t.duration_ms),
                _ => None,
            })
            .sum();
        println!("{}: {ms} ms", s.agent);
        each.push(ms);
    }
    let together = wall.saturating_sub(parent_ms);
    println!(
        "four subagents: {together} ms together, slowest {} ms, sum {} ms",
        each.iter().max().unwrap_or(&0),
        each.iter().sum::<u64>()
    );
    sim.shutdown().await;
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    ten_turns().await;
    four_at_once().await;
}
