//! Scenarios: `/copy` fills tmux's paste buffer through OSC 52 (with
//! `set-clipboard on`), the mouse is free by default and F3 switches capture and the footer's mouse mode, and `exec` says `/copy` needs
//! the TUI, and the OSC 9 turn-end notification reaches the pane's raw output only while
//! unfocused. At 80 and 120 columns, in en-US and zh-CN.

use std::path::Path;
use std::process::Command;

use crate::common;
use crate::common::tmux::Tmux;

/// Starts `deepterm --demo` in `locale` in a private tmux server, `w` columns wide.
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

fn footer(screen: &str) -> &str {
    screen
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
}

fn copy_fills_the_paste_buffer(w: u16, locale: &str) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let zh = locale == "zh-CN";
    let dir = tempfile::tempdir().unwrap();
    let tmux = start(&format!("dt-i13-copy-{w}-{locale}"), w, locale, dir.path());
    // OSC 52 from an application sets tmux's paste buffer only with `set-clipboard on`.
    tmux.run(&["set-option", "-s", "set-clipboard", "on"]);
    let idle = if zh { "查看快捷键" } else { "? for keys" };
    tmux.wait_for("the first frame", |s| s.contains(idle));

    // Nothing to copy yet: a hint, and no buffer.
    tmux.type_line("/copy");
    let nothing = if zh {
        "还没有可复制的内容"
    } else {
        "Nothing to copy yet"
    };
    tmux.wait_for("the nothing-to-copy hint", |s| s.contains(nothing));
    let buffers = tmux.run(&["list-buffers"]);
    assert!(buffers.stdout.is_empty(), "no buffer yet");

    tmux.type_line("Hello copy");
    tmux.wait_for("the finished demo reply", |s| {
        // The demo answers in the interface language (§14.5).
        let call = if zh {
            "我就会调用它"
        } else {
            "I will call"
        };
        crate::common::tmux::chat_flat(s)
            .replace(' ', "")
            .contains(&call.replace(' ', ""))
            && s.contains(idle)
    });
    tmux.type_line("/copy");
    let done = if zh {
        "已复制倒数第 1 条回复"
    } else {
        "Copied reply #1 ("
    };
    let screen = tmux.wait_for("the copied hint", |s| s.contains(done));
    // The hint is on the status line, not in the transcript: the chat has no `/copy` echo.
    assert!(!screen.contains("/copy"), "{screen}");
    let mut buffer = String::new();
    for _ in 0..40 {
        buffer = common::stdout(&tmux.run(&["show-buffer"]));
        if !buffer.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // The markdown source of the reply, not its rendering.
    assert!(
        buffer.starts_with(if zh {
            "**你好，这里是 deepterm 演示模拟器！**"
        } else {
            "**Hello from the deepterm demo simulator!**"
        }),
        "{buffer}"
    );
    assert!(buffer.contains("> Hello copy"), "{buffer}");
    let chars = buffer.chars().count();
    assert!(
        screen.contains(&format!("{chars}")),
        "the hint counts the characters ({chars}): {screen}"
    );

    // The 2nd last reply does not exist: a clear hint, the buffer stays.
    tmux.type_line("/copy 2");
    let no_such = if zh {
        "没有倒数第 2 条回复"
    } else {
        "There is no reply #2"
    };
    tmux.wait_for("the no-such-reply hint", |s| s.contains(no_such));
    assert_eq!(common::stdout(&tmux.run(&["show-buffer"])), buffer);
}

#[test]
fn copy_fills_tmux_paste_buffer_80_en() {
    copy_fills_the_paste_buffer(80, "en-US");
}

#[test]
fn copy_fills_tmux_paste_buffer_120_zh() {
    copy_fills_the_paste_buffer(120, "zh-CN");
}

#[test]
fn copy_fills_tmux_paste_buffer_80_zh() {
    copy_fills_the_paste_buffer(80, "zh-CN");
}

#[test]
fn copy_fills_tmux_paste_buffer_120_en() {
    copy_fills_the_paste_buffer(120, "en-US");
}

