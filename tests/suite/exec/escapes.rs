//! `deepterm exec` prints no terminal control sequence that came from outside
//! (docs/decisions/0035-exec-output-is-escaped.md): a provider's error body, an MCP server's
//! handshake error and tool names (`/mcp`, `/tools`), a session's first prompt (`/resume`)
//! and the reply itself (when stdout is a terminal) all carry OSC 52 (clipboard), OSC 0
//! (title), CSI 2J (clear screen) and a C1 CSI (`\u{9b}`). No ESC, BEL or C1 character
//! reaches stdout or stderr, in plain and in `--json` output. Each source is also shown to
//! have delivered its sequences (in the log, in a piped reply, in the decoded JSON), so the
//! test cannot pass because nothing hostile arrived.

use std::path::{Path, PathBuf};

use deepterm::sim::{Fault, Script, ScriptedReply, SimConfig};
use serde_json::Value;

use crate::common;

use common::*;

/// Every sequence the test plants, as Rust text.
const HOSTILE: &str = "\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31m";
/// The same in a TOML basic string.
const HOSTILE_TOML: &str = r"\u001b]52;c;cHduZWQ=\u0007\u001b]0;pwned\u0007\u001b[2J\u009b31m";

/// The control characters in `bytes` that a terminal acts on: ESC, BEL and C1 (U+0080 to
/// U+009F, as UTF-8). The output must be UTF-8, so no lone C1 byte can hide either.
fn controls(what: &str, bytes: &[u8]) -> Vec<String> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => return vec![format!("{what}: not UTF-8 ({e})")],
    };
    text.char_indices()
        .filter(|(_, c)| matches!(*c, '\u{1b}' | '\u{7}' | '\u{80}'..='\u{9f}'))
        .map(|(i, c)| {
            let from = text[..i].char_indices().rev().nth(30).map_or(0, |(j, _)| j);
            format!("{what}: U+{:04X} after {:?}", c as u32, &text[from..i])
        })
        .collect()
}

fn has_hostile(s: &str) -> bool {
    s.contains('\u{1b}') && s.contains('\u{9b}')
}

/// A config on the simulator with two fixture servers: `fx`, whose tool names and
/// descriptions carry the sequences, and `bad`, which refuses to start with them in its
/// last stderr line (the handshake error quotes it).
fn config(env: &TestEnv, marker: &Path) -> PathBuf {
    let base = env.sim.base_url();
    let marker = marker.display().to_string().replace('\u{1b}', r"\u001b");
    let marker = marker
        .replace('\u{7}', r"\u0007")
        .replace('\u{9b}', r"\u009b");
    ConfigBuilder::new(&base)
        .fixture_server("fx", &format!("FIXTURE_TOOLS = \"echo,x{HOSTILE_TOML}y\""))
        .fixture_server("bad", &format!("FIXTURE_FAIL_MARKER = \"{marker}\""))
        .write(env.dir.path())
}

/// A session whose first prompt carries the sequences (its reply too), written by a first
/// run; then a run of every other source. Returns the environment, the config and the
/// script of the second run.
async fn setup() -> (TestEnv, PathBuf, &'static str) {
    let script = Script::new(vec![
        ScriptedReply::text(format!("first reply {HOSTILE} end")),
        ScriptedReply::text(format!("second reply {HOSTILE} end")),
        ScriptedReply::fault(Fault::HttpError {
            status: 400,
            message: format!("provider says {HOSTILE} no"),
            retry_after: None,
        }),
    ]);
    let env = TestEnv::new(SimConfig {
        script: Some(script),
        ..SimConfig::default()
    })
    .await;
    let marker = env.dir.path().join(format!("marker{HOSTILE}"));
    std::fs::write(&marker, "").unwrap();
    let cfg = config(&env, &marker);
    let first = serde_json::to_string(&format!("{HOSTILE} first prompt")).unwrap();
    let out = env.exec_ok(&cfg, &format!("{first}\n"), &[]).await;
    // Piped, the reply is the model's text byte for byte: the sequences did arrive.
    assert!(has_hostile(&stdout(&out)), "{}", stdout(&out));
    // The log's file name carries them too: the runs below resume it (`--resume last`),
    // so its id is in the `/resume` list and its path in the closing line on stderr.
    let log = env.log_path();
    std::fs::rename(&log, env.sessions().join(format!("{HOSTILE}renamed.jsonl"))).unwrap();
    let script =
        "/mcp connect fx\n/mcp connect bad\n/tools\n/mcp\n/resume\nHello again\nNow fail\n";
    (env, cfg, script)
}

