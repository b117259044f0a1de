//! Cache churn under MCP tool changes, and the cache cost of every session change:
//! `cargo run --release --example cache_churn`.
//!
//! Drives the real agent loop against the in-process simulator through 20 turns with five
//! MCP changes: server `fs` added (before turn 5), server `git` added (turn 9), `fs` removed
//! (turn 13), `fs` re-added (turn 17), and `git` reconnecting with one tool's description
//! changed under the same name (turn 19). The conversation is the same four times, on
//! routes that differ only in how they take tool changes, three of them with the default
//! config (SPEC §15.1):
//!
//! - `addition-only`: Messages, the catalog's `deepseek-flash` entry;
//! - `in-history`: Messages with `tool_update = "in-history"` (the simulator refuses the
//!   `tool_removal` block, so the route is downgraded once and the request sent again;
//!   the refused request is counted, not tabled);
//! - `chat`: Chat Completions, no `tool_update`: the tool bridge;
//! - `rewrite`: `addition-only` with `tool_removal = "rewrite"`, the opt-out, for
//!   comparison.
//!
//! `lost` is what a request failed to read of the previous request's cacheable prefix.
//!
//! The servers are not real processes: Cargo builds no `[[bin]]` for examples (there is no
//! `CARGO_BIN_EXE_` for them), so each change is sent through the agent's `Background`
//! channel as a batch of tools under `ToolSource::Mcp(server)`, exactly what the MCP client
//! sends when a server connects or disconnects. Each turn is one request with a scripted
//! text reply (no tool calls), so the three runs send the same conversation and only the
//! tool declarations and tool-change blocks differ.
//!
//! Then the cache-invariance table: one scripted session that applies every other session
//! change once (MCP connect and disconnect, `/tool disable` and `enable`, `/mode` there
//! and back, `/effort`, an `AGENTS.md` edit, `/system`, a rewind, a fork, a custom command,
//! a blocking prompt hook and a blocking pre-tool hook, `/model` to another route and
//! back, `/compact`), on the `deepseek-flash` entry as the catalog has it and with
//! `tool_removal = "retain"`. Per change: the tokens the change itself appends (its
//! physical limit) and the cached tokens it lost on each route; the definitions are in
//! `tests/support/cache_invariance.rs`, which `tests/suite/agent/cache_invariance.rs`
//! shares to guard the retain column in CI.
//!
//! The token figures are the simulator's prefix-cache model (SPEC §9: the longest common
//! prefix with earlier renders, at 64-token units); they depend on the bytes sent, not on
//! the build profile. The churn table ends with the line
//! `cache churn (default config): lost A/I/C, miss A/I/C; rewrite lost L, miss M`, and the
//! last line reads
//! `cache invariance: retain lost 0 on 14 prefix-keeping changes (default lost D); …`.

#[path = "../tests/support/cache_invariance.rs"]
mod cache_invariance;

use std::path::PathBuf;
use std::sync::Arc;

use deepterm::agent::env_error::EnvError;
use deepterm::agent::run::{Agent, ApprovalMode, Background, Environment};
use deepterm::config::{ApiKey, Config};
use deepterm::i18n::{Locale, Localizer};
use deepterm::llm::types::Route;
use deepterm::session::Session;
use deepterm::session::event::ToolSchema;
use deepterm::sim::{self, ScriptedReply, SimConfig};
use deepterm::tools::{Approval, RegisteredTool, ToolExecutor, ToolOutcome, ToolSource};
use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Turns per run.
const TURNS: usize = 20;
const PROMPT: &str = "You are a coding assistant working in a Rust repository. Use the \
                      tools that are offered when they help; answer briefly.";

/// The loop's surroundings: only the base prompt is needed.
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

/// Tools are never called here; a call would get this.
struct Unused;

impl ToolExecutor for Unused {
    fn call<'a>(
        &'a self,
        _arguments: Value,
        _cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(async { ToolOutcome::error("not available in this example") })
    }
}

