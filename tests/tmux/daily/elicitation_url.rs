//! Scenario: an MCP server asks the user to open a page (URL-mode elicitation, SPEC
//! §15.2), in the real terminal UI at 80 and 120 columns in both locales. The server is the
//! npm `@modelcontextprotocol/server-everything` (stdio), whose `trigger-url-elicitation`
//! tool the scripted model calls twice. The question shows the address; `n` declines and
//! opens nothing; `y` opens exactly that address through `$BROWSER`, here a script that
//! writes its argument to a file of the test's directory.

use std::time::Duration;

use super::elicitation::{entry_script, node_available};
use crate::common;
use crate::common::tmux::chat_flat;

const URL: &str = "https://auth.example/verify?code=ABCD&state=x1";

fn script() -> String {
    let call = format!(
        r#"{{"text": "Asking.", "tool_calls": [{{"name": "ev__trigger-url-elicitation", "input": {{"url": "{URL}"}}}}]}}"#
    );
    format!(r#"[{call}, {{"text": "URL-NO: fine."}}, {call}, {{"text": "URL-YES: thanks."}}]"#)
}

struct Texts {
    locale: &'static str,
    connected: &'static str,
    title: &'static str,
    question: &'static str,
    keys: &'static str,
    opened: &'static str,
}

const EN: Texts = Texts {
    locale: "en-US",
    connected: "ev: connected",
    title: "ev asks you to open a page",
    question: "Open this page in the browser?",
    keys: "y open · n decline · Esc cancel",
    opened: "in the browser.",
};

const ZH: Texts = Texts {
    locale: "zh-CN",
    connected: "ev：已连接",
    title: "ev 请你打开一个页面",
    question: "在浏览器中打开此页面吗？",
    keys: "y 打开 · n 拒绝 · Esc 取消",
    opened: "已在浏览器中打开",
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
    let dir = tempfile::tempdir().unwrap();
    let opened = dir.path().join("opened.txt");
    let browser = dir.path().join("browser.sh");
    std::fs::write(
        &browser,
        format!(
            "#!/bin/sh\nprintf '%s' \"$1\" > {}\n",
            common::shell_quote(&opened)
        ),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let extra = format!(
        "[mcp.servers.ev]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\napproval = \"never\"\ntimeout_secs = 60\n",
        entry.display().to_string()
    );
    let env = format!("BROWSER={}", common::shell_quote(&browser));
    let (tmux, _sim, _dir) =
        super::start_on_script_in(dir, "elicit-url", w, t.locale, &script(), &extra, &env);
    super::wait_connected(&tmux, t.connected, &format!("{w} {}", t.locale));
    // First request: the address and the question are shown; `n` declines.
    tmux.type_line("open the page");
    let s = tmux.wait_for("the URL question", |s| {
        s.contains(t.title) && s.contains(t.question)
    });
    assert!(s.contains(URL), "{w} {}: the whole address\n{s}", t.locale);
    assert!(s.contains(t.keys), "{w} {}:\n{s}", t.locale);
    tmux.key("n");
    let s = tmux.wait_for("the declined answer", |s| chat_flat(s).contains("URL-NO"));
    assert!(!s.contains(t.question), "the question closed\n{s}");
    assert!(!opened.exists(), "n opened nothing");
    // Second request: `y` opens exactly the address through $BROWSER.
    tmux.type_line("open it this time");
    tmux.wait_for("the URL question again", |s| {
        s.contains(t.title) && s.contains(t.question)
    });
    tmux.key("y");
    let s = tmux.wait_for("the accepted answer", |s| chat_flat(s).contains("URL-YES"));
    assert!(chat_flat(&s).contains(t.opened), "{w} {}:\n{s}", t.locale);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !opened.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(std::fs::read_to_string(&opened).unwrap_or_default(), URL);
}

#[test]
fn an_mcp_servers_url_is_shown_declined_then_opened_80_en_120_zh() {
    let cases = [(80, &EN), (120, &ZH)];
    common::concurrent::each_at_once(&cases, |&(w, t)| scenario(w, t));
}

#[test]
fn an_mcp_servers_url_is_shown_declined_then_opened_80_zh_120_en() {
    let cases = [(80, &ZH), (120, &EN)];
    common::concurrent::each_at_once(&cases, |&(w, t)| scenario(w, t));
}
