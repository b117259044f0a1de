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
    for (locale, word) in [("en-US", "built-in simulator"), ("zh-CN", "模拟器")] {
        let out = env
            .exec_command_in(locale, &cfg, "hi\n")
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
        &format!("[tools.command.stamp]\n{STAMP_TOOL}\napproval = \"ask\""),
    );
    let out = env.exec_ok(&cfg, "Please call stamp\n", &[]).await;
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
        .exec_ok(&cfg, "Please call stamp\n", &["--approve", "all"])
        .await;
    assert!(!stderr(&out).contains("denied"), "{}", stderr(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_in_exec_lists_what_the_picker_would_offer() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, "");
    let out = env.exec_ok(&cfg, "Hello there\n", &[]).await;
    let with_messages = session_id(&stderr(&out));
    // A session file without messages.
    std::fs::write(env.sessions().join("20260101-000000-empty.jsonl"), "").unwrap();
    let out = env.exec_ok(&cfg, "Second one\n/resume\n", &[]).await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_misspelled_model_is_refused_at_start_naming_the_known_routes() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, "");
    let out = env.exec(&cfg, "hi\n", &["--model", "ds/flsh"]).await;
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("ds/flsh"), "{err}");
    assert!(err.contains("ds/deepseek-flash"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(env.requests().is_empty(), "nothing was sent");
    // The same typo in the config names the file.
    let text = routes_config(&env.sim.base_url(), "")
        .replace("model = \"ds/deepseek-flash\"", "model = \"ds/flsh\"");
    let bad = env.write_config("typo.toml", &text);
    let out = env.exec(&bad, "hi\n", &[]).await;
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("typo.toml") && err.contains("ds/deepseek-flash"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_mode_says_once_on_stderr_that_it_ignores_base_url() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, "");
    let out = env
        .exec_ok(
            &cfg,
            "Hello\n",
            &["--demo", "--base-url", "http://127.0.0.1:9"],
        )
        .await;
    let err = stderr(&out);
    let notices: Vec<&str> = err.lines().filter(|l| l.contains("--base-url")).collect();
    assert_eq!(notices.len(), 1, "{err}");
    assert!(notices[0].contains("Demo mode"), "{err}");
    assert!(!stdout(&out).contains("--base-url"), "a notice, not output");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_without_messages_leaves_no_session_file_behind() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, "");
    let out = env.exec_ok(&cfg, "/tools\n/help\n", &[]).await;
    let left: Vec<_> = std::fs::read_dir(env.sessions())
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
    assert!(
        !stderr(&out).contains("session "),
        "no log to point at: {}",
        stderr(&out)
    );
    // A run with a message keeps its log, and resuming it then adds none: it stays.
    let out = env.exec_ok(&cfg, "Hello\n", &[]).await;
    let id = session_id(&stderr(&out));
    env.exec_ok(&cfg, "/tools\n", &["--resume", &id]).await;
    assert!(env.log_path().ends_with(format!("{id}.jsonl")));
}
