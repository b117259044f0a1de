//! Scenario: a subagent in the real terminal UI (SPEC §15.3), against `deepterm sim
//! --script`, at 80 and 120 columns in both locales. The model calls `task`; while the
//! subagent runs, its card says which step it is on and which tool it is running
//! (`running · a1 · step 1 · slow_count`, then `step 2` while its next request takes its
//! time); when it answers, the parent goes on with the answer. A subagent in `inherit`
//! mode whose call asks brings up a question naming it, in Chat and above the composer,
//! and its `task` card says it waits for you; `y` lets its call run and it goes on.

use crate::common;
use crate::common::tmux::chat_flat;

/// The parent delegates; the subagent (its requests carry "subagent a1") runs a slow
/// command tool, then answers after a slow request; the parent ends the turn.
const SCRIPT: &str = r#"[
  {"text": "Delegating.", "tool_calls": [{"name": "task", "input": {
    "description": "count words", "prompt": "Count the words.", "mode": "inherit"}}]},
  {"when": "subagent a1", "tool_calls": [{"name": "slow_count", "input": {}}]},
  {"when": "subagent a1", "text": "a1 counted 42 words.", "stall_ms": 2500},
  {"text": "TASK-DONE: 42 words."}
]"#;

/// A command tool that takes three seconds and asks nothing.
const TOOL: &str = r#"
[tools.command.slow_count]
description = "Count the words, slowly."
command = ["sleep", "3"]
parameters = { type = "object", properties = {} }
approval = "never"
"#;

struct Texts {
    locale: &'static str,
    running_tool: &'static str,
    running_step2: &'static str,
    running: &'static str,
}

const EN: Texts = Texts {
    locale: "en-US",
    running_tool: "running · a1 · step 1 · slow_count",
    running_step2: "running · a1 · step 2",
    running: "running · a1",
};

const ZH: Texts = Texts {
    locale: "zh-CN",
    running_tool: "运行中 · a1 · 第 1 步 · slow_count",
    running_step2: "运行中 · a1 · 第 2 步",
    running: "运行中 · a1",
};

fn scenario(w: u16, t: &Texts) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let (tmux, _sim, _dir) = super::start_on_script("task", w, t.locale, SCRIPT, TOOL);
    tmux.type_line("count the words with a subagent");
    let s = tmux.wait_for("the task card on the subagent's tool", |s| {
        s.contains(t.running_tool)
    });
    let card = s.lines().find(|l| l.contains(t.running_tool)).unwrap();
    assert!(card.contains("task"), "the task call's own card:\n{s}");
    let s = tmux.wait_for("the task card on the subagent's next step", |s| {
        s.lines()
            .any(|l| l.contains(t.running_step2) && !l.contains("slow_count"))
    });
    assert!(!chat_flat(&s).contains("TASK-DONE"), "{s}");
    let s = tmux.wait_for("the parent's answer", |s| {
        chat_flat(s).contains("TASK-DONE")
    });
    assert!(!s.contains(t.running), "the card no longer runs:\n{s}");
}

#[test]
fn the_task_card_shows_the_subagent_s_live_step_and_tool_80_en() {
    scenario(80, &EN);
}

#[test]
fn the_task_card_shows_the_subagent_s_live_step_and_tool_80_zh() {
    scenario(80, &ZH);
}

#[test]
fn the_task_card_shows_the_subagent_s_live_step_and_tool_120_en() {
    scenario(120, &EN);
}

#[test]
fn the_task_card_shows_the_subagent_s_live_step_and_tool_120_zh() {
    scenario(120, &ZH);
}

/// The subagent calls `run_cmd`, which asks; after the answer it ends, then the parent.
const ASKING: &str = r#"[
  {"text": "Delegating.", "tool_calls": [{"name": "task", "input": {
    "description": "count words", "prompt": "Count the words.", "mode": "inherit"}}]},
  {"when": "subagent a1", "tool_calls": [{"name": "run_cmd", "input": {"command": "wc -w notes.txt"}}]},
  {"when": "subagent a1", "text": "a1 counted 42 words."},
  {"text": "ASKED-AND-DONE: 42 words."}
]"#;

/// A command tool that asks before each call.
const ASKING_TOOL: &str = r#"
[tools.command.run_cmd]
description = "Run a command."
command = ["echo", "ran"]
parameters = { type = "object", properties = { command = { type = "string" } } }
approval = "ask"
"#;

fn asks_naming_the_subagent(w: u16, locale: &str) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let (question, waits) = match locale {
        "zh-CN" => (
            "允许子代理 a1（count words）调用 run_cmd 吗？",
            "等待你确认 · a1 · 第 1 步 · run_cmd",
        ),
        _ => (
            "Allow run_cmd for subagent a1 (count words)?",
            "waiting for you · a1 · step 1 · run_cmd",
        ),
    };
    let (tmux, _sim, _dir) = super::start_on_script("task-ask", w, locale, ASKING, ASKING_TOOL);
    tmux.type_line("count the words with a subagent");
    let s = tmux.wait_for("the question naming the subagent", |s| {
        s.matches(question).count() == 2 && s.contains(waits)
    });
    assert!(s.contains("wc -w notes.txt"), "{s}");
    // The task call's own card says its subagent waits for you.
    let card = s.lines().find(|l| l.contains(waits));
    assert!(card.is_some_and(|l| l.contains("task")), "{s}");
    tmux.key("y");
    let s = tmux.wait_for("the parent's answer", |s| {
        chat_flat(s).contains("ASKED-AND-DONE")
    });
    assert!(
        !s.contains(question) || s.matches(question).count() == 1,
        "{s}"
    );
    assert!(
        !s.contains(waits),
        "answered, the card no longer waits:\n{s}"
    );
}

#[test]
fn an_inherit_subagent_s_question_names_it_80_en_120_zh() {
    asks_naming_the_subagent(80, "en-US");
    asks_naming_the_subagent(120, "zh-CN");
}

#[test]
fn an_inherit_subagent_s_question_names_it_80_zh_120_en() {
    asks_naming_the_subagent(80, "zh-CN");
    asks_naming_the_subagent(120, "en-US");
}
