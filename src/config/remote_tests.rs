//! `[mcp.servers.NAME]` with `url` (SPEC §15.2): what parses, and the clear error for
//! each way to get it wrong, in both languages.

use std::path::Path;

use crate::config::{Config, RemoteMcpConfig};
use crate::i18n::{Locale, Localizer};

fn parse(body: &str) -> Result<Config, crate::config::ConfigError> {
    Config::parse_in(
        &format!("[mcp.servers.tracker]\n{body}\n"),
        None,
        Path::new("/"),
    )
}

/// The English and Chinese error for `body`, which must fail.
fn refused(body: &str) -> (String, String) {
    let e = parse(body).expect_err(body);
    (
        e.localized(Localizer::new(Locale::EnUs)),
        e.localized(Localizer::new(Locale::ZhCn)),
    )
}

#[test]
fn a_remote_server_keeps_its_url_headers_and_the_name_of_its_bearer_variable() {
    let c = parse(
        "url = \"https://mcp.example.com/mcp\"\nheaders = { \"X-Team\" = \"core\" }\n\
         bearer_token_env = \"TRACKER_TOKEN\"",
    )
    .unwrap();
    let s = &c.mcp_servers["tracker"];
    assert!(s.command.is_empty());
    assert_eq!(
        s.remote,
        Some(RemoteMcpConfig {
            url: "https://mcp.example.com/mcp".into(),
            headers: [("X-Team".to_string(), "core".to_string())].into(),
            bearer_token_env: Some("TRACKER_TOKEN".into()),
            oauth: false,
            client_id: None,
        })
    );
    let c =
        parse("url = \"http://127.0.0.1:9/mcp\"\nauth = \"oauth\"\nclient_id = \"abc\"").unwrap();
    let r = c.mcp_servers["tracker"].remote.clone().unwrap();
    assert!(r.oauth);
    assert_eq!(r.client_id.as_deref(), Some("abc"));
}

#[test]
fn a_server_needs_exactly_one_of_command_and_url() {
    let (en, zh) = refused("command = \"x\"\nurl = \"https://mcp.example.com/mcp\"");
    assert!(en.contains("mcp.servers.tracker.url"), "{en}");
    assert!(en.contains("exactly one of command"), "{en}");
    assert!(zh.contains("必须且只能设置 command"), "{zh}");
    let (en, _) = refused("enabled = true");
    assert!(en.contains("mcp.servers.tracker.command"), "{en}");
    let (en, _) = refused("url = \"ftp://mcp.example.com\"");
    assert!(en.contains("http:// or https://"), "{en}");
}

#[test]
fn keys_of_the_other_kind_of_server_are_refused_by_name() {
    let (en, zh) = refused("url = \"https://m.example.com/mcp\"\nargs = [\"a\"]");
    assert!(en.contains("mcp.servers.tracker.args"), "{en}");
    assert!(en.contains("only to a server started with command"), "{en}");
    assert!(zh.contains("只适用于用 command 启动的服务器"), "{zh}");
    let (en, _) = refused("command = \"x\"\nbearer_token_env = \"T\"");
    assert!(en.contains("mcp.servers.tracker.bearer_token_env"), "{en}");
    assert!(en.contains("only to a remote server"), "{en}");
}

#[test]
fn an_authorization_header_in_the_config_is_refused_in_favour_of_bearer_token_env() {
    let (en, zh) = refused(
        "url = \"https://m.example.com/mcp\"\nheaders = { Authorization = \"Bearer sk-in-config\" }",
    );
    assert!(en.contains("bearer_token_env"), "{en}");
    assert!(
        !en.contains("sk-in-config"),
        "the value stays out of the error: {en}"
    );
    assert!(zh.contains("Authorization"), "{zh}");
    let (en, _) =
        refused("url = \"https://m.example.com/mcp\"\nheaders = { \"bad name\" = \"v\" }");
    assert!(en.contains("\"bad name\""), "{en}");
    let (en, _) = refused("url = \"https://m.example.com/mcp\"\nheaders = { X-A = \"a\\nb\" }");
    assert!(en.contains("cannot carry"), "{en}");
}

#[test]
fn auth_is_oauth_or_absent_and_never_beside_a_bearer_variable() {
    let (en, _) = refused("url = \"https://m.example.com/mcp\"\nauth = \"basic\"");
    assert!(en.contains("must be \"oauth\""), "{en}");
    let (en, zh) =
        refused("url = \"https://m.example.com/mcp\"\nauth = \"oauth\"\nbearer_token_env = \"T\"");
    assert!(en.contains("choose one"), "{en}");
    assert!(zh.contains("只选一种"), "{zh}");
    let (en, _) = refused("url = \"https://m.example.com/mcp\"\nbearer_token_env = \"1X-Y\"");
    assert!(en.contains("environment variable name"), "{en}");
}
