//! Scenarios: `@` mentions. The real binary runs in tmux (on `deepterm sim`, whose demo
//! policy echoes what it received; not `--demo`, which works in a copy of its sample
//! project) with its working directory in a temp workspace holding a few files and a
//! `.gitignore`d one: `@` offers the workspace files but not the ignored one, typing
//! narrows the list, Tab completes the path into the composer, and once sent the Chat
//! shows the attachment line under the message and the demo model echoes the content.

use std::path::Path;

use crate::common;
use crate::common::tmux::Tmux;

fn scenario(socket: &str, width: u16, locale: &str, attached: &str) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("src/main.rs"), "fn main() {\n    run();\n}\n").unwrap();
    std::fs::write(ws.join("notes.md"), "# notes\n").unwrap();
    std::fs::write(ws.join(".gitignore"), "*.log\n").unwrap();
    std::fs::write(ws.join("debug.log"), "ignored\n").unwrap();
    let sim = common::tmux::SimProcess::demo_policy(dir.path());
    let config = sim.config_in(dir.path());
    let cmd = format!(
        "cd {} && env {}={} HOME={} {} --session-dir {} --config {} \
         --locale {locale}; sleep 60",
        common::shell_quote(&ws),
        common::KEY_VAR,
        common::TEST_KEY,
        common::shell_quote(dir.path()),
        common::shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        common::shell_quote(&dir.path().join("sessions")),
        common::shell_quote(&config),
    );
    let tmux = Tmux::start(socket, width, 30, &cmd);
    tmux.wait_for("the composer", |s| s.contains("› "));
    tmux.run(&["send-keys", "-t", "t", "-l", "explain @"]);
    // The popup lists the workspace files, one `@path` a row; the ignored file is not one.
    let s = tmux.wait_for("the file popup", |s| {
        s.lines().any(|l| l.trim_end() == "@notes.md") && s.contains("@src/main.rs")
    });
    assert!(
        !s.contains("debug.log"),
        "a .gitignore'd file is offered:\n{s}"
    );
    assert!(!s.contains("@.gitignore"), "a hidden file is offered:\n{s}");
    tmux.run(&["send-keys", "-t", "t", "-l", "mai"]);
    tmux.wait_for("the narrowed popup", |s| {
        !s.lines().any(|l| l.trim_end() == "@notes.md")
            && s.lines().any(|l| l.trim_end() == "@src/main.rs")
    });
    tmux.key("Tab");
    tmux.wait_for("the completed path", |s| {
        s.contains("› explain @src/main.rs") && !s.lines().any(|l| l.trim_end() == "@src/main.rs")
    });
    tmux.key("Enter");
    let s = tmux.wait_for("the attachment line", |s| s.contains(attached));
    assert!(s.contains("explain @src/main.rs"), "{s}");
    // The demo simulator echoes what it received: the file's content reached the model.
    tmux.wait_for("the echoed attachment", |s| {
        s.contains("@src/main.rs (3 lines):") && s.contains("run();")
    });
}

#[test]
fn mentions_tmux_80_columns_en() {
    scenario("dt-mention-80-en", 80, "en-US", "▸ @src/main.rs · 3 lines");
}

#[test]
fn mentions_tmux_120_columns_en() {
    scenario(
        "dt-mention-120-en",
        120,
        "en-US",
        "▸ @src/main.rs · 3 lines",
    );
}

#[test]
fn mentions_tmux_80_columns_zh() {
    scenario("dt-mention-80-zh", 80, "zh-CN", "▸ @src/main.rs · 3 行");
}

#[test]
fn mentions_tmux_120_columns_zh() {
    scenario("dt-mention-120-zh", 120, "zh-CN", "▸ @src/main.rs · 3 行");
}
