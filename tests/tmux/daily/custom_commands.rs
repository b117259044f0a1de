//! Scenario: a custom command (SPEC §14.4) in the real binary under tmux at 80 and 120
//! columns in both locales: the popup offers it with its description and argument hint,
//! a clash with a built-in is warned about in Chat, and Enter sends the expanded text.

use crate::common;
use crate::common::tmux::Tmux;

/// `deepterm --demo` with two command files in the user config directory.
fn start(w: u16, locale: &str) -> (Tmux, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let commands = dir.path().join("c/deepterm/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("audit.md"),
        "---\ndescription: Audit one file for bugs\nargument-hint: FILE\n---\n\
         Please audit $ARGUMENTS for bugs.\n",
    )
    .unwrap();
    std::fs::write(commands.join("help.md"), "not the help\n").unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "").unwrap();
    let cmd = format!(
        "env -u DEEPSEEK_API_KEY HOME={home} XDG_CONFIG_HOME={home}/c XDG_DATA_HOME={home}/d \
         {bin} --demo --session-dir {home}/sessions --config {config} --locale {locale}; sleep 30",
        home = common::shell_quote(dir.path()),
        bin = common::shell_quote(std::path::Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        config = common::shell_quote(&config),
    );
    let tmux = Tmux::start(&format!("custom-cmd-{w}-{locale}"), w, 24, &cmd);
    tmux.wait_for("the first frame", |s| s.contains('›'));
    (tmux, dir)
}

fn offers_and_runs(w: u16, locale: &str) {
    let (tmux, _dir) = start(w, locale);
    let clash = if locale == "zh-CN" {
        "已有同名内置命令"
    } else {
        "a built-in command has that name"
    };
    // Chinese wraps between any two characters, so the flattened rows are compared
    // without their joining spaces.
    let clash = clash.replace(' ', "");
    tmux.wait_for("the clash warning", |s| {
        common::tmux::chat_flat(s).replace(' ', "").contains(&clash)
    });
    tmux.run(&["send-keys", "-t", "t", "-l", "/aud"]);
    tmux.wait_for("the popup with the custom command", |s| {
        s.contains("/audit FILE") && s.contains("Audit one file for bugs")
    });
    tmux.key("Tab");
    tmux.run(&["send-keys", "-t", "t", "-l", "src/x.rs"]);
    tmux.key("Enter");
    tmux.wait_for("the expanded text sent", |s| {
        common::tmux::chat_flat(s).contains("Please audit src/x.rs for bugs.")
    });
}

#[test]
fn a_custom_command_is_offered_in_the_popup_and_sends_its_text() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let cases = [(80, "en-US"), (120, "zh-CN"), (120, "en-US"), (80, "zh-CN")];
    common::concurrent::each_at_once(&cases, |&(w, locale)| offers_and_runs(w, locale));
}
