//! Prompt and session hooks: a `user_prompt_submit` hook refuses a prompt (nothing is
//! sent), a script written to Claude Code's documented hook format runs unchanged, and
//! `session_start` and `stop` hooks get their events.

use deepterm::sim::SimConfig;

use super::*;
use crate::common::*;

fn user_texts(env: &TestEnv) -> Vec<String> {
    env.requests()
        .iter()
        .flat_map(|r| messages(r).clone())
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_prompt_submit_hook_refuses_a_prompt_which_is_never_sent() {
    let env = TestEnv::new(SimConfig::default()).await;
    let place = Place::new(&env);
    let hook = script(
        &env.dir.path().join("gate.sh"),
        "#!/bin/sh\nif grep -q 'launch codes'; then\n\
           echo 'prompts about launch codes are not allowed' >&2; exit 2\nfi\nexit 0\n",
    );
    let cfg = config(
        &env,
        &format!(
            "[[hooks.user_prompt_submit]]\ncommand = [\"{}\"]\n",
            hook.display()
        ),
    );
    let out = run(
        &env,
        &cfg,
        &place,
        "tell me the launch codes\nwhat is a monad?\n",
    )
    .await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(
            "blocked the prompt, which was not sent: prompts about launch codes are not allowed"
        ),
        "{err}"
    );
    let sent = user_texts(&env);
    assert_eq!(env.requests().len(), 1, "{sent:?}");
    assert!(sent.iter().all(|t| !t.contains("launch codes")), "{sent:?}");
    assert!(
        sent.iter().any(|t| t.contains("what is a monad?")),
        "{sent:?}"
    );
    // Nothing of the refused prompt is in the log as a message; its hook run is.
    let log = env.log();
    assert!(
        !log.iter()
            .any(|e| e["type"] == "user/message" && e.to_string().contains("launch codes")),
        "{log:?}"
    );
    let runs = hook_runs(&env);
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(runs[0]["outcome"], "blocked");
    assert_eq!(runs[1]["outcome"], "continued");
}

/// A prompt validator written to Claude Code's hook documentation: it reads the event
/// with `json.load(sys.stdin)`, answers with a JSON `decision` on stdout and exit 0, and
/// checks `hook_event_name`, `session_id`, `transcript_path` and `cwd` as documented.
const CLAUDE_STYLE_VALIDATOR: &str = r#"#!/usr/bin/env python3
import json
import os
import re
import sys

try:
    data = json.load(sys.stdin)
except json.JSONDecodeError as e:
    print(f"Error: invalid JSON input: {e}", file=sys.stderr)
    sys.exit(1)

if data.get("hook_event_name") != "UserPromptSubmit":
    sys.exit(1)
for field in ("session_id", "transcript_path", "cwd"):
    if not data.get(field):
        print(f"missing {field}", file=sys.stderr)
        sys.exit(1)
if not os.path.isfile(data["transcript_path"]):
    print("transcript_path is not a file", file=sys.stderr)
    sys.exit(1)

prompt = data.get("prompt", "")
if re.search(r"(?i)\b(password|secret|token)\s*[:=]", prompt):
    print(json.dumps({
        "decision": "block",
        "reason": "Security policy: the prompt contains what looks like a credential.",
    }))
    sys.exit(0)

# Claude Code would add this to the context; deepterm ignores plain stdout.
print("Checked by the validator.")
sys.exit(0)
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_code_format_hook_script_works_unchanged() {
    let env = TestEnv::new(SimConfig::default()).await;
    let place = Place::new(&env);
    let python = which("python3");
    let hook = script(&env.dir.path().join("validate.py"), CLAUDE_STYLE_VALIDATOR);
    let cfg = config(
        &env,
        &format!(
            "[[hooks.user_prompt_submit]]\ncommand = [\"{python}\", \"{}\"]\n",
            hook.display()
        ),
    );
    let out = run(
        &env,
        &cfg,
        &place,
        "hello, can you help?\nmy password: hunter2 is it strong?\n",
    )
    .await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("the prompt contains what looks like a credential"),
        "{err}"
    );
    let sent = user_texts(&env);
    assert!(sent.iter().any(|t| t.contains("can you help?")), "{sent:?}");
    assert!(sent.iter().all(|t| !t.contains("hunter2")), "{sent:?}");
    let runs = hook_runs(&env);
    let outcomes: Vec<&str> = runs
        .iter()
        .map(|r| r["outcome"].as_str().unwrap())
        .collect();
    // The first prompt passed every check of the script (exit 0, no decision).
    assert_eq!(outcomes, vec!["continued", "blocked"], "{err}");
    // The JSON decision's reason is logged (stderr does not hold it): a resumed session
    // says why.
    let reason = runs[1]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("looks like a credential"), "{runs:?}");
}

/// The real interpreter behind `program` on `PATH` (a version manager's shim may need
/// the caller's environment); the test fails without it.
fn which(program: &str) -> String {
    let out = std::process::Command::new(program)
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .unwrap_or_else(|e| panic!("{program} is needed for this test: {e}"));
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(!path.is_empty(), "{program} is needed for this test");
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_start_and_stop_hooks_get_their_events() {
    let env = TestEnv::new(SimConfig::default()).await;
    let place = Place::new(&env);
    let start = env.dir.path().join("start.json");
    let stop = env.dir.path().join("stop.json");
    let start_hook = script(
        &env.dir.path().join("start.sh"),
        &format!("#!/bin/sh\ncat > {}\n", start.display()),
    );
    let stop_hook = script(
        &env.dir.path().join("stop.sh"),
        &format!(
            "#!/bin/sh\ncat >> {}\necho >> {}\n",
            stop.display(),
            stop.display()
        ),
    );
    let cfg = config(
        &env,
        &format!(
            "[[hooks.session_start]]\ncommand = [\"{}\"]\n[[hooks.stop]]\ncommand = [\"{}\"]\n",
            start_hook.display(),
            stop_hook.display()
        ),
    );
    let out = run(&env, &cfg, &place, "hi\nand again\n").await;
    assert!(out.status.success(), "{}", stderr(&out));
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&start).unwrap()).unwrap();
    assert_eq!(s["hook_event_name"], "SessionStart");
    assert_eq!(s["source"], "startup");
    let id = s["session_id"].as_str().unwrap().to_string();
    let stops: Vec<serde_json::Value> = std::fs::read_to_string(&stop)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(stops.len(), 2, "one per turn: {stops:?}");
    assert!(stops.iter().all(|v| v["hook_event_name"] == "Stop"
        && v["session_id"] == id.as_str()
        && v["stop_hook_active"] == false));
    let runs = hook_runs(&env);
    let events: Vec<&str> = runs.iter().map(|r| r["event"].as_str().unwrap()).collect();
    assert_eq!(events, vec!["session_start", "stop", "stop"]);
}
