//! First-request size with 60 MCP tools connected, deferred against eager:
//! `cargo run --example deferred_tools`.
//!
//! Drives the real agent loop against the in-process simulator, once per route kind
//! (Messages `addition-only`, Messages `in-history`, Chat Completions) and per setting:
//! `deferred` is the default config (`defer_tools_over = 32`: the 60 tools are announced by
//! name and first line in a catalogue note, and `tool_search` and `call_tool` are
//! declared), `eager` is `defer_tools_over = 0` (all 60 declared up front). Six servers of
//! ten tools each are sent through the loop's `Background` channel before the first line,
//! as the MCP client sends them when a server connects (Cargo builds no binaries for
//! examples, so no server process). Each run is one user line with a scripted text reply.
//!
//! Printed per route: the first request's body bytes and the tokens the simulator counts
//! for it (its render, one token per 4 bytes; SPEC §9). Token figures depend on the bytes
//! sent only, not on the build profile. The last line reads
//! `deferred tools (60 MCP tools): first request A/I/C tokens deferred, A/I/C eager`.

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
use deepterm::tools::{
    Approval, RegisteredTool, ToolExecutor, ToolOutcome, ToolRegistry, ToolSource,
};
use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

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

/// Six servers of ten tools: `(server, [(tool, what it does)])`. The schemas are built
/// alike for all (a typed target, an optional limit and a flag, each described), close to
/// what real servers register.
const SERVERS: [(&str, [(&str, &str); 10]); 6] = [
    (
        "fs",
        [
            ("read_file", "Read the complete contents of a file as text"),
            (
                "read_many",
                "Read several files at once and return them in order",
            ),
            (
                "write_file",
                "Create a new file or overwrite an existing one",
            ),
            (
                "edit_file",
                "Make line-based edits to a text file and return a diff",
            ),
            (
                "create_dir",
                "Create a directory, with its parents when needed",
            ),
            (
                "list_dir",
                "List the entries of a directory with their kinds",
            ),
            (
                "tree",
                "Show a recursive tree of files and directories as JSON",
            ),
            ("move", "Move or rename a file or directory"),
            ("search", "Find files whose names match a glob pattern"),
            ("stat", "Return size, times and permissions of a path"),
        ],
    ),
    (
        "git",
        [
            ("status", "Show the working tree status"),
            (
                "diff",
                "Show changes between the index and the working tree",
            ),
            ("diff_staged", "Show changes that are staged for commit"),
            ("commit", "Record staged changes with a message"),
            ("add", "Stage files for the next commit"),
            ("reset", "Unstage all staged changes"),
            ("log", "Show the commit history with authors and dates"),
            ("branch", "Create a new branch from a base"),
            ("checkout", "Switch branches or restore files"),
            ("show", "Show the contents of a commit"),
        ],
    ),
    (
        "github",
        [
            (
                "search_repos",
                "Search repositories by text, language and stars",
            ),
            ("get_issue", "Get an issue with its labels and comments"),
            ("list_issues", "List issues of a repository with filters"),
            ("create_issue", "Open a new issue in a repository"),
            ("comment", "Add a comment to an issue or pull request"),
            ("get_pull", "Get a pull request with its review state"),
            ("list_pulls", "List pull requests of a repository"),
            ("create_pull", "Open a pull request from a branch"),
            ("merge_pull", "Merge a pull request with a method"),
            ("get_file", "Get a file's contents at a ref"),
        ],
    ),
    (
        "browser",
        [
            ("navigate", "Open a URL in the controlled browser"),
            ("screenshot", "Capture the page or an element as an image"),
            ("click", "Click an element found by a selector"),
            ("fill", "Type text into an input field"),
            ("select", "Choose an option of a select element"),
            ("hover", "Move the pointer over an element"),
            (
                "evaluate",
                "Run JavaScript in the page and return the result",
            ),
            (
                "wait_for",
                "Wait until a selector appears or a timeout passes",
            ),
            ("console", "Return the page's console messages"),
            ("close", "Close the browser page"),
        ],
    ),
    (
        "db",
        [
            ("query", "Run a read-only SQL query and return rows"),
            ("execute", "Run a SQL statement that changes data"),
            ("list_tables", "List the tables of the database"),
            ("describe", "Describe a table's columns, types and keys"),
            ("explain", "Show the query plan of a SQL query"),
            ("indexes", "List the indexes of a table"),
            ("sample", "Return a few sample rows of a table"),
            ("count", "Count the rows that match a condition"),
            ("export_csv", "Export a query's rows as CSV"),
            ("migrations", "List applied and pending migrations"),
        ],
    ),
    (
        "slack",
        [
            ("list_channels", "List public channels with member counts"),
            ("post", "Post a message to a channel"),
            ("reply", "Reply to a message in its thread"),
            ("react", "Add an emoji reaction to a message"),
            ("history", "Get recent messages of a channel"),
            ("thread", "Get all replies of a thread"),
            ("users", "List the users of the workspace"),
            ("profile", "Get a user's profile"),
            ("search", "Search messages by text and date"),
            ("upload", "Upload a file to a channel"),
        ],
    ),
];

