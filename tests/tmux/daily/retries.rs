//! Scenario: a provider that cannot be reached (§14.5). While the request is retried the
//! status line says so in one transient line; the turn that fails for good leaves one line
//! in Chat with its cause and a hint, and the Trajectory keeps every attempt. The real
//! binary against a dead port under tmux, at 80 and 120 columns, in both locales.

use crate::common;
use crate::common::tmux::Tmux;

struct Texts {
    locale: &'static str,
    retrying: &'static str,
    line: &'static str,
    hint: &'static str,
    fail_row: &'static str,
}

const EN: Texts = Texts {
    locale: "en-US",
    retrying: "reconnecting ",
    line: "Connection problem: connection refused · nothing listening at http://127.0.0.1:",
    hint: "check base_url",
    fail_row: "FAIL transport  connection refused",
};

const ZH: Texts = Texts {
    locale: "zh-CN",
    retrying: "正在重连 ",
    line: "连接出现问题：连接被拒绝 · http://127.0.0.1:",
    hint: "上没有服务在监听——请检查 base_url",
    fail_row: "失败 连接  连接被拒绝",
};

fn a_dead_port_leaves_one_line(w: u16, t: &Texts) {
    // A port that was just free: nothing listens on it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "").unwrap();
    let cmd = format!(
        "env HOME={home} XDG_CONFIG_HOME={home}/c XDG_DATA_HOME={home}/d DEEPSEEK_API_KEY=sk-dead \
         {bin} --base-url http://127.0.0.1:{port} --session-dir {home}/s --config {config} \
         --locale {locale}; sleep 30",
        home = common::shell_quote(dir.path()),
        bin = common::shell_quote(std::path::Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        config = common::shell_quote(&config),
        locale = t.locale,
    );
    let tmux = Tmux::start(&format!("retries-{w}-{}", t.locale), w, 30, &cmd);
    tmux.wait_for("the first frame", |s| s.contains('›'));
    tmux.type_line("hello there");
    tmux.wait_for("the retry status line", |s| s.contains(t.retrying));
    // Chat's text without spaces: a wrapped row may split the line anywhere.
    let squash = |s: &str| s.replace(' ', "");
    let s = tmux.wait_for("the failed turn's line", |s| {
        squash(&common::tmux::chat_flat(s)).contains(&squash(t.hint))
    });
    let chat = squash(&common::tmux::chat_flat(&s));
    assert_eq!(chat.matches(&squash(t.hint)).count(), 1, "{s}");
    assert!(chat.contains(&squash(t.line)), "{s}");
    // Nothing of the attempts in Chat, nothing of the transport's chain anywhere.
    assert!(!chat.contains("attempt") && !chat.contains("尝试"), "{s}");
    assert!(!s.contains("tcp connect") && !s.contains("sk-dead"), "{s}");
    assert!(!s.contains(t.retrying), "the status line is gone:\n{s}");
    if w < 100 {
        // One pane: Composer → Chat → Trajectory.
        tmux.key("Tab");
        tmux.key("Tab");
    }
    let s = tmux.wait_for("the attempts in the Trajectory", |s| {
        s.matches(t.fail_row).count() == 4
    });
    assert!(!s.contains("error sending request"), "{s}");
}

#[test]
fn a_dead_port_leaves_one_line_80_en() {
    if common::require_external("tmux", common::tmux_available()) {
        a_dead_port_leaves_one_line(80, &EN);
    }
}

#[test]
fn a_dead_port_leaves_one_line_80_zh() {
    if common::require_external("tmux", common::tmux_available()) {
        a_dead_port_leaves_one_line(80, &ZH);
    }
}

#[test]
fn a_dead_port_leaves_one_line_120_en() {
    if common::require_external("tmux", common::tmux_available()) {
        a_dead_port_leaves_one_line(120, &EN);
    }
}

#[test]
fn a_dead_port_leaves_one_line_120_zh() {
    if common::require_external("tmux", common::tmux_available()) {
        a_dead_port_leaves_one_line(120, &ZH);
    }
}