/// Every log in the session directory, as JSON lines.
fn all_logs(env: &TestEnv) -> String {
    let mut out = String::new();
    for e in std::fs::read_dir(env.sessions()).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "jsonl") {
            out += &std::fs::read_to_string(e.path()).unwrap();
        }
    }
    out
}

/// The logs' strings decoded: where the sequences arrived.
fn logged_strings(env: &TestEnv) -> Vec<String> {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(o) => o.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for line in all_logs(env).lines() {
        walk(&serde_json::from_str(line).unwrap(), &mut out);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_prints_no_control_sequence_from_servers_logs_or_the_provider() {
    let (env, cfg, script) = setup().await;
    let out = env.exec(&cfg, script, &["--resume", "last"]).await;
    let (so, se) = (stdout(&out), stderr(&out));
    assert!(!out.status.success(), "the last line fails: {se}");
    // Each source spoke, escaped: the error body, the handshake error, the tool names, the
    // first prompt in the list, and the piped reply stays exact.
    assert!(se.contains(r"provider says \x1B]52;c;cHduZWQ=\x07"), "{se}");
    assert!(se.contains(r"marker\x1B]52;c;"), "handshake error: {se}");
    assert!(so.contains(r"x\x1B]52;c;cHduZWQ=\x07"), "tool names: {so}");
    assert!(
        so.contains(r"\x1B]52;c;cHduZWQ=\x07\x1B]0;pwned\x07\x1B[2J\x9B31m first prompt"),
        "{so}"
    );
    assert!(
        so.contains(r"\x9B31mrenamed  \x1B]52;"),
        "id and first prompt: {so}"
    );
    assert!(se.contains(r"\x9B31mrenamed.jsonl"), "the log's path: {se}");
    assert!(so.contains(&format!("second reply {HOSTILE} end")), "{so}");
    let logged = logged_strings(&env);
    assert!(
        logged
            .iter()
            .any(|s| s.contains("provider says") && has_hostile(s)),
        "the provider sent the sequences"
    );
    assert!(
        logged
            .iter()
            .any(|s| s.contains("x\u{1b}]52;c;") && has_hostile(s)),
        "the server listed the tool name"
    );
    // Nothing else gets through: the reply is the only raw text, and only because stdout
    // is a pipe (the next test runs it on a terminal).
    let so_without_reply = so.replace(&format!("second reply {HOSTILE} end"), "");
    let found = [
        controls("stdout", so_without_reply.as_bytes()),
        controls("stderr", se.as_bytes()),
    ]
    .concat();
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_json_escapes_every_control_character() {
    let (env, cfg, script) = setup().await;
    let out = env
        .exec(&cfg, script, &["--json", "--resume", "last"])
        .await;
    let found = [
        controls("stdout", &out.stdout),
        controls("stderr", &out.stderr),
    ]
    .concat();
    assert!(found.is_empty(), "{}", found.join("\n"));
    // The JSON still says exactly what arrived.
    let decoded: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let text = serde_json::to_string(&decoded).unwrap();
    assert!(
        text.contains(r"second reply \u001b]52;c;cHduZWQ=\u0007"),
        "{text}"
    );
    assert!(text.contains("\u{9b}31m end"), "the C1 CSI arrived");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_escapes_the_reply_when_stdout_is_a_terminal() {
    if !require_external("script", script_available()) {
        return;
    }
    let (env, cfg, script) = setup().await;
    let script_path = env.dir.path().join("tty-script.txt");
    std::fs::write(&script_path, script).unwrap();
    // `script` gives deepterm a pseudo-terminal as stdin, stdout and stderr and copies
    // everything written there to its own stdout.
    let cmd = format!(
        "{bin} exec --script {script} --config {cfg} --session-dir {sessions} --locale en-US \
         --resume last",
        bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        script = shell_quote(&script_path),
        cfg = shell_quote(&cfg),
        sessions = shell_quote(&env.sessions()),
    );
    let run = tokio::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", env.dir.path())
        .env("TERM", "dumb")
        .stdin(std::process::Stdio::null())
        .output();
    let out = tokio::time::timeout(std::time::Duration::from_secs(60), run)
        .await
        .expect("exec under script finishes")
        .unwrap();
    let text = stdout(&out);
    assert!(
        text.contains(r"second reply \x1B]52;c;cHduZWQ=\x07"),
        "{text}"
    );
    assert!(text.contains(r"provider says \x1B]52;"), "{text}");
    let found = controls("terminal", &out.stdout);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// Whether util-linux `script` runs here (pair with [`require_external`]).
fn script_available() -> bool {
    std::process::Command::new("script")
        .args(["-qec", "true", "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success())
}