fn f3_switches_the_footer_mouse_mode(w: u16, locale: &str) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let (scroll, select) = if locale == "zh-CN" {
        ("鼠标：滚动", "鼠标：选择")
    } else {
        ("mouse: scroll", "mouse: select")
    };
    let dir = tempfile::tempdir().unwrap();
    let tmux = start(&format!("dt-i13-mouse-{w}-{locale}"), w, locale, dir.path());
    // By default the terminal keeps the mouse (native selection): no mouse reporting. The
    // footer says so where it has room (the released label is the first field to go).
    let screen = tmux.wait_for("the footer", |s| {
        footer(s).contains("context") || footer(s).contains("上下文")
    });
    assert!(!footer(&screen).contains(scroll), "{screen}");
    assert!(w < 120 || footer(&screen).contains(select), "{screen}");
    // The mode tmux sees the application ask for.
    let mode = |t: &Tmux| {
        common::stdout(&t.run(&["display-message", "-p", "-t", "t", "#{mouse_any_flag}"]))
            .trim()
            .to_string()
    };
    assert_eq!(mode(&tmux), "0", "the mouse is not captured by default");
    tmux.key("F3");
    let screen = tmux.wait_for("the scroll mode", |s| footer(s).contains(scroll));
    assert!(
        footer(&screen).chars().count() <= usize::from(w),
        "{screen}"
    );
    assert_eq!(mode(&tmux), "1", "F3 captures the mouse");
    tmux.key("F3");
    tmux.wait_for("the scroll mode gone again", |s| {
        !footer(s).contains(scroll) && (w < 120 || footer(s).contains(select))
    });
    assert_eq!(mode(&tmux), "0", "F3 releases it again");
}

#[test]
fn f3_toggles_footer_mouse_mode_80_en() {
    f3_switches_the_footer_mouse_mode(80, "en-US");
}

#[test]
fn f3_toggles_footer_mouse_mode_120_zh() {
    f3_switches_the_footer_mouse_mode(120, "zh-CN");
}

#[test]
fn f3_toggles_footer_mouse_mode_80_zh() {
    f3_switches_the_footer_mouse_mode(80, "zh-CN");
}

#[test]
fn f3_toggles_footer_mouse_mode_120_en() {
    f3_switches_the_footer_mouse_mode(120, "en-US");
}

#[test]
fn exec_copy_says_it_needs_the_tui_in_both_locales() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "").unwrap();
    let script = dir.path().join("s.txt");
    std::fs::write(&script, "/copy\n").unwrap();
    for (locale, want) in [
        ("en-US", "/copy needs the terminal UI"),
        ("zh-CN", "/copy 需要终端界面"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_deepterm"))
            .args(["exec", "--demo", "--locale", locale, "--script"])
            .arg(&script)
            .arg("--config")
            .arg(&config)
            .arg("--session-dir")
            .arg(dir.path().join("sessions"))
            .env_remove("DEEPSEEK_API_KEY")
            .output()
            .unwrap();
        let all = format!("{}{}", common::stdout(&out), common::stderr(&out));
        assert!(all.contains(want), "{all}");
        // Nothing that looks like a clipboard write reaches a non-terminal.
        assert!(!all.contains("\x1b]52"), "{all}");
    }
}

