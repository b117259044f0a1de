//! One scripted session that applies every session change once and measures what each
//! costs the simulated prefix cache (SPEC §9, §14): shared by `examples/cache_churn.rs`
//! (which prints the table) and `tests/suite/agent/cache_invariance.rs` (which guards it),
//! both through `#[path]`.
//!
//! The session is the real agent loop on `sim/deepseek-flash` (the catalog entry:
//! in-history prompt updates, `addition-only` tool updates), with the app's own
//! environment ([`AppEnvironment`]: `AGENTS.md` read from a temporary workspace on every
//! request, forks written to a temporary session directory, routes resolved from the
//! config), hooks and custom commands loaded as the app loads them. MCP servers are sent
//! through the loop's `Background` channel as the MCP client sends them (an example gets
//! no binaries to spawn).
//!
//! **Lost** tokens of a change: take the request right after the change (`k`) and the
//! request whose prompt the cache should still serve (`b`: the previous request; for a
//! rewind, the request that first sent the prompt rewound to, cut before that prompt; for a
//! fork, the parent's last request; back on a route, the last request sent on it). The
//! servable tokens `S` are `b`'s whole prompt in tokens (the simulator stores every
//! prompt as a cache unit, so a request that repeats it hits all of it), or for a cut prompt
//! the cut rounded down to the cache unit. Lost = `S` minus the cached tokens the simulator
//! reports for `k`, at least 0. **Appended** tokens are the physical limit: the bytes the
//! change itself adds to `k`'s render (tool definitions at their addition block, a mode
//! note, a prompt update), that is the render's growth beyond `b`'s kept prompt minus the
//! turn's own messages (the previous answer, the new prompt, tool calls and results). A
//! change that only appends loses 0; its appended tokens are never cached before it.

#![allow(dead_code)] // the example prints part of a row, the test checks another part

use std::path::{Path, PathBuf};
use std::sync::Arc;

use deepterm::agent::run::{Agent, ApprovalMode, Background};
use deepterm::config::{ApiKey, Config};
use deepterm::i18n::{Locale, Localizer};
use deepterm::session::event::ToolSchema;
use deepterm::sim::render::{render_anthropic, render_anthropic_message};
use deepterm::sim::{self, RecordedRequest, ScriptedReply, SimConfig, SimHandle};
use deepterm::startup::{self, AppEnvironment};
use deepterm::tools::{Approval, RegisteredTool, ToolExecutor, ToolOutcome, ToolSource};
use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The simulator's cache unit in tokens (one token per 4 bytes).
pub const UNIT_TOKENS: u64 = 64;

/// The session changes, in the order the script applies them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    McpConnect,
    McpDisconnect,
    ToolDisable,
    ToolEnable,
    ModeReadOnly,
    ModeBack,
    Effort,
    AgentsMd,
    System,
    Rewind,
    Fork,
    CustomCommand,
    PromptHookBlocks,
    ToolHookBlocks,
    ModelOther,
    ModelBack,
    Compact,
}

impl Change {
    /// Every change, in script order.
    pub const ALL: [Change; 17] = [
        Change::McpConnect,
        Change::McpDisconnect,
        Change::ToolDisable,
        Change::ToolEnable,
        Change::ModeReadOnly,
        Change::ModeBack,
        Change::Effort,
        Change::AgentsMd,
        Change::System,
        Change::Rewind,
        Change::Fork,
        Change::CustomCommand,
        Change::PromptHookBlocks,
        Change::ToolHookBlocks,
        Change::ModelOther,
        Change::ModelBack,
        Change::Compact,
    ];

