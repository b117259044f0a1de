//! Scenarios: approvals. The real binary runs in tmux against
//! `deepterm sim --script FILE`: the model calls `run_cmd`, a command tool that asks for
//! approval; the user looks at the Trajectory (one pane at 80 columns), the approval brings
//! Chat into view with the tool and its arguments, Esc denies, and the turn goes on.

use std::path::Path;

use crate::common;
use crate::common::tmux::{SimProcess as Sim, Tmux};

/// The model calls `run_cmd` once, then answers after the (denied) result.
const SCRIPT: &str = r#"[
  {"text": "Let me look.", "tool_calls": [{"name": "run_cmd", "input": {"command": "ls -la /tmp"}}],
   "stall_ms": 1500},
  {"text": "NEXT-REPLY: fine, I will not run it."}
]"#;

/// A command tool that asks before each call.
const TOOL: &str = r#"
[tools.command.run_cmd]
description = "Run a shell command."
command = ["echo", "ran"]
parameters = { type = "object", properties = { command = { type = "string" } } }
approval = "ask"
"#;

/// What the screen says in one locale.
struct Words {
    locale: &'static str,
    chat: &'static str,
    trajectory: &'static str,
    waiting: &'static str,
    status: &'static str,
    prompt: &'static str,
    denied: &'static str,
    not_run: &'static str,
}

const EN: Words = Words {
    locale: "en-US",
    chat: "Chat",
    trajectory: "Trajectory",
    waiting: "run_cmd  waiting for you",
    status: "Waiting for you",
    prompt: "Allow run_cmd?",
    denied: "Denied by you",
    not_run: "run_cmd  not run",
};

const ZH: Words = Words {
    locale: "zh-CN",
    chat: "对话",
    trajectory: "轨迹",
    waiting: "run_cmd  等待你确认",
    status: "等待你确认",
    prompt: "允许调用 run_cmd 吗？",
    denied: "已被你拒绝",
    not_run: "run_cmd  未运行",
};

/// Runs the scenario at `width` columns in `w`'s locale.
fn pending_approval_is_seen_and_esc_denies_and_continues(sock: &str, width: u16, w: &Words) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("replies.json");
    std::fs::write(&script, SCRIPT).unwrap();
    let sim = Sim::start(&script);
    let config = dir.path().join("config.toml");
    std::fs::write(&config, common::routes_config(&sim.base, TOOL)).unwrap();
    let cmd = format!(
        "env {}={} HOME={} XDG_CONFIG_HOME={} XDG_DATA_HOME={} {} --session-dir {} --config {} \
         --locale {}; sleep 30",
        common::KEY_VAR,
        common::TEST_KEY,
        common::shell_quote(dir.path()),
        common::shell_quote(&dir.path().join("c")),
        common::shell_quote(&dir.path().join("d")),
        common::shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        common::shell_quote(&dir.path().join("sessions")),
        common::shell_quote(&config),
        w.locale,
    );
    let tmux = Tmux::start(sock, width, 30, &cmd);
    tmux.wait_for("the first frame", |s| s.contains(w.chat));
    tmux.type_line("please list /tmp");
    if width < 100 {
        // Sending the message shows Chat (its reply lands there); then, while the model
        // takes its time, Composer → Chat → Trajectory: the Trajectory is the one pane shown.
        tmux.wait_for("Chat with the message", |s| s.contains("please list /tmp"));
        tmux.key("Tab");
        tmux.key("Tab");
        tmux.wait_for("the Trajectory alone", |s| {
            s.contains(w.trajectory) && !s.contains(w.chat)
        });
    }
    let screen = tmux.wait_for("the pending approval in Chat", |s| {
        s.contains(w.waiting) && s.contains(w.status)
    });
    assert!(screen.contains(w.chat), "Chat in view:\n{screen}");
    // The card shows the arguments, and so does the prompt in the bottom pane.
    let card = screen.lines().position(|l| l.contains(w.waiting)).unwrap();
    let args = screen
        .lines()
        .position(|l| l.contains("ls -la /tmp"))
        .unwrap_or_else(|| panic!("arguments on screen:\n{screen}"));
    assert!(args > card, "{screen}");
    let prompt = screen.lines().rev().find(|l| l.contains(w.prompt));
    assert!(
        prompt.is_some_and(|l| l.contains("ls -la /tmp")),
        "bottom pane names the tool and its arguments:\n{screen}"
    );
    assert!(!screen.contains("NEXT-REPLY"), "{screen}");

    tmux.key("Escape");
    let screen = tmux.wait_for("the model's next reply after the denial", |s| {
        s.contains("NEXT-REPLY")
    });
    assert!(
        screen.contains(w.denied) && screen.contains(w.not_run),
        "{screen}"
    );
    assert!(!screen.contains("the user denied"), "{screen}");
    assert!(!screen.contains(w.waiting), "{screen}");
    drop(tmux);
    drop(sim);
}

#[test]
fn approval_from_trajectory_80_cols_en() {
    pending_approval_is_seen_and_esc_denies_and_continues("i12-appr-80-en", 80, &EN);
}

#[test]
fn approval_from_trajectory_80_cols_zh() {
    pending_approval_is_seen_and_esc_denies_and_continues("i12-appr-80-zh", 80, &ZH);
}

#[test]
fn esc_denies_and_continues_120_cols_en() {
    pending_approval_is_seen_and_esc_denies_and_continues("i12-appr-120-en", 120, &EN);
}

#[test]
fn esc_denies_and_continues_120_cols_zh() {
    pending_approval_is_seen_and_esc_denies_and_continues("i12-appr-120-zh", 120, &ZH);
}
