//! Smoke test of the real terminal UI in tmux ( Tests): `deepterm --demo` starts,
//! answers, switches language, shows and expands a tool-change node, survives a resize,
//! opens the inspector, quits, and leaves the terminal in cooked mode. Skipped (with a
//! message) when `tmux` is not installed, or failed under `DEEPTERM_REQUIRE_EXTERNAL=1`.
//! Uses its own tmux socket so a user's server is never touched.

use std::path::Path;

use crate::common;

use common::tmux::Tmux;

/// A private tmux server, killed on drop (also when an assertion fails).
#[test]
fn tmux_demo_chat_language_tool_node_resize_inspect_and_clean_exit() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "").unwrap();
    let sessions = dir.path().join("sessions");
    let cmd = format!(
        "{} --demo --session-dir {} --config {} --locale en-US; \
         echo EXITED:$?; echo MODE:$(stty -a | grep -o -- '-\\?icanon' | head -1); sleep 60",
        common::shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        common::shell_quote(&sessions),
        common::shell_quote(&config),
    );
    // 40 rows: the two cache notices before the tool node (§14.5) leave it in view.
    let tmux = Tmux::start("deepterm-test", 100, 40, &cmd);
    tmux.wait_for("the first frame", |s| {
        s.contains("Demo mode: built-in simulator") && s.contains("Trajectory")
    });

    tmux.type_line("Hello there");
    tmux.wait_for("the demo reply and its request row", |s| {
        s.contains("Hello from the deepterm demo simulator!") && s.contains("#1   T1.S1")
    });

    tmux.type_line("/lang zh");
    tmux.wait_for("the Chinese UI", |s| {
        s.contains("轨迹") && s.contains("对话")
    });

    tmux.type_line("/tool disable grep");
    tmux.type_line("/tool disable list_dir");
    tmux.type_line("again");
    let screen = tmux.wait_for("the tool-change node", |s| {
        s.contains("工具已更新 · 移除 2 个") && s.contains("#2   2.1")
    });
    // The Trajectory CONTEXT cell lists the names; Chat shows one node for both changes
    // before the request, still collapsed.
    let detail = "移除：grep、list_dir";
    assert_eq!(screen.matches(detail).count(), 1, "{screen}");
    assert!(screen.contains("▸ 工具已更新 · 移除 2 个"), "{screen}");
    assert!(!screen.contains("◆ 已移除工具"), "{screen}");
    tmux.key("M-t");
    tmux.wait_for("the expanded Chat node", |s| {
        s.contains("▾ 工具已更新 · 移除 2 个") && s.contains("        grep")
    });

    tmux.type_line("/inspect");
    tmux.wait_for("the inspector overlay", |s| {
        s.contains("请求检查器") && s.contains("下一个请求") && s.contains("请求 #2")
    });
    tmux.key("Escape");
    tmux.wait_for("the inspector to close", |s| !s.contains("请求检查器"));

    tmux.run(&["resize-window", "-t", "t", "-x", "50", "-y", "15"]);
    tmux.wait_for("the narrow layout", |s| {
        s.lines().all(|l| l.chars().count() <= 50) && s.contains("演示模式") && s.contains("对话")
    });

    tmux.type_line("/quit");
    let screen = tmux.wait_for("the process to exit", |s| s.contains("MODE:"));
    assert!(screen.contains("EXITED:0"), "{screen}");
    assert!(
        screen.lines().any(|l| l.trim() == "MODE:icanon"),
        "terminal restored to cooked mode:\n{screen}"
    );
}
