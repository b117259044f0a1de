//! What `exec` tells its user on the side: the `--demo` hint without a key, a denied tool
//! call, `/resume`'s list, and which stream each kind of line goes to (SPEC §2: output on
//! stdout, notices on stderr).

use std::path::PathBuf;

use deepterm::sim::SimConfig;

use crate::common::*;

/// The session id `exec` reports on stderr (`session <id>: <path>`).
fn session_id(err: &str) -> String {
    err.lines()
        .find_map(|l| l.strip_prefix("session "))
        .and_then(|rest| rest.split(':').next())
        .expect("exec reports its session")
        .to_string()
}

fn config(env: &TestEnv, extra: &str) -> PathBuf {
    env.write_config("config.toml", &routes_config(&env.sim.base_url(), extra))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_without_a_key_names_the_variable_and_suggests_demo_mode() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, "");
    let script = env.dir.path().join("s.txt");
    std::fs::write(&script, "hi\n").unwrap();
    for (locale, word) in [("en-US", "built-in simulator"), ("zh-CN", "模拟器")] {
        let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_deepterm"))
            .args(["exec", "--locale", locale, "--script"])
            .arg(&script)
            .arg("--config")
            .arg(&cfg)
            .arg("--session-dir")
            .arg(env.sessions())
            .env_remove(KEY_VAR)
            .output()
            .await
            .unwrap();
        assert!(!out.status.success());
        let err = stderr(&out);
        assert!(err.contains(KEY_VAR), "{err}");
        assert!(err.contains("deepterm exec --demo"), "{err}");
        assert!(err.contains(word), "localized: {err}");
        assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_call_denied_by_the_default_approve_none_is_named_on_stderr() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(
        &env,
        r#"
[tools.command.stamp]
description = "Print a fixed stamp."
command = ["echo", "STAMPED"]
parameters = { type = "object", properties = {} }
approval = "ask"
"#,
    );
    let out = env.exec(&cfg, "Please call stamp\n", &[]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let denied: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("denied") && l.contains("stamp"))
        .collect();
    assert_eq!(denied.len(), 1, "{err}");
    assert!(denied[0].contains("--approve all"), "{err}");
    assert!(
        !stdout(&out).contains("--approve all"),
        "a notice, not output"
    );
    // Allowed: nothing to say.
    let out = env
        .exec(&cfg, "Please call stamp\n", &["--approve", "all"])
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("denied"), "{}", stderr(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_in_exec_lists_what_the_picker_would_offer() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, "");
    let out = env.exec(&cfg, "Hello there\n", &[]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let with_messages = session_id(&stderr(&out));
    // A session file without messages.
    std::fs::write(env.sessions().join("20260101-000000-empty.jsonl"), "").unwrap();
    let out = env.exec(&cfg, "/resume\n", &[]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let current = session_id(&stderr(&out));
    let listed = stdout(&out);
    assert!(listed.contains(&with_messages), "{listed}");
    assert!(listed.contains("Hello there"), "{listed}");
    assert!(!listed.contains(&current), "the open session: {listed}");
    assert!(!listed.contains("empty"), "no messages: {listed}");
    assert!(
        !stderr(&out).contains(&with_messages),
        "output is on stdout"
    );
}
