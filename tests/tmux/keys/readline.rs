//! Scenario: the composer's readline keys in the real TUI in tmux, at 80 and 120 columns
//! in both locales (`--demo`). A draft longer than 80 columns (so it wraps there) is
//! edited with Ctrl+A, Ctrl+E, Alt+F, Ctrl+K, Ctrl+Y, Ctrl+W and Ctrl+U; Ctrl+C clears a
//! draft and ↑ brings it back; a stack trace pasted with bracketed paste (`paste-buffer
//! -p`) is sent as a message, which the demo answers; a typed unknown command stays in
//! the composer with the warning; the key help lists the keys; Ctrl+D on the empty
//! composer quits.

use crate::common;
use crate::common::tmux::{Tmux, start_demo};

/// The composer rows (the `› ` prompt starts the first; continuation rows follow it
/// above the footer), joined.
fn composer(screen: &str) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    let Some(first) = lines.iter().rposition(|l| l.trim_start().starts_with('›')) else {
        return String::new();
    };
    // The rows after the prompt up to the footer (the last non-empty line).
    let last = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .unwrap_or(first);
    lines[first..last.max(first + 1).min(lines.len())]
        .iter()
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join(" ")
}

fn typed(tmux: &Tmux, text: &str) {
    tmux.run(&["send-keys", "-t", "t", "-l", text]);
}

const DRAFT: &str = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu \
                     xi omicron pi rho sigma";

const TRACE: &str = "/usr/lib/python3/foo.py:12: in bar\n    raise ValueError(x)";

struct Texts {
    placeholder: &'static str,
    unknown_word: &'static str,
    unknown: &'static str,
    help: [(&'static str, &'static str); 5],
}

const EN: Texts = Texts {
    placeholder: "Ask anything",
    unknown_word: "Unknown command",
    unknown: "Unknown command /nosuch",
    help: [
        ("Ctrl+A / Ctrl+E", "Start / end of the line"),
        ("Ctrl+W / Alt+Backspace", "Delete the word before"),
        ("Ctrl+K / Ctrl+U", "Cut to the end / start"),
        ("Ctrl+Y", "Paste back the text cut last"),
        ("Ctrl+D", "Delete after the caret"),
    ],
};

const ZH: Texts = Texts {
    placeholder: "有什么想问的",
    unknown_word: "未知命令",
    unknown: "未知命令 /nosuch",
    help: [
        ("Ctrl+A / Ctrl+E", "移到行首 / 行尾"),
        ("Ctrl+W / Alt+Backspace", "删除光标前的一个词"),
        ("Ctrl+K / Ctrl+U", "剪切到行尾 / 行首"),
        ("Ctrl+Y", "粘贴最近剪切的文字"),
        ("Ctrl+D", "删除光标后的字符"),
    ],
};

fn readline_keys_and_a_pasted_trace(width: u16, locale: &str) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let t = if locale == "zh-CN" { &ZH } else { &EN };
    let (tmux, dir) = start_demo(&format!("readline-{width}-{locale}"), width, 40, locale);

    // A long draft: wrapped at 80 columns, one row at 120.
    typed(&tmux, DRAFT);
    tmux.wait_for("the draft", |s| composer(s).contains("rho sigma"));
    // Ctrl+A goes to the start of the (logical) line, Ctrl+E to its end.
    tmux.key("C-a");
    typed(&tmux, "X");
    tmux.wait_for("X at the start", |s| {
        composer(s).starts_with("› Xalpha beta")
    });
    tmux.key("C-e");
    typed(&tmux, " END");
    tmux.wait_for("END at the end", |s| composer(s).ends_with("rho sigma END"));
    // Ctrl+K after the first word cuts the rest of the line, across the wrap.
    tmux.key("C-a");
    tmux.key("M-f");
    tmux.key("C-k");
    let s = tmux.wait_for("the cut", |s| composer(s) == "› Xalpha");
    assert!(!s.contains("sigma"), "{s}");
    // Ctrl+Y pastes it back; Ctrl+W deletes the word before the caret.
    tmux.key("C-y");
    tmux.wait_for("the yank", |s| composer(s).ends_with("rho sigma END"));
    tmux.key("C-w");
    tmux.wait_for("END deleted", |s| {
        composer(s).ends_with("rho sigma") && !composer(s).contains("END")
    });
    // Ctrl+U on a one-line draft with the caret at its end leaves it empty.
    tmux.key("C-u");
    tmux.wait_for("the empty composer", |s| {
        composer(s).contains(t.placeholder)
    });

    // Ctrl+C clears a draft; ↑ brings it back before the history.
    typed(&tmux, "keep this draft");
    tmux.wait_for("the second draft", |s| {
        composer(s).contains("keep this draft")
    });
    tmux.key("C-c");
    tmux.wait_for("cleared", |s| composer(s).contains(t.placeholder));
    tmux.key("Up");
    tmux.wait_for("the draft back", |s| composer(s) == "› keep this draft");
    tmux.key("C-u");

    // A trace pasted with bracketed paste is a message: the demo answers, quoting it.
    let file = dir.path().join("trace.txt");
    std::fs::write(&file, TRACE).unwrap();
    let path = file.to_str().unwrap();
    tmux.run(&["load-buffer", "-b", "trace", path]);
    tmux.run(&["paste-buffer", "-p", "-b", "trace", "-t", "t"]);
    tmux.wait_for("the pasted trace", |s| {
        composer(s).contains("/usr/lib/python3/foo.py:12: in bar")
    });
    tmux.key("Enter");
    let s = tmux.wait_for("the demo's reply", |s| {
        // The demo answers in the interface language (§14.5).
        let demo = match locale {
            "zh-CN" => "deepterm 演示模拟器",
            _ => "deepterm demo simulator",
        };
        s.contains(demo) && composer(s).contains(t.placeholder)
    });
    assert!(!s.contains(t.unknown_word), "{s}");
    assert!(
        s.contains("raise ValueError(x)"),
        "the reply quotes the trace: {s}"
    );

    // A typed unknown command stays in the composer, with the warning.
    typed(&tmux, "/nosuch arg");
    tmux.key("Enter");
    tmux.wait_for("the warning and the draft", |s| {
        s.contains(t.unknown) && composer(s) == "› /nosuch arg"
    });
    tmux.key("C-u");

    // The key help lists the keys.
    tmux.key("F1");
    tmux.wait_for("the key help with the readline keys", |s| {
        t.help
            .iter()
            .all(|(k, d)| s.lines().any(|l| l.contains(k) && l.contains(d)))
    });
    tmux.key("Escape");
    tmux.wait_for("the help closed", |s| composer(s).contains(t.placeholder));

    // Ctrl+D on the empty composer quits.
    tmux.key("C-d");
    tmux.wait_for("the TUI gone", |s| !s.contains('›'));
}

#[test]
fn readline_keys_and_a_pasted_trace_80_en() {
    readline_keys_and_a_pasted_trace(80, "en-US");
}

#[test]
fn readline_keys_and_a_pasted_trace_80_zh() {
    readline_keys_and_a_pasted_trace(80, "zh-CN");
}

#[test]
fn readline_keys_and_a_pasted_trace_120_en() {
    readline_keys_and_a_pasted_trace(120, "en-US");
}

#[test]
fn readline_keys_and_a_pasted_trace_120_zh() {
    readline_keys_and_a_pasted_trace(120, "zh-CN");
}
