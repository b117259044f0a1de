//! DeepSeek controls and project awareness through `exec` (SPEC §14.4): the effort from
//! the config, `/init` writing `AGENTS.md` through the edit tools, `/instructions`, and a
//! session resumed from another directory continuing in its own workspace.

use crate::common::*;

use deepterm::sim::{ScriptedReply, SimConfig};
use serde_json::json;

/// `exec --approve all` on `script` in `workspace`, with the user config directory inside
/// the test directory (so no real `~/.config/deepterm/AGENTS.md` is read).
async fn exec_in(
    env: &TestEnv,
    cfg: &std::path::Path,
    script: &str,
    workspace: &std::path::Path,
    extra: &[&str],
) -> std::process::Output {
    let out = env
        .exec_command(cfg, script)
        .args(["--approve", "all"])
        .args(extra)
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", env.dir.path())
        .env("XDG_CONFIG_HOME", env.dir.path().join("xdg"))
        .current_dir(workspace)
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

fn workspace(env: &TestEnv, name: &str) -> std::path::PathBuf {
    let w = env.dir.path().join(name);
    std::fs::create_dir_all(&w).unwrap();
    // As the process sees its directory (and records it in `session/start`).
    w.canonicalize().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_configured_effort_is_sent_and_a_model_entrys_effort_wins() {
    let env = TestEnv::new(SimConfig::default()).await;
    let ws = workspace(&env, "ws");
    let base = env.sim.base_url();
    let plain = ConfigBuilder::new(&base).builtin_tools(false).text();
    let cfg = env.write_config("low.toml", &format!("effort = \"low\"\n{plain}"));
    exec_in(&env, &cfg, "hello\n", &ws, &[]).await;
    let entry = ConfigBuilder::new(&base)
        .model_entry("id = \"deepseek-flash\"\neffort = \"max\"")
        .builtin_tools(false)
        .text();
    let cfg = env.write_config("max.toml", &format!("effort = \"low\"\n{entry}"));
    exec_in(&env, &cfg, "hello\n/effort off\nagain\n", &ws, &[]).await;
    let reqs = env.sim.requests();
    let efforts: Vec<(Option<bool>, Option<&str>)> = reqs
        .iter()
        .map(|r| (r.thinking, r.effort.as_deref()))
        .collect();
    assert_eq!(
        efforts,
        [
            (Some(true), Some("low")),
            (Some(true), Some("max")),
            (Some(false), None)
        ]
    );
    assert_eq!(reqs[0].body["output_config"], json!({"effort": "low"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_effort_that_is_not_a_level_is_a_config_error_naming_the_key() {
    let env = TestEnv::new(SimConfig::default()).await;
    let plain = ConfigBuilder::new(&env.sim.base_url()).text();
    let cfg = env.write_config("bad.toml", &format!("effort = \"extreme\"\n{plain}"));
    let out = env.exec(&cfg, "hello\n", &[]).await;
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("effort") && err.contains("extreme"), "{err}");
    assert!(env.sim.requests().is_empty(), "nothing is sent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn init_has_the_model_write_agents_md_which_the_next_request_reads() {
    let env = TestEnv::new(SimConfig::default()).await;
    let ws = workspace(&env, "project");
    let base = env.sim.base_url();
    // A route that takes in-history prompt updates: the new file is appended, not a
    // rewrite of the cached head (L-10).
    let cfg = ConfigBuilder::new(&base)
        .model_entry(
            "id = \"deepseek-flash\"\nsystem_prompt_update = \"in-history\"\ntool_update = \"addition-only\"",
        )
        .write(env.dir.path());
    env.sim.push_reply(ScriptedReply::tool_call(
        "write_file",
        json!({"path": "AGENTS.md", "content": "Use tabs.\n"}),
    ));
    env.sim
        .push_reply(ScriptedReply::text("I wrote AGENTS.md."));
    env.sim.push_reply(ScriptedReply::text("Tabs it is."));
    let out = exec_in(
        &env,
        &cfg,
        "/instructions\n/init\n/instructions\nhello\n",
        &ws,
        &[],
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(ws.join("AGENTS.md")).unwrap(),
        "Use tabs.\n",
        "the edit tool wrote it (approved by --approve all)"
    );
    let text = stdout(&out);
    assert!(text.contains("No instruction files are in use"), "{text}");
    assert!(text.contains("AGENTS.md  (10 bytes)"), "{text}");
    let reqs = env.sim.requests();
    assert_eq!(
        reqs.len(),
        3,
        "{:?}",
        reqs.iter().map(|r| &r.error).collect::<Vec<_>>()
    );
    let first_user = reqs[0].body["messages"].to_string();
    assert!(
        first_user.contains("write an AGENTS.md file"),
        "{first_user}"
    );
    assert!(
        !reqs[0]
            .effective_system
            .clone()
            .unwrap_or_default()
            .contains("Use tabs."),
        "not there before it was written"
    );
    // Discovery runs on every request: the next turn reads the file, appended after the
    // cached history as an in-history prompt update.
    let last = &reqs[2];
    assert!(
        last.effective_system
            .clone()
            .unwrap_or_default()
            .contains("Use tabs.")
    );
    let msgs = |r: &deepterm::sim::RecordedRequest| r.body["messages"].as_array().unwrap().clone();
    let (b, a) = (msgs(&reqs[1]), msgs(last));
    assert_eq!(&a[..b.len()], &b[..], "the earlier messages are kept");
    assert_eq!(
        last.body["system"], reqs[0].body["system"],
        "the head is not rewritten"
    );
    assert!(
        a.iter()
            .any(|m| m["role"] == "system" && m.to_string().contains("Use tabs."))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_resumed_from_another_directory_continues_in_its_workspace() {
    let env = TestEnv::new(SimConfig::default()).await;
    let home = workspace(&env, "home-project");
    let elsewhere = workspace(&env, "elsewhere");
    std::fs::write(home.join("AGENTS.md"), "Project rules.").unwrap();
    let cfg = ConfigBuilder::new(&env.sim.base_url())
        .builtin_tools(false)
        .write(env.dir.path());
    exec_in(&env, &cfg, "hello\n", &home, &[]).await;
    let out = exec_in(
        &env,
        &cfg,
        "/status\nagain\n",
        &elsewhere,
        &["--resume", "last"],
    )
    .await;
    let err = stderr(&out);
    let home_shown = home.display().to_string();
    assert!(
        err.contains("belongs to the workspace") && err.contains(&home_shown),
        "{err}"
    );
    assert!(
        stdout(&out).contains(&format!("Workspace: {home_shown}")),
        "{}",
        stdout(&out)
    );
    let reqs = env.sim.requests();
    assert!(
        reqs[1]
            .effective_system
            .clone()
            .unwrap_or_default()
            .contains("Project rules."),
        "the workspace's AGENTS.md, not the directory it was resumed from"
    );
    // From its own workspace nothing is said.
    let out = exec_in(&env, &cfg, "/status\n", &home, &["--resume", "last"]).await;
    assert!(
        !stderr(&out).contains("belongs to the workspace"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_resume_listing_names_each_workspace_and_lists_this_ones_first() {
    let env = TestEnv::new(SimConfig::default()).await;
    let a = workspace(&env, "alpha");
    let b = workspace(&env, "beta");
    let cfg = ConfigBuilder::new(&env.sim.base_url())
        .builtin_tools(false)
        .write(env.dir.path());
    exec_in(&env, &cfg, "first in alpha\n", &a, &[]).await;
    exec_in(&env, &cfg, "then in beta\n", &b, &[]).await;
    let out = exec_in(&env, &cfg, "/resume\n", &a, &[]).await;
    let text = stdout(&out);
    let alpha = text.find(&a.display().to_string()).expect("alpha listed");
    let beta = text.find(&b.display().to_string()).expect("beta listed");
    assert!(
        alpha < beta,
        "this workspace's session first, though older:\n{text}"
    );
}