fn tool(name: &str, description: &str, params: &[(&str, &str)]) -> RegisteredTool {
    let properties: serde_json::Map<String, Value> = params
        .iter()
        .map(|(p, d)| {
            (
                (*p).to_string(),
                json!({"type": "string", "description": d}),
            )
        })
        .collect();
    let required: Vec<&str> = params.iter().map(|(p, _)| *p).collect();
    RegisteredTool {
        schema: ToolSchema {
            name: name.into(),
            description: description.into(),
            parameters: json!({"type": "object", "properties": properties, "required": required}),
            defer_loading: None,
        },
        approval: Approval::Never,
        enabled: true,
        executor: Arc::new(Unused),
        parallel_safe: false,
    }
}

/// What a filesystem server would register.
fn fs_server() -> Vec<RegisteredTool> {
    vec![
        tool(
            "fs__read_file",
            "Read the complete contents of a file from the workspace. Handles text files \
             in UTF-8; fails with a clear message for binary files or missing paths.",
            &[("path", "Path of the file, relative to the workspace root.")],
        ),
        tool(
            "fs__write_file",
            "Create a new file or completely overwrite an existing file with new content. \
             Use with care: the previous content is lost.",
            &[
                ("path", "Path of the file, relative to the workspace root."),
                ("content", "The complete new content of the file."),
            ],
        ),
        tool(
            "fs__list_directory",
            "List the files and directories directly inside a directory, marking each \
             entry as [FILE] or [DIR].",
            &[("path", "Directory path, relative to the workspace root.")],
        ),
        tool(
            "fs__search_files",
            "Recursively search for files and directories whose names match a glob \
             pattern, starting from a directory; returns full paths.",
            &[
                ("path", "Directory to start from."),
                ("pattern", "Glob pattern such as **/*.rs."),
            ],
        ),
    ]
}

/// What a git server would register.
fn git_server() -> Vec<RegisteredTool> {
    vec![
        tool(
            "git__status",
            "Show the working tree status: staged, unstaged and untracked files.",
            &[("repo_path", "Path of the repository.")],
        ),
        tool(
            "git__diff",
            "Show the changes between the working tree and a commit or the index, as a \
             unified diff.",
            &[
                ("repo_path", "Path of the repository."),
                ("target", "Commit, branch or 'HEAD'."),
            ],
        ),
        tool(
            "git__log",
            "Show the commit log: hash, author, date and subject of recent commits.",
            &[
                ("repo_path", "Path of the repository."),
                ("max_count", "How many commits to show."),
            ],
        ),
        tool(
            "git__commit",
            "Record the staged changes in a new commit with the given message.",
            &[
                ("repo_path", "Path of the repository."),
                ("message", "The commit message."),
            ],
        ),
    ]
}

/// `git` again, with `git__log`'s description changed (a same-name schema change).
fn git_changed() -> Vec<RegisteredTool> {
    let mut tools = git_server();
    if let Some(t) = tools.iter_mut().find(|t| t.schema.name == "git__log") {
        t.schema.description.push_str(" Merges are marked.");
    }
    tools
}

/// The built-in-like tools present from the start.
fn workspace_tools() -> Vec<RegisteredTool> {
    vec![tool(
        "grep",
        "Search file contents in the workspace for a regular expression and return the \
         matching lines with their file and line number.",
        &[
            ("pattern", "Regular expression."),
            ("path", "Where to search."),
        ],
    )]
}

/// The change applied before turn `turn` (1-based), with its label.
fn change(turn: usize) -> Option<(&'static str, &'static str, Vec<RegisteredTool>)> {
    match turn {
        5 => Some(("+fs (4 tools)", "fs", fs_server())),
        9 => Some(("+git (4 tools)", "git", git_server())),
        13 => Some(("-fs", "fs", vec![])),
        17 => Some(("+fs again", "fs", fs_server())),
        19 => Some(("git schema", "git", git_changed())),
        _ => None,
    }
}

