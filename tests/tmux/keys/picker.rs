//! Scenarios: the `/resume` picker, in the real TUI under tmux at 80 and 120
//! columns, in English and Chinese (`--demo`: the built-in simulator).
//!
//! Two sessions are made by running `deepterm --demo` twice with the same session dir (a
//! distinct message each, then `/quit`). A third start's bare `/resume` opens the picker
//! listing both with their first prompts (the open session is not listed); typing a
//! fragment narrows the list to one; Enter resumes it, so its first message is in Chat.

use std::path::Path;

use crate::common::tmux::Tmux;
use crate::common::{require_external, shell_quote, tmux_available};

/// The texts a scenario looks for, per locale.
struct Texts {
    locale: &'static str,
    title: &'static str,
    one_message: &'static str,
    count_both: &'static str,
    count_one: &'static str,
    idle: &'static str,
}

const EN: Texts = Texts {
    locale: "en-US",
    title: "Resume a session",
    one_message: "2 messages",
    count_both: "2 of 2",
    count_one: "1 of 2",
    idle: "? for keys",
};

const ZH: Texts = Texts {
    locale: "zh-CN",
    title: "恢复会话",
    one_message: "2 条消息",
    count_both: "2 / 2",
    count_one: "1 / 2",
    idle: "? 查看快捷键",
};

/// Starts `deepterm --demo` on `dir`'s session dir; after it exits the shell prints
/// `EXITED` and waits.
fn start(name: &str, dir: &Path, w: u16, t: &Texts) -> Tmux {
    let cmd = format!(
        "env -u DEEPSEEK_API_KEY HOME={home} XDG_CONFIG_HOME={home}/c {bin} --demo --session-dir {sessions} --locale {loc}; echo EXITED; sleep 60",
        home = shell_quote(dir),
        bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        sessions = shell_quote(&dir.join("sessions")),
        loc = t.locale,
    );
    let tmux = Tmux::start(name, w, 30, &cmd);
    tmux.wait_for("the first frame", |s| s.contains(t.idle));
    tmux
}

/// One session with one message (and its demo reply), then `/quit`.
fn make_session(name: &str, dir: &Path, w: u16, t: &Texts, text: &str) {
    let tmux = start(name, dir, w, t);
    tmux.type_line(text);
    // The demo reply names the tools on offer; the idle hint says the turn is over.
    tmux.wait_for("the reply", |s| {
        // The demo answers in the interface language (§14.5).
        let offer = match t.locale {
            "zh-CN" => "可用的工具",
            _ => "Tools on offer",
        };
        s.contains(&format!("▎ {text}")) && s.contains(offer) && s.contains(t.idle)
    });
    tmux.type_line("/quit");
    tmux.wait_for("exit", |s| s.contains("EXITED"));
}

fn picker_resumes_the_chosen_session(w: u16, t: &Texts, socket: &str) {
    if !require_external("tmux", tmux_available()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    make_session(
        &format!("{socket}-a"),
        dir.path(),
        w,
        t,
        "Alpha apples orchard",
    );
    // A second apart, so the second session is the newer one by time as well as by id.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    make_session(
        &format!("{socket}-b"),
        dir.path(),
        w,
        t,
        "Bravo bananas boat",
    );
    let tmux = start(&format!("{socket}-c"), dir.path(), w, t);
    tmux.type_line("/resume");
    let screen = tmux.wait_for("the picker with both sessions", |s| {
        s.contains(t.title) && s.contains("Alpha apples") && s.contains("Bravo bananas")
    });
    // Newest first; each shows its message count; the open (third) session is not listed.
    let at = |what: &str| screen.find(what).unwrap();
    assert!(at("Bravo bananas") < at("Alpha apples"), "{screen}");
    assert!(screen.contains(t.one_message), "{screen}");
    assert!(screen.contains(t.count_both), "{screen}");
    // Typing a fragment narrows the list (case does not matter).
    tmux.run(&["send-keys", "-t", "t", "-l", "APPLE"]);
    let screen = tmux.wait_for("the filtered list", |s| {
        s.contains(t.count_one) && !s.contains("Bravo bananas")
    });
    assert!(screen.contains("Alpha apples"), "{screen}");
    // Enter resumes it: the picker closes and its first message is in Chat.
    tmux.key("Enter");
    let screen = tmux.wait_for("the resumed session", |s| {
        s.contains("▎ Alpha apples orchard") && !s.contains(t.title)
    });
    assert!(!screen.contains("Bravo bananas"), "{screen}");
    tmux.type_line("/quit");
    tmux.wait_for("exit", |s| s.contains("EXITED"));
}

#[test]
fn picker_resumes_the_chosen_session_en_80() {
    picker_resumes_the_chosen_session(80, &EN, "i13pk-en80");
}

#[test]
fn picker_resumes_the_chosen_session_en_120() {
    picker_resumes_the_chosen_session(120, &EN, "i13pk-en120");
}

#[test]
fn picker_resumes_the_chosen_session_zh_80() {
    picker_resumes_the_chosen_session(80, &ZH, "i13pk-zh80");
}

#[test]
fn picker_resumes_the_chosen_session_zh_120() {
    picker_resumes_the_chosen_session(120, &ZH, "i13pk-zh120");
}

/// Esc closes the picker and leaves the open session as it was; picking `/resume` from the
/// slash popup opens it too.
#[test]
fn picker_opens_from_the_slash_popup_and_esc_closes() {
    if !require_external("tmux", tmux_available()) {
        return;
    }
    let t = &EN;
    let dir = tempfile::tempdir().unwrap();
    make_session("i13pk-esc-a", dir.path(), 100, t, "Charlie cherries");
    let tmux = start("i13pk-esc-b", dir.path(), 100, t);
    tmux.run(&["send-keys", "-t", "t", "-l", "/resu"]);
    tmux.wait_for("the popup", |s| s.contains("/resume"));
    tmux.key("Enter");
    tmux.wait_for("the picker", |s| {
        s.contains(t.title) && s.contains("Charlie cherries")
    });
    tmux.key("Escape");
    let screen = tmux.wait_for("the picker closed", |s| !s.contains(t.title));
    assert!(!screen.contains("▎ Charlie cherries"), "{screen}");
    tmux.type_line("/quit");
    tmux.wait_for("exit", |s| s.contains("EXITED"));
}
