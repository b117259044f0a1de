//! Tool hooks: a `pre_tool_use` hook that exits 2 refuses `shell` with its reason, a
//! `post_tool_use` hook sees the tool's result, and a hook that hangs is cut at its
//! timeout with everything it started.

use deepterm::sim::SimConfig;

use super::*;
use crate::common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pre_tool_use_hook_that_exits_2_refuses_shell_with_its_reason() {
    let env = TestEnv::new(SimConfig::default()).await;
    let place = Place::new(&env);
    let marker = place.ws.join("ran.txt");
    let hook = script(
        &env.dir.path().join("no-shell.sh"),
        "#!/bin/sh\ninput=$(cat)\n\
         case \"$input\" in *'\"tool_name\":\"shell\"'*)\n\
           echo 'no shell in this repository' >&2; exit 2;;\nesac\nexit 0\n",
    );
    let line = format!("please call shell \"touch {}\"\n", marker.display());
    // Without the hook the same call runs: the refusal below is the hook's doing.
    let plain = config(&env, "");
    let out = run(&env, &plain, &place, &line).await;
    assert!(marker.exists(), "{}", stderr(&out));
    std::fs::remove_file(&marker).unwrap();
    std::fs::remove_dir_all(env.sessions()).unwrap();

    let cfg = config(
        &env,
        &format!(
            "[[hooks.pre_tool_use]]\ncommand = [\"{}\"]\nmatcher = \"shell\"\n",
            hook.display()
        ),
    );
    let out = run(&env, &cfg, &place, &line).await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(!marker.exists(), "the refused call ran: {err}");
    assert!(
        err.contains("blocked shell: no shell in this repository"),
        "{err}"
    );
    // The model got a tool error carrying the hook's stderr.
    let results = env
        .log()
        .into_iter()
        .find(|e| e["type"] == "tool/result")
        .expect("a tool result");
    assert_eq!(results["data"]["message"]["isError"], true, "{results}");
    let sent = tool_results_sent(&env);
    assert!(
        sent.contains("a pre_tool_use hook refused this call: no shell in this repository"),
        "{sent}"
    );
    let runs = hook_runs(&env);
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["event"], "pre_tool_use");
    assert_eq!(runs[0]["outcome"], "blocked");
    assert_eq!(runs[0]["exitCode"], 2);
    assert_eq!(runs[0]["toolName"], "shell");
    assert_eq!(runs[0]["reason"], "no shell in this repository");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_post_tool_use_hook_sees_the_tools_result_and_can_answer_the_model() {
    let env = TestEnv::new(SimConfig::default()).await;
    let place = Place::new(&env);
    let seen = env.dir.path().join("post.json");
    let hook = script(
        &env.dir.path().join("post.sh"),
        &format!(
            "#!/bin/sh\ncat > {}\necho 'lint: 2 warnings' >&2\nexit 2\n",
            seen.display()
        ),
    );
    let cfg = config(
        &env,
        &format!(
            "[[hooks.post_tool_use]]\ncommand = [\"{}\"]\nmatcher = \"shell|apply_patch\"\n",
            hook.display()
        ),
    );
    let out = run(
        &env,
        &cfg,
        &place,
        "please call shell \"echo SHELL-OUTPUT-77\"\n",
    )
    .await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let input: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&seen).expect("the hook ran")).unwrap();
    assert_eq!(input["hook_event_name"], "PostToolUse");
    assert_eq!(input["tool_name"], "shell");
    assert_eq!(input["tool_input"]["command"], "echo SHELL-OUTPUT-77");
    let response = input["tool_response"]["content"].as_str().unwrap();
    assert!(response.contains("SHELL-OUTPUT-77"), "{input}");
    assert_eq!(input["tool_response"]["is_error"], false);
    assert!(input["tool_use_id"].as_str().is_some_and(|s| !s.is_empty()));
    assert_eq!(
        input["cwd"],
        place.ws.canonicalize().unwrap().display().to_string()
    );
    // Exit 2 after the call: its stderr reaches the model with the result.
    let sent = tool_results_sent(&env);
    assert!(
        sent.contains("[a post_tool_use hook said: lint: 2 warnings]"),
        "{sent}"
    );
    assert!(err.contains("lint: 2 warnings"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_hangs_is_cut_at_its_timeout_with_what_it_started() {
    let env = TestEnv::new(SimConfig::default()).await;
    let place = Place::new(&env);
    let pidfile = env.dir.path().join("child.pid");
    let marker = place.ws.join("ran.txt");
    let hook = script(
        &env.dir.path().join("hang.sh"),
        &format!(
            "#!/bin/sh\nsleep 120 &\necho $! > {}\nwait\n",
            pidfile.display()
        ),
    );
    let cfg = config(
        &env,
        &format!(
            "[[hooks.pre_tool_use]]\ncommand = [\"{}\"]\ntimeout_secs = 1\n",
            hook.display()
        ),
    );
    let started = std::time::Instant::now();
    let line = format!("please call shell \"touch {}\"\n", marker.display());
    let out = run(&env, &cfg, &place, &line).await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert!(err.contains("did not finish within 1 s"), "{err}");
    // A timeout is a warning: the call still ran.
    assert!(marker.exists(), "{err}");
    let runs = hook_runs(&env);
    assert_eq!(runs[0]["outcome"], "timed-out", "{runs:?}");
    // The log says the timeout, so a resumed card says "timed out after 1 s" too.
    assert_eq!(runs[0]["timeoutSecs"], 1, "{runs:?}");
    // The hook's own child went with it (its process group was killed).
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    assert!(
        stat.is_empty() || stat.contains(") Z"),
        "the hook's child {pid} still runs: {stat}"
    );
}
