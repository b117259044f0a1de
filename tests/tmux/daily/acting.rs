//! Scenario: the acting tools in the real terminal UI (SPEC §14.1, §14.2), in demo mode in a
//! scratch workspace. The agent writes a file (an `Added` card), runs a command in the
//! sandbox (its `$` card with the exit status), Shift+Tab cycles workspace-write, plan and
//! read-only and `/mode full-access` asks first (SPEC §15.3), an edit then waits for
//! approval showing its coloured diff, `n` takes a reason that the card shows, nothing is
//! written, and `/sandbox` and `/permissions` say what is enforced.

use crate::common;
use crate::common::tmux::{Tmux, chat_flat};

struct Texts {
    locale: &'static str,
    added: &'static str,
    exit_ok: &'static str,
    mode_ask: &'static str,
    waiting: &'static str,
    denied: &'static str,
    protected: &'static str,
    policy: &'static str,
}

const EN: Texts = Texts {
    locale: "en-US",
    added: "▸ Added demo.txt · +2 −0",
    exit_ok: "exit status 0",
    mode_ask: "Leave the sandbox for full-access",
    waiting: "waiting for you",
    denied: "Denied by you: not now",
    protected: "Protected (never writable):",
    policy: "Approval policy: on-request.",
};

const ZH: Texts = Texts {
    locale: "zh-CN",
    added: "▸ 已添加 demo.txt · +2 −0",
    exit_ok: "退出状态 0",
    mode_ask: "离开沙箱、切换到 full-access",
    waiting: "等待你确认",
    denied: "已被你拒绝：not now",
    protected: "受保护（始终不可写）：",
    policy: "审批策略：on-request。",
};

fn start(w: u16, t: &Texts) -> (Tmux, tempfile::TempDir) {
    super::start_in_workspace("acting", w, t.locale)
}

fn scenario(w: u16, t: &Texts) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let (tmux, dir) = start(w, t);
    let file = super::demo_copy(dir.path()).join("demo.txt");
    tmux.type_line("please use write_file");
    tmux.wait_for("the Added card", |s| chat_flat(s).contains(t.added));
    assert!(std::fs::read_to_string(&file).unwrap().starts_with("Hello"));
    tmux.type_line("now run shell \"cat demo.txt\"");
    tmux.wait_for("the shell card", |s| {
        let f = chat_flat(s);
        f.contains("$ cat demo.txt") && f.contains(t.exit_ok)
    });
    let footer_says = |s: &str, mode: &str| {
        s.lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| l.contains(mode))
    };
    tmux.wait_for("the mode's name in the footer", |s| {
        footer_says(s, "workspace-write")
    });
    // Full-access only by /mode, which asks first; `y` switches.
    tmux.type_line("/mode full-access");
    tmux.wait_for("the full-access question", |s| s.contains(t.mode_ask));
    tmux.key("y");
    tmux.wait_for("the footer's mode", |s| footer_says(s, "full-access"));
    // In full-access every edit asks, and the card shows the diff before it is applied.
    tmux.type_line("edit_file demo.txt");
    tmux.wait_for("the edit's approval card with its diff", |s| {
        let f = chat_flat(s);
        f.contains(t.waiting) && f.contains("-Hello from") && f.contains("+Hi from")
    });
    tmux.key("n");
    tmux.run(&["send-keys", "-t", "t", "-l", "not now"]);
    tmux.key("Enter");
    tmux.wait_for("the denial with its reason", |s| {
        chat_flat(s).contains(t.denied)
    });
    assert!(
        std::fs::read_to_string(&file).unwrap().starts_with("Hello"),
        "a denied edit writes nothing"
    );
    tmux.type_line("/sandbox");
    tmux.wait_for("/sandbox", |s| chat_flat(s).contains(t.protected));
    tmux.type_line("/permissions");
    tmux.wait_for("/permissions", |s| chat_flat(s).contains(t.policy));
    // Shift+Tab leaves full-access for the cycle, workspace-write → plan → read-only →
    // workspace-write, and never enters full-access (SPEC §15.3).
    for mode in ["workspace-write", "plan", "read-only", "workspace-write"] {
        tmux.key("BTab");
        tmux.wait_for(mode, |s| footer_says(s, mode));
    }
    assert!(!tmux.capture().contains(t.mode_ask), "Shift+Tab never asks");
}

#[test]
fn the_agent_writes_runs_and_asks_with_a_diff_at_80_en() {
    scenario(80, &EN);
}

#[test]
fn the_agent_writes_runs_and_asks_with_a_diff_at_120_en() {
    scenario(120, &EN);
}

#[test]
fn the_agent_writes_runs_and_asks_with_a_diff_at_80_zh() {
    scenario(80, &ZH);
}

#[test]
fn the_agent_writes_runs_and_asks_with_a_diff_at_120_zh() {
    scenario(120, &ZH);
}
