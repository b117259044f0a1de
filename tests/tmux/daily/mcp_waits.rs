//! Scenario: Esc stops waiting for an MCP server's prompt (SPEC §15.2) in the real terminal
//! UI at 80 and 120 columns in both locales. The in-repo fixture's `stall` prompt answers
//! nothing until it is cancelled. While deepterm waits, the status line says so. Esc ends
//! the wait at once with a notice, the status line goes idle, and the server logs that it
//! was told to stop.

use std::path::Path;
use std::time::Duration;

use crate::common;
use crate::common::MCP_FIXTURE as FIXTURE;
use crate::common::tmux::chat_flat;

const SCRIPT: &str = r#"[{"text": "NEVER-SENT"}]"#;

struct Texts {
    locale: &'static str,
    connected: &'static str,
    waiting: &'static str,
    cancelled: &'static str,
}

const EN: Texts = Texts {
    locale: "en-US",
    connected: "fx: connected",
    waiting: "Waiting for the MCP server",
    cancelled: "/fx:stall: cancelled; the server was told to stop",
};

const ZH: Texts = Texts {
    locale: "zh-CN",
    connected: "fx：已连接",
    waiting: "等待 MCP 服务器",
    cancelled: "/fx:stall：已取消，已通知服务器停止准备该提示",
};

/// Waits until the fixture's log holds `line`.
fn logged(path: &Path, line: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.lines().any(|l| l == line) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server never logged {line:?}: {text:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn scenario(w: u16, t: &Texts) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("cancel.log");
    let extra = format!(
        "[mcp.servers.fx]\ncommand = {FIXTURE:?}\ntimeout_secs = 120\n\
         env = {{ FIXTURE_TOOLS = \"echo\", FIXTURE_PROMPTS = \"stall\", \
         FIXTURE_CANCEL_LOG = {:?} }}\n",
        log.display().to_string()
    );
    let (tmux, _sim, _dir) =
        super::start_on_script_in(dir, "mcp-waits", w, t.locale, SCRIPT, &extra, "");
    super::wait_connected(&tmux, t.connected, &format!("{w} {}", t.locale));
    tmux.type_line("/fx:stall");
    tmux.wait_for("the status line waiting for the server", |s| {
        s.contains(t.waiting)
    });
    logged(&log, "waiting prompts/get");
    tmux.key("Escape");
    let s = tmux.wait_for("the cancel notice", |s| chat_flat(s).contains(t.cancelled));
    logged(&log, "cancelled prompts/get");
    let s = if s.contains(t.waiting) {
        tmux.wait_for("the status line idle", |s| !s.contains(t.waiting))
    } else {
        s
    };
    assert!(
        !chat_flat(&s).contains("NEVER-SENT"),
        "{w} {}:\n{s}",
        t.locale
    );
}

#[test]
fn esc_stops_waiting_for_a_servers_prompt_80_en_120_zh() {
    let cases = [(80, &EN), (120, &ZH)];
    common::concurrent::each_at_once(&cases, |&(w, t)| scenario(w, t));
}

#[test]
fn esc_stops_waiting_for_a_servers_prompt_80_zh_120_en() {
    let cases = [(80, &ZH), (120, &EN)];
    common::concurrent::each_at_once(&cases, |&(w, t)| scenario(w, t));
}
