//! The secrets test for remote MCP servers (SPEC §15.2): an OAuth login's access and
//! refresh tokens and a `bearer_token_env` value reach no file but the token file, nothing
//! printed, no request to the model and no child's environment, even when a server
//! answers with the credential it was sent — in a tool result, or quoted over and over in
//! the error of a prompt or a resource read (which is cut for display only after the
//! credential is taken out, so no cut leaves a part of it).

use deepterm::sim::{ScriptedReply, SimConfig};
use serde_json::{Value, json};

use super::secrets::{CANARY, assert_nowhere, names, run, tool_results};
use crate::common::*;
use crate::suite::tools::mcp_remote_oauth::{HTTP_FIXTURE, HttpFixture};

/// The bearer value of these runs (in `BR_TOKEN`, which `bearer_token_env` names).
const BEARER: &str = "bearer-deepterm-secret-canary-5d17e0a9c3";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_oauth_tokens_and_bearer_values_stay_out_of_logs_requests_output_and_children() {
    let env = TestEnv::new(SimConfig::default()).await;
    let d = env.dir.path();
    let oauth = HttpFixture::start(&d.join("fixture-oauth.jsonl"), &[("FIXTURE_OAUTH", "1")]).await;
    let bearer = HttpFixture::start(
        &d.join("fixture-bearer.jsonl"),
        &[("FIXTURE_BEARER", BEARER)],
    )
    .await;
    let cfg = env
        .config_builder()
        .key_env("DEEPSEEK_API_KEY")
        .builtin_tools(false)
        .command_tool(
            "dump_env",
            "description = \"Print the environment.\"\ncommand = [\"env\"]",
        )
        .fixture_server("fx", "FIXTURE_TOOLS = \"env\"")
        .mcp_server(
            "oa",
            &format!("url = {:?}\nauth = \"oauth\"\nenabled = false", oauth.url),
        )
        .mcp_server(
            "br",
            &format!(
                "url = {:?}\nbearer_token_env = \"BR_TOKEN\"\nenabled = false",
                bearer.url
            ),
        )
        .write(d);
    // Both remote servers are asked to show the credentials they were sent; a command tool
    // and a stdio server show their environment.
    env.sim.push_reply(
        ScriptedReply::tool_call("oa__whoami", json!({}))
            .with_tool_call("br__whoami", json!({}))
            .with_tool_call("dump_env", json!({}))
            .with_tool_call("fx__env", json!({})),
    );
    env.sim.push_reply(ScriptedReply::text("all shown"));
    let browser = format!("{HTTP_FIXTURE} browse");
    let script = "/mcp login oa\n/mcp connect br\n/mcp connect fx\nshow me\n/mcp\n";
    let out = run(
        &env,
        &cfg,
        script,
        &[("BROWSER", browser.as_str()), ("BR_TOKEN", BEARER)],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("all shown"), "{}", stdout(&out));
    let log = env.log();
    let results = tool_results(&log);
    assert_eq!(results.len(), 4, "{results:#?}");
    // The servers did get the credentials (they echoed them), and what they echoed was
    // taken out before the result went anywhere.
    assert_eq!(results[0].0, "You sent: Bearer [REDACTED]");
    assert_eq!(results[1].0, "You sent: Bearer [REDACTED]");
    // The children ran without the bearer variable.
    assert!(results[2].0.contains("PATH="), "{}", names(&results[2].0));
    for dump in [&results[2].0, &results[3].0] {
        assert!(!dump.contains("BR_TOKEN"), "{}", names(dump));
    }
    // The tokens, read from the one place they belong.
    let token_file = d.join("xdg-data/deepterm/mcp-auth/oa.json");
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(&token_file).unwrap()).unwrap();
    let access = stored["token_response"]["access_token"].as_str().unwrap();
    let refresh = stored["token_response"]["refresh_token"].as_str().unwrap();
    assert!(access.starts_with("fixture-access-"), "{access}");
    let checked = assert_nowhere(&env, &[&out], access, std::slice::from_ref(&token_file));
    assert_nowhere(&env, &[&out], refresh, std::slice::from_ref(&token_file));
    assert_nowhere(&env, &[&out], BEARER, &[]);
    assert_nowhere(&env, &[&out], CANARY, &[]);
    assert!(
        checked > 3,
        "the session log, the tracing log and the token file were checked"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_credential_quoted_in_a_prompt_or_resource_error_is_shown_redacted() {
    let env = TestEnv::new(SimConfig::default()).await;
    let d = env.dir.path();
    let leaky = ("FIXTURE_LEAKY", "1");
    let oauth = HttpFixture::start(
        &d.join("fixture-oauth.jsonl"),
        &[("FIXTURE_OAUTH", "1"), leaky],
    )
    .await;
    let bearer = HttpFixture::start(
        &d.join("fixture-bearer.jsonl"),
        &[("FIXTURE_BEARER", BEARER), leaky],
    )
    .await;
    let cfg = env
        .config_builder()
        .key_env("DEEPSEEK_API_KEY")
        .builtin_tools(false)
        .mcp_server(
            "oa",
            &format!("url = {:?}\nauth = \"oauth\"\nenabled = false", oauth.url),
        )
        .mcp_server(
            "br",
            &format!(
                "url = {:?}\nbearer_token_env = \"BR_TOKEN\"\nenabled = false",
                bearer.url
            ),
        )
        .write(d);
    env.sim.push_reply(ScriptedReply::text("nothing attached"));
    // Both servers fail a prompt and a resource read with an error that quotes the
    // credential they were sent, eight times, longer than the shown text.
    let browser = format!("{HTTP_FIXTURE} browse");
    let script = "/mcp login oa\n/mcp connect br\n/oa:leaky\n/br:leaky\n\
                  read @oa:fixture://leaky and @br:fixture://leaky\n";
    let out = run(
        &env,
        &cfg,
        script,
        &[("BROWSER", browser.as_str()), ("BR_TOKEN", BEARER)],
    )
    .await;
    let e = stderr(&out);
    // The servers did quote the credential: each failure is shown, the value taken out.
    for (who, what) in [
        ("/oa:leaky", "the server could not give the prompt"),
        ("/br:leaky", "the server could not give the prompt"),
        ("oa", "the resource fixture://leaky could not be read"),
        ("br", "the resource fixture://leaky could not be read"),
    ] {
        let line = e
            .lines()
            .find(|l| l.contains(&format!("{who}: {what}")))
            .unwrap_or_else(|| panic!("no failure of {who}: {e}"));
        assert!(
            line.contains("try 1: Bearer [REDACTED]; try 2: Bearer [REDACTED]"),
            "{line}"
        );
    }
    // The model reads that the resources were not attached, redacted the same way.
    let reqs = env.requests();
    assert_eq!(reqs.len(), 1, "{e}");
    let sent = reqs[0].to_string();
    assert!(
        sent.contains("@br:fixture://leaky was not attached") && sent.contains("Bearer [REDACTED]"),
        "{sent}"
    );
    let token_file = d.join("xdg-data/deepterm/mcp-auth/oa.json");
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(&token_file).unwrap()).unwrap();
    let access = stored["token_response"]["access_token"].as_str().unwrap();
    assert!(access.starts_with("fixture-access-"), "{access}");
    // Not the whole value, and not the start of one that a cut for display would leave
    // when it cut a quoted value before redacting it.
    for secret in [access, BEARER] {
        assert_nowhere(
            &env,
            &[&out],
            &secret[..12],
            std::slice::from_ref(&token_file),
        );
    }
}
