//! Scenarios: Ctrl+R history search across sessions and Ctrl+G external
//! editor, in the real TUI in tmux at 80 and 120 columns, in en-US and zh-CN.

use std::path::Path;

use crate::common;
use crate::common::tmux::Tmux;

fn bin() -> String {
    common::shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm")))
}

/// The composer line holding `text` (the `› ` prompt starts it).
fn composer_has(screen: &str, text: &str) -> bool {
    screen
        .lines()
        .any(|l| l.trim_start().starts_with('›') && l.contains(text))
}

/// Ctrl+R in a second session finds a message typed in the first one (same session
/// directory) from a fragment typed in another case; Enter puts it in the composer
/// without sending it.
fn ctrl_r_finds_a_message_of_an_earlier_session(width: u16, locale: &str) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "").unwrap();
    let sessions = dir.path().join("sessions");
    let run = format!(
        "env -u DEEPSEEK_API_KEY {} --demo --session-dir {} --config {} --locale {locale}",
        bin(),
        common::shell_quote(&sessions),
        common::shell_quote(&config),
    );
    let cmd = format!("{run}; echo SECOND; {run}; sleep 60");
    let tmux = Tmux::start(&format!("i13-hist-r-{width}-{locale}"), width, 30, &cmd);
    let zh = locale == "zh-CN";
    tmux.wait_for("the first frame", |s| s.contains('›'));
    // The demo answers in the interface language (§14.5).
    let demo = if zh {
        "deepterm 演示模拟器"
    } else {
        "deepterm demo simulator"
    };
    let idle = if zh {
        "? 查看快捷键"
    } else {
        "? for keys"
    };
    tmux.type_line("deploy the Blue Whale release");
    tmux.wait_for("the demo reply, idle", |s| {
        s.contains(demo) && s.contains(idle)
    });
    tmux.type_line("/quit");
    // The second session is up once its footer names the route (the loop has started);
    // the message is typed, seen in the composer, then sent.
    tmux.wait_for("the second session", |s| {
        s.contains('›')
            && !s.contains("Blue Whale")
            && !s.contains(demo)
            && s.contains("deepseek-flash")
    });
    // This scenario is about Ctrl+R, not typeahead: on a machine loaded by the rest of the
    // suite the second session's first keys have been seen to go missing (not reproduced
    // alone), so the line is typed again, after Ctrl+U, until the composer shows it.
    let mut shown = false;
    for _ in 0..3 {
        tmux.key("C-u");
        tmux.run(&[
            "send-keys",
            "-t",
            "t",
            "-l",
            "a message of the second session",
        ]);
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_secs(4) {
            if composer_has(&tmux.capture(), "a message of the second session") {
                shown = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        if shown {
            break;
        }
    }
    tmux.wait_for("the second message in the composer", |s| {
        composer_has(s, "a message of the second session")
    });
    tmux.key("Enter");
    tmux.wait_for("its reply, idle", |s| s.contains(demo) && s.contains(idle));
    tmux.run(&["send-keys", "-t", "t", "-l", "half"]);
    tmux.key("C-r");
    tmux.run(&["send-keys", "-t", "t", "-l", "blue wh"]);
    let label = if zh {
        "（反向搜索）“blue wh”："
    } else {
        "(reverse-i-search) `blue wh`:"
    };
    let screen = tmux.wait_for("the search line with the older match", |s| {
        s.lines()
            .any(|l| l.contains(label) && l.contains("deploy the Blue Whale"))
    });
    assert!(
        !composer_has(&screen, "half"),
        "the search line replaces the draft: {screen}"
    );
    // No match: the failing label, then Backspace finds it again.
    tmux.run(&["send-keys", "-t", "t", "-l", "zz"]);
    let failing = if zh {
        "（反向搜索无结果）"
    } else {
        "(failing reverse-i-search)"
    };
    tmux.wait_for("the failing search", |s| s.contains(failing));
    tmux.key("BSpace");
    tmux.key("BSpace");
    tmux.wait_for("the match again", |s| s.contains("deploy the Blue Whale"));
    tmux.key("Enter");
    let screen = tmux.wait_for("the match in the composer", |s| {
        composer_has(s, "deploy the Blue Whale release") && !s.contains(label)
    });
    // Not sent: still one reply of the second session in Chat.
    assert_eq!(screen.matches(demo).count(), 1, "{screen}");
    // Esc leaves a search and keeps the draft.
    tmux.key("C-r");
    tmux.run(&["send-keys", "-t", "t", "-l", "second"]);
    tmux.wait_for("the other match", |s| {
        s.contains("a message of the second session")
            && s.contains(if zh {
                "（反向搜索）"
            } else {
                "(reverse-i-search)"
            })
    });
    tmux.key("Escape");
    tmux.wait_for("the draft back", |s| {
        composer_has(s, "deploy the Blue Whale release")
    });
}

#[test]
fn ctrl_r_finds_an_earlier_session_message_80_en() {
    ctrl_r_finds_a_message_of_an_earlier_session(80, "en-US");
}

#[test]
fn ctrl_r_finds_an_earlier_session_message_120_zh() {
    ctrl_r_finds_a_message_of_an_earlier_session(120, "zh-CN");
}

#[test]
fn ctrl_r_finds_an_earlier_session_message_120_en() {
    ctrl_r_finds_a_message_of_an_earlier_session(120, "en-US");
}

#[test]
fn ctrl_r_finds_an_earlier_session_message_80_zh() {
    ctrl_r_finds_a_message_of_an_earlier_session(80, "zh-CN");
}

/// Ctrl+G runs a stub `$EDITOR` on the draft: its text lands in the composer, the TUI is
/// whole again, and the editor's environment held no API key.
fn ctrl_g_puts_the_stub_editors_text_in_the_composer(width: u16, locale: &str) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "").unwrap();
    let sessions = dir.path().join("sessions");
    let stub = dir.path().join("stub-editor.sh");
    std::fs::write(
        &stub,
        "#!/bin/sh\nd=$(cat \"$1\")\nprintf 'from the stub [%s] key:%s\\n' \"$d\" \"${DEEPSEEK_API_KEY:-none}\" > \"$1\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755)).unwrap();
    let cmd = format!(
        "env -u VISUAL EDITOR={} DEEPSEEK_API_KEY=sk-test-i13-secret {} --demo --session-dir {} \
         --config {} --locale {locale}; sleep 60",
        common::shell_quote(&stub),
        bin(),
        common::shell_quote(&sessions),
        common::shell_quote(&config),
    );
    let tmux = Tmux::start(&format!("i13-hist-g-{width}-{locale}"), width, 30, &cmd);
    let zh = locale == "zh-CN";
    let chat = if zh { "对话" } else { "Chat" };
    tmux.wait_for("the first frame", |s| s.contains('›') && s.contains(chat));
    tmux.run(&["send-keys", "-t", "t", "-l", "my draft"]);
    tmux.wait_for("the draft", |s| composer_has(s, "my draft"));
    tmux.key("C-g");
    let screen = tmux.wait_for("the edited text in the composer", |s| {
        composer_has(s, "from the stub [my draft] key:none")
    });
    // The TUI is intact: panes, footer and banner drawn again.
    assert!(screen.contains(chat), "{screen}");
    assert!(
        screen.contains(if zh { "演示模式" } else { "Demo mode" }),
        "{screen}"
    );
    // Keys still reach the TUI, and the edited text is sent as typed.
    tmux.key("Enter");
    let demo = if zh {
        "deepterm 演示模拟器"
    } else {
        "deepterm demo simulator"
    };
    tmux.wait_for("the reply", |s| s.contains(demo));
}

