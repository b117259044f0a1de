//! A subagent in `inherit` mode under `exec` (SPEC §15.3): `exec` answers its questions as
//! it answers the parent's (denied without `--approve all`, refused by a forbidden rule
//! even with it), and each refusal names the subagent and its task, on stderr in the
//! user's language and in the `--json` notice, as the TUI's question does. The parent's
//! own denied call names no subagent.

use crate::common::*;

use deepterm::sim::{ScriptedReply, SimConfig};
use serde_json::{Value, json};

/// The parent delegates in `inherit` mode; a1 calls `tool` with `input` and answers;
/// the parent then calls `run_cmd` itself and ends.
fn script(env: &TestEnv, tool: &str, input: Value) {
    env.sim.push_reply(ScriptedReply::tool_call(
        "task",
        json!({"description": "count words", "prompt": "Count the words.", "mode": "inherit"}),
    ));
    env.sim
        .push_reply(ScriptedReply::tool_call(tool, input).when("subagent a1"));
    env.sim
        .push_reply(ScriptedReply::text("a1 could not count.").when("subagent a1"));
    env.sim
        .push_reply(ScriptedReply::tool_call("run_cmd", json!({})));
    env.sim.push_reply(ScriptedReply::text("PARENT-DONE."));
}

/// `run_cmd` asks before each call; it would create `marker`.
fn config(env: &TestEnv, marker: &std::path::Path) -> std::path::PathBuf {
    ConfigBuilder::new(&env.sim.base_url())
        .command_tool(
            "run_cmd",
            &format!(
                "description = \"Run a command.\"\ncommand = [\"touch\", \"{}\"]\n\
                 parameters = {{ type = \"object\", properties = {{}} }}\napproval = \"ask\"",
                marker.display()
            ),
        )
        .write(env.dir.path())
}

/// The requests subagent a1 sent (its task message names it).
fn subagent_requests(env: &TestEnv) -> Vec<String> {
    env.requests()
        .iter()
        .map(|r| r["rawBody"].as_str().unwrap_or_default().to_string())
        .filter(|b| b.contains("You are subagent a1"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_names_the_subagent_whose_call_it_denies_in_both_languages() {
    let env = TestEnv::new(SimConfig::default()).await;
    let marker = env.dir.path().join("ran.txt");
    let cfg = config(&env, &marker);
    for (locale, named, parent) in [
        (
            "en-US",
            "Tool call run_cmd of subagent a1 (count words) denied: exec answers approvals \
             with --approve none by default (pass --approve all to allow).",
            "Tool call run_cmd denied: exec answers",
        ),
        (
            "zh-CN",
            "已拒绝子代理 a1（count words）的工具调用 run_cmd：exec 默认以 --approve none \
             回答审批（传入 --approve all 即可允许）。",
            "已拒绝工具调用 run_cmd：",
        ),
    ] {
        script(&env, "run_cmd", json!({}));
        let out = env
            .exec_command_in(locale, &cfg, "count the words\n")
            .env(KEY_VAR, TEST_KEY)
            .env("HOME", env.dir.path())
            .current_dir(env.dir.path())
            .output()
            .await
            .unwrap();
        let err = stderr(&out);
        assert!(out.status.success(), "{err}");
        assert!(stdout(&out).contains("PARENT-DONE."), "{}", stdout(&out));
        // The subagent's call is named as its; the parent's own is not.
        assert_eq!(err.matches(named).count(), 1, "{locale}: {err}");
        assert_eq!(err.matches(parent).count(), 1, "{locale}: {err}");
        assert!(!marker.exists(), "a denied call ran");
    }
    // The subagent read the denial of its call.
    let a1 = subagent_requests(&env);
    assert!(a1.last().is_some_and(|b| b.contains("denied")), "{a1:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_json_carries_the_subagent_in_the_denial_notice() {
    let env = TestEnv::new(SimConfig::default()).await;
    let marker = env.dir.path().join("ran.txt");
    let cfg = config(&env, &marker);
    script(&env, "run_cmd", json!({}));
    let out = env
        .exec_command(&cfg, "count the words\n")
        .arg("--json")
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", env.dir.path())
        .current_dir(env.dir.path())
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let notices: Vec<Value> = stdout(&out)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "notice")
        .map(|e| e["data"].clone())
        .collect();
    let sub = notices
        .iter()
        .find(|n| n["key"] == "exec-tool-denied-subagent")
        .unwrap_or_else(|| panic!("{notices:?}"));
    assert_eq!(
        sub["args"],
        json!([
            ["tool", "run_cmd"],
            ["agent", "a1"],
            ["description", "count words"]
        ])
    );
    assert!(
        sub["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("Tool call run_cmd of subagent a1 (count words) denied")),
        "{sub}"
    );
    // The parent's own denial is the plain notice.
    let own = notices
        .iter()
        .find(|n| n["key"] == "exec-tool-denied")
        .unwrap_or_else(|| panic!("{notices:?}"));
    assert_eq!(own["args"], json!([["tool", "run_cmd"]]));
    assert!(!marker.exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forbidden_rule_refuses_a_subagent_s_command_under_approve_all_naming_it() {
    let env = TestEnv::new(SimConfig::default()).await;
    let marker = env.dir.path().join("touched.txt");
    let cfg = config(&env, &env.dir.path().join("unused.txt"));
    let xdg = env.dir.path().join("xdg");
    std::fs::create_dir_all(xdg.join("deepterm")).unwrap();
    std::fs::write(
        xdg.join("deepterm/rules.toml"),
        "[[rule]]\nprefix = [\"touch\"]\ndecision = \"forbidden\"\n",
    )
    .unwrap();
    script(
        &env,
        "shell",
        json!({"command": format!("touch {}", marker.display())}),
    );
    let out = env
        .exec_command(&cfg, "count the words\n")
        .args(["--approve", "all"])
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", env.dir.path())
        .env("XDG_CONFIG_HOME", &xdg)
        .current_dir(env.dir.path())
        .output()
        .await
        .unwrap();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(!marker.exists(), "a forbidden command ran: {err}");
    assert!(
        err.contains("Refused shell for subagent a1 (count words): "),
        "{err}"
    );
}
