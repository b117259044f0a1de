//! Scenario: folder trust in the real binary under tmux (SPEC §15.4). Started in a folder
//! holding an `AGENTS.md`, deepterm lists it and asks once whether to trust the folder:
//! `n` leaves it out (`/instructions` says it was skipped) and is remembered, so the next
//! start does not ask; `y` in another folder loads it.

use std::path::Path;

use crate::common;
use crate::common::tmux::{SimProcess, Tmux, chat_flat};

struct Texts {
    locale: &'static str,
    question: &'static str,
    idle: &'static str,
    skipped: &'static str,
    in_use: &'static str,
}

const EN: Texts = Texts {
    locale: "en-US",
    question: "Trust this folder and load them?",
    idle: "? for keys",
    skipped: "Skipped, the folder is not trusted:",
    in_use: "Instruction files in use",
};

const ZH: Texts = Texts {
    locale: "zh-CN",
    question: "信任这个文件夹并加载它们吗？",
    idle: "? 查看快捷键",
    skipped: "已跳过，文件夹未被信任：",
    in_use: "正在使用的指令文件",
};

fn start(name: &str, sim: &SimProcess, home: &Path, ws: &Path, w: u16, t: &Texts) -> Tmux {
    let config = sim.config_in(home);
    let cmd = format!(
        "cd {ws} && env {key}={value} HOME={home} XDG_CONFIG_HOME={home}/c \
         XDG_DATA_HOME={home}/d {bin} --session-dir {home}/s --config {config} \
         --locale {loc}; echo EXITED; sleep 30",
        key = common::KEY_VAR,
        value = common::TEST_KEY,
        ws = common::shell_quote(ws),
        home = common::shell_quote(home),
        config = common::shell_quote(&config),
        bin = common::shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        loc = t.locale,
    );
    Tmux::start(name, w, 30, &cmd)
}

fn flat(s: &str) -> String {
    chat_flat(s).replace(' ', "")
}

fn scenario(w: u16, t: &Texts) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let sim = SimProcess::demo_policy(home.path());
    let (no, yes) = (home.path().join("cloned"), home.path().join("mine"));
    for ws in [&no, &yes] {
        std::fs::create_dir_all(ws).unwrap();
        std::fs::write(ws.join("AGENTS.md"), "Answer in haiku.\n").unwrap();
    }
    let name = |s: &str| format!("dt-trust-{s}-{w}-{}", t.locale);

    // Asked, with the file listed; `n`: not loaded, and /instructions says so.
    let tmux = start(&name("a"), &sim, home.path(), &no, w, t);
    let s = tmux.wait_for("the question", |s| s.contains(t.question));
    assert!(s.contains("AGENTS.md"), "{s}");
    tmux.type_line("n");
    tmux.wait_for("the first frame", |s| s.contains(t.idle));
    tmux.type_line("/instructions");
    tmux.wait_for("the skipped file", |s| {
        flat(s).contains(&t.skipped.replace(' ', ""))
    });
    tmux.type_line("/quit");
    tmux.wait_for("exit", |s| s.contains("EXITED"));
    drop(tmux);
    let saved = std::fs::read_to_string(home.path().join("c/deepterm/trusted.toml")).unwrap();
    assert!(saved.contains("= false"), "{saved}");

    // Remembered: no question the second time, still skipped.
    let tmux = start(&name("b"), &sim, home.path(), &no, w, t);
    let s = tmux.wait_for("the first frame", |s| s.contains(t.idle));
    assert!(!s.contains(t.question), "asked twice: {s}");
    tmux.type_line("/instructions");
    tmux.wait_for("the skipped file", |s| {
        flat(s).contains(&t.skipped.replace(' ', ""))
    });
    tmux.type_line("/quit");
    tmux.wait_for("exit", |s| s.contains("EXITED"));
    drop(tmux);

    // Another folder, `y`: its AGENTS.md is in use.
    let tmux = start(&name("c"), &sim, home.path(), &yes, w, t);
    tmux.wait_for("the question", |s| s.contains(t.question));
    tmux.type_line("y");
    tmux.wait_for("the first frame", |s| s.contains(t.idle));
    tmux.type_line("/instructions");
    tmux.wait_for("the file in use", |s| {
        let f = flat(s);
        f.contains(&t.in_use.replace(' ', "")) && !f.contains(&t.skipped.replace(' ', ""))
    });
    tmux.type_line("/quit");
    tmux.wait_for("exit", |s| s.contains("EXITED"));
}

#[test]
fn the_folder_is_asked_about_once_and_no_leaves_its_files_out_at_80_en() {
    scenario(80, &EN);
}

#[test]
fn the_folder_is_asked_about_once_and_no_leaves_its_files_out_at_120_zh() {
    scenario(120, &ZH);
}
