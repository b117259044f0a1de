//! `@` mentions: a mentioned workspace file's content reaches the model's
//! request, is kept in the session log (so a resumed session sends it again), and files
//! outside the workspace are refused.

use deepterm::sim::SimConfig;

use crate::common;

use common::*;

async fn exec_in(env: &TestEnv, cwd: &std::path::Path, script: &str, extra: &[&str]) -> String {
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""));
    let out = env
        .exec_command(&cfg, script)
        .current_dir(cwd)
        .args(extra)
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", env.dir.path())
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "exec failed: {}", stderr(&out));
    stdout(&out)
}

fn user_texts(request: &serde_json::Value) -> String {
    messages(request)
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mentioned_file_content_reaches_the_request_and_the_log() {
    let env = TestEnv::new(SimConfig::default()).await;
    let ws = env.dir.path().join("ws");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("src/notes.md"), "MAGIC-LINE-42\nsecond line\n").unwrap();
    std::fs::write(env.dir.path().join("outside.txt"), "OUTSIDE-SECRET").unwrap();
    exec_in(
        &env,
        &ws,
        "What is in @src/notes.md and @../outside.txt?\n",
        &[],
    )
    .await;
    let reqs = env.requests();
    assert_eq!(reqs.len(), 1);
    let sent = user_texts(&reqs[0]);
    assert!(sent.contains("@src/notes.md (2 lines):"), "{sent}");
    assert!(sent.contains("MAGIC-LINE-42"), "{sent}");
    assert!(sent.contains("outside the workspace"), "{sent}");
    assert!(!sent.contains("OUTSIDE-SECRET"), "{sent}");
    // The log holds the attachment, listed in the message's source.
    let log = env.log();
    let user = log
        .iter()
        .find(|e| e["type"] == "user/message")
        .expect("a user message");
    let atts = &user["data"]["message"]["source"]["attachments"];
    assert_eq!(atts[0]["path"], "src/notes.md");
    assert_eq!(atts[0]["lines"], 2);
    assert_eq!(atts[1]["refused"], "outside-workspace");
    // Resumed, the next request replays the attachment from the log unchanged.
    std::fs::write(ws.join("src/notes.md"), "changed since\n").unwrap();
    exec_in(&env, &ws, "And now?\n", &["--resume", "last"]).await;
    let reqs = env.requests();
    assert_eq!(reqs.len(), 2);
    let replay = user_texts(&reqs[1]);
    assert!(replay.contains("MAGIC-LINE-42"), "{replay}");
    assert!(!replay.contains("changed since"), "{replay}");
}
