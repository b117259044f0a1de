//! Scenario: plan mode in the real terminal UI (SPEC §15.3), against `deepterm sim
//! --script`, at 80 and 120 columns in both locales. Shift+Tab enters plan mode (the
//! footer says `plan`); the model's `update_plan` is pinned above the composer as a
//! checklist; the turn that made it ends with `Execute this plan?`, and `y` switches to
//! workspace-write and sends "Go ahead with the plan."; Shift+Tab then cycles
//! workspace-write → plan → read-only → workspace-write, never asking.

use crate::common;
use crate::common::tmux::chat_flat;

use super::footer_says;

/// The planning turn (a plan, then a text reply), then the reply to "Go ahead".
const SCRIPT: &str = r#"[
  {"text": "Looking first.", "tool_calls": [{"name": "update_plan", "input": {
    "explanation": "Parser first",
    "plan": [
      {"step": "Read the parser", "status": "completed"},
      {"step": "Fix the lookahead", "status": "in_progress"},
      {"step": "Run the tests", "status": "pending"}]}}]},
  {"text": "PLAN-READY: that is my plan."},
  {"text": "GOING: fixing the lookahead now."}
]"#;

struct Texts {
    locale: &'static str,
    title: &'static str,
    question: &'static str,
    go_ahead: &'static str,
    full_access: &'static str,
}

const EN: Texts = Texts {
    locale: "en-US",
    title: "Plan · 1 of 3 done",
    question: "Execute this plan?",
    go_ahead: "Go ahead with the plan.",
    full_access: "Leave the sandbox for full-access",
};

const ZH: Texts = Texts {
    locale: "zh-CN",
    title: "计划 · 已完成 1/3",
    question: "执行这个计划？",
    go_ahead: "请按计划执行。",
    full_access: "离开沙箱、切换到 full-access",
};

/// The pinned block: the last row with the plan's title and the three steps right below
/// it, right above the status line and the composer (the bottom rows of the screen).
fn pinned_plan(screen: &str, t: &Texts) -> bool {
    let rows: Vec<&str> = screen.lines().collect();
    let Some(at) = rows.iter().rposition(|r| r.contains(t.title)) else {
        return false;
    };
    rows.len() - at < 14
        && rows
            .get(at + 1)
            .is_some_and(|r| r.contains("☑ Read the parser"))
        && rows
            .get(at + 2)
            .is_some_and(|r| r.contains("▸ Fix the lookahead"))
        && rows
            .get(at + 3)
            .is_some_and(|r| r.contains("☐ Run the tests"))
}

fn scenario(w: u16, t: &Texts) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let (tmux, _sim, _dir) = super::start_on_script("plan", w, t.locale, SCRIPT, "");
    tmux.wait_for("workspace-write in the footer", |s| {
        footer_says(s, "workspace-write")
    });
    tmux.key("BTab");
    tmux.wait_for("plan in the footer", |s| footer_says(s, "plan"));
    tmux.type_line("plan the fix");
    let s = tmux.wait_for("the plan pinned and the question", |s| {
        chat_flat(s).contains("PLAN-READY") && pinned_plan(s, t) && s.contains(t.question)
    });
    // The question is on the status line, below the pinned plan.
    let rows: Vec<&str> = s.lines().collect();
    let title = rows.iter().rposition(|r| r.contains(t.title)).unwrap();
    let question = rows.iter().rposition(|r| r.contains(t.question)).unwrap();
    assert!(question > title + 3, "{w} {}:\n{s}", t.locale);
    for row in &rows {
        assert!(
            deepterm::ui::text::str_width(row) <= usize::from(w),
            "{row}"
        );
    }
    // `y` answers the question (it is not typed): workspace-write, and the model goes on.
    tmux.key("y");
    let s = tmux.wait_for("the model going ahead in workspace-write", |s| {
        chat_flat(s).contains("GOING") && footer_says(s, "workspace-write")
    });
    assert!(chat_flat(&s).contains(t.go_ahead), "{w} {}:\n{s}", t.locale);
    assert!(!s.contains(t.question), "the question is gone:\n{s}");
    assert!(pinned_plan(&s, t), "the plan stays pinned:\n{s}");
    // Shift+Tab: workspace-write → plan → read-only → workspace-write, never full-access.
    for mode in ["plan", "read-only", "workspace-write"] {
        tmux.key("BTab");
        tmux.wait_for(mode, |s| footer_says(s, mode));
    }
    assert!(
        !tmux.capture().contains(t.full_access),
        "Shift+Tab never asks"
    );
}

#[test]
fn plan_mode_pins_the_plan_and_y_executes_it_80_en() {
    scenario(80, &EN);
}

#[test]
fn plan_mode_pins_the_plan_and_y_executes_it_80_zh() {
    scenario(80, &ZH);
}

#[test]
fn plan_mode_pins_the_plan_and_y_executes_it_120_en() {
    scenario(120, &EN);
}

#[test]
fn plan_mode_pins_the_plan_and_y_executes_it_120_zh() {
    scenario(120, &ZH);
}
