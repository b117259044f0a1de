//! `/mcp login` and `/mcp logout` against a real OAuth 2.1 authorization server on loopback
//! (SPEC §15.2): `deepterm-mcp-http-fixture` serves a protected Streamable HTTP MCP
//! endpoint, its RFC 9728 and RFC 8414 metadata, dynamic registration, PKCE and refresh;
//! the same binary is the headless browser named by `$BROWSER`.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

use deepterm::sim::SimConfig;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::common::*;

/// The fixture binary.
pub(crate) const HTTP_FIXTURE: &str = env!("CARGO_BIN_EXE_deepterm-mcp-http-fixture");

/// A running fixture; killed when dropped.
pub(crate) struct HttpFixture {
    child: tokio::process::Child,
    /// Its MCP endpoint (`BASE/mcp`).
    pub url: String,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Its event log (JSON lines).
    pub log: PathBuf,
}

impl HttpFixture {
    /// Starts the fixture with `envs`, logging to `log`.
    pub async fn start(log: &Path, envs: &[(&str, &str)]) -> HttpFixture {
        let mut cmd = tokio::process::Command::new(HTTP_FIXTURE);
        cmd.arg("serve")
            .env("FIXTURE_LOG", log)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("the fixture starts");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let first = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("the fixture says where it listens")
            .unwrap()
            .unwrap_or_default();
        let url = first
            .strip_prefix("listening ")
            .expect("a listening line")
            .to_string();
        let base = url.trim_end_matches("/mcp").to_string();
        HttpFixture {
            child,
            url,
            base,
            log: log.to_path_buf(),
        }
    }

    /// Stops the server and waits until it is gone (its port is free again).
    pub async fn stop(&mut self) {
        let _ = self.child.kill().await;
    }

    /// The events logged so far.
    pub fn events(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// How many events named `name` were logged (with `key` = `value` when given).
    pub fn count(&self, name: &str, key_value: Option<(&str, &str)>) -> usize {
        self.events()
            .iter()
            .filter(|e| e["event"] == name)
            .filter(|e| key_value.is_none_or(|(k, v)| e[k] == v))
            .count()
    }
}

/// An environment with an OAuth fixture and a config naming it as server `fx` with
/// `auth = "oauth"`.
pub(crate) struct OAuthEnv {
    pub env: TestEnv,
    pub fixture: HttpFixture,
    pub config: PathBuf,
}

impl OAuthEnv {
    pub async fn new(fixture_env: &[(&str, &str)]) -> OAuthEnv {
        let env = TestEnv::new(SimConfig::default()).await;
        let mut envs = vec![("FIXTURE_OAUTH", "1")];
        envs.extend_from_slice(fixture_env);
        let fixture = HttpFixture::start(&env.dir.path().join("fixture.jsonl"), &envs).await;
        let config = env
            .config_builder()
            .builtin_tools(false)
            .mcp_server(
                "fx",
                &format!(
                    "url = {:?}\nauth = \"oauth\"\nenabled = false\ntimeout_secs = 30",
                    fixture.url
                ),
            )
            .write(env.dir.path());
        OAuthEnv {
            env,
            fixture,
            config,
        }
    }

    /// Where deepterm keeps server `fx`'s tokens in these runs.
    pub fn token_file(&self) -> PathBuf {
        self.env
            .dir
            .path()
            .join("xdg-data/deepterm/mcp-auth/fx.json")
    }

    /// `deepterm exec` with the fixture as `$BROWSER` and the data directory in the test
    /// directory.
    pub async fn exec(&self, script: &str, extra: &[(&str, &str)]) -> Output {
        let data = self.env.dir.path().join("xdg-data");
        let browser = format!("{HTTP_FIXTURE} browse");
        let mut envs = vec![
            ("XDG_DATA_HOME", data.to_str().unwrap()),
            ("BROWSER", browser.as_str()),
        ];
        envs.extend_from_slice(extra);
        self.env.exec_with(&self.config, script, &[], &envs).await
    }

