//! The acting tools through `exec` (SPEC §14.1, §14.2): `/sandbox` says what is enforced,
//! `/permissions` lists and revokes saved rules, a forbidden rule refuses a command even
//! under `--approve all` and says so on stderr, and `/mode read-only` stops edits.

use crate::common::*;

use deepterm::sim::SimConfig;

/// The simulator's route with the built-in tools on (the shared test config turns them
/// off).
fn config(env: &TestEnv) -> std::path::PathBuf {
    let base = env.sim.base_url();
    ConfigBuilder::new(&base)
        .provider("dsih", "deepseek-messages", &format!("{base}/anthropic"))
        .write(env.dir.path())
}

/// `exec --approve all` on `script` with the test directory as the workspace and `xdg` as
/// the user config directory (where `rules.toml` lives).
async fn approve_all_in_workspace(
    env: &TestEnv,
    cfg: &std::path::Path,
    script: &str,
    xdg: &std::path::Path,
) -> std::process::Output {
    env.exec_command(cfg, script)
        .args(["--approve", "all"])
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", env.dir.path())
        .env("XDG_CONFIG_HOME", xdg)
        .current_dir(env.dir.path())
        .output()
        .await
        .unwrap()
}

fn rules(dir: &std::path::Path, body: &str) -> std::path::PathBuf {
    let cfg_home = dir.join("xdg");
    std::fs::create_dir_all(cfg_home.join("deepterm")).unwrap();
    std::fs::write(cfg_home.join("deepterm/rules.toml"), body).unwrap();
    cfg_home
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_and_permissions_say_what_is_enforced_and_a_saved_rule_can_be_revoked() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env);
    let xdg = rules(
        env.dir.path(),
        "# mine\n\n[[rule]]\nprefix = [\"cargo\", \"test\"]\ndecision = \"allow\"\n\n\
         [[rule]]\nprefix = [\"git\", \"push\"]\ndecision = \"prompt\"\n",
    );
    let out = env
        .exec_with(
            &cfg,
            "/sandbox\n/permissions\n/permissions revoke 1\n/permissions\n",
            &["--approve", "all"],
            &[("XDG_CONFIG_HOME", xdg.to_str().unwrap())],
        )
        .await;
    let so = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        so.contains("Sandbox mode: workspace-write; network off."),
        "{so}\n{}",
        stderr(&out)
    );
    assert!(so.contains("Protected (never writable):"), "{so}");
    assert!(so.contains(".git"), "{so}");
    assert!(
        so.contains("rules.toml"),
        "the user's rules are protected: {so}"
    );
    // With --config elsewhere, the rules file is still listed once.
    let listing = so.split("Temporary files:").next().unwrap_or_default();
    assert_eq!(
        listing.matches("deepterm/rules.toml").count(),
        1,
        "{listing}"
    );
    assert!(so.contains(".claude"), "{so}");
    assert!(
        so.contains("Temporary files: ")
            && so.contains(
                "shared by this session's sandboxed commands and deleted when the session ends."
            ),
        "{so}"
    );
    assert!(
        so.contains(
            "Processes: at most 512 per command and its children ([sandbox] max_processes)"
        ),
        "{so}"
    );
    assert!(so.contains("1. allow \"cargo test\""), "{so}");
    assert!(
        stderr(&out).contains("Revoked entry 1."),
        "{}",
        stderr(&out)
    );
    let left = std::fs::read_to_string(xdg.join("deepterm/rules.toml")).unwrap();
    assert!(!left.contains("cargo"), "revoked: {left}");
    assert!(
        left.contains("\"git\", \"push\""),
        "the other rule stays: {left}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forbidden_rule_refuses_a_command_under_approve_all_and_says_so_on_stderr() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env);
    let marker = env.dir.path().join("ran.txt");
    let script = format!("please call shell \"touch {}\"\n", marker.display());
    for (forbid, runs) in [(true, false), (false, true)] {
        let body = if forbid {
            "[[rule]]\nprefix = [\"touch\"]\ndecision = \"forbidden\"\n"
        } else {
            ""
        };
        let xdg = rules(env.dir.path(), body);
        let _ = std::fs::remove_file(&marker);
        let out = approve_all_in_workspace(&env, &cfg, &script, &xdg).await;
        let err = stderr(&out);
        // Without the rule the same command runs: the refusal is the rule's doing.
        assert_eq!(
            marker.exists(),
            runs,
            "forbidden = {forbid}: {err}\n{}",
            stdout(&out)
        );
        assert_eq!(err.contains("Refused shell"), forbid, "{err}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_the_sandbox_refuses_is_said_on_stderr_and_writes_nothing() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env);
    // Into the workspace's `.git`, which is protected (a path outside would do too, but
    // not one under /tmp: commands get a private /tmp of their own).
    let git = env.dir.path().join(".git");
    std::fs::create_dir_all(&git).unwrap();
    let target = git.join("planted-hook");
    let script = format!("please call shell \"touch {}\"\n", target.display());
    let xdg = rules(env.dir.path(), "");
    let out = approve_all_in_workspace(&env, &cfg, &script, &xdg).await;
    let err = stderr(&out);
    assert!(!target.exists(), "written into .git: {err}");
    assert!(err.contains("looks like a sandbox denial"), "{err}");
}

/// The route, the workspace and the config for one run on `route` (`ds` = the Messages
/// route, `oai` = Chat Completions).
async fn run_on(
    env: &TestEnv,
    route: &str,
    script: &str,
    ws: &std::path::Path,
) -> std::process::Output {
    let base = env.sim.base_url();
    let cfg = ConfigBuilder::new(&base)
        .provider("oai", "openai-chat", &base)
        .write(env.dir.path());
    let xdg = rules(env.dir.path(), "");
    env.exec_command(&cfg, script)
        .args(["--approve", "all", "--model", route])
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", env.dir.path())
        .env("XDG_CONFIG_HOME", &xdg)
        .current_dir(ws)
        .output()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shell_runs_in_the_sandbox_end_to_end_on_both_routes() {
    for route in ["ds/deepseek-flash", "oai/deepseek-flash"] {
        let env = TestEnv::new(SimConfig::default()).await;
        let ws = env.dir.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let out = run_on(
            &env,
            route,
            "please call shell \"echo made > inside.txt; echo done\"\n",
            &ws,
        )
        .await;
        assert!(out.status.success(), "{route}: {}", stderr(&out));
        // Written inside the workspace by the sandboxed command, and the result reached
        // the model (the next request carries it).
        assert_eq!(
            std::fs::read_to_string(ws.join("inside.txt")).unwrap(),
            "made\n",
            "{route}"
        );
        let reqs = env.requests();
        let last = reqs.last().unwrap().to_string();
        assert!(
            last.contains("exit status 0") && last.contains("done"),
            "{route}: {last}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_after_mode_read_only_writes_nothing_and_the_model_is_told_why() {
    let env = TestEnv::new(SimConfig::default()).await;
    let ws = env.dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let out = run_on(
        &env,
        "ds/deepseek-flash",
        "/mode read-only\nplease use write_file\n",
        &ws,
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!ws.join("demo.txt").exists(), "read-only wrote a file");
    let reqs = env.requests();
    let last = reqs.last().unwrap().to_string();
    assert!(
        last.contains("read-only"),
        "the tool error names the mode: {last}"
    );
    // Without the switch the same request writes the file: the refusal is the mode's.
    let env2 = TestEnv::new(SimConfig::default()).await;
    let ws2 = env2.dir.path().join("ws");
    std::fs::create_dir_all(&ws2).unwrap();
    let out = run_on(&env2, "ds/deepseek-flash", "please use write_file\n", &ws2).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(ws2.join("demo.txt").exists());
}

/// `exec --approve all` under the default `on-request` policy answers an escalation yes,
/// and an escalation answered yes runs outside the sandbox (§14.2): it writes a file in a
/// directory outside the workspace. The same command without `escalate` runs sandboxed
/// and cannot, so the write is the escalation's doing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_escalation_approved_by_approve_all_runs_outside_the_sandbox() {
    for escalate in [true, false] {
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("escaped.txt");
        let command = format!("echo escaped > {}", target.display());
        let env = TestEnv::new(SimConfig {
            script: Some(deepterm::sim::Script::new(vec![
                deepterm::sim::ScriptedReply::tool_call(
                    "shell",
                    serde_json::json!({
                        "command": command,
                        "escalate": escalate,
                        "justification": "writes a file outside the workspace",
                    }),
                ),
                deepterm::sim::ScriptedReply::text("done"),
            ])),
            ..SimConfig::default()
        })
        .await;
        let ws = env.dir.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let out = run_on(&env, "ds/deepseek-flash", "go\n", &ws).await;
        assert!(out.status.success(), "{}", stderr(&out));
        let last = env.requests().last().unwrap().to_string();
        if escalate {
            assert_eq!(
                std::fs::read_to_string(&target).ok().as_deref(),
                Some("escaped\n"),
                "the approved escalation did not run outside the sandbox: {last}"
            );
            assert!(last.contains("exit status 0"), "{last}");
            assert!(!last.contains("may have refused this"), "{last}");
        } else {
            assert!(
                !target.exists(),
                "a sandboxed command wrote outside: {last}"
            );
        }
    }
}
