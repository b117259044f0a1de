//! Scenarios: `/model` validates and lists, the Ctrl+C quit hint is
//! transient, and the Chinese interface reads naturally, in the real
//! binary under tmux at 80 and 120 columns, in both locales.

use std::time::Duration;

use crate::common;
use crate::common::tmux::Tmux;

fn start(socket: &str, w: u16, locale: &str) -> (Tmux, tempfile::TempDir) {
    common::tmux::start_demo(socket, w, 40, locale)
}

/// A bare `/model` lists the routes with the current one marked; an unknown model
/// is refused (the route stays), in the interface language.
fn model_validates(w: u16, locale: &str) {
    let zh = locale == "zh-CN";
    let (tmux, _dir) = start(&format!("cmds-model-{w}-{locale}"), w, locale);
    tmux.type_line("/model");
    let (current, listed) = if zh {
        // The demo runs the route without its key, and `/model` says so.
        ("deepseek/deepseek-flash（当前；需要密钥", "可切换的路由")
    } else {
        (
            "deepseek/deepseek-flash  (current; needs a key",
            "Routes you can switch to",
        )
    };
    let s = tmux.wait_for("the route list", |s| s.contains(listed));
    assert!(s.contains(current), "{w} {locale}:\n{s}");
    assert!(s.contains("deepseek/deepseek-v4-pro"), "{s}");
    tmux.type_line("/model deepseek/nope");
    let refused = if zh {
        "无法切换路由"
    } else {
        "Cannot switch route"
    };
    let s = tmux.wait_for("the refusal", |s| s.contains(refused));
    assert!(
        !s.contains("deepseek/nope ·"),
        "the route did not change:\n{s}"
    );
    let footer = s.lines().last().unwrap_or_default().to_string();
    assert!(footer.contains("deepseek-flash"), "{footer}");
}

#[test]
fn model_lists_routes_and_refuses_unknown_80_en_120_zh() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let cases = [(80, "en-US"), (120, "zh-CN")];
    common::concurrent::each_at_once(&cases, |&(w, l)| model_validates(w, l));
}

/// One Ctrl+C when idle shows the quit hint on the status line only, never in
/// Chat, and it goes away; the language switch names 简体中文 / English.
fn hint_and_language(w: u16, locale: &str) {
    let zh = locale == "zh-CN";
    let (tmux, _dir) = start(&format!("cmds-hint-{w}-{locale}"), w, locale);
    tmux.key("C-c");
    let hint = if zh {
        "再按一次 Ctrl+C"
    } else {
        "Ctrl+C again"
    };
    let s = tmux.wait_for("the quit hint", |s| s.contains(hint));
    assert_eq!(s.matches(hint).count(), 1, "{s}");
    tmux.wait_for("the hint to go", |s| !s.contains(hint));
    std::thread::sleep(Duration::from_millis(200));
    assert!(!tmux.capture().contains(hint), "the hint left no trace");
    let (cmd, shown) = if zh {
        ("/lang en", "Language switched to English.")
    } else {
        ("/lang zh", "界面语言已切换为简体中文。")
    };
    tmux.type_line(cmd);
    tmux.wait_for("the language switch", |s| s.contains(shown));
}

#[test]
fn transient_quit_hint_and_language_names_80_zh_120_en() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let cases = [(80, "zh-CN"), (120, "en-US")];
    common::concurrent::each_at_once(&cases, |&(w, l)| hint_and_language(w, l));
}
