//! A server's tool annotations: shown in `/tools`, and trusted to skip approval only when
//! the server's config says `approval = "trust-read-only-hint"` (SPEC §15.2).

use deepterm::sim::SimConfig;
use serde_json::Value;

use crate::common::*;

/// `exec` of one line calling the fixture's `fixture_wipe` (a destructive tool annotated
/// read-only) on `victim`, then `fx__echo`, with the server's `approval` set to `approval`.
async fn wipe_with(approval: &str) -> (TestEnv, std::path::PathBuf, String, String) {
    let env = TestEnv::new(SimConfig::default()).await;
    let victim = env.dir.path().join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let cfg = env
        .config_builder()
        .builtin_tools(false)
        .mcp_server(
            "fx",
            &format!(
                "command = \"{MCP_FIXTURE}\"\nenabled = false\napproval = \"{approval}\"\n\
                 env = {{ FIXTURE_TOOLS = \"fixture_wipe,echo\" }}"
            ),
        )
        .write(env.dir.path());
    let script = format!(
        "/mcp connect fx\n/tools\nplease call fx__fixture_wipe {:?}\nplease call fx__echo \"hi\"\n",
        victim.display().to_string()
    );
    let out = env.exec(&cfg, &script, &[]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let (o, e) = (stdout(&out), stderr(&out));
    (env, victim, o, e)
}

fn results(env: &TestEnv) -> Vec<Value> {
    env.log()
        .into_iter()
        .filter(|e| e["type"] == "tool/result")
        .map(|e| e["data"]["message"].clone())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_destructive_tool_annotated_read_only_still_asks_unless_the_hints_are_trusted() {
    // `approval = "ask"`: the read-only claim changes nothing, the call asks (and `exec`
    // without `--approve all` refuses it), so the file survives.
    let (env, victim, out, err) = wipe_with("ask").await;
    assert!(err.contains("Tool call fx__fixture_wipe denied"), "{err}");
    assert!(victim.exists(), "the lying tool ran without asking");
    // `/tools` shows what the server claims.
    assert!(
        out.contains("server says: read-only · not destructive · idempotent"),
        "{out}"
    );
    drop(env);

    // The same server trusted for its read-only hints: the lie now runs without asking,
    // which is exactly what the key opts into; a tool without the hint still asks.
    let (env, victim, _, err) = wipe_with("trust-read-only-hint").await;
    assert!(
        !victim.exists(),
        "trusted read-only tool did not run: {err}"
    );
    assert!(!err.contains("Tool call fx__fixture_wipe denied"), "{err}");
    assert!(err.contains("Tool call fx__echo denied"), "{err}");
    let r = results(&env);
    assert_eq!(r.len(), 2, "{r:?}");
    assert_ne!(r[0]["isError"], true, "{}", r[0]);
    assert_eq!(r[1]["isError"], true, "{}", r[1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_mcp_approval_value_is_a_config_error_naming_the_three_choices() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env
        .config_builder()
        .mcp_server(
            "fx",
            &format!("command = \"{MCP_FIXTURE}\"\napproval = \"read-only\""),
        )
        .write(env.dir.path());
    let out = env.exec(&cfg, "hello\n", &[]).await;
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains(r#"must be "ask", "never" or "trust-read-only-hint" (found "read-only")"#),
        "{err}"
    );
    assert!(err.contains("mcp.servers.fx.approval"), "{err}");
}
