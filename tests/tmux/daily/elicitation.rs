//! Scenario: an MCP server asks the user for input (SPEC §15.2), in the real terminal UI at
//! 80 and 120 columns in both locales. The server is the npm
//! `@modelcontextprotocol/server-everything` (stdio); the scripted model calls its
//! `trigger-elicitation-request` tool, whose form opens over the screen. Submitting it empty
//! shows why the required field is not ready; typed in, Submit sends it and the tool's result
//! (what the server received) reaches Chat.

use std::path::PathBuf;

use crate::common;
use crate::common::tmux::chat_flat;

const SCRIPT: &str = r#"[
  {"text": "Asking.", "tool_calls": [{"name": "ev__trigger-elicitation-request", "input": {}}]},
  {"text": "FORM-DONE: thanks."}
]"#;

/// server-everything's entry script as `.ci/run` installs it.
pub(super) fn entry_script() -> Option<PathBuf> {
    let dir = match std::env::var("DEEPTERM_NPM_MCP_DIR") {
        Ok(d) if !d.trim().is_empty() => PathBuf::from(d),
        _ => PathBuf::from(std::env::var_os("HOME")?).join(".cache/deepterm-ci/npm"),
    };
    let p = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    p.is_file().then_some(p)
}

pub(super) fn node_available() -> bool {
    std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

struct Texts {
    locale: &'static str,
    connected: &'static str,
    title: &'static str,
    submit: &'static str,
    required: &'static str,
    missing: &'static str,
}

const EN: Texts = Texts {
    locale: "en-US",
    connected: "ev: connected",
    title: "ev asks",
    submit: "[ Submit ]",
    required: "· required",
    missing: "Required.",
};

const ZH: Texts = Texts {
    locale: "zh-CN",
    connected: "ev：已连接",
    title: "ev 请求输入",
    submit: "[ 提交 ]",
    required: "· 必填",
    missing: "必填。",
};

fn scenario(w: u16, t: &Texts) {
    if !common::require_external("tmux", common::tmux_available())
        || !common::require_external("node", node_available())
    {
        return;
    }
    let Some(entry) = entry_script() else {
        assert!(!common::require_external(
            "the npm package @modelcontextprotocol/server-everything",
            false
        ));
        return;
    };
    let extra = format!(
        "[mcp.servers.ev]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\napproval = \"never\"\ntimeout_secs = 60\n",
        entry.display().to_string()
    );
    let (tmux, _sim, _dir) = super::start_on_script("elicit", w, t.locale, SCRIPT, &extra);
    super::wait_connected(&tmux, t.connected, &format!("{w} {}", t.locale));
    tmux.type_line("please fill in the form");
    let s = tmux.wait_for("the form", |s| {
        s.contains(t.title) && s.contains("legal name")
    });
    assert!(
        s.contains("Please provide inputs for the following fields:"),
        "{w} {}:\n{s}",
        t.locale
    );
    assert!(s.contains(t.required), "{w} {}:\n{s}", t.locale);
    assert!(
        s.contains("Your full, legal name"),
        "{w} {}:\n{s}",
        t.locale
    );
    // Shift+Tab from the first field wraps to Cancel, Decline, then Submit.
    for _ in 0..3 {
        tmux.key("BTab");
    }
    tmux.wait_for("Submit in view", |s| s.contains(t.submit));
    tmux.key("Enter");
    tmux.wait_for("why the form cannot go yet", |s| s.contains(t.missing));
    // The focus went to the field that needs it: type the name, then submit.
    tmux.run(&["send-keys", "-t", "t", "-l", "Ada Lovelace"]);
    tmux.wait_for("the typed name", |s| {
        s.contains("Ada Lovelace") && !s.contains(t.missing)
    });
    for _ in 0..3 {
        tmux.key("BTab");
    }
    tmux.key("Enter");
    let s = tmux.wait_for("the result and the reply", |s| {
        chat_flat(s).contains("FORM-DONE")
    });
    assert!(!s.contains(t.submit), "the form closed\n{s}");
    tmux.key("C-o");
    tmux.wait_for("what the server received", |s| {
        chat_flat(s).contains("Name: Ada Lovelace")
    });
}

#[test]
fn an_mcp_servers_form_is_filled_in_and_submitted_80_en_120_zh() {
    let cases = [(80, &EN), (120, &ZH)];
    common::concurrent::each_at_once(&cases, |&(w, t)| scenario(w, t));
}

#[test]
fn an_mcp_servers_form_is_filled_in_and_submitted_80_zh_120_en() {
    let cases = [(80, &ZH), (120, &EN)];
    common::concurrent::each_at_once(&cases, |&(w, t)| scenario(w, t));
}
