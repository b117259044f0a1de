//! Scenario: a remote MCP server behind OAuth in the real TUI, at 80 and 120 columns in
//! both locales (SPEC §15.2). `/mcp` says the server needs a login and names the command;
//! `/mcp login` prints the authorization URL (as an OSC 8 link, which must not disturb the
//! text a terminal shows), the headless browser (`$BROWSER`) comes back, and `/mcp` then
//! shows the server connected with its tools. The server is `deepterm-mcp-http-fixture`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use crate::common;
use crate::common::tmux::{Tmux, chat_flat};

const FIXTURE: &str = env!("CARGO_BIN_EXE_deepterm-mcp-http-fixture");

/// The fixture with OAuth on; killed on drop.
struct Remote {
    child: Child,
    url: String,
}

impl Drop for Remote {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn remote() -> Remote {
    let mut child = Command::new(FIXTURE)
        .arg("serve")
        .env("FIXTURE_OAUTH", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the fixture starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening ")
        .expect("a listening line")
        .to_string();
    Remote { child, url }
}

fn login_flow(w: u16, locale: &str) {
    let zh = locale == "zh-CN";
    let server = remote();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[mcp.servers.tracker]\nurl = {:?}\nauth = \"oauth\"\nenabled = false\n",
            server.url
        ),
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("tmp")).unwrap();
    let cmd = format!(
        "env -u DEEPSEEK_API_KEY HOME={home} XDG_CONFIG_HOME={home}/c XDG_DATA_HOME={home}/d \
         TMPDIR={home}/tmp BROWSER={browser} {bin} --demo --session-dir {home}/s \
         --config {config} --locale {locale}; sleep 30",
        home = common::shell_quote(dir.path()),
        browser = common::shell_quote(std::path::Path::new(&format!("{FIXTURE} browse"))),
        bin = common::shell_quote(std::path::Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        config = common::shell_quote(&config),
    );
    let tmux = Tmux::start(&format!("mcp-remote-{w}-{locale}"), w, 40, &cmd);
    tmux.wait_for("the first frame", |s| s.contains('›'));
    tmux.type_line("/mcp");
    let hint = if zh {
        "tracker：需要登录 · /mcp login tracker"
    } else {
        "tracker: needs login · /mcp login tracker"
    };
    let s = tmux.wait_for("the login hint", |s| chat_flat(s).contains(hint));
    assert!(!s.contains("Error"), "{w} {locale}:\n{s}");
    tmux.type_line("/mcp login tracker");
    let done = if zh {
        "已登录 MCP 服务器 tracker"
    } else {
        "Logged in to MCP server tracker"
    };
    let s = tmux.wait_for("the login", |s| chat_flat(s).contains(done));
    // The authorization URL is on screen whole (the link changes nothing a terminal
    // shows), after the sentence that says what to do with it.
    let open = if zh {
        "要登录 MCP 服务器 tracker，请打开："
    } else {
        "To log in to MCP server tracker, open:"
    };
    let flat = chat_flat(&s);
    assert!(flat.contains(open), "{w} {locale}:\n{s}");
    let joined: String = flat.split(open).nth(1).unwrap_or_default().replace(' ', "");
    let authorize = format!("{}/auth/authorize?", server.url.trim_end_matches("/mcp"));
    assert!(joined.starts_with(&authorize), "{w} {locale}:\n{s}");
    assert!(joined.contains("code_challenge_method=S256"), "{s}");
    tmux.type_line("/mcp");
    let connected = if zh {
        "tracker：已连接，3 个工具"
    } else {
        "tracker: connected, 3 tools"
    };
    tmux.wait_for("the server connected", |s| chat_flat(s).contains(connected));
}

#[test]
fn a_remote_server_needs_login_then_connects_80_en_120_zh() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let cases = [(80, "en-US"), (120, "zh-CN")];
    common::concurrent::each_at_once(&cases, |&(w, l)| login_flow(w, l));
}

#[test]
fn a_remote_server_needs_login_then_connects_80_zh_120_en() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let cases = [(80, "zh-CN"), (120, "en-US")];
    common::concurrent::each_at_once(&cases, |&(w, l)| login_flow(w, l));
}