/// A deterministic user message of a few hundred tokens for `turn`.
fn user_text(turn: usize) -> String {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15 ^ (turn as u64).wrapping_mul(0x1000_0000_01b3);
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut s = format!("Turn {turn}: notes from reviewing the crate, keep them in mind.\n");
    for i in 0..12 {
        s.push_str(&format!(
            "- src/module_{:02}.rs line {}: function f{:06x} returns {:08x}; check caller c{:04x}.\n",
            next() % 40,
            next() % 900 + i,
            next() % 0xff_ffff,
            next() as u32,
            next() % 0xffff
        ));
    }
    s
}

/// One request's cache accounting.
#[derive(Clone, Copy, Default)]
struct Row {
    hit: u64,
    miss: u64,
    total: u64,
    lost: u64,
}

/// The simulator's cache unit (SPEC §9).
const UNIT: u64 = 64;

/// One route's run: a row per answered request and how many requests were refused.
struct Run {
    rows: Vec<Row>,
    refused: usize,
}

/// Runs the 20 turns on a route of protocol `kind` whose model entry adds `entry`.
async fn run(kind: &str, entry: &str) -> Result<Run, Box<dyn std::error::Error>> {
    let sim = sim::start(SimConfig {
        seed: Some(7),
        ..SimConfig::default()
    })
    .await?;
    let base = match kind {
        "openai-chat" => sim.base_url(),
        _ => format!("{}/anthropic", sim.base_url()),
    };
    let text = format!(
        "model = \"sim/deepseek-flash\"\n\n[providers.sim]\nkind = \"{kind}\"\n\
         base_url = \"{base}\"\napi_key_env = \"DEEPTERM_CACHE_CHURN_UNUSED\"\n\n\
         [[providers.sim.models]]\nid = \"deepseek-flash\"\n{entry}\n"
    );
    let cfg = Config::parse(&text, None)?;
    let route = cfg.resolve_route(None)?;
    let (tx, _rx) = mpsc::unbounded_channel();
    let mut agent = Agent::builder(
        Session::new("cache-churn", "/tmp"),
        route,
        Box::new(Env),
        Localizer::new(Locale::EnUs),
        tx,
    )
    .key(Some(ApiKey::new("sk-cache-churn")))
    .tools(deepterm::tools::ToolRegistry::new())
    .approval(ApprovalMode::AllowAll)
    .build()?;
    let bg = agent.background_sender();
    let send = |server: &str, tools: Vec<RegisteredTool>| {
        bg.send(Background::Tools {
            source: ToolSource::Mcp(server.into()),
            tools,
        })
    };
    send("workspace", workspace_tools())?;
    for turn in 1..=TURNS {
        if let Some((_, server, tools)) = change(turn) {
            send(server, tools)?;
        }
        sim.push_reply(ScriptedReply::text(format!(
            "Noted the {turn} items of turn {turn}; nothing to change yet."
        )));
        let out = agent.handle_line(&user_text(turn)).await;
        if let Some(e) = out.error {
            return Err(format!("turn {turn} failed: {e}").into());
        }
    }
    let mut rows: Vec<Row> = Vec::new();
    let mut refused = 0;
    for r in sim.requests() {
        if r.status == 400 && r.raw_body.contains("\"tool_removal\"") {
            // The refusal that downgrades the route (SPEC §15.1); the retry follows.
            refused += 1;
            continue;
        }
        if r.status != 200 {
            return Err(format!("request {} failed: {:?}", r.index, r.error).into());
        }
        let c = r
            .cache
            .ok_or("the simulator recorded no cache accounting")?;
        let cacheable = rows.last().map_or(0, |p| p.total / UNIT * UNIT);
        rows.push(Row {
            hit: c.hit_tokens,
            miss: c.miss_tokens,
            total: c.total_tokens,
            lost: cacheable.saturating_sub(c.hit_tokens),
        });
    }
    if rows.len() != TURNS {
        return Err(format!("expected {TURNS} requests, got {}", rows.len()).into());
    }
    Ok(Run { rows, refused })
}

