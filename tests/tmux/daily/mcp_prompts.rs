//! Scenario: an MCP server's prompt as a command and its resource as an `@` attachment
//! (SPEC §15.2) in the real terminal UI at 80 and 120 columns in both locales. The server is
//! the npm `@modelcontextprotocol/server-everything` (stdio). The popup offers
//! `/ev:args-prompt` with its arguments; run without its required argument it says which
//! one is missing; completed with Tab and given `city=Paris`, its text is the user message.
//! `@ev:` then completes to the server's resource URIs and the resource is attached.

use std::path::PathBuf;

use crate::common;
use crate::common::tmux::chat_flat;

const SCRIPT: &str = r#"[
  {"text": "PROMPT-DONE: sunny."},
  {"text": "ATTACH-DONE: read it."}
]"#;

/// server-everything's entry script as `.ci/run` installs it.
fn entry_script() -> Option<PathBuf> {
    let dir = match std::env::var("DEEPTERM_NPM_MCP_DIR") {
        Ok(d) if !d.trim().is_empty() => PathBuf::from(d),
        _ => PathBuf::from(std::env::var_os("HOME")?).join(".cache/deepterm-ci/npm"),
    };
    let p = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    p.is_file().then_some(p)
}

fn node_available() -> bool {
    std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

struct Texts {
    locale: &'static str,
    connected: &'static str,
    missing: &'static str,
}

const EN: Texts = Texts {
    locale: "en-US",
    connected: "ev: connected",
    missing: "/ev:args-prompt needs the argument city.",
};

const ZH: Texts = Texts {
    locale: "zh-CN",
    connected: "ev：已连接",
    missing: "/ev:args-prompt 缺少 1 个必需参数：city。",
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
        "[mcp.servers.ev]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\ntimeout_secs = 60\n",
        entry.display().to_string()
    );
    let (tmux, _sim, _dir) = super::start_on_script("prompts", w, t.locale, SCRIPT, &extra);
    super::wait_connected(&tmux, t.connected, &format!("{w} {}", t.locale));
    // The popup offers the prompt with its arguments and the server's description.
    tmux.run(&["send-keys", "-t", "t", "-l", "/ev:args"]);
    let s = tmux.wait_for("the prompt in the popup", |s| {
        s.contains("/ev:args-prompt city=… [state=…]")
    });
    assert!(s.contains("A prompt with two"), "{w} {}:\n{s}", t.locale);
    // Without its required argument: the error names it.
    // (`--`: tmux would read a leading `-` as an option.)
    tmux.run(&["send-keys", "-t", "t", "-l", "--", "-prompt state=TX"]);
    tmux.key("Enter");
    let s = tmux.wait_for("the missing argument", |s| chat_flat(s).contains(t.missing));
    assert!(!chat_flat(&s).contains("PROMPT-DONE"), "{s}");
    // Tab completes the name; with the argument, its text is the user message.
    tmux.run(&["send-keys", "-t", "t", "-l", "/ev:args-p"]);
    tmux.wait_for("the popup again", |s| s.contains("[state=…]"));
    tmux.key("Tab");
    tmux.type_line("city=Paris");
    let s = tmux.wait_for("the prompt's turn", |s| {
        chat_flat(s).contains("PROMPT-DONE")
    });
    assert!(
        chat_flat(&s).contains("What's weather in Paris?"),
        "{w} {}:\n{s}",
        t.locale
    );
    // `@ev:` completes to the server's resources; the chosen one is attached.
    tmux.run(&[
        "send-keys",
        "-t",
        "t",
        "-l",
        "read @ev:demo://resource/static/document/featu",
    ]);
    tmux.wait_for("the resource in the popup", |s| {
        s.contains("ev:demo://resource/static/document/features.md")
    });
    tmux.key("Tab");
    tmux.wait_for("the completed mention", |s| {
        s.contains("read @ev:demo://resource/static/document/features.md")
    });
    tmux.key("Enter");
    let s = tmux.wait_for("the attachment's turn", |s| {
        chat_flat(s).contains("ATTACH-DONE")
    });
    assert!(
        chat_flat(&s).contains("▸ @ev:demo://resource/static/document/features.md ·"),
        "{w} {}:\n{s}",
        t.locale
    );
}

#[test]
fn an_mcp_prompt_runs_from_the_popup_and_a_resource_attaches_80_en_120_zh() {
    let cases = [(80, &EN), (120, &ZH)];
    common::concurrent::each_at_once(&cases, |&(w, t)| scenario(w, t));
}

#[test]
fn an_mcp_prompt_runs_from_the_popup_and_a_resource_attaches_80_zh_120_en() {
    let cases = [(80, &ZH), (120, &EN)];
    common::concurrent::each_at_once(&cases, |&(w, t)| scenario(w, t));
}
