//! Shared test harness: a loopback simulator, a temp directory for config and sessions,
//! `deepterm exec` runs, the in-process interactive agent, and readers for what the
//! simulator recorded and what the session log holds.
#![allow(dead_code)] // each test binary uses a different subset

pub mod agent_tools;
pub mod concurrent;
pub mod config;
pub mod rust_lexer;
pub mod tmux;

#[allow(unused_imports)] // each test binary uses a different subset
pub use config::{ConfigBuilder, MCP_FIXTURE, STAMP_TOOL};

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;

use deepterm::agent::env_error::EnvError;
use deepterm::agent::protocol::AgentEvent;
use deepterm::agent::run::{Agent, ApprovalMode, Environment};
use deepterm::config::ApiKey;
use deepterm::i18n::Locale;
use deepterm::session::Session;
use deepterm::session::event::Event;
use deepterm::sim::{self, SimConfig, SimHandle};
use serde_json::Value;

/// The environment variable the test configs name for the API key.
pub const KEY_VAR: &str = "DEEPTERM_TEST_KEY";
/// The key the `exec` runs get (it must never show up in logs or errors).
pub const TEST_KEY: &str = "sk-test-secret-123";

/// A simulator on loopback plus a temp directory.
pub struct TestEnv {
    /// Config files, scripts and sessions live here.
    pub dir: tempfile::TempDir,
    /// The simulator the configs point at.
    pub sim: SimHandle,
}

impl TestEnv {
    /// Starts a simulator with `cfg`.
    pub async fn new(cfg: SimConfig) -> TestEnv {
        TestEnv {
            dir: tempfile::tempdir().unwrap(),
            sim: sim::start(cfg).await.unwrap(),
        }
    }

    /// The session directory.
    pub fn sessions(&self) -> PathBuf {
        self.dir.path().join("sessions")
    }

    /// A config builder for this simulator: provider `ds` at its Messages endpoint.
    pub fn config_builder(&self) -> ConfigBuilder {
        ConfigBuilder::new(&self.sim.base_url())
    }

