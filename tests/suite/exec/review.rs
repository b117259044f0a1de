//! `/review [BASE]` through `exec` with a real git repository in a temporary directory
//! (SPEC §15.3): the model gets the diff against HEAD with the request for findings by
//! severity and `path:line`, the turn is read-only (an edit is refused, the file stays),
//! and a hostile repository config runs nothing — while plain `git diff` in the same
//! repository does run it, which shows what the hardening stops.

use std::path::{Path, PathBuf};

use crate::common::*;

use deepterm::sim::{ScriptedReply, SimConfig};
use serde_json::json;

fn git(dir: &Path, args: &[&str]) {
    let st = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .expect("git runs");
    assert!(st.success(), "git {args:?}");
}

/// A repository with `src/lib.rs` committed and then changed in the work tree.
fn repo(env: &TestEnv) -> PathBuf {
    let ws = env.dir.path().join("ws");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(
        ws.join("src/lib.rs"),
        "fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    )
    .unwrap();
    git(&ws, &["init", "-q"]);
    git(&ws, &["add", "."]);
    git(
        &ws,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@e",
            "commit",
            "-qm",
            "base",
        ],
    );
    std::fs::write(
        ws.join("src/lib.rs"),
        "fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
    )
    .unwrap();
    ws
}

fn git_available() -> bool {
    std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

async fn review(env: &TestEnv, ws: &Path, script: &str) -> std::process::Output {
    let cfg = ConfigBuilder::new(&env.sim.base_url()).write(env.dir.path());
    let out = env
        .exec_command(&cfg, script)
        .args(["--approve", "all"])
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", env.dir.path())
        .current_dir(ws)
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}\n{}", stderr(&out), stdout(&out));
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn review_sends_the_git_diff_and_asks_for_findings_while_the_turn_stays_read_only() {
    if !require_external("git", git_available()) {
        return;
    }
    let env = TestEnv::new(SimConfig::default()).await;
    let ws = repo(&env);
    env.sim.push_reply(ScriptedReply::tool_call(
        "write_file",
        json!({"path": "src/lib.rs", "content": "fixed\n"}),
    ));
    env.sim.push_reply(ScriptedReply::text(
        "major: src/lib.rs:2 subtracts instead of adding.",
    ));
    let out = review(&env, &ws, "/review\n").await;
    assert!(stdout(&out).contains("src/lib.rs:2"), "{}", stdout(&out));
    let reqs = env.requests();
    let prompt = messages(&reqs[0]).last().unwrap().to_string();
    assert!(
        prompt.contains("-    a + b"),
        "the diff is attached: {prompt}"
    );
    assert!(prompt.contains("+    a - b"), "{prompt}");
    assert!(prompt.contains("path:line"), "{prompt}");
    assert!(prompt.contains("by severity"), "{prompt}");
    // The edit the model tried was refused: the turn was read-only.
    assert_eq!(
        std::fs::read_to_string(ws.join("src/lib.rs")).unwrap(),
        "fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n"
    );
    let result = messages(&reqs[1]).last().unwrap().to_string();
    assert!(result.contains("read-only"), "{result}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn review_without_changes_says_so_and_a_base_that_is_an_option_is_refused() {
    if !require_external("git", git_available()) {
        return;
    }
    let env = TestEnv::new(SimConfig::default()).await;
    let ws = repo(&env);
    git(&ws, &["checkout", "-q", "--", "."]);
    let out = review(&env, &ws, "/review\n/review --output=/tmp/x\n").await;
    let err = stderr(&out);
    assert!(err.contains("Nothing to review"), "{err}");
    assert!(env.requests().is_empty(), "nothing was sent");
    assert!(
        !Path::new("/tmp/x").exists() || err.contains("[BASE]"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_repository_config_runs_nothing_during_review() {
    if !require_external("git", git_available()) {
        return;
    }
    let env = TestEnv::new(SimConfig::default()).await;
    let ws = repo(&env);
    let pwned = env.dir.path().join("pwned");
    std::fs::create_dir_all(&pwned).unwrap();
    let p = pwned.display();
    std::fs::write(ws.join(".gitattributes"), "*.rs filter=evil diff=evil\n").unwrap();
    for (k, v) in [
        ("core.fsmonitor", format!("touch {p}/fsmonitor; false")),
        ("core.pager", format!("touch {p}/pager; cat")),
        ("diff.external", format!("touch {p}/external; true")),
        ("diff.evil.textconv", format!("touch {p}/textconv; cat")),
        ("diff.evil.command", format!("touch {p}/command; true")),
        ("filter.evil.clean", format!("touch {p}/clean; cat")),
        ("filter.evil.smudge", format!("touch {p}/smudge; cat")),
    ] {
        git(&ws, &["config", k, &v]);
    }
    // Touch the file again so git must re-read (and would re-clean) it.
    let f = ws.join("src/lib.rs");
    let text = std::fs::read_to_string(&f).unwrap();
    std::fs::write(&f, format!("{text}// more\n")).unwrap();
    env.sim.push_reply(ScriptedReply::text("Looks fine."));
    review(&env, &ws, "/review\n").await;
    let ran: Vec<_> = std::fs::read_dir(&pwned).unwrap().flatten().collect();
    assert!(ran.is_empty(), "the repository ran {ran:?}");
    let prompt = messages(&env.requests()[0]).last().unwrap().to_string();
    assert!(
        prompt.contains("// more"),
        "the diff still arrives: {prompt}"
    );
    // Without the hardening, the same repository runs its programs.
    let _ = std::process::Command::new("git")
        .args(["diff", "HEAD"])
        .current_dir(&ws)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_PAGER", "cat")
        .output()
        .unwrap();
    let ran: Vec<_> = std::fs::read_dir(&pwned).unwrap().flatten().collect();
    assert!(
        !ran.is_empty(),
        "plain git diff runs the repository's programs"
    );
}
