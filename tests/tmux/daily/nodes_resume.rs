//! Scenarios: context nodes and resume, in the real TUI under
//! tmux at 80 and 120 columns, in English and Chinese (`--demo`: the built-in simulator).
//!
//! - A tool change is one node, where it was made: `/tool disable grep` then a message
//!   shows exactly one node (before: a notice, then a second node after the message).
//! - Alt+T expands the latest node and scrolls it into view; a single-tool node shows its
//!   source and description; an MCP server's tools are grouped, one per line, indented.
//! - `--resume last` restores the disabled tool (the demo model lists the tools it is
//!   offered), logs no tool change, and quitting prints the resume hint.

use std::path::Path;

use crate::common::tmux::Tmux;
use crate::common::{require_external, shell_quote, tmux_available};

use crate::common::MCP_FIXTURE as FIXTURE;

/// The texts a scenario looks for, per locale.
struct Texts {
    locale: &'static str,
    removed_grep: &'static str,
    source_builtin: &'static str,
    tools_updated: &'static str,
    added: &'static str,
    mcp_fx: &'static str,
    resume_hint: &'static str,
    idle: &'static str,
}

const EN: Texts = Texts {
    locale: "en-US",
    removed_grep: "◆ Tool removed: grep",
    source_builtin: "Source: built-in",
    tools_updated: "Tools updated",
    added: "    Added",
    mcp_fx: "      MCP server fx",
    resume_hint: "Resume with: deepterm --resume ",
    idle: "? for keys",
};

const ZH: Texts = Texts {
    locale: "zh-CN",
    removed_grep: "◆ 已移除工具：grep",
    source_builtin: "来源：内置",
    tools_updated: "工具已更新",
    added: "    新增",
    mcp_fx: "      MCP 服务器 fx",
    resume_hint: "继续此会话：deepterm --resume ",
    idle: "? 查看快捷键",
};

/// The Chat pane's rows: at 120 columns the Trajectory sits right of a `│`.
fn chat_rows(screen: &str) -> Vec<String> {
    screen
        .lines()
        .map(|l| match l.split_once('│') {
            Some((left, _)) => left.to_string(),
            None => l.to_string(),
        })
        .collect()
}

fn chat_count(screen: &str, what: &str) -> usize {
    chat_rows(screen)
        .iter()
        .filter(|r| r.contains(what))
        .count()
}

/// Starts `deepterm --demo` in `dir` (config with the MCP fixture as server `fx`, not
/// connected at start); after it exits the shell prints `EXITED` and waits.
fn start(name: &str, dir: &Path, w: u16, h: u16, t: &Texts, extra: &str) -> Tmux {
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        // `rewrite` (the opt-out of §15.1): the demo then stops offering a disabled tool,
        // which the scenarios read from its reply.
        format!(
            "[[providers.deepseek.models]]\nid = \"deepseek-flash\"\ntool_removal = \"rewrite\"\n\n\
             [mcp.servers.fx]\ncommand = \"{FIXTURE}\"\nenabled = false\n"
        ),
    )
    .unwrap();
    let cmd = format!(
        "env -u DEEPSEEK_API_KEY HOME={home} {bin} --demo --session-dir {sessions} --config {config} --locale {loc} {extra}; echo EXITED; sleep 60",
        home = shell_quote(dir),
        bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        sessions = shell_quote(&dir.join("sessions")),
        config = shell_quote(&config),
        loc = t.locale,
    );
    let tmux = Tmux::start(name, w, h, &cmd);
    tmux.wait_for("the first frame", |s| s.contains("│") || s.contains("──"));
    tmux
}

/// Sends a message and waits for the demo reply listing the offered tools, and for the
/// turn to end (the status line's idle hint).
fn ask(tmux: &Tmux, t: &Texts, text: &str, offered: &str) -> String {
    // The demo answers in the interface language (§14.5).
    let offered = match t.locale {
        "zh-CN" => offered
            .replace("Tools on offer: ", "可用的工具：")
            .replace(", ", "、"),
        _ => offered.to_string(),
    };
    let offered = offered.as_str();
    tmux.type_line(text);
    tmux.wait_for("the demo reply", |s| {
        s.contains(&format!("▎ {text}"))
            && crate::common::tmux::chat_flat(s)
                .replace(' ', "")
                .contains(&offered.replace(' ', ""))
            && s.contains(t.idle)
    })
}

