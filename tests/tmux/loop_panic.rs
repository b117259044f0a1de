//! A panic in the agent, in a real terminal (tmux): when the agent task panics, the UI leaves the
//! alternate screen, restores cooked mode, prints one localized line on stderr and exits
//! non-zero. Uses the test-only `DEEPTERM_TEST_PANIC_AGENT=1` hook (the agent task panics on
//! the first submission). Skipped without `tmux` unless `DEEPTERM_REQUIRE_EXTERNAL=1`.

use std::path::Path;

use crate::common;

use common::tmux::Tmux;

#[test]
fn an_agent_task_panic_restores_the_terminal_and_exits_non_zero_with_one_line() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "").unwrap();
    let cmd = format!(
        "env -u DEEPSEEK_API_KEY DEEPTERM_TEST_PANIC_AGENT=1 {} --demo --session-dir {} \
         --config {} --locale en-US; \
         echo EXITED:$?; echo MODE:$(stty -a | grep -o -- '-\\?icanon' | head -1); sleep 60",
        common::shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        common::shell_quote(&dir.path().join("sessions")),
        common::shell_quote(&config),
    );
    let tmux = Tmux::start("deepterm-loop-panic", 100, 30, &cmd);
    tmux.wait_for("the first frame", |s| s.contains("Demo mode"));
    tmux.run(&["send-keys", "-t", "t", "-l", "hello"]);
    tmux.run(&["send-keys", "-t", "t", "Enter"]);
    let screen = tmux.wait_for("the process to exit", |s| s.contains("MODE:"));
    let lines: Vec<&str> = screen.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(screen.contains("EXITED:1"), "{screen}");
    assert!(
        lines.iter().any(|l| l.trim() == "MODE:icanon"),
        "cooked mode:\n{screen}"
    );
    assert_eq!(
        lines.first().copied(),
        Some(
            "deepterm: Internal error in agent: DEEPTERM_TEST_PANIC_AGENT: agent panicked on submit"
        ),
        "the alternate screen is gone and one line is left:\n{screen}"
    );
    assert!(!screen.contains("Demo mode"), "{screen}");
}
