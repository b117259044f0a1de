//! Scenario: a command the sandbox refuses, in the real terminal UI (SPEC §15.5). The
//! simulator's demo policy runs `touch .git/planted` in a workspace whose `.git` is protected: the
//! sandboxed attempt fails, and the question to run it again outside the sandbox shows
//! that attempt and why it asks. `n` with a reason denies it: the card says it ran in the
//! sandbox and failed, and names the reason, never "not run". Asked again, `y` runs it
//! outside the sandbox and the card says so. After `--resume` both cards read the same.

use std::path::Path;

use crate::common;
use crate::common::tmux::{Tmux, chat_flat};

struct Texts {
    locale: &'static str,
    failed: &'static str,
    why: &'static str,
    denied: &'static str,
    again: &'static str,
    idle: &'static str,
}

const EN: Texts = Texts {
    locale: "en-US",
    failed: "ran in the sandbox and failed",
    why: "The sandbox denied this command.",
    denied: "not run outside the sandbox · Denied by you: not now",
    again: "ran again outside the sandbox, as you allowed:",
    idle: "? for keys",
};

const ZH: Texts = Texts {
    locale: "zh-CN",
    failed: "在沙箱中运行失败",
    why: "沙箱拒绝了此命令",
    denied: "未在沙箱外运行 · 已被你拒绝：not now",
    again: "经你允许，已在沙箱外重新运行：",
    idle: "? 查看快捷键",
};

/// deepterm in `dir/ws` (a protected `.git` in it) on `sim`, the simulator answering with
/// the demo policy (it calls the tool a message names; the guided demo of `--demo` works in
/// a copy of its sample project instead); prints `EXITED` when it quits.
fn start(
    name: &str,
    sim: &common::tmux::SimProcess,
    dir: &Path,
    w: u16,
    h: u16,
    t: &Texts,
    extra: &str,
) -> Tmux {
    // The built-in tools on (the shared routes config turns them off).
    let config = dir.join("sim.toml");
    std::fs::write(&config, common::ConfigBuilder::new(&sim.base).text()).unwrap();
    let cmd = format!(
        "cd {ws} && env {key}={value} HOME={home} XDG_CONFIG_HOME={home}/c \
         XDG_DATA_HOME={home}/d TMPDIR={home}/tmp {bin} --session-dir {home}/s \
         --config {config} --locale {loc} {extra}; echo EXITED; sleep 30",
        ws = common::shell_quote(&dir.join("ws")),
        key = common::KEY_VAR,
        value = common::TEST_KEY,
        home = common::shell_quote(dir),
        config = common::shell_quote(&config),
        bin = common::shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        loc = t.locale,
    );
    let tmux = Tmux::start(name, w, h, &cmd);
    tmux.wait_for("the first frame", |s| s.contains('›'));
    tmux
}

/// Spaces left out: a phrase matches however Chat wrapped it.
fn has(screen: &str, what: &str) -> bool {
    chat_flat(screen)
        .replace(' ', "")
        .contains(&what.replace(' ', ""))
}

fn scenario(w: u16, t: &Texts) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("ws/.git")).unwrap();
    std::fs::create_dir_all(dir.path().join("tmp")).unwrap();
    let sim = common::tmux::SimProcess::demo_policy(dir.path());
    let planted = dir.path().join("ws/.git/planted");
    let name = format!("dt-retry-{w}-{}", t.locale);
    let tmux = start(&name, &sim, dir.path(), w, 40, t, "");
    tmux.type_line("please run shell \"touch .git/planted\"");
    tmux.wait_for("the retry question with the sandboxed attempt", |s| {
        has(s, t.failed) && has(s, t.why) && has(s, "$ touch .git/planted")
    });
    assert!(!planted.exists(), "the sandboxed attempt wrote into .git");
    tmux.key("n");
    tmux.run(&["send-keys", "-t", "t", "-l", "not now"]);
    tmux.key("Enter");
    tmux.wait_for("the denied card and the turn's end", |s| {
        has(s, t.denied) && has(s, t.failed) && s.contains(t.idle)
    });
    assert!(!planted.exists(), "a denied retry ran");
    tmux.type_line("please run shell \"touch .git/planted\"");
    tmux.wait_for("the retry question again", |s| {
        has(s, t.why) && s.contains("y ")
    });
    tmux.key("y");
    tmux.wait_for(
        "the card of the run outside the sandbox and the turn's end",
        |s| has(s, t.again) && has(s, "exit status 0") && s.contains(t.idle),
    );
    assert!(
        planted.exists(),
        "the allowed retry ran outside the sandbox"
    );
    tmux.type_line("/quit");
    tmux.wait_for("the exit", |s| s.contains("EXITED"));
    drop(tmux);
    // Resumed: both cards read as they did live, folded from the log alone (a tall
    // window shows the whole transcript).
    let tmux = start(
        &format!("{name}-r"),
        &sim,
        dir.path(),
        w,
        100,
        t,
        "--resume last",
    );
    let screen = tmux.wait_for("the resumed cards", |s| has(s, t.denied) && has(s, t.again));
    assert!(has(&screen, t.failed), "{screen}");
    tmux.type_line("/quit");
    tmux.wait_for("the exit", |s| s.contains("EXITED"));
}

#[test]
fn the_retry_question_shows_the_attempt_and_the_card_says_what_happened_at_80_en() {
    scenario(80, &EN);
}

#[test]
fn the_retry_question_shows_the_attempt_and_the_card_says_what_happened_at_120_en() {
    scenario(120, &EN);
}

#[test]
fn the_retry_question_shows_the_attempt_and_the_card_says_what_happened_at_80_zh() {
    scenario(80, &ZH);
}

#[test]
fn the_retry_question_shows_the_attempt_and_the_card_says_what_happened_at_120_zh() {
    scenario(120, &ZH);
}
