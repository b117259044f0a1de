//! Scenario: taking it back in the real terminal UI (SPEC §14.3), in demo mode in a
//! scratch workspace. The agent writes a file; `/diff` opens the coloured per-file overlay
//! and Esc closes it; `/undo` puts the file back and Chat shows it once, as its node; Esc
//! Esc on the empty composer opens the picker of earlier prompts, Enter offers what to take
//! back, and a conversation rewind puts the prompt back into the composer.

use crate::common;
use crate::common::tmux::{Tmux, chat_flat};

struct Texts {
    locale: &'static str,
    added: &'static str,
    diff_title: &'static str,
    undo: &'static str,
    undo_node: &'static str,
    esc_hint: &'static str,
    picker: &'static str,
    both: &'static str,
    rewound: &'static str,
}

const EN: Texts = Texts {
    locale: "en-US",
    added: "▸ Added demo.txt",
    diff_title: "This session changed 1 file",
    undo: "Undid prompt 1 (“please use write_file”)",
    undo_node: "↶ Undid prompt 1 · 1 file put back",
    esc_hint: "Press Esc again to rewind",
    picker: "Earlier prompts",
    both: "the conversation and the code",
    rewound: "↶ Rewound to before prompt 1 (“please use write_file”) · the conversation",
};

const ZH: Texts = Texts {
    locale: "zh-CN",
    added: "▸ 已添加 demo.txt",
    diff_title: "本次会话改动了 1 个文件",
    undo: "已撤销第 1 条提示（“please use write_file”）",
    undo_node: "↶ 已撤销第 1 条提示 · 恢复了 1 个文件",
    esc_hint: "再按一次 Esc",
    picker: "之前的提示",
    both: "对话和代码",
    rewound: "↶ 已回到第 1 条提示（“please use write_file”）之前 · 对话",
};

/// Whether `screen`'s Chat shows `want`, however it wrapped (spaces left out: a Chinese
/// row joins without them).
fn shows(screen: &str, want: &str) -> bool {
    chat_flat(screen)
        .replace(' ', "")
        .contains(&want.replace(' ', ""))
}

fn start(w: u16, t: &Texts) -> (Tmux, tempfile::TempDir) {
    super::start_in_workspace("ckpt", w, t.locale)
}

fn scenario(w: u16, t: &Texts) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let (tmux, dir) = start(w, t);
    let file = super::demo_copy(dir.path()).join("demo.txt");
    tmux.type_line("please use write_file");
    tmux.wait_for("the Added card", |s| shows(s, t.added));
    assert!(file.exists());

    // /diff: the overlay with its title and the added lines; Esc closes it.
    tmux.type_line("/diff");
    tmux.wait_for("the /diff overlay", |s| {
        s.contains(t.diff_title) && s.contains("+Hello from the deepterm demo.")
    });
    tmux.key("Escape");
    tmux.wait_for("the overlay closed", |s| !s.contains(t.diff_title));

    // /undo: Chat's node counts the file, the file is gone, and no second report repeats
    // the node (the command's output, if any, comes with the node's event).
    tmux.type_line("/undo");
    tmux.wait_for("the undo node", |s| shows(s, t.undo_node));
    assert!(!file.exists(), "the file the turn created is taken back");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let s = tmux.capture();
    assert!(!shows(&s, t.undo), "no report besides the undo node: {s}");

    // Esc Esc on the empty composer: the picker of earlier prompts.
    tmux.key("Escape");
    tmux.wait_for("the Esc Esc hint", |s| shows(s, t.esc_hint));
    tmux.key("Escape");
    tmux.wait_for("the rewind picker", |s| {
        s.contains(t.picker) && s.contains("1. please use write_file")
    });
    tmux.key("Enter");
    tmux.wait_for("the scopes", |s| s.contains(t.both));
    tmux.key("Down");
    tmux.key("Enter");
    // The node comes with the logged rewind; the rebuilt Chat and the prompt back in the
    // composer come with the rewind's answer just after it.
    let composer = |s: &str| {
        s.lines()
            .rev()
            .find(|l| l.contains('›'))
            .unwrap_or_default()
            .contains("please use write_file")
    };
    let s = tmux.wait_for(
        "the rewind's node and the prompt back in the composer",
        |s| shows(s, t.rewound) && composer(s),
    );
    // The conversation went back: the prompt is in the composer again, and the turn it
    // started (its file card) is gone from Chat.
    assert!(!shows(&s, t.added), "{s}");
    assert!(!s.contains(t.picker), "{s}");
}

#[test]
fn diff_undo_and_the_esc_esc_picker_at_80_en() {
    scenario(80, &EN);
}

#[test]
fn diff_undo_and_the_esc_esc_picker_at_120_en() {
    scenario(120, &EN);
}

#[test]
fn diff_undo_and_the_esc_esc_picker_at_80_zh() {
    scenario(80, &ZH);
}

#[test]
fn diff_undo_and_the_esc_esc_picker_at_120_zh() {
    scenario(120, &ZH);
}
