//! Scenarios: the slash popup, the key help, long pastes and
//! queued messages, in the real binary under tmux at 80 and 120 columns (the
//! help also at 60×10 and 200 columns), in both locales.

use crate::common;
use crate::common::tmux::Tmux;

/// `deepterm --demo` in `locale` on a private tmux server, `w`×`h`.
fn start(socket: &str, w: u16, h: u16, locale: &str) -> (Tmux, tempfile::TempDir) {
    common::tmux::start_demo(socket, w, h, locale)
}

fn type_text(tmux: &Tmux, text: &str) {
    tmux.run(&["send-keys", "-t", "t", "-l", text]);
}

/// `/tool` + Enter completes `/tool ` and shows the usage from the command table instead
/// of running `/tools`; Enter on `/tools` runs it at once.
fn tool_enter_shows_usage(w: u16, locale: &str, name: &str) {
    let (tmux, _dir) = start(&format!("popup-tool-{w}-{locale}"), w, 24, locale);
    let usage = if locale == "zh-CN" {
        "/tool enable|disable 名称"
    } else {
        "/tool enable|disable NAME"
    };
    type_text(&tmux, "/tool");
    tmux.wait_for("the popup with /tool first", |s| s.contains(usage));
    tmux.key("Enter");
    // (capture-pane drops the trailing space of `› /tool `.)
    let s = tmux.wait_for("the completed composer", |s| {
        s.contains("› /tool") && !s.contains("/tools")
    });
    assert!(s.contains(usage), "usage inline at {w} {locale}:\n{s}");
    std::thread::sleep(std::time::Duration::from_millis(400));
    let s = tmux.capture();
    assert!(
        !s.contains(name),
        "/tools did not run at {w} {locale}:\n{s}"
    );
    assert!(!s.contains("on|off"), "{s}");
    // Ctrl+U clears; `/tools` + Enter runs on one press and lists the tools.
    tmux.key("C-u");
    type_text(&tmux, "/tools");
    tmux.key("Enter");
    tmux.wait_for("the /tools listing", |s| s.contains(name));
}

#[test]
fn tool_enter_does_not_run_tools_and_shows_usage() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let cases = [(80, "en-US"), (120, "zh-CN")];
    common::concurrent::each_at_once(&cases, |&(w, l)| tool_enter_shows_usage(w, l, "list_dir"));
}

/// The key help at 60×10 scrolls with ↓ / PgDn / End and shows where it is; at 200
/// columns it uses the width and cuts nothing.
fn help_scrolls_and_sizes(locale: &str) {
    let (tmux, _dir) = start(&format!("popup-help-small-{locale}"), 60, 10, locale);
    tmux.key("F1");
    let first = if locale == "zh-CN" {
        "第 1–"
    } else {
        " 1–"
    };
    let s = tmux.wait_for("the help with its position", |s| s.contains(first));
    assert!(s.contains("Enter"), "{s}");
    tmux.key("Down");
    let second = if locale == "zh-CN" {
        "第 2–"
    } else {
        " 2–"
    };
    tmux.wait_for("one row down", |s| s.contains(second));
    tmux.key("End");
    // The Trajectory legend is last, the commands just above it.
    tmux.wait_for("the legend at the end", |s| {
        s.contains("tool_removal") && (s.contains("unless") || s.contains("除非"))
    });
    // Page up from the legend until the last command shows (the legend wraps at 60).
    let mut found = false;
    for _ in 0..8 {
        tmux.key("PPage");
        std::thread::sleep(std::time::Duration::from_millis(150));
        if tmux.capture().contains("/quit") {
            found = true;
            break;
        }
    }
    assert!(
        found,
        "/quit reachable above the legend:\n{}",
        tmux.capture()
    );
    tmux.key("Home");
    tmux.wait_for("back at the top", |s| s.contains(first));
    drop(tmux);

    let (tmux, _dir) = start(&format!("popup-help-wide-{locale}"), 200, 50, locale);
    tmux.key("F1");
    // The first screen's hint names /quit too: wait for the help's box.
    let s = tmux.wait_for("the wide help", |s| s.contains("/quit") && s.contains('┌'));
    let top = s.lines().find(|r| r.contains('┌')).unwrap_or_default();
    assert!(
        top.trim().chars().count() > 100,
        "{locale}: help wider than 100 columns at 200:\n{s}"
    );
    assert!(
        !s.contains('…'),
        "{locale}: nothing cut at 200 columns:\n{s}"
    );
}

#[test]
fn help_scrolls_at_60x10_and_is_wide_at_200() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    common::concurrent::each_at_once(&["en-US", "zh-CN"], |l| help_scrolls_and_sizes(l));
}

/// A 60-line bracketed paste shows as a placeholder in the composer and, once sent,
/// collapsed in Chat (its first rows and how many more); a message typed meanwhile shows
/// queued under the composer; Enter on the selected cell expands the paste.
fn paste_collapses(w: u16, locale: &str) {
    let (tmux, dir) = start(&format!("popup-paste-{w}-{locale}"), w, 30, locale);
    let text: String = (1..=60).map(|i| format!("pasted row {i}\n")).collect();
    let file = dir.path().join("paste.txt");
    std::fs::write(&file, text).unwrap();
    tmux.run(&["load-buffer", "-b", "p", &file.display().to_string()]);
    tmux.run(&["paste-buffer", "-p", "-b", "p", "-t", "t"]);
    let placeholder = if locale == "zh-CN" {
        "[已粘贴 60 行]"
    } else {
        "[Pasted 60 lines]"
    };
    tmux.wait_for("the paste placeholder", |s| s.contains(placeholder));
    tmux.key("Enter");
    // Typed while the reply streams: queued, and shown dimmed under the composer.
    tmux.type_line("a follow-up while it runs");
    let queued = if locale == "zh-CN" {
        "↳ 排队中：a follow-up while it runs"
    } else {
        "↳ queued: a follow-up while it runs"
    };
    let s = tmux.wait_for("the queued message", |s| s.contains(queued));
    let rows: Vec<&str> = s.lines().collect();
    let composer = rows.iter().position(|r| r.starts_with('›'));
    let shown = rows.iter().position(|r| r.contains(queued));
    assert!(shown > composer, "queued under the composer:\n{s}");
    let more = if locale == "zh-CN" {
        "还有 57 行"
    } else {
        "57 more lines"
    };
    let s = tmux.wait_for("the collapsed paste in Chat", |s| s.contains(more));
    // The paste's cell ends at its "more lines" row; the reply below may quote the paste
    // (the demo's reasoning does) once it streams that far.
    let cell = &s[..s.find(more).unwrap()];
    assert!(cell.contains("pasted row 3"), "{s}");
    assert!(
        !cell.contains("pasted row 4"),
        "collapsed at {w} {locale}:\n{s}"
    );
    // Select it in Chat and expand it.
    tmux.wait_for("the demo reply", |s| s.contains("●") || !s.contains("…"));
    tmux.key("Tab");
    tmux.key("Home");
    // The paste is the first selectable cell: enough ↑ reach it (selection stops there).
    for _ in 0..8 {
        tmux.key("Up");
    }
    tmux.key("Enter");
    tmux.wait_for("the expanded paste", |s| s.contains("pasted row 4"));
}

#[test]
fn sixty_line_paste_collapses_in_chat_and_queued_message_shows() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let cases = [(80, "zh-CN"), (120, "en-US")];
    common::concurrent::each_at_once(&cases, |&(w, l)| paste_collapses(w, l));
}
