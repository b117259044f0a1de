//! Scenarios: the cache. In demo mode, a warm request and one that lost
//! the cache to a tool removal on the addition-only route (`/tool disable grep`): the broken
//! row is marked and coloured unlike the warm one (checked in the escape codes of
//! `capture-pane -e`), its reason is on the row below, the pane has a localized column
//! header, the footer labels the session's hit next to the last request's, and `/inspect N`
//! opens the request the Trajectory numbers `#N`, naming the tool list as the first
//! difference.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common;
use common::tmux::Tmux;

/// What a locale shows.
struct Texts {
    locale: &'static str,
    header: [&'static str; 3],
    reason: &'static str,
    session: &'static str,
    last: &'static str,
    inspector: [&'static str; 3],
}

const EN: Texts = Texts {
    locale: "en-US",
    header: ["step", "↑in", "hit"],
    reason: "cache break: tools changed",
    session: "session hit",
    last: "· last ",
    inspector: [
        "Request #2",
        "Request #3",
        "First difference: the tool list",
    ],
};

const ZH: Texts = Texts {
    locale: "zh-CN",
    header: ["轮.步", "↑输入", "命中"],
    reason: "缓存失效：工具有变化",
    session: "会话命中",
    last: "· 上次 ",
    inspector: ["请求 #2", "请求 #3", "首个差异：工具列表"],
};

/// Removes SGR escape sequences.
fn plain(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether the foreground in force at the text `before` (its last occurrence in `line`,
/// escapes included) is ANSI colour `idx` (1 red, 2 green).
fn fg_before(line: &str, idx: u8, before: &str) -> bool {
    let Some(end) = line.rfind(before) else {
        return false;
    };
    let mut fg: Option<u8> = None;
    for seq in line[..end].split("\u{1b}[").skip(1) {
        let Some(m) = seq.find('m') else { continue };
        let params: Vec<&str> = seq[..m].split(';').collect();
        let mut i = 0;
        while i < params.len() {
            match params[i] {
                "" | "0" | "39" => fg = None,
                "38" if params.get(i + 1) == Some(&"5") => {
                    fg = params.get(i + 2).and_then(|v| v.parse().ok());
                    i += 2;
                }
                p if p.len() == 2 && p.starts_with('3') => fg = p[1..].parse().ok(),
                _ => {}
            }
            i += 1;
        }
    }
    fg == Some(idx)
}

/// Waits until the session log holds `n` settled assistant messages.
fn wait_requests(sessions: &Path, n: usize, tmux: &Tmux) {
    let start = Instant::now();
    loop {
        let count: usize = std::fs::read_dir(sessions)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .map(|t| t.matches("\"type\":\"assistant/message\"").count())
            .sum();
        if count >= n {
            return;
        }
        assert!(
            start.elapsed() < common::tmux::TIMEOUT,
            "timed out waiting for request {n}; screen:\n{}",
            tmux.capture()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn scenario(w: u16, t: &Texts) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let (tmux, dir) = common::tmux::start_demo_with(
        &format!("i12-cache-{w}-{}", t.locale),
        w,
        40,
        t.locale,
        // The opt-out, so the removal costs the prefix as this scenario needs (§15.1).
        "[[providers.deepseek.models]]\nid = \"deepseek-flash\"\ntool_removal = \"rewrite\"\n",
    );
    let sessions = dir.path().join("sessions");
    // #1 cold (first request), #2 warm, then a removal on the addition-only route and #3
    // loses the cache.
    tmux.type_line("hello there");
    wait_requests(&sessions, 1, &tmux);
    tmux.type_line("second message");
    wait_requests(&sessions, 2, &tmux);
    tmux.type_line("/tool disable grep");
    tmux.type_line("third message");
    wait_requests(&sessions, 3, &tmux);
    if w < 100 {
        // One pane: show the Trajectory. (No Escape before it: tmux would send Esc and the
        // next key as one Alt chord.)
        tmux.key("Tab");
        tmux.key("Tab");
    }
    tmux.wait_for("the break's reason", |s| s.contains(t.reason));
    let out = tmux.run(&["capture-pane", "-p", "-e", "-t", "t"]);
    let screen = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = screen.lines().collect();
    let texts: Vec<String> = lines.iter().map(|l| plain(l)).collect();
    let all = texts.join("\n");
    // The column header.
    assert!(
        texts.iter().any(|l| t.header.iter().all(|h| l.contains(h))),
        "header {:?} in\n{all}",
        t.header
    );
    let row = |n: &str| {
        texts
            .iter()
            // The step label: `T1.S1`, or `1.1` in Chinese (§14.5).
            .position(|l| {
                l.split(&format!("{n}   "))
                    .nth(1)
                    .and_then(|rest| rest.chars().next())
                    .is_some_and(|c| c == 'T' || c.is_ascii_digit())
            })
            .unwrap_or_else(|| panic!("row {n} in\n{all}"))
    };
    let (warm, cold) = (row("#2"), row("#3"));
    // The warm row is green at its hit %, unmarked; the broken one red and marked `!`.
    // The warm hit is 99 % or 100 % (how much of the request the cache unit covers).
    let warm_pct = if texts[warm].trim_end().ends_with("100%") {
        "100%"
    } else {
        "99%"
    };
    assert!(
        texts[warm].trim_end().ends_with(warm_pct),
        "{}",
        texts[warm]
    );
    assert!(
        fg_before(lines[warm], 2, warm_pct),
        "green warm hit: {:?}",
        lines[warm]
    );
    assert!(!texts[warm].contains("! #2"), "{}", texts[warm]);
    assert!(texts[cold].contains("! #3"), "{}", texts[cold]);
    // The break loses the cache from the changed tool on (the built-ins sorted before
    // `grep` still match): well under the warm hit, in red.
    let cold_pct = texts[cold]
        .split_whitespace()
        .last()
        .unwrap_or("")
        .to_string();
    let pct: u32 = cold_pct.trim_end_matches('%').parse().unwrap_or(100);
    assert!(pct < 50, "{}", texts[cold]);
    assert!(
        fg_before(lines[cold], 1, &cold_pct),
        "red cold hit: {:?}",
        lines[cold]
    );
    assert!(
        fg_before(lines[cold], 1, "! "),
        "red marker: {:?}",
        lines[cold]
    );
    // The reason is on the row below the broken one, in red.
    assert!(texts[cold + 1].contains(t.reason), "{}", texts[cold + 1]);
    assert!(fg_before(lines[cold + 1], 1, "↳"), "{:?}", lines[cold + 1]);
    // The footer: the session's figure, labelled, and the last request's where it fits
    // (at 80 columns it gives way to the session's cost; the Trajectory row above has it).
    let footer = texts.iter().rev().find(|l| !l.trim().is_empty()).unwrap();
    assert!(footer.contains(t.session), "{footer}");
    assert_eq!(footer.contains(t.last), w >= 120, "{footer}");
    // `/inspect 3` opens the request the Trajectory calls #3, next to #2, and names the
    // tool list (sent before the messages) as the first difference.
    tmux.type_line("/inspect 3");
    tmux.wait_for("the inspector on #3", |s| {
        t.inspector.iter().all(|x| s.contains(x))
    });
}

#[test]
fn cache_break_row_marked_and_explained_80_en() {
    scenario(80, &EN);
}

#[test]
fn cache_break_row_marked_and_explained_80_zh() {
    scenario(80, &ZH);
}

#[test]
fn cache_break_row_marked_and_explained_120_en() {
    scenario(120, &EN);
}

#[test]
fn cache_break_row_marked_and_explained_120_zh() {
    scenario(120, &ZH);
}