    /// How the table names it.
    pub fn label(self) -> &'static str {
        match self {
            Change::McpConnect => "MCP connect (fs, 4 tools)",
            Change::McpDisconnect => "MCP disconnect (fs)",
            Change::ToolDisable => "/tool disable grep",
            Change::ToolEnable => "/tool enable grep",
            Change::ModeReadOnly => "/mode read-only",
            Change::ModeBack => "/mode workspace-write",
            Change::Effort => "/effort off",
            Change::AgentsMd => "AGENTS.md edited",
            Change::System => "/system <text>",
            Change::Rewind => "/rewind 2 prompts back",
            Change::Fork => "/fork",
            Change::CustomCommand => "custom command /audit",
            Change::PromptHookBlocks => "prompt hook blocks a prompt",
            Change::ToolHookBlocks => "pre-tool hook blocks a call",
            Change::ModelOther => "/model deepseek-v4-pro",
            Change::ModelBack => "/model deepseek-flash (back)",
            Change::Compact => "/compact",
        }
    }

    /// Whether the change may cost cached tokens: a switch to another route (its cache is
    /// its own), the switch back when the other route consolidated a changed prompt at the
    /// head of the log (L-11), and a compaction (the summary replaces the
    /// history).
    pub fn may_lose(self) -> bool {
        matches!(
            self,
            Change::ModelOther | Change::ModelBack | Change::Compact
        )
    }
}

/// Which `tool_removal` the route uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removal {
    /// The catalog's `deepseek-flash` entry (`retain` by default, SPEC §15.1).
    Default,
    /// The same with `tool_removal = "retain"` written out.
    Retain,
    /// The same with `tool_removal = "rewrite"`, the opt-out.
    Rewrite,
}

/// What one change cost.
#[derive(Debug, Clone)]
pub struct Row {
    pub change: Change,
    /// Index of the measured request (`k`) and of its baseline (`b`).
    pub request: usize,
    pub baseline: usize,
    /// The tokens the cache could serve (`S`).
    pub servable: u64,
    /// The cached tokens the simulator reported for `k`.
    pub hit: u64,
    /// `k`'s prompt tokens.
    pub total: u64,
    /// `servable - hit`, at least 0.
    pub lost: u64,
    /// Bytes of `b`'s kept prompt that `k` repeats byte for byte, and that prompt's length.
    pub kept_bytes: usize,
    pub prompt_bytes: usize,
    /// The change's own bytes in `k`'s render (`None` when they are not comparable: a
    /// route with its own cache, a compacted history).
    pub appended_bytes: Option<usize>,
}

impl Row {
    /// The appended bytes in tokens.
    pub fn appended_tokens(&self) -> Option<u64> {
        self.appended_bytes.map(|b| b.div_ceil(4) as u64)
    }
}

/// A whole run: a row per change, and every request's render.
pub struct Run {
    pub rows: Vec<Row>,
    pub requests: Vec<RecordedRequest>,
}

/// Tools are never run here except through the scripted calls; a call answers this.
struct Fixed(&'static str);

impl ToolExecutor for Fixed {
    fn call<'a>(&'a self, _: Value, _: &'a CancellationToken) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(async move { ToolOutcome::ok(self.0) })
    }
}

fn tool(name: &str, description: &str, params: &[&str]) -> RegisteredTool {
    let properties: serde_json::Map<String, Value> = params
        .iter()
        .map(|p| ((*p).to_string(), json!({"type": "string"})))
        .collect();
    RegisteredTool {
        schema: ToolSchema {
            name: name.into(),
            description: description.into(),
            parameters: json!({"type": "object", "properties": properties, "required": params}),
            defer_loading: None,
        },
        approval: Approval::Never,
        enabled: true,
        executor: Arc::new(Fixed("fn main() {}\n")),
        parallel_safe: false,
    }
}

/// The tools present from the start.
fn builtin_tools() -> Vec<RegisteredTool> {
    vec![
        tool(
            "read_file",
            "Read a file of the workspace and return its text.",
            &["path"],
        ),
        tool(
            "grep",
            "Search file contents in the workspace for a regular expression and return the \
             matching lines with their file and line number.",
            &["pattern", "path"],
        ),
    ]
}

