//! `AGENTS.md` discovery end to end (SPEC §14.4): with no config for it, the files from the
//! repository root down to a nested workspace reach the request, nearest last; an edit
//! mid-session is read on the next request as an in-history prompt update (L-10), the
//! cached head and earlier messages unchanged; a file removed mid-session is simply gone.

use crate::common::*;

use deepterm::sim::{RecordedRequest, ScriptedReply, SimConfig};
use serde_json::json;

fn system(r: &RecordedRequest) -> String {
    r.effective_system.clone().unwrap_or_default()
}

fn messages(r: &RecordedRequest) -> Vec<serde_json::Value> {
    r.body["messages"].as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_agents_files_are_read_and_an_edit_mid_session_is_an_in_history_update() {
    let env = TestEnv::new(SimConfig::default()).await;
    let repo = env.dir.path().join("repo");
    let ws = repo.join("pkg").join("app");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir(repo.join(".git")).unwrap();
    std::fs::write(repo.join("AGENTS.md"), "Root rules: run the tests.").unwrap();
    std::fs::write(ws.join("AGENTS.md"), "App rules: use tabs.").unwrap();
    let ws = ws.canonicalize().unwrap();
    // A route that takes in-history prompt updates; no `[instructions]` at all.
    let cfg = ConfigBuilder::new(&env.sim.base_url())
        .model_entry(
            "id = \"deepseek-flash\"\nsystem_prompt_update = \"in-history\"\ntool_update = \"addition-only\"",
        )
        .write(env.dir.path());
    env.sim.push_reply(ScriptedReply::text("Noted."));
    env.sim.push_reply(ScriptedReply::tool_call(
        "write_file",
        json!({"path": "AGENTS.md", "content": "App rules: use spaces."}),
    ));
    env.sim.push_reply(ScriptedReply::text("Changed."));
    env.sim.push_reply(ScriptedReply::text("Spaces it is."));
    let out = env
        .exec_command(&cfg, "hello\nswitch to spaces\nand now?\n")
        .args(["--approve", "all"])
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", env.dir.path())
        .env("XDG_CONFIG_HOME", env.dir.path().join("xdg"))
        .current_dir(&ws)
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let reqs = env.sim.requests();
    assert_eq!(
        reqs.len(),
        4,
        "{:?}",
        reqs.iter().map(|r| &r.error).collect::<Vec<_>>()
    );
    let first = system(&reqs[0]);
    let (root, app) = (
        first.find("Root rules").expect("the root's file"),
        first
            .find("App rules: use tabs.")
            .expect("the workspace's file"),
    );
    assert!(root < app, "root first, nearest last:\n{first}");
    // The edit (by the model's edit tool) is read on the next request, the call's
    // continuation: appended after the history, the head and the earlier messages byte
    // for byte the same.
    let (before, after) = (&reqs[1], &reqs[2]);
    assert_eq!(
        after.body["system"], reqs[0].body["system"],
        "the head is kept"
    );
    let (b, a) = (messages(before), messages(after));
    assert_eq!(&a[..b.len()], &b[..], "the earlier messages are kept");
    assert!(
        a[b.len()..]
            .iter()
            .any(|m| m["role"] == "system" && m.to_string().contains("App rules: use spaces.")),
        "the edited file as an update after the history: {:?}",
        &a[b.len()..]
    );
    assert!(system(after).contains("App rules: use spaces."));
    assert!(
        system(after).contains("Root rules"),
        "the root's file stays"
    );
    // Read once: the turn after adds nothing more.
    let (b, a) = (messages(after), messages(&reqs[3]));
    assert_eq!(&a[..b.len()], &b[..]);
    assert!(
        !a[b.len()..]
            .iter()
            .any(|m| m.to_string().contains("App rules")),
        "{:?}",
        &a[b.len()..]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_repository_or_an_agents_file_nothing_is_added_or_warned() {
    let env = TestEnv::new(SimConfig::default()).await;
    let ws = env.dir.path().join("plain");
    std::fs::create_dir_all(&ws).unwrap();
    // A parent's file is not read outside a repository.
    std::fs::write(env.dir.path().join("AGENTS.md"), "Parent rules.").unwrap();
    let cfg = ConfigBuilder::new(&env.sim.base_url())
        .builtin_tools(false)
        .write(env.dir.path());
    let out = env
        .exec_command(&cfg, "/instructions\nhello\n")
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", env.dir.path())
        .env("XDG_CONFIG_HOME", env.dir.path().join("xdg"))
        .current_dir(&ws)
        .output()
        .await
        .unwrap();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        !err.contains("AGENTS"),
        "a missing file is no warning: {err}"
    );
    assert!(stdout(&out).contains("No instruction files are in use"));
    let reqs = env.sim.requests();
    assert!(
        !system(&reqs[0]).contains("Parent rules."),
        "{}",
        system(&reqs[0])
    );
}