    /// The access token stored now.
    pub fn access_token(&self) -> String {
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(self.token_file()).unwrap()).unwrap();
        v["token_response"]["access_token"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

/// `url` with `pairs` as its query (reqwest is built without `query` and `form`).
fn with_query(url: &str, pairs: &[(&str, &str)]) -> reqwest::Url {
    let mut u = reqwest::Url::parse(url).unwrap();
    u.query_pairs_mut().extend_pairs(pairs.iter());
    u
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logging_in_discovers_the_server_registers_and_the_remote_tools_then_work() {
    let o = OAuthEnv::new(&[]).await;
    let browsed = o.env.dir.path().join("browsed.txt");
    let script = "/mcp\n/mcp login fx\n/mcp\nplease call fx__echo \"behind oauth\"\n";
    let out = o
        .exec(script, &[("FIXTURE_BROWSE_LOG", browsed.to_str().unwrap())])
        .await;
    let (text, err) = (stdout(&out), stderr(&out));
    assert!(out.status.success(), "{err}");
    // Before the login `/mcp` says how to get one, after it the server is connected.
    assert!(
        text.lines().any(|l| l == "fx: needs login · /mcp login fx"),
        "{text}"
    );
    assert!(text.contains("fx: connected"), "{text}");
    assert!(
        err.contains("To log in to MCP server fx, open: http://127.0.0.1:"),
        "{err}"
    );
    assert!(err.contains("Logged in to MCP server fx"), "{err}");
    let log = o.env.log();
    let results = tool_results(&log);
    assert_eq!(results.len(), 1);
    assert_eq!(result_text(results[0]), "Echo: behind oauth");
    // Discovery went through the 401's challenge (the resource metadata is not at the
    // well-known path), then the authorization server's metadata; no client_id was
    // configured, so the client registered itself as a public client.
    let f = &o.fixture;
    assert!(f.count("resource-metadata", None) >= 1, "{:?}", f.events());
    assert!(f.count("server-metadata", None) >= 1);
    assert_eq!(
        f.count("register", Some(("token_endpoint_auth_method", "none"))),
        1
    );
    assert_eq!(
        f.count("authorize", Some(("code_challenge_method", "S256"))),
        1
    );
    assert_eq!(f.count("token", Some(("grant", "authorization_code"))), 1);
    // The browser was sent to the authorization endpoint with a loopback redirect.
    let url = std::fs::read_to_string(&browsed).unwrap();
    let url = reqwest::Url::parse(url.trim()).unwrap();
    assert_eq!(url.path(), "/auth/authorize");
    let redirect = url
        .query_pairs()
        .find(|(k, _)| k == "redirect_uri")
        .map(|(_, v)| v.into_owned())
        .unwrap();
    assert!(redirect.starts_with("http://127.0.0.1:"), "{redirect}");
    assert!(redirect.ends_with("/callback"), "{redirect}");
    // The tokens are in the data directory, readable by the user only.
    let file = o.token_file();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    assert!(o.access_token().starts_with("fixture-access-"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_login_whose_access_token_expired_is_refreshed_and_the_call_works() {
    let o = OAuthEnv::new(&[("FIXTURE_TOKEN_TTL_SECS", "2")]).await;
    let out = o.exec("/mcp login fx\n", &[]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let first = o.access_token();
    // Let the access token expire; the next run starts from the stored login.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let out = o
        .exec("/mcp connect fx\nplease call fx__echo \"refreshed\"\n", &[])
        .await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("MCP server fx connected"), "{err}");
    let log = o.env.log();
    let results = tool_results(&log);
    assert_eq!(result_text(results[0]), "Echo: refreshed");
    let f = &o.fixture;
    assert!(
        f.count("token", Some(("grant", "refresh_token"))) >= 1,
        "{:?}",
        f.events()
    );
    // No second login: the refresh did it, and the new token replaced the old one.
    assert_eq!(f.count("authorize", None), 1);
    assert_ne!(o.access_token(), first);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logging_out_deletes_the_tokens_and_the_server_needs_a_login_again() {
    let o = OAuthEnv::new(&[]).await;
    let out = o.exec("/mcp login fx\n", &[]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(o.token_file().exists());
    let out = o.exec("/mcp logout fx\n/mcp\n/mcp connect fx\n", &[]).await;
    let (text, err) = (stdout(&out), stderr(&out));
    assert!(
        err.contains("Logged out of MCP server fx; its tokens were deleted."),
        "{err}"
    );
    assert!(!o.token_file().exists());
    assert!(text.contains("fx: needs login · /mcp login fx"), "{text}");
    assert!(err.contains("needs login · /mcp login fx"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_intercepted_authorization_code_is_useless_without_deepterms_pkce_verifier() {
    let o = OAuthEnv::new(&[("FIXTURE_PKCE_PLAIN", "1")]).await;
    let stolen = o.env.dir.path().join("stolen.txt");
    let out = o
        .exec(
            "/mcp login fx\n",
            &[("FIXTURE_BROWSE_STEAL", stolen.to_str().unwrap())],
        )
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    // The attacker saw the authorization URL and the redirect, and still got nothing:
    // deepterm's challenge is S256, so the challenge is no verifier.
    assert_eq!(std::fs::read_to_string(&stolen).unwrap().trim(), "400");
    assert_eq!(
        o.fixture.count("refused", Some(("error", "invalid_grant"))),
        1
    );
    // The login itself went through.
    assert!(stderr(&out).contains("Logged in to MCP server fx"));
    // The same attack against a client that sends its verifier as a `plain` challenge
    // succeeds: that is what the S256 method protects against.
    let base = &o.fixture.base;
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let redirect = "http://127.0.0.1:9/callback";
    let reg: Value = http
        .post(format!("{base}/auth/register"))
        .json(&serde_json::json!({"redirect_uris": [redirect], "client_name": "naive"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let client_id = reg["client_id"].as_str().unwrap();
    let visible_challenge = "a-verifier-sent-in-the-clear-0123456789abcdefghij";
    let resp = http
        .get(with_query(
            &format!("{base}/auth/authorize"),
            &[
                ("response_type", "code"),
                ("client_id", client_id),
                ("redirect_uri", redirect),
                ("state", "s"),
                ("code_challenge", visible_challenge),
                ("code_challenge_method", "plain"),
            ],
        ))
        .send()
        .await
        .unwrap();
    let location = resp.headers()["location"].to_str().unwrap();
    let code = reqwest::Url::parse(location)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "code")
        .map(|(_, v)| v.into_owned())
        .unwrap();
    let form = with_query(
        "http://form.invalid/",
        &[
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", redirect),
            ("client_id", client_id),
            ("code_verifier", visible_challenge),
        ],
    );
    let attack = http
        .post(format!("{base}/auth/token"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form.query().unwrap().to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(attack.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_answering_401_to_a_server_without_oauth_names_the_login_command() {
    let o = OAuthEnv::new(&[]).await;
    let cfg = o
        .env
        .config_builder()
        .builtin_tools(false)
        .mcp_server(
            "plain",
            &format!("url = {:?}\nenabled = false", o.fixture.url),
        )
        .write(o.env.dir.path());
    let out = o.env.exec(&cfg, "/mcp connect plain\n", &[]).await;
    let err = stderr(&out);
    assert!(err.contains("HTTP 401"), "{err}");
    assert!(err.contains("/mcp login plain"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_session_keeps_its_id_and_starts_anew_after_the_server_forgets_it() {
    let env = TestEnv::new(SimConfig::default()).await;
    let fixture = HttpFixture::start(&env.dir.path().join("fixture.jsonl"), &[]).await;
    let cfg = env
        .config_builder()
        .builtin_tools(false)
        .command_tool(
            "forget_sessions",
            &format!(
                "description = \"Make the server forget its sessions.\"\ncommand = [{HTTP_FIXTURE:?}, \"expire\", {:?}]",
                fixture.base
            ),
        )
        .mcp_server(
            "fx",
            &format!("url = {:?}\nenabled = false\ntimeout_secs = 30", fixture.url),
        )
        .write(env.dir.path());
    use deepterm::sim::ScriptedReply;
    use serde_json::json;
    env.sim
        .push_reply(ScriptedReply::tool_call("fx__echo", json!({"text": "one"})));
    env.sim.push_reply(ScriptedReply::text("first done"));
    env.sim
        .push_reply(ScriptedReply::tool_call("forget_sessions", json!({})));
    env.sim.push_reply(ScriptedReply::text("forgotten"));
    env.sim
        .push_reply(ScriptedReply::tool_call("fx__echo", json!({"text": "two"})));
    env.sim.push_reply(ScriptedReply::text("second done"));
    let out = env
        .exec(&cfg, "/mcp connect fx\nfirst\nforget\nsecond\n", &[])
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let log = env.log();
    let texts: Vec<String> = tool_results(&log).iter().map(|r| result_text(r)).collect();
    assert_eq!(texts[0], "Echo: one");
    assert_eq!(texts[2], "Echo: two", "{texts:?}");
    // Every request but the two `initialize`s carried the session id; the server had to
    // open a second session after it forgot the first.
    assert_eq!(fixture.count("expired", None), 1);
    assert_eq!(fixture.count("session", None), 2, "{:?}", fixture.events());
    let posts: Vec<Value> = fixture
        .events()
        .into_iter()
        .filter(|e| e["event"] == "mcp" && e["method"] == "POST")
        .collect();
    let without: usize = posts.iter().filter(|e| e["session"] == false).count();
    assert_eq!(without, 2, "{posts:?}");
    assert!(posts.len() > 4, "{posts:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_access_token_expiring_mid_session_is_refreshed_before_the_next_call() {
    let o = OAuthEnv::new(&[("FIXTURE_TOKEN_TTL_SECS", "2")]).await;
    let cfg = o
        .env
        .config_builder()
        .builtin_tools(false)
        .command_tool(
            "nap",
            "description = \"Wait three seconds.\"\ncommand = [\"sleep\", \"3\"]",
        )
        .mcp_server(
            "fx",
            &format!(
                "url = {:?}\nauth = \"oauth\"\nenabled = false\ntimeout_secs = 30",
                o.fixture.url
            ),
        )
        .write(o.env.dir.path());
    use deepterm::sim::ScriptedReply;
    use serde_json::json;
    o.env.sim.push_reply(ScriptedReply::tool_call(
        "fx__echo",
        json!({"text": "before"}),
    ));
    o.env.sim.push_reply(ScriptedReply::text("one"));
    o.env
        .sim
        .push_reply(ScriptedReply::tool_call("nap", json!({})));
    o.env.sim.push_reply(ScriptedReply::text("napped"));
    o.env.sim.push_reply(ScriptedReply::tool_call(
        "fx__echo",
        json!({"text": "after"}),
    ));
    o.env.sim.push_reply(ScriptedReply::text("two"));
    let data = o.env.dir.path().join("xdg-data");
    let browser = format!("{HTTP_FIXTURE} browse");
    let out = o
        .env
        .exec_with(
            &cfg,
            "/mcp login fx\nfirst\nwait\nsecond\n",
            &[],
            &[
                ("XDG_DATA_HOME", data.to_str().unwrap()),
                ("BROWSER", browser.as_str()),
            ],
        )
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let log = o.env.log();
    let texts: Vec<String> = tool_results(&log).iter().map(|r| result_text(r)).collect();
    assert_eq!(texts[0], "Echo: before");
    assert_eq!(texts[2], "Echo: after", "{texts:?}");
    // One session, one login, and the expired token was replaced before it was refused.
    let f = &o.fixture;
    assert_eq!(f.count("session", None), 1, "{:?}", f.events());
    assert_eq!(f.count("authorize", None), 1);
    assert!(f.count("token", Some(("grant", "refresh_token"))) >= 1);
    assert_eq!(f.count("unauthorized", Some(("presented", "true"))), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_the_server_no_longer_accepts_asks_for_a_new_login() {
    let mut o = OAuthEnv::new(&[]).await;
    let out = o.exec("/mcp login fx\n", &[]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    // The server restarts on the same address and has forgotten every token it issued.
    let port = o.fixture.base.rsplit(':').next().unwrap().to_string();
    let log = o.fixture.log.clone();
    o.fixture.stop().await;
    o.fixture = HttpFixture::start(&log, &[("FIXTURE_OAUTH", "1"), ("FIXTURE_PORT", &port)]).await;
    let out = o.exec("/mcp connect fx\n/mcp\n", &[]).await;
    let (text, err) = (stdout(&out), stderr(&out));
    assert!(err.contains("needs login · /mcp login fx"), "{err}");
    assert!(text.contains("fx: needs login · /mcp login fx"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_configured_client_id_is_used_instead_of_registering() {
    let o = OAuthEnv::new(&[("FIXTURE_CLIENT_ID", "deepterm-preregistered")]).await;
    let cfg = o
        .env
        .config_builder()
        .builtin_tools(false)
        .mcp_server(
            "fx",
            &format!(
                "url = {:?}\nauth = \"oauth\"\nclient_id = \"deepterm-preregistered\"\nenabled = false",
                o.fixture.url
            ),
        )
        .write(o.env.dir.path());
    let data = o.env.dir.path().join("xdg-data");
    let browser = format!("{HTTP_FIXTURE} browse");
    let out = o
        .env
        .exec_with(
            &cfg,
            "/mcp login fx\n/mcp\n",
            &[],
            &[
                ("XDG_DATA_HOME", data.to_str().unwrap()),
                ("BROWSER", browser.as_str()),
            ],
        )
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("fx: connected"), "{}", stdout(&out));
    assert_eq!(o.fixture.count("register", None), 0);
    assert_eq!(
        o.fixture
            .count("token", Some(("grant", "authorization_code"))),
        1
    );
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(o.token_file()).unwrap()).unwrap();
    assert_eq!(stored["client_id"], "deepterm-preregistered");
}