/// Turn-end notification (`[ui] notify`): with tmux's focus events on, moving to another
/// window unfocuses deepterm's pane; when the turn ends the pane's raw output (captured with
/// `pipe-pane`) carries one OSC 9 notification. When no focus loss is reported, or with
/// notify off (the default), there is none.
fn notify_when_unfocused(w: u16, locale: &str, notify: bool, unfocus: bool) -> usize {
    let zh = locale == "zh-CN";
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, format!("[ui]\nnotify = {notify}\n")).unwrap();
    let raw = dir.path().join("out.raw");
    // deepterm starts only once the server's options are set (the gate file exists): tmux
    // reports focus to a program when it turns focus reporting on, and only if focus
    // events are on by then; set afterwards they raced deepterm's start-up.
    let gate = dir.path().join("gate");
    let cmd = format!(
        "while [ ! -e {gate} ]; do sleep 0.02; done; \
         env -u DEEPSEEK_API_KEY {} --demo --session-dir {} --config {} --locale {locale}; sleep 60",
        common::shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        common::shell_quote(&dir.path().join("sessions")),
        common::shell_quote(&config),
        gate = common::shell_quote(&gate),
    );
    let tmux = Tmux::start(
        &format!("dt-i13-notify-{w}-{locale}-{notify}-{unfocus}"),
        w,
        30,
        &cmd,
    );
    // A detached tmux reports its pane as unfocused once focus events are on; without them
    // no focus change reaches deepterm, which then counts itself focused.
    if unfocus {
        tmux.run(&["set-option", "-g", "focus-events", "on"]);
    }
    let pipe = format!("cat > {}", common::shell_quote(&raw));
    tmux.run(&["pipe-pane", "-O", "-t", "t", &pipe]);
    std::fs::write(&gate, "").unwrap();
    let idle = if zh { "查看快捷键" } else { "? for keys" };
    tmux.wait_for("the first frame", |s| s.contains(idle));
    // Focus moves away before the prompt is sent: tmux writes the focus report into the
    // pane's input ahead of the typed keys, so deepterm is unfocused when the short demo
    // turn ends however slowly the machine runs. The keys go to window 0 by name.
    if unfocus {
        tmux.run(&["new-window", "-d", "-t", "t"]);
        tmux.run(&["select-window", "-t", "t:1"]);
    }
    tmux.run(&["send-keys", "-t", "t:0", "-l", "hello"]);
    tmux.run(&["send-keys", "-t", "t:0", "Enter"]);
    // Proving that no notification came needs a point after which none can: the turn's
    // end is on screen (window 0, which stays deepterm's when another window is selected),
    // and then a key typed into the composer echoes in the raw output. The notification
    // is written in the loop turn that handles the turn's end, so it precedes that echo.
    let pane = |what: &str, pred: &dyn Fn(&str) -> bool| {
        let start = std::time::Instant::now();
        loop {
            let s = common::stdout(&tmux.run(&["capture-pane", "-p", "-t", "t:0"]));
            if pred(&s) {
                return;
            }
            assert!(
                start.elapsed() < common::tmux::TIMEOUT,
                "timed out waiting for {what}; screen:\n{s}"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    };
    let call = if zh {
        "我就会调用它"
    } else {
        "I will call"
    };
    pane("the finished demo reply", &|s| {
        crate::common::tmux::chat_flat(s)
            .replace(' ', "")
            .contains(&call.replace(' ', ""))
            && s.contains(idle)
    });
    // A letter the demo never prints, in either locale.
    tmux.run(&["send-keys", "-t", "t:0", "-l", "Ж"]);
    let start = std::time::Instant::now();
    while !String::from_utf8_lossy(&std::fs::read(&raw).unwrap_or_default()).contains('Ж') {
        assert!(
            start.elapsed() < common::tmux::TIMEOUT,
            "the typed letter never reached the raw output"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = String::from_utf8_lossy(&std::fs::read(&raw).unwrap()).into_owned();
    let n = out.matches("\x1b]9;").count();
    if n > 0 {
        let text = if zh {
            "deepterm：本轮已完成"
        } else {
            "deepterm: turn finished"
        };
        let start = out.find("\x1b]9;").unwrap() + 4;
        let end = out[start..].find('\x07').map(|e| start + e).unwrap();
        let body = &out[start..end];
        assert!(body.starts_with(text), "{locale}: {body:?}");
        assert!(!body.chars().any(|c| c.is_control()), "{body:?}");
    }
    n
}

#[test]
fn notify_osc9_at_turn_end_only_when_unfocused_and_enabled() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let cases = [
        (80, "en-US", true, true, 1, "unfocused"),
        (120, "zh-CN", true, true, 1, "unfocused"),
        (80, "zh-CN", true, false, 0, "focused"),
        (120, "en-US", false, true, 0, "notify off"),
    ];
    common::concurrent::each_at_once(&cases, |&(w, locale, notify, unfocus, n, why)| {
        assert_eq!(
            notify_when_unfocused(w, locale, notify, unfocus),
            n,
            "{why} at {w} {locale}"
        );
    });
}
