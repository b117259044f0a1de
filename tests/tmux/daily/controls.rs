//! Scenarios: the DeepSeek controls and project awareness (SPEC §14.4) in the real binary
//! under tmux at 80 and 120 columns in both locales: the reasoning cell collapses to
//! `▸ Thought for N s`, Ctrl+T's transcript shows it in full and Enter opens it; `/effort low` shows in the footer; the resume
//! picker names each session's workspace and lists this workspace's first; `--resume`
//! from another directory says whose workspace it is and continues there.

use std::path::Path;

use crate::common;
use crate::common::tmux::{Tmux, chat_flat};

/// The texts a scenario looks for, per locale.
struct Texts {
    locale: &'static str,
    idle: &'static str,
    thought: &'static str,
    opened: &'static str,
    thinking: &'static str,
    effort: &'static str,
    title: &'static str,
    belongs: &'static str,
    status_workspace: &'static str,
    transcript: &'static str,
}

const EN: Texts = Texts {
    locale: "en-US",
    idle: "? for keys",
    thought: "▸ Thought for ",
    opened: "▾ Thought for ",
    thinking: "I'm the demo simulator",
    effort: "· effort low",
    title: "Resume a session",
    belongs: "This session belongs to the workspace",
    status_workspace: "Workspace:",
    transcript: " Transcript ",
};

const ZH: Texts = Texts {
    locale: "zh-CN",
    idle: "? 查看快捷键",
    thought: "▸ 思考了 ",
    opened: "▾ 思考了 ",
    thinking: "我是演示模拟器",
    effort: "· 强度 low",
    title: "恢复会话",
    belongs: "这个会话属于工作区",
    status_workspace: "工作区：",
    transcript: " 对话全文 ",
};

/// `deepterm --demo` in `cwd` with the test directory's config and session directory (and
/// `extra` arguments); the shell prints `EXITED` after it quits.
fn start(name: &str, home: &Path, cwd: &Path, w: u16, t: &Texts, extra: &str) -> Tmux {
    let cmd = format!(
        "cd {cwd} && env -u DEEPSEEK_API_KEY HOME={home} XDG_CONFIG_HOME={home}/c \
         XDG_DATA_HOME={home}/d {bin} --demo --session-dir {home}/s --config {home}/config.toml \
         --locale {loc} {extra}; echo EXITED; sleep 30",
        cwd = common::shell_quote(cwd),
        home = common::shell_quote(home),
        bin = common::shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        loc = t.locale,
    );
    let tmux = Tmux::start(name, w, 30, &cmd);
    tmux.wait_for("the first frame", |s| s.contains(t.idle));
    tmux
}

/// `deepterm` in `cwd` on `sim` (with a key, so not the demo: the guided demo works in a
/// copy of its sample project, SPEC §15.4, and these scenarios are about the directory it
/// starts in), with the test directory's session directory (and `extra` arguments).
fn start_on(
    name: &str,
    sim: &common::tmux::SimProcess,
    home: &Path,
    cwd: &Path,
    w: u16,
    t: &Texts,
    extra: &str,
) -> Tmux {
    let config = sim.config_in(home);
    let cmd = format!(
        "cd {cwd} && env {key}={value} HOME={home} XDG_CONFIG_HOME={home}/c \
         XDG_DATA_HOME={home}/d {bin} --session-dir {home}/s --config {config} \
         --locale {loc} {extra}; echo EXITED; sleep 30",
        key = common::KEY_VAR,
        value = common::TEST_KEY,
        cwd = common::shell_quote(cwd),
        home = common::shell_quote(home),
        config = common::shell_quote(&config),
        bin = common::shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        loc = t.locale,
    );
    let tmux = Tmux::start(name, w, 30, &cmd);
    tmux.wait_for("the first frame", |s| s.contains(t.idle));
    tmux
}

/// A test directory with an empty config and the workspaces `names` (canonical paths).
fn home(names: &[&str]) -> (tempfile::TempDir, Vec<std::path::PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("config.toml"), "").unwrap();
    let ws = names
        .iter()
        .map(|n| {
            let p = dir.path().join(n);
            std::fs::create_dir_all(&p).unwrap();
            p.canonicalize().unwrap()
        })
        .collect();
    (dir, ws)
}

/// Sends `text`, waits for the demo's whole reply (the idle hint back).
fn ask(tmux: &Tmux, t: &Texts, text: &str) -> String {
    tmux.type_line(text);
    tmux.wait_for("the reply", |s| {
        s.contains(&format!("▎ {text}")) && s.contains(t.thought) && s.contains(t.idle)
    })
}

/// Chinese wraps between any two characters: phrases are compared without spaces.
fn flat(screen: &str) -> String {
    chat_flat(screen).replace(' ', "")
}