#[test]
fn ctrl_g_stub_editor_80_en() {
    ctrl_g_puts_the_stub_editors_text_in_the_composer(80, "en-US");
}

#[test]
fn ctrl_g_stub_editor_120_zh() {
    ctrl_g_puts_the_stub_editors_text_in_the_composer(120, "zh-CN");
}

#[test]
fn ctrl_g_stub_editor_120_en() {
    ctrl_g_puts_the_stub_editors_text_in_the_composer(120, "en-US");
}

#[test]
fn ctrl_g_stub_editor_80_zh() {
    ctrl_g_puts_the_stub_editors_text_in_the_composer(80, "zh-CN");
}

/// An editor that does not start: a notice naming it, the draft unchanged, the TUI whole.
fn ctrl_g_missing_editor_keeps_the_draft(width: u16, locale: &str) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "").unwrap();
    let cmd = format!(
        "env -u VISUAL EDITOR='/nonexistent/editor-i13 --wait' {} --demo --session-dir {} \
         --config {} --locale {locale}; sleep 60",
        bin(),
        common::shell_quote(&dir.path().join("sessions")),
        common::shell_quote(&config),
    );
    let tmux = Tmux::start(&format!("i13-hist-gx-{width}-{locale}"), width, 30, &cmd);
    tmux.wait_for("the first frame", |s| s.contains('›'));
    tmux.run(&["send-keys", "-t", "t", "-l", "keep me"]);
    tmux.wait_for("the draft", |s| composer_has(s, "keep me"));
    tmux.key("C-g");
    let notice = if locale == "zh-CN" {
        "无法启动编辑器“/nonexistent/editor-i13 --wait”"
    } else {
        "Could not start the editor “/nonexistent/editor-i13 --wait”"
    };
    tmux.wait_for("the notice and the draft", |s| {
        s.contains(notice) && composer_has(s, "keep me")
    });
}

#[test]
fn ctrl_g_missing_editor_80_zh() {
    ctrl_g_missing_editor_keeps_the_draft(80, "zh-CN");
}

#[test]
fn ctrl_g_missing_editor_120_en() {
    ctrl_g_missing_editor_keeps_the_draft(120, "en-US");
}
