//! Scenario: the real TUI in tmux at 80 and 120 columns, in en-US and zh-CN, leaves the
//! mouse to the terminal by default, says on the first screen how to quit (and, with one
//! pane, that Tab twice shows the Trajectory, and it does), and after a reply the footer keeps context use and
//! the session hit within the width.

use std::path::Path;

use crate::common;
use crate::common::tmux::Tmux;

fn start(socket: &str, w: u16, locale: &str, dir: &Path) -> Tmux {
    let config = dir.join("config.toml");
    std::fs::write(&config, "").unwrap();
    let cmd = format!(
        "env -u DEEPSEEK_API_KEY {} --demo --session-dir {} --config {} --locale {locale}; sleep 60",
        common::shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        common::shell_quote(&dir.join("sessions")),
        common::shell_quote(&config),
    );
    Tmux::start(socket, w, 30, &cmd)
}

fn footer(screen: &str) -> String {
    screen
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .to_string()
}

fn display_width(s: &str) -> usize {
    s.chars()
        .map(|c| if (c as u32) >= 0x2E80 { 2 } else { 1 })
        .sum()
}

fn first_screen_and_footer(w: u16, locale: &str) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let zh = locale == "zh-CN";
    let dir = tempfile::tempdir().unwrap();
    let tmux = start(&format!("dt-footer-{w}-{locale}"), w, locale, dir.path());
    let (quit, tab, hit, ctx, select) = if zh {
        (
            "/quit 退出",
            "按两次 Tab 查看轨迹",
            "会话命中",
            "上下文",
            "鼠标：选择",
        )
    } else {
        (
            "/quit, quits",
            "Tab twice shows the Trajectory",
            "session hit",
            "context",
            "mouse: select",
        )
    };
    // The footer is the frame's last row: once it is drawn the whole first frame is (a
    // capture can land while a frame is still being written).
    // The mode's name outlasts the mouse label, which goes first when the footer is
    // narrow (F3 says it anyway): at 80 columns in English the label has no room.
    let screen = tmux.wait_for("the first screen's hint and footer", |s| {
        s.contains(quit) && footer(s).contains("workspace-write")
    });
    assert_eq!(screen.contains(tab), w < 100, "{screen}");
    if w >= 100 || zh {
        let screen = tmux.wait_for("the mouse label", |s| footer(s).contains(select));
        assert!(footer(&screen).contains(select), "{screen}");
    }
    let mode =
        common::stdout(&tmux.run(&["display-message", "-p", "-t", "t", "#{mouse_any_flag}"]));
    assert_eq!(mode.trim(), "0", "the mouse is not captured by default");

    tmux.type_line("Hello footer");
    let idle = if zh { "查看快捷键" } else { "? for keys" };
    let screen = tmux.wait_for("the reply and the session hit", |s| {
        // The demo answers in the interface language (§14.5).
        // Chinese wraps between any two characters: compared without the joining spaces.
        crate::common::tmux::chat_flat(s)
            .replace(' ', "")
            .contains(if zh {
                "提到其中一个"
            } else {
                "Iwillcall"
            })
            && s.contains(idle)
            && footer(s).contains(hit)
    });
    let f = footer(&screen);
    assert!(f.contains(ctx), "{f}");
    assert!(display_width(f.trim_end()) <= usize::from(w), "{f}");
    // The mouse mode is the first field to give way: if it shows, nothing else went.
    if f.contains(select) {
        assert!(f.contains("↑") && f.contains("·"), "{f}");
    }
    if w < 100 {
        // The hint's promise: from the composer, Tab goes to Chat, then to the Trajectory.
        tmux.key("Tab");
        tmux.key("Tab");
        let title = if zh { " 轨迹" } else { " Trajectory" };
        tmux.wait_for("the Trajectory after Tab twice", |s| {
            s.lines().nth(1).is_some_and(|l| l.starts_with(title))
        });
    }
}

#[test]
fn footer_and_first_screen_80_en() {
    first_screen_and_footer(80, "en-US");
}

#[test]
fn footer_and_first_screen_80_zh() {
    first_screen_and_footer(80, "zh-CN");
}

#[test]
fn footer_and_first_screen_120_en() {
    first_screen_and_footer(120, "en-US");
}

#[test]
fn footer_and_first_screen_120_zh() {
    first_screen_and_footer(120, "zh-CN");
}