fn reasoning_and_effort(w: u16, t: &Texts) {
    let (dir, ws) = home(&["ws"]);
    let tmux = start(
        &format!("i23-think-{w}-{}", t.locale),
        dir.path(),
        &ws[0],
        w,
        t,
        "",
    );
    // The demo streams some thinking first; once the reply starts it is one line.
    let screen = ask(&tmux, t, "hello there");
    let hidden = |s: &str| !flat(s).contains(&t.thinking.replace(' ', ""));
    assert!(hidden(&screen), "collapsed:\n{screen}");
    // Ctrl+T: the transcript, with the reasoning in full; Esc closes it and Chat is as it
    // was (SPEC §14.4).
    tmux.key("C-t");
    tmux.wait_for("the transcript with the reasoning in full", |s| {
        s.contains(t.transcript) && flat(s).contains(&t.thinking.replace(' ', ""))
    });
    tmux.key("Escape");
    let screen = tmux.wait_for("the transcript closed", |s| !s.contains(t.transcript));
    assert!(hidden(&screen), "Chat still collapsed:\n{screen}");
    // Enter on it (Chat focused, the reply selected) shows it in full.
    tmux.key("Tab");
    tmux.key("Up");
    tmux.key("Enter");
    tmux.wait_for("the reasoning in full", |s| {
        s.contains(t.opened) && flat(s).contains(&t.thinking.replace(' ', ""))
    });
    // Typing goes back to the composer; the effort is in the footer at once.
    tmux.type_line("/effort low");
    let screen = tmux.wait_for("the effort in the footer", |s| {
        s.lines()
            .last()
            .is_some_and(|footer| footer.contains(t.effort))
    });
    let footer = screen.lines().last().unwrap_or_default();
    assert!(footer.contains("deepseek-flash"), "{screen}");
    tmux.type_line("/quit");
    tmux.wait_for("exit", |s| s.contains("EXITED"));
}

#[test]
fn the_reasoning_cell_opens_with_enter_or_ctrl_t_and_the_footer_shows_the_effort() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let cases = [(80, &EN), (120, &ZH), (120, &EN), (80, &ZH)];
    common::concurrent::each_at_once(&cases, |&(w, t)| reasoning_and_effort(w, t));
}

/// One session with one message in `cwd`, then `/quit`.
fn make_session(
    name: &str,
    sim: &common::tmux::SimProcess,
    home: &Path,
    cwd: &Path,
    w: u16,
    t: &Texts,
    text: &str,
) {
    let tmux = start_on(name, sim, home, cwd, w, t, "");
    ask(&tmux, t, text);
    tmux.type_line("/quit");
    tmux.wait_for("exit", |s| s.contains("EXITED"));
}

fn workspaces(w: u16, t: &Texts) {
    let (dir, ws) = home(&["alpha", "bravo", "elsewhere"]);
    let name = |s: &str| format!("i23-ws-{s}-{w}-{}", t.locale);
    let sim = common::tmux::SimProcess::demo_policy(dir.path());
    make_session(&name("a"), &sim, dir.path(), &ws[0], w, t, "Alpha apples");
    // A second apart: the other workspace's session is the newer one.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    make_session(&name("b"), &sim, dir.path(), &ws[1], w, t, "Bravo bananas");

    // From alpha, the picker lists alpha's session first, each row naming its workspace.
    let tmux = start_on(&name("c"), &sim, dir.path(), &ws[0], w, t, "");
    tmux.type_line("/resume");
    let screen = tmux.wait_for("the picker with both sessions", |s| {
        s.contains(t.title) && s.contains("Alpha apples") && s.contains("Bravo bananas")
    });
    let row = |what: &str| {
        screen
            .lines()
            .find(|r| r.contains(what))
            .unwrap_or_default()
            .to_string()
    };
    let at = |what: &str| screen.find(what).unwrap();
    assert!(at("Alpha apples") < at("Bravo bananas"), "{screen}");
    assert!(row("Alpha apples").contains(" alpha "), "{screen}");
    assert!(row("Bravo bananas").contains(" bravo "), "{screen}");
    tmux.key("Escape");
    // An Esc followed at once by `/` reads as Alt+/ when both arrive in one read.
    tmux.wait_for("the picker closed", |s| !s.contains(t.title));
    tmux.type_line("/quit");
    tmux.wait_for("exit", |s| s.contains("EXITED"));
    drop(tmux);

    // `--resume last` (bravo's) from a third directory: said, and continued in bravo.
    let tmux = start_on(&name("d"), &sim, dir.path(), &ws[2], w, t, "--resume last");
    let bravo = ws[1].display().to_string();
    tmux.wait_for("the workspace notice", |s| {
        flat(s).contains(&format!("{}{bravo}", t.belongs.replace(' ', "")))
    });
    tmux.type_line("/status");
    tmux.wait_for("the status naming bravo", |s| {
        flat(s).contains(&format!("{}{bravo}", t.status_workspace.replace(' ', "")))
    });
    tmux.type_line("/quit");
    tmux.wait_for("exit", |s| s.contains("EXITED"));
}

#[test]
fn the_picker_lists_this_workspaces_sessions_first_and_resume_continues_in_its_own() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let cases = [(80, &EN), (120, &ZH), (120, &EN), (80, &ZH)];
    common::concurrent::each_at_once(&cases, |&(w, t)| workspaces(w, t));
}