/// What a filesystem MCP server registers.
fn fs_server() -> Vec<RegisteredTool> {
    vec![
        tool(
            "fs__read_text",
            "Read the complete contents of a file from the workspace as UTF-8 text.",
            &["path"],
        ),
        tool(
            "fs__write_text",
            "Create a new file or overwrite an existing file with new content.",
            &["path", "content"],
        ),
        tool(
            "fs__list_directory",
            "List the entries of a directory, marking each as [FILE] or [DIR].",
            &["path"],
        ),
        tool(
            "fs__search_files",
            "Recursively search for files whose names match a glob pattern.",
            &["path", "pattern"],
        ),
    ]
}

/// A deterministic user message of a few hundred tokens for turn `n`.
pub fn user_text(n: usize) -> String {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15 ^ (n as u64).wrapping_mul(0x1000_0000_01b3);
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut s = format!("Turn {n}: notes from reviewing the crate, keep them in mind.\n");
    for i in 0..10 {
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

/// The workspace: `AGENTS.md` and one custom command.
fn workspace(dir: &Path) -> std::io::Result<PathBuf> {
    let ws = dir.join("ws");
    std::fs::create_dir_all(ws.join(".deepterm/commands"))?;
    std::fs::write(
        ws.join("AGENTS.md"),
        "# Project notes\n\n- Rust 2024; keep functions short.\n- Tests live under tests/.\n",
    )?;
    std::fs::write(
        ws.join(".deepterm/commands/audit.md"),
        "---\ndescription: Review a file\n---\nReview $ARGUMENTS: list missing error handling \
         and missing tests, one line each.\n",
    )?;
    Ok(ws)
}

fn config_text(sim: &SimHandle, removal: Removal) -> String {
    let entry = match removal {
        Removal::Default => String::new(),
        Removal::Retain => "[[providers.sim.models]]\nid = \"deepseek-flash\"\n\
                            tool_removal = \"retain\"\n"
            .to_string(),
        Removal::Rewrite => "[[providers.sim.models]]\nid = \"deepseek-flash\"\n\
                             tool_removal = \"rewrite\"\n"
            .to_string(),
    };
    format!(
        "model = \"sim/deepseek-flash\"\n\n[providers.sim]\nkind = \"deepseek-messages\"\n\
         base_url = \"{}/anthropic\"\napi_key_env = \"DEEPTERM_CACHE_INVARIANCE_UNUSED\"\n\n\
         {entry}\n\
         [[hooks.user_prompt_submit]]\n\
         command = [\"sh\", \"-c\", \"if grep -q 'launch codes'; then echo 'not here' >&2; exit 2; fi\"]\n\n\
         [[hooks.pre_tool_use]]\nmatcher = \"^grep$\"\n\
         command = [\"sh\", \"-c\", \"cat > /dev/null; echo 'grep is blocked here' >&2; exit 2\"]\n",
        sim.base_url()
    )
}

/// The session under test, with what the script needs to steer it.
struct Script {
    sim: SimHandle,
    agent: Agent,
    bg: mpsc::UnboundedSender<Background>,
    ws: PathBuf,
    /// Turns sent so far (for [`user_text`]).
    turns: usize,
    /// Per prompt logged (1-based position - 1): the request that first sent it.
    prompts: Vec<usize>,
    /// Every prompt text the user message carries (a turn's own bytes, not a change's).
    texts: Vec<String>,
}

impl Script {
    fn sent(&self) -> usize {
        self.sim.requests().len()
    }

    async fn line(&mut self, line: &str) -> Result<(), String> {
        // Boxed: a debug build keeps a separate stack slot for each awaited agent future,
        // and the script awaits it from dozens of places on a 2 MiB test thread.
        match Box::pin(self.agent.handle_line(line)).await.error {
            None => Ok(()),
            Some(e) => Err(format!("{line:?} failed: {e}")),
        }
    }

    /// One plain turn: a new prompt and a scripted answer.
    async fn turn(&mut self) -> Result<(), String> {
        self.turns += 1;
        let n = self.turns;
        self.sim.push_reply(ScriptedReply::text(format!(
            "Noted the items of turn {n}; nothing to change yet."
        )));
        self.prompt(&user_text(n)).await
    }

    async fn prompt(&mut self, text: &str) -> Result<(), String> {
        let first = self.sent();
        self.line(text).await?;
        self.prompts.push(first);
        self.texts.push(text.to_string());
        Ok(())
    }

    /// A turn whose answer first calls `tool` (with reasoning, replayed on tool-call
    /// turns), then answers.
    async fn tool_turn(&mut self, tool: &str, input: Value) -> Result<(), String> {
        self.turns += 1;
        let n = self.turns;
        self.sim.push_reply(
            ScriptedReply::tool_call(tool, input)
                .with_thinking(format!("Turn {n}: the user wants me to look at the code.")),
        );
        self.sim
            .push_reply(ScriptedReply::text(format!("Looked at it for turn {n}.")));
        self.prompt(&user_text(n)).await
    }
}

/// Runs the whole script on a fresh simulator, sessions in `dir`.
pub async fn run(removal: Removal, dir: &Path) -> Result<Run, String> {
    let sim = sim::start(SimConfig {
        seed: Some(7),
        ..SimConfig::default()
    })
    .await
    .map_err(|e| e.to_string())?;
    let ws = workspace(dir).map_err(|e| e.to_string())?;
    let session_dir = dir.join("sessions");
    let cfg = Config::parse(&config_text(&sim, removal), None).map_err(|e| format!("{e:?}"))?;
    let route = cfg.resolve_route(None).map_err(|e| format!("{e:?}"))?;
    let l = Localizer::new(Locale::EnUs);
    let (session, _, _) = startup::open_session(&session_dir, None, l).map_err(|e| e.0)?;
    let key_vars = deepterm::tools::child_env::key_env_vars(&cfg);
    let hooks = deepterm::agent::hooks::Hooks::new(cfg.hooks.clone(), &key_vars, &ws, &session_dir);
    let env = AppEnvironment {
        config: cfg.clone(),
        config_location: None,
        session_dir: session_dir.clone(),
        base_url_override: None,
        // `/model` resolves routes to this simulator with a stand-in key, as demo mode does.
        demo_base: Some(sim.base_url()),
        demo_locale: sim::DemoLocale::new(Locale::EnUs),
        summaries: Arc::default(),
        sandbox_start: (cfg.sandbox.mode, cfg.sandbox.network),
        instruction_problems: Default::default(),
        workspace: ws.clone(),
        trusted: true,
    };
    let mut registry = deepterm::tools::ToolRegistry::new();
    registry.set_source_tools(ToolSource::Builtin, builtin_tools());
    let (tx, _rx) = mpsc::unbounded_channel();
    let dirs = deepterm::agent::custom_commands::command_dirs(&ws, None);
    let agent = Agent::builder(session, route, Box::new(env), l, tx)
        .key(Some(ApiKey::new("sk-cache-invariance")))
        .tools(registry)
        .approval(ApprovalMode::AllowAll)
        .hooks(hooks)
        .custom_commands(deepterm::agent::custom_commands::load(&dirs, |n| {
            deepterm::agent::command_spec::find_builtin(n).is_some()
        }))
        .build()
        .map_err(|e| e.message)?;
    let bg = agent.background_sender();
    let mut s = Script {
        sim,
        agent,
        bg,
        ws,
        turns: 0,
        prompts: vec![],
        texts: vec![],
    };
    // Two turns of history, the second a tool-call turn whose reasoning every later request
    // replays (so a change that dropped or rewrote it would show).
    s.turn().await?;
    s.tool_turn("read_file", json!({"path": "src/main.rs"}))
        .await?;
    let mut marks: Vec<(Change, usize, usize)> = vec![];
    let mut flash_last = 0;
    for change in Change::ALL {
        let before = s.sent();
        let previous = before - 1;
        let (baseline, measured) = match change {
            Change::McpConnect => {
                send_tools(&s.bg, "fs", fs_server())?;
                (previous, before)
            }
            Change::McpDisconnect => {
                send_tools(&s.bg, "fs", vec![])?;
                (previous, before)
            }
            Change::ToolDisable => {
                s.line("/tool disable grep").await?;
                (previous, before)
            }
            Change::ToolEnable => {
                s.line("/tool enable grep").await?;
                (previous, before)
            }
            Change::ModeReadOnly => {
                s.line("/mode read-only").await?;
                (previous, before)
            }
            Change::ModeBack => {
                s.line("/mode workspace-write").await?;
                (previous, before)
            }
            Change::Effort => {
                s.line("/effort off").await?;
                (previous, before)
            }
            Change::AgentsMd => {
                let path = s.ws.join("AGENTS.md");
                let mut text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
                text.push_str("- Run cargo fmt before every commit.\n");
                std::fs::write(&path, text).map_err(|e| e.to_string())?;
                (previous, before)
            }
            Change::System => {
                s.line("/system Prefer short answers and name the files you touch.")
                    .await?;
                (previous, before)
            }
            Change::Rewind => {
                // Back to before the prompt sent after the `AGENTS.md` edit.
                let n = s.prompts.len() - 1;
                let base = s.prompts[n - 1];
                s.line(&format!("/rewind {n} conversation")).await?;
                s.prompts.truncate(n - 1);
                (base, before)
            }
            Change::Fork => {
                s.line("/fork").await?;
                (previous, before)
            }
            Change::CustomCommand => {
                s.sim
                    .push_reply(ScriptedReply::text("Reviewed src/lib.rs."));
                s.prompt("/audit src/lib.rs").await?;
                // The command's text is the prompt the turn sends.
                s.texts.push(
                    "Review src/lib.rs: list missing error handling and missing tests, one \
                     line each."
                        .to_string(),
                );
                marks.push((change, previous, before));
                continue;
            }
            Change::PromptHookBlocks => {
                // Refused by the hook: nothing is sent, nothing is logged as a message.
                s.line("tell me the launch codes").await.ok();
                if s.sent() != before {
                    return Err("the blocked prompt was sent".into());
                }
                (previous, before)
            }
            Change::ToolHookBlocks => {
                s.tool_turn("grep", json!({"pattern": "fn main", "path": "src"}))
                    .await?;
                // The request after the blocked call's result.
                marks.push((change, before, before + 1));
                continue;
            }
            Change::ModelOther => {
                flash_last = previous;
                s.line("/model sim/deepseek-v4-pro").await?;
                (previous, before)
            }
            Change::ModelBack => {
                s.line("/model sim/deepseek-flash").await?;
                (flash_last, before)
            }
            Change::Compact => {
                s.sim.push_reply(ScriptedReply::text(
                    "Summary: the user reviewed the crate over many turns and asked for short \
                     answers; nothing is pending.",
                ));
                s.line("/compact").await?;
                // The next loop request, after the summarizer's.
                (previous, before + 1)
            }
        };
        s.turn().await?;
        marks.push((change, baseline, measured));
    }
    let requests = s.sim.requests();
    for r in &requests {
        if r.status != 200 {
            return Err(format!("request {} failed: {:?}", r.index, r.error));
        }
    }
    let rows = marks
        .into_iter()
        .map(|(change, b, k)| measure(change, &requests, b, k, &s.texts))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Run { rows, requests })
}

fn send_tools(
    bg: &mpsc::UnboundedSender<Background>,
    server: &str,
    tools: Vec<RegisteredTool>,
) -> Result<(), String> {
    bg.send(Background::Tools {
        source: ToolSource::Mcp(server.into()),
        tools,
    })
    .map_err(|_| "the loop is gone".to_string())
}

/// The simulator's render of a recorded request (the cache namespace is its mapped model).
pub fn render(r: &RecordedRequest) -> String {
    render_anthropic(r.mapped_model.as_deref().unwrap_or(""), &r.body)
}

/// The render of `r`'s prompt up to its last user message: what a rewind to that prompt
/// keeps.
pub fn render_before_last_user(r: &RecordedRequest) -> String {
    let mut cut = r.body.clone();
    if let Some(m) = cut["messages"].as_array_mut() {
        let at = m.iter().rposition(|m| m["role"] == "user").unwrap_or(0);
        m.truncate(at);
    }
    render_anthropic(r.mapped_model.as_deref().unwrap_or(""), &cut)
}

fn messages(r: &RecordedRequest) -> &[Value] {
    r.body["messages"].as_array().map_or(&[], Vec::as_slice)
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// One row: `k` measured against `b` (see the module comment).
fn measure(
    change: Change,
    reqs: &[RecordedRequest],
    b: usize,
    k: usize,
    texts: &[String],
) -> Result<Row, String> {
    let (base, next) = match (reqs.get(b), reqs.get(k)) {
        (Some(x), Some(y)) => (x, y),
        _ => return Err(format!("{change:?}: no request {b} or {k}")),
    };
    let cache = next.cache.as_ref().ok_or("no cache accounting")?;
    // A rewind keeps `b`'s prompt up to the prompt rewound to (its last user message).
    let kept = match change {
        Change::Rewind => messages(base)
            .iter()
            .rposition(|m| m["role"] == "user")
            .ok_or("the rewound prompt's request has no user message")?,
        _ => messages(base).len(),
    };
    let whole = kept == messages(base).len();
    let mut cut = base.body.clone();
    if let Some(m) = cut["messages"].as_array_mut() {
        m.truncate(kept);
    }
    let prompt = render_anthropic(base.mapped_model.as_deref().unwrap_or(""), &cut);
    let after = render(next);
    let servable = match whole {
        true => prompt.len().div_ceil(4) as u64,
        false => (prompt.len() as u64 / (4 * UNIT_TOKENS)) * UNIT_TOKENS,
    };
    let same_cache = base.mapped_model == next.mapped_model && change != Change::Compact;
    let appended_bytes = same_cache.then(|| {
        let tools = next.body["tools"].as_array().cloned().unwrap_or_default();
        let own: usize = messages(next)
            .get(kept..)
            .unwrap_or(&[])
            .iter()
            .filter_map(|m| own_part(m, texts))
            .map(|m| {
                let mut out = String::new();
                render_anthropic_message(&mut out, &m, &tools);
                out.len()
            })
            .sum();
        after.len().saturating_sub(prompt.len() + own)
    });
    Ok(Row {
        change,
        request: k,
        baseline: b,
        servable,
        hit: cache.hit_tokens,
        total: cache.total_tokens,
        lost: servable.saturating_sub(cache.hit_tokens),
        kept_bytes: common_prefix(&prompt, &after),
        prompt_bytes: prompt.len(),
        appended_bytes,
    })
}

/// The part of a message that is the turn's own: answers, tool calls and results, and the
/// prompt the user typed. `None` for a system message (a prompt update or tool change);
/// a user message loses its other text blocks (a mode note).
fn own_part(m: &Value, texts: &[String]) -> Option<Value> {
    match m["role"].as_str() {
        Some("system") => None,
        Some("user") => {
            let mut m = m.clone();
            if let Some(blocks) = m["content"].as_array_mut() {
                blocks.retain(|b| {
                    b["type"] != "text" || texts.iter().any(|t| b["text"].as_str() == Some(t))
                });
            }
            Some(m)
        }
        _ => Some(m.clone()),
    }
}