fn one_node_per_change_and_alt_t(w: u16, t: &Texts, socket: &str) {
    if !require_external("tmux", tmux_available()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmux = start(socket, dir.path(), w, 24, t, "");
    ask(
        &tmux,
        t,
        "Hello",
        "apply_patch, edit_file, grep, list_dir, read_file, shell, task, update_plan, write_file",
    );
    tmux.type_line("/tool disable grep");
    // The node appears when the change is made (no separate notice).
    tmux.wait_for("the node", |s| chat_count(s, t.removed_grep) == 1);
    ask(
        &tmux,
        t,
        "Again",
        "Tools on offer: apply_patch, edit_file, list_dir, read_file, shell, task, update_plan, write_file",
    );
    // The node is now above the screen; Alt+T expands it and scrolls it into view.
    tmux.key("M-t");
    let screen = tmux.wait_for("the expanded node on screen", |s| {
        s.contains(t.source_builtin) && s.contains("Search file contents")
    });
    // Exactly one node for the change: none after the next message either.
    assert_eq!(chat_count(&screen, t.removed_grep), 1, "{screen}");
    let rows = chat_rows(&screen);
    let at = rows
        .iter()
        .position(|r| r.contains(t.removed_grep))
        .unwrap();
    assert!(
        rows[at + 1].starts_with(&format!("    {}", t.source_builtin)),
        "source under the node, indented:\n{screen}"
    );
    // An MCP server's tools: one grouped node, one tool per line, indented.
    tmux.type_line("/mcp connect fx");
    tmux.wait_for("the grouped node", |s| chat_count(s, t.tools_updated) >= 1);
    tmux.key("M-t");
    let screen = tmux.wait_for("the grouped expansion", |s| {
        chat_count(s, "fx__echo") == 1 && chat_count(s, "fx__fail") == 1
    });
    let rows = chat_rows(&screen);
    assert!(rows.iter().any(|r| r.trim_end() == t.added), "{screen}");
    assert!(rows.iter().any(|r| r.trim_end() == t.mcp_fx), "{screen}");
    let tools: Vec<&String> = rows.iter().filter(|r| r.contains("fx__")).collect();
    assert!(tools.len() >= 2, "{screen}");
    for r in tools {
        assert!(
            r.starts_with("        fx__"),
            "indented, one per line: {r:?}\n{screen}"
        );
        assert_eq!(r.matches("fx__").count(), 1, "one tool per line: {r:?}");
    }
    tmux.type_line("/quit");
    tmux.wait_for("exit", |s| s.contains("EXITED"));
}

fn resume_restores_and_prints_the_hint(w: u16, t: &Texts, socket: &str) {
    if !require_external("tmux", tmux_available()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tmux = start(socket, dir.path(), w, 40, t, "");
    ask(
        &tmux,
        t,
        "Hello",
        "apply_patch, edit_file, grep, list_dir, read_file, shell, task, update_plan, write_file",
    );
    tmux.type_line("/tool disable grep");
    ask(
        &tmux,
        t,
        "Again",
        "Tools on offer: apply_patch, edit_file, list_dir, read_file, shell, task, update_plan, write_file",
    );
    tmux.type_line("/quit");
    let screen = tmux.wait_for("the resume hint", |s| s.contains("EXITED"));
    let hint = screen
        .lines()
        .find(|l| l.contains(t.resume_hint))
        .unwrap_or_else(|| panic!("no resume hint:\n{screen}"));
    let rest = hint.split(t.resume_hint).nth(1).unwrap();
    let id = rest
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string();
    assert!(!id.is_empty(), "{hint}");
    // Started with `--session-dir` and `--config`: the hint repeats them (it may wrap).
    let joined: String = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(joined.contains("--session-dir"), "{screen}");
    drop(tmux);
    let log = dir.path().join("sessions").join(format!("{id}.jsonl"));
    let developer = |p: &Path| {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .filter(|l| l.contains("\"type\":\"developer/message\""))
            .count()
    };
    assert_eq!(developer(&log), 1, "the hint names this session's log");

    let tmux = start(
        &format!("{socket}-r"),
        dir.path(),
        w,
        40,
        t,
        "--resume last",
    );
    // The resumed transcript shows the node once, where it was made.
    tmux.wait_for("the resumed transcript", |s| {
        chat_count(s, t.removed_grep) == 1 && s.contains("▎ Again")
    });
    // grep stays disabled: the model is offered the same tools as before.
    ask(
        &tmux,
        t,
        "Third",
        "Tools on offer: apply_patch, edit_file, list_dir, read_file, shell, task, update_plan, write_file",
    );
    assert_eq!(
        developer(&log),
        1,
        "an unchanged resume logs no tool change"
    );
    tmux.type_line("/quit");
    let screen = tmux.wait_for("the resume hint again", |s| s.contains("EXITED"));
    assert!(
        screen.contains(&format!("{}{id}", t.resume_hint)),
        "{screen}"
    );
}

#[test]
fn one_node_per_change_expands_and_alt_t_scrolls_80_en() {
    one_node_per_change_and_alt_t(80, &EN, "i12n-node-80en");
}

#[test]
fn one_node_per_change_expands_and_alt_t_scrolls_120_zh() {
    one_node_per_change_and_alt_t(120, &ZH, "i12n-node-120zh");
}

#[test]
fn one_node_per_change_expands_and_alt_t_scrolls_120_en() {
    one_node_per_change_and_alt_t(120, &EN, "i12n-node-120en");
}

#[test]
fn one_node_per_change_expands_and_alt_t_scrolls_80_zh() {
    one_node_per_change_and_alt_t(80, &ZH, "i12n-node-80zh");
}

#[test]
fn resume_restores_a_disabled_tool_and_prints_the_hint_80_zh() {
    resume_restores_and_prints_the_hint(80, &ZH, "i12n-res-80zh");
}

#[test]
fn resume_restores_a_disabled_tool_and_prints_the_hint_120_en() {
    resume_restores_and_prints_the_hint(120, &EN, "i12n-res-120en");
}