    /// Writes a config file and returns its path.
    pub fn write_config(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Runs `deepterm exec` with `script` (English UI, the test key set).
    pub async fn exec(&self, config: &Path, script: &str, extra_args: &[&str]) -> Output {
        self.exec_with(config, script, extra_args, &[]).await
    }

    /// [`TestEnv::exec`] that must succeed (the test fails with its stderr otherwise).
    pub async fn exec_ok(&self, config: &Path, script: &str, extra_args: &[&str]) -> Output {
        let out = self.exec(config, script, extra_args).await;
        assert!(out.status.success(), "{}", stderr(&out));
        out
    }

    /// Like [`TestEnv::exec`] with extra environment variables.
    pub async fn exec_with(
        &self,
        config: &Path,
        script: &str,
        extra_args: &[&str],
        envs: &[(&str, &str)],
    ) -> Output {
        let mut cmd = self.exec_command(config, script);
        cmd.args(extra_args)
            .env(KEY_VAR, TEST_KEY)
            .env("HOME", self.dir.path());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        tokio::time::timeout(std::time::Duration::from_secs(60), cmd.output())
            .await
            .expect("exec finishes")
            .unwrap()
    }

    /// `deepterm exec` on `config` with `script` (written to `script.txt`), this session
    /// directory and the English UI; no environment set yet.
    pub fn exec_command(&self, config: &Path, script: &str) -> tokio::process::Command {
        self.exec_command_in("en-US", config, script)
    }

    /// [`TestEnv::exec_command`] in the UI language `locale`, with any script bytes.
    pub fn exec_command_in(
        &self,
        locale: &str,
        config: &Path,
        script: impl AsRef<[u8]>,
    ) -> tokio::process::Command {
        let script_path = self.dir.path().join("script.txt");
        std::fs::write(&script_path, script).unwrap();
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_deepterm"));
        cmd.arg("exec")
            .arg("--script")
            .arg(&script_path)
            .arg("--config")
            .arg(config)
            .arg("--session-dir")
            .arg(self.sessions())
            .arg("--locale")
            .arg(locale);
        cmd
    }

    /// Every request the simulator recorded, as JSON.
    pub fn requests(&self) -> Vec<Value> {
        self.sim
            .requests()
            .into_iter()
            .map(|r| serde_json::to_value(r).unwrap())
            .collect()
    }

    /// The one session log file in the session directory.
    pub fn log_path(&self) -> PathBuf {
        let files: Vec<PathBuf> = std::fs::read_dir(self.sessions())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        assert_eq!(files.len(), 1, "one session file: {files:?}");
        files.into_iter().next().unwrap()
    }

    /// The session log as JSON values.
    pub fn log(&self) -> Vec<Value> {
        std::fs::read_to_string(self.log_path())
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The session log as typed events.
    pub fn events(&self) -> Vec<Arc<Event>> {
        std::fs::read_to_string(self.log_path())
            .unwrap()
            .lines()
            .map(|l| Arc::new(serde_json::from_str::<Event>(l).unwrap()))
            .collect()
    }

    /// The agent as the TUI wires it (interactive approvals), on this simulator.
    pub fn interactive_agent(
        &self,
        config: PathBuf,
    ) -> (Agent, tokio::sync::mpsc::UnboundedReceiver<AgentEvent>) {
        let args = deepterm::cli::CliArgs {
            command: deepterm::cli::CliCommand::Tui,
            config: Some(config),
            model: None,
            base_url: None,
            session_dir: Some(self.sessions()),
            resume: None,
            fork: None,
            locale: Some(deepterm::i18n::Locale::EnUs),
            demo: true,
            prompt: None,
        };
        let setup = deepterm::startup::setup(&args, true).unwrap();
        let l = deepterm::i18n::Localizer::new(setup.locale);
        let (session, _, _) = deepterm::startup::open_session(&self.sessions(), None, l).unwrap();
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let agent = deepterm::startup::build_agent(
            &setup,
            session,
            Some(self.sim.base_url()),
            tx,
            ApprovalMode::Interactive,
        )
        .unwrap();
        (agent, rx)
    }

    /// [`TestEnv::interactive_agent`] running its loop on a task.
    pub fn start_interactive(&self, config: PathBuf) -> Interactive {
        let (agent, events) = self.interactive_agent(config);
        let (commands, cmd_rx) = tokio::sync::mpsc::unbounded_channel();
        let task = tokio::spawn(agent.run_interactive(cmd_rx));
        Interactive {
            commands,
            events,
            task,
        }
    }
}

/// The loop's surroundings for in-process tests: only the base prompt matters (a test
/// tool may change it mid-turn); route switches, sessions and settings are unavailable.
pub struct PromptEnv {
    /// The rendered base prompt, re-read before every attempt.
    pub prompt: Arc<std::sync::Mutex<String>>,
}

impl Environment for PromptEnv {
    fn resolve_route(
        &self,
        _spec: &str,
    ) -> Result<(deepterm::llm::types::Route, Option<ApiKey>), EnvError> {
        Err(EnvError::Unsupported)
    }
    fn save_locale(&self, _locale: Locale) -> Result<(), EnvError> {
        Err(EnvError::Unsupported)
    }
    fn base_prompt(&self) -> String {
        self.prompt.lock().unwrap().clone()
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

/// A config whose providers all point at the simulator at `base`: `ds` (built-in catalog:
/// `deepseek-flash` addition-only, `deepseek-v4-pro` without modes), `dsih` (flash with
/// in-history tool updates) and `oai` (OpenAI format); built-in tools off and one command
/// tool, `word_count`, off until enabled. `extra` is appended (more tables).
pub fn routes_config(base: &str, extra: &str) -> String {
    ConfigBuilder::new(base)
        .provider("dsih", "deepseek-messages", &format!("{base}/anthropic"))
        .model_entry(
            "id = \"deepseek-flash\"\nsystem_prompt_update = \"in-history\"\ntool_update = \"in-history\"",
        )
        .provider("oai", "openai-chat", base)
        .builtin_tools(false)
        .command_tool(
            "word_count",
            r#"description = "Count the bytes of the JSON arguments."
command = ["wc", "-c"]
parameters = { type = "object", properties = { path = { type = "string" } } }
enabled = false"#,
        )
        .table(extra)
        .text()
}

/// An agent running its interactive loop on a task, driven like the TUI drives it.
pub struct Interactive {
    /// Commands to the loop.
    pub commands: tokio::sync::mpsc::UnboundedSender<deepterm::agent::protocol::AgentCommand>,
    /// Events from the loop.
    pub events: tokio::sync::mpsc::UnboundedReceiver<AgentEvent>,
    task: tokio::task::JoinHandle<()>,
}

impl Interactive {
    /// Submits a composer line.
    pub fn submit(&self, line: &str) {
        self.commands
            .send(deepterm::agent::protocol::AgentCommand::Submit(line.into()))
            .unwrap();
    }

    /// The next event (fails the test after 20 s of silence).
    pub async fn next_event(&mut self) -> AgentEvent {
        tokio::time::timeout(std::time::Duration::from_secs(20), self.events.recv())
            .await
            .expect("an event within 20 s")
            .expect("the loop is running")
    }

    /// Stops the loop and waits for it (the log is complete afterwards).
    pub async fn shutdown(self) {
        self.commands
            .send(deepterm::agent::protocol::AgentCommand::Shutdown)
            .unwrap();
        self.task.await.unwrap();
    }
}

/// The `deepseek/deepseek-flash` route (Messages format, addition-only tool updates, no
/// base URL): what inspector fixtures show as the route of their requests.
pub fn flash_route() -> deepterm::llm::types::Route {
    use deepterm::llm::types::{ProviderKind, Route};
    use deepterm::session::event::ToolUpdateMode;
    Route {
        provider: "deepseek".into(),
        model: "deepseek-flash".into(),
        kind: ProviderKind::DeepseekMessages,
        base_url: String::new(),
        api_key_env: String::new(),
        caps: deepterm::llm::types::Capabilities {
            context_window: 128_000,
            system_prompt_update: None,
            tool_update: Some(ToolUpdateMode::AdditionOnly),
            tool_removal: Default::default(),
            image_input: false,
            max_tools: 128,
            prices: None,
        },
    }
}

/// Standard output of a run.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error of a run.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The `messages` of a recorded request body.
pub fn messages(r: &Value) -> &Vec<Value> {
    r["body"]["messages"].as_array().unwrap()
}

/// Declared tool names of a recorded request (both wire formats).
pub fn tool_names(r: &Value) -> Vec<String> {
    r["body"]["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|t| {
                    t["name"]
                        .as_str()
                        .or_else(|| t["function"]["name"].as_str())
                        .unwrap()
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Whether the raw body contains a block of this wire type.
pub fn has_block(r: &Value, kind: &str) -> bool {
    r["rawBody"]
        .as_str()
        .unwrap()
        .contains(&format!("\"type\":\"{kind}\""))
}

/// Whether `next`'s messages start with exactly `prev`'s messages.
pub fn starts_with_previous(prev: &Value, next: &Value) -> bool {
    let (p, n) = (messages(prev), messages(next));
    n.len() >= p.len() && n[..p.len()] == p[..]
}

/// Content of every developer message in the log.
pub fn developer_contents(log: &[Value]) -> Vec<Value> {
    log.iter()
        .filter(|e| e["type"] == "developer/message")
        .map(|e| e["data"]["message"]["content"].clone())
        .collect()
}

/// Event types of the log, in order.
pub fn types(log: &[Value]) -> Vec<String> {
    log.iter()
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect()
}

/// Set to `1` (as `.ci/run` does), tests that need tmux, Node/npm or the Python SDKs fail
/// instead of skipping when those are missing.
pub const REQUIRE_EXTERNAL_VAR: &str = "DEEPTERM_REQUIRE_EXTERNAL";

/// Whether missing external tools must fail tests (`DEEPTERM_REQUIRE_EXTERNAL` set to
/// anything but empty or `0`).
pub fn external_required() -> bool {
    std::env::var(REQUIRE_EXTERNAL_VAR).is_ok_and(|v| !v.trim().is_empty() && v.trim() != "0")
}

/// The one rule for tests that need something outside cargo (`tool` names it): returns
/// `available`; when it is missing, prints a skip message, or panics with a clear message
/// if `DEEPTERM_REQUIRE_EXTERNAL=1`. Use as `if !require_external("tmux", found) { return; }`.
pub fn require_external(tool: &str, available: bool) -> bool {
    if available {
        return true;
    }
    if external_required() {
        panic!(
            "{tool} is required ({REQUIRE_EXTERNAL_VAR}=1) but not available; \
             .ci/run installs it"
        );
    }
    eprintln!("skipped: {tool} is not available (set {REQUIRE_EXTERNAL_VAR}=1 to fail instead)");
    false
}

/// Whether `tmux` runs here (pair with [`require_external`]).
pub fn tmux_available() -> bool {
    std::process::Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `p` quoted for a POSIX shell command line (tmux runs its command through `sh -c`).
pub fn shell_quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

/// Reads one HTTP request (head and `content-length` body).
pub async fn read_request(sock: &mut tokio::net::TcpStream) {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 8192];
    loop {
        let Ok(n) = tokio::io::AsyncReadExt::read(sock, &mut tmp).await else {
            return;
        };
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&tmp[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..i]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            if buf.len() >= i + 4 + len {
                return;
            }
        }
    }
}

/// The messages of the logged `tool/result` events, in log order.
pub fn tool_results(log: &[Value]) -> Vec<&Value> {
    log.iter()
        .filter(|e| e["type"] == "tool/result")
        .map(|e| &e["data"]["message"])
        .collect()
}

/// The text blocks of a logged message, joined.
pub fn result_text(m: &Value) -> String {
    m["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect()
}

/// Receives agent events, handing each to `on_event`, until one matches `pred` (fails the
/// test after 15 s without it).
pub async fn receive_until(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<AgentEvent>,
    pred: impl Fn(&AgentEvent) -> bool,
    mut on_event: impl FnMut(AgentEvent),
) {
    let deadline = tokio::time::sleep(std::time::Duration::from_secs(15));
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            ev = rx.recv() => {
                let ev = ev.expect("agent alive");
                let hit = pred(&ev);
                on_event(ev);
                if hit {
                    return;
                }
            }
            _ = &mut deadline => panic!("timed out waiting for an agent event"),
        }
    }
}

/// Feeds the loop's events into the App until one matches `pred`.
pub async fn feed_until(
    app: &mut deepterm::ui::App,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<AgentEvent>,
    pred: impl Fn(&AgentEvent) -> bool,
) {
    receive_until(rx, pred, |ev| app.on_agent_event(ev)).await;
}

/// Types `line` into the App's composer, presses Enter and sends what it asked for to the
/// loop.
pub fn send_line(
    app: &mut deepterm::ui::App,
    tx: &tokio::sync::mpsc::UnboundedSender<deepterm::agent::protocol::AgentCommand>,
    line: &str,
) {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    for c in line.chars() {
        app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }
    app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    forward(app, tx);
}

/// Sends the App's commands to the loop.
pub fn forward(
    app: &mut deepterm::ui::App,
    tx: &tokio::sync::mpsc::UnboundedSender<deepterm::agent::protocol::AgentCommand>,
) {
    for c in app.take_commands() {
        tx.send(c).unwrap();
    }
}

/// Pids of live (non-zombie) processes whose command line satisfies `pred` (Linux /proc).
pub fn processes_where(pred: impl Fn(&[u8]) -> bool) -> Vec<u32> {
    let mut out = vec![];
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in rd.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        if !pred(&cmdline) {
            continue;
        }
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .and_then(|r| r.trim().chars().next());
        if state.is_some_and(|s| s != 'Z') {
            out.push(pid);
        }
    }
    out
}

/// Pids of live (non-zombie) processes whose command line is exactly `args` (Linux /proc).
pub fn live_processes(args: &[&str]) -> Vec<u32> {
    let mut want = args.join("\0").into_bytes();
    want.push(0);
    processes_where(|cmdline| cmdline == want.as_slice())
}