fn tool(server: &str, name: &str, what: &str) -> RegisteredTool {
    RegisteredTool {
        schema: ToolSchema {
            name: format!("{server}__{name}"),
            description: format!(
                "{what}.\nUse it when the task needs the {server} server's data; errors are \
                 returned as text and nothing is retried."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "target": {"type": "string", "description": format!("What {name} acts on: a path, name, id or URL")},
                    "limit": {"type": "integer", "description": "Most items to return (default 50)", "minimum": 1},
                    "verbose": {"type": "boolean", "description": "Include every field instead of a summary"}
                },
                "required": ["target"]
            }),
            defer_loading: None,
        },
        approval: Approval::Never,
        enabled: true,
        executor: Arc::new(Unused),
        parallel_safe: false,
    }
}

/// The first request of one run: `(body bytes, tokens)`.
async fn first_request(
    kind: &str,
    entry: &str,
    defer_over: usize,
) -> Result<(usize, u64), Box<dyn std::error::Error>> {
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
         base_url = \"{base}\"\napi_key_env = \"DEEPTERM_DEFERRED_TOOLS_UNUSED\"\n\n\
         [[providers.sim.models]]\nid = \"deepseek-flash\"\n{entry}\n\n\
         [tools]\ndefer_tools_over = {defer_over}\n"
    );
    let cfg = Config::parse(&text, None)?;
    let route = cfg.resolve_route(None)?;
    let mut registry = ToolRegistry::new();
    registry.set_defer_over(cfg.defer_tools_over);
    let (tx, _rx) = mpsc::unbounded_channel();
    let mut agent = Agent::builder(
        Session::new("deferred-tools", "/tmp"),
        route,
        Box::new(Env),
        Localizer::new(Locale::EnUs),
        tx,
    )
    .key(Some(ApiKey::new("sk-deferred-tools")))
    .tools(registry)
    .approval(ApprovalMode::AllowAll)
    .build()?;
    let bg = agent.background_sender();
    for (server, tools) in SERVERS {
        bg.send(Background::Tools {
            source: ToolSource::Mcp(server.into()),
            tools: tools.iter().map(|(n, w)| tool(server, n, w)).collect(),
        })?;
    }
    sim.push_reply(ScriptedReply::text("Looking at the repository now."));
    let out = agent
        .handle_line("Find where the configuration is parsed and summarize it.")
        .await;
    if let Some(e) = out.error {
        return Err(format!("the request failed: {e}").into());
    }
    let first = sim
        .requests()
        .into_iter()
        .next()
        .ok_or("the simulator saw no request")?;
    if first.status != 200 {
        return Err(format!("the first request failed: {:?}", first.error).into());
    }
    let tokens = first
        .cache
        .ok_or("the simulator recorded no cache accounting")?
        .total_tokens;
    Ok((first.raw_body.len(), tokens))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let routes = [
        (
            "addition-only",
            "deepseek-messages",
            "tool_update = \"addition-only\"",
        ),
        (
            "in-history",
            "deepseek-messages",
            "system_prompt_update = \"in-history\"\ntool_update = \"in-history\"",
        ),
        ("chat", "openai-chat", ""),
    ];
    println!(
        "{:<14} | {:>14} {:>8} | {:>14} {:>8} | {:>6}",
        "route", "deferred bytes", "tokens", "eager bytes", "tokens", "ratio"
    );
    let mut deferred = Vec::new();
    let mut eager = Vec::new();
    for (label, kind, entry) in routes {
        let d = first_request(kind, entry, 32).await?;
        let e = first_request(kind, entry, 0).await?;
        println!(
            "{label:<14} | {:>14} {:>8} | {:>14} {:>8} | {:>5.1}x",
            d.0,
            d.1,
            e.0,
            e.1,
            e.1 as f64 / d.1 as f64
        );
        deferred.push(d.1.to_string());
        eager.push(e.1.to_string());
    }
    println!(
        "deferred tools (60 MCP tools): first request {} tokens deferred, {} eager",
        deferred.join("/"),
        eager.join("/")
    );
    Ok(())
}