fn sum(rows: &[Row]) -> Row {
    rows.iter().fold(Row::default(), |a, r| Row {
        hit: a.hit + r.hit,
        miss: a.miss + r.miss,
        total: a.total + r.total,
        lost: a.lost + r.lost,
    })
}

fn cells(r: Row) -> String {
    format!("{:>6} {:>6} {:>6}", r.lost, r.miss, r.total)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let msgs = "deepseek-messages";
    let add = run(msgs, "tool_update = \"addition-only\"").await?;
    let inh = run(
        msgs,
        "system_prompt_update = \"in-history\"\ntool_update = \"in-history\"",
    )
    .await?;
    let chat = run("openai-chat", "").await?;
    let rewrite = run(
        msgs,
        "tool_update = \"addition-only\"\ntool_removal = \"rewrite\"",
    )
    .await?;
    let runs = [&add, &inh, &chat, &rewrite];

    let head = format!("{:>6} {:>6} {:>6}", "lost", "miss", "total");
    println!(
        "{:>3}  {:<12} | {:^20} | {:^20} | {:^20} | {:^20}",
        "req", "change", "addition-only", "in-history", "chat", "rewrite"
    );
    println!("{:>3}  {:<12} | {head} | {head} | {head} | {head}", "", "");
    for i in 0..TURNS {
        let label = change(i + 1).map(|(l, _, _)| l).unwrap_or("");
        let row: Vec<String> = runs.iter().map(|r| cells(r.rows[i])).collect();
        println!("{:>3}  {:<12} | {}", i + 1, label, row.join(" | "));
    }
    let totals: Vec<Row> = runs.iter().map(|r| sum(&r.rows)).collect();
    let row: Vec<String> = totals.iter().map(|t| cells(*t)).collect();
    println!("{:>3}  {:<12} | {}", "run", "total", row.join(" | "));
    println!(
        "refused requests (sent again at once): {}",
        runs.iter()
            .map(|r| r.refused.to_string())
            .collect::<Vec<_>>()
            .join(" / ")
    );
    println!(
        "cache churn (default config): lost {}/{}/{}, miss {}/{}/{}; rewrite lost {}, miss {}",
        totals[0].lost,
        totals[1].lost,
        totals[2].lost,
        totals[0].miss,
        totals[1].miss,
        totals[2].miss,
        totals[3].lost,
        totals[3].miss
    );
    println!();
    invariance().await
}

/// The cache-invariance table (see the header comment).
async fn invariance() -> Result<(), Box<dyn std::error::Error>> {
    use cache_invariance::{Removal, run};
    let dir = tempfile::tempdir()?;
    // `default` is the fresh config (retain, SPEC §15.1); `rewrite` the opt-out.
    let default = run(Removal::Rewrite, &dir.path().join("rewrite")).await?;
    let retain = run(Removal::Default, &dir.path().join("default")).await?;
    println!(
        "{:<30} | {:>8} | {:>12} | {:>13}",
        "change", "appended", "lost rewrite", "lost default"
    );
    let mut keep = (0, 0u64, 0u64);
    let mut may = Vec::new();
    for (d, r) in default.rows.iter().zip(&retain.rows) {
        let appended = r
            .appended_tokens()
            .map_or_else(|| "-".to_string(), |t| t.to_string());
        println!(
            "{:<30} | {:>8} | {:>12} | {:>13}",
            r.change.label(),
            appended,
            d.lost,
            r.lost
        );
        match r.change.may_lose() {
            false => keep = (keep.0 + 1, keep.1 + r.lost, keep.2 + d.lost),
            true => may.push(format!("{} lost {}", r.change.label(), r.lost)),
        }
    }
    println!(
        "cache invariance: default lost {} on {} prefix-keeping changes (rewrite lost {}); {}",
        keep.1,
        keep.0,
        keep.2,
        may.join(", ")
    );
    Ok(())
}
