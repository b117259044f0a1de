//! The secrets test: a distinctive key goes through tool calls, an MCP call, 401 and
//! 5xx replies and a panicking task; afterwards no file deepterm wrote (session directory,
//! config and data directories, torn tails, the tracing log) and nothing it printed
//! contains the key.

use std::path::{Path, PathBuf};
use std::process::Output;

use deepterm::sim::{Fault, ScriptedReply, SimConfig};
use serde_json::{Value, json};

use crate::common;

use common::*;

/// The key of these runs (set as `DEEPSEEK_API_KEY`, which the config names).
pub(super) const CANARY: &str = "sk-deepterm-secret-canary-9f3a61c2d84b7e05";

/// The config: the provider reads `DEEPSEEK_API_KEY`; a command tool dumps its
/// environment; the fixture MCP server (with its `env` tool) is `fx`; built-ins on.
fn config(env: &TestEnv) -> PathBuf {
    env.config_builder()
        .key_env("DEEPSEEK_API_KEY")
        .command_tool(
            "dump_env",
            "description = \"Print the environment.\"\ncommand = [\"env\"]",
        )
        .command_tool(
            "echo_key",
            r#"description = "Print the key variable through a shell."
command = ["sh", "-c", "echo key=$DEEPSEEK_API_KEY; cat /proc/$$/environ | tr '\\0' '\\n'"]"#,
        )
        .fixture_server("fx", "FIXTURE_TOOLS = \"echo,env\"")
        .write(env.dir.path())
}

/// `deepterm exec` with the canary key, every XDG directory inside the test directory,
/// verbose tracing, and the workspace `ws` as the current directory.
pub(super) async fn run(
    env: &TestEnv,
    config: &Path,
    script: &str,
    extra: &[(&str, &str)],
) -> Output {
    run_args(env, config, script, extra, &[]).await
}

/// [`run`] with extra command-line arguments.
async fn run_args(
    env: &TestEnv,
    config: &Path,
    script: &str,
    extra: &[(&str, &str)],
    args: &[&str],
) -> Output {
    let ws = env.dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("notes.txt"), "a workspace file\n").unwrap();
    let d = env.dir.path();
    let mut cmd = env.exec_command(config, script);
    cmd.args(args)
        .current_dir(&ws)
        .env("DEEPSEEK_API_KEY", CANARY)
        .env("HOME", d)
        .env("XDG_CONFIG_HOME", d.join("xdg-config"))
        .env("XDG_DATA_HOME", d.join("xdg-data"))
        .env("XDG_STATE_HOME", d.join("xdg-state"))
        .env("XDG_CACHE_HOME", d.join("xdg-cache"))
        .env("DEEPTERM_LOG", "debug")
        .env("RUST_BACKTRACE", "1")
        .kill_on_drop(true);
    for (k, v) in extra {
        cmd.env(k, v);
    }
    tokio::time::timeout(std::time::Duration::from_secs(90), cmd.output())
        .await
        .expect("exec finishes")
        .unwrap()
}

/// Every file under `dir` (recursively), with its bytes.
fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let t = e.file_type().unwrap();
            if t.is_dir() {
                stack.push(p);
            } else if t.is_file() {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Asserts the key is nowhere: not in any file under the test directory (config, sessions,
/// torn tails, XDG directories, tracing log, workspace), not in what the runs printed, not
/// in anything the simulator received. Returns the number of files checked.
fn assert_no_key(env: &TestEnv, outputs: &[&Output]) -> usize {
    assert_nowhere(env, outputs, CANARY, &[])
}

/// [`assert_no_key`] for any `needle`, skipping the files in `except` (where the test
/// itself put it).
pub(super) fn assert_nowhere(
    env: &TestEnv,
    outputs: &[&Output],
    needle: &str,
    except: &[PathBuf],
) -> usize {
    let files = files_under(env.dir.path());
    for (p, bytes) in &files {
        if except.contains(p) {
            continue;
        }
        assert!(!contains(bytes, needle), "{needle} is in {}", p.display());
    }
    for o in outputs {
        assert!(
            !contains(&o.stdout, needle),
            "{needle} was printed on stdout"
        );
        assert!(
            !contains(&o.stderr, needle),
            "{needle} was printed on stderr"
        );
    }
    for r in env.requests() {
        assert!(!r.to_string().contains(needle), "{needle} was sent: {r}");
    }
    files.len()
}

/// The variable names of an environment dump (failure messages leave the values out).
pub(super) fn names(dump: &str) -> String {
    dump.lines()
        .map(|l| l.split('=').next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn tool_results(log: &[Value]) -> Vec<(String, bool)> {
    log.iter()
        .filter(|e| e["type"] == "tool/result")
        .map(|e| {
            let m = &e["data"]["message"];
            let text = m["content"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect();
            (text, m["isError"] == true)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_key_stays_out_of_tools_mcp_errors_and_panics() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env);
    // Turn 1: both command tools. Turn 2: the MCP server's environment. Turn 3: a 503,
    // retried. Turn 4: a built-in tool whose task panics.
    env.sim.push_reply(
        ScriptedReply::tool_call("dump_env", json!({})).with_tool_call("echo_key", json!({})),
    );
    env.sim.push_reply(ScriptedReply::text("tools done"));
    env.sim
        .push_reply(ScriptedReply::tool_call("fx__env", json!({})));
    env.sim.push_reply(ScriptedReply::tool_call(
        "fx__env",
        json!({"name": "DEEPSEEK_API_KEY"}),
    ));
    env.sim.push_reply(ScriptedReply::text("mcp done"));
    env.sim.push_reply(ScriptedReply::fault(Fault::HttpError {
        status: 503,
        message: "Service Unavailable".into(),
        retry_after: None,
    }));
    env.sim.push_reply(ScriptedReply::text("after the 503"));
    env.sim.push_reply(ScriptedReply::tool_call(
        "read_file",
        json!({"path": "notes.txt"}),
    ));
    env.sim.push_reply(ScriptedReply::text("after the panic"));
    let script = "run the tools\n/mcp connect fx\nask the server\nretry please\nread notes\n";
    let out = run(
        &env,
        &cfg,
        script,
        &[("DEEPTERM_TEST_PANIC_IN_TASK", "read_file")],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for answer in ["tools done", "mcp done", "after the 503", "after the panic"] {
        assert!(text.contains(answer), "{text}");
    }
    let results = tool_results(&env.log());
    assert_eq!(results.len(), 5, "{results:#?}");
    // The tools ran and saw an environment without the key.
    assert!(results[0].0.contains("PATH="), "{}", names(&results[0].0));
    assert!(
        results[1].0.starts_with("key=\n"),
        "{}",
        names(&results[1].0)
    );
    assert!(
        results[2].0.contains("FIXTURE_TOOLS=echo,env"),
        "{}",
        names(&results[2].0)
    );
    assert_eq!(results[3].0, "(unset)");
    // The panic became a tool error; the loop went on.
    assert!(
        results[4].1 && results[4].0.contains("panicked"),
        "{:?}",
        results[4]
    );
    assert!(stderr(&out).contains("panicked"), "{}", stderr(&out));
    let reqs = env.requests();
    assert!(
        reqs.iter().any(|r| r["status"] == 503),
        "the 503 was served"
    );
    // A torn tail is salvaged next to the log on the next load: that file is checked too.
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(env.log_path())
            .unwrap();
        f.write_all(b"{\"seq\": 999, \"type\": \"user/mess")
            .unwrap();
    }
    let resumed = run_args(&env, &cfg, "one more\n", &[], &["--resume", "last"]).await;
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    let files: Vec<String> = files_under(env.dir.path())
        .into_iter()
        .map(|(p, _)| p.display().to_string())
        .collect();
    assert!(
        files.iter().any(|f| f.contains(".torn")),
        "a torn tail was salvaged: {files:?}"
    );
    assert!(
        files.iter().any(|f| f.ends_with("deepterm.log")),
        "the tracing log was written: {files:?}"
    );
    assert_no_key(&env, &[&out, &resumed]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_key_stays_out_of_401_and_5xx_failures() {
    // The simulator accepts only another key: every request is a 401.
    let env = TestEnv::new(SimConfig {
        api_key: Some("sk-the-only-accepted-key".into()),
        ..SimConfig::default()
    })
    .await;
    let cfg = config(&env);
    let out401 = run(&env, &cfg, "hello\n", &[]).await;
    assert!(!out401.status.success());
    assert!(
        stderr(&out401).contains("Authentication failed"),
        "{}",
        stderr(&out401)
    );
    // A 500 on every attempt fails the turn after the retries.
    let env5 = TestEnv::new(SimConfig::default()).await;
    let cfg5 = config(&env5);
    for _ in 0..4 {
        env5.sim.push_reply(ScriptedReply::fault(Fault::HttpError {
            status: 500,
            message: "Internal Server Error".into(),
            retry_after: None,
        }));
    }
    let out500 = run(&env5, &cfg5, "hello\n", &[]).await;
    assert!(!out500.status.success());
    assert!(
        stderr(&out500).contains("server error"),
        "{}",
        stderr(&out500)
    );
    assert_no_key(&env, &[&out401]);
    assert_no_key(&env5, &[&out500]);
}

/// Another secret of the environment, which no redaction knows: only the containment of
/// instruction files keeps it out.
const GH_CANARY: &str = "ghp_deepterm_instructions_canary_71c0";
/// The content of a file next to the workspace.
const OUTSIDE: &str = "outside-the-workspace-canary-3b9e";
/// The content of the repository's legitimate instruction file.
const RULES: &str = "rules-marker-from-the-workspace-6d2a";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_instruction_files_linked_out_of_the_workspace_are_refused_and_named() {
    let env = TestEnv::new(SimConfig::default()).await;
    let d = env.dir.path();
    let ws = d.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    // The repository: AGENTS.md is the environment, OUTSIDE.md a file next to the
    // checkout, RULES.md an ordinary file (the channel the other two try to use).
    std::os::unix::fs::symlink("/proc/self/environ", ws.join("AGENTS.md")).unwrap();
    let outside = d.join("outside_secret");
    std::fs::write(&outside, OUTSIDE).unwrap();
    std::os::unix::fs::symlink("../outside_secret", ws.join("OUTSIDE.md")).unwrap();
    std::fs::write(ws.join("RULES.md"), format!("{RULES}\n")).unwrap();
    // The config lives in its own directory, so the test directory is no root.
    std::fs::create_dir_all(d.join("cfg")).unwrap();
    let cfg = env
        .config_builder()
        .key_env("DEEPSEEK_API_KEY")
        .table("[instructions]\nfiles = [\"AGENTS.md\", \"OUTSIDE.md\", \"RULES.md\"]")
        .write_as(&d.join("cfg/config.toml"));
    // The model echoes the key the user typed; the next turn sends that history back.
    env.sim
        .push_reply(ScriptedReply::text(format!("noted {CANARY}")));
    env.sim.push_reply(ScriptedReply::text("second answer"));
    let script = format!("my key is {CANARY}, remember it\nand now?\n");
    let out = run(&env, &cfg, &script, &[("GH_TOKEN", GH_CANARY)]).await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    // Nothing of the environment or the outside file got anywhere. The script (which the
    // test wrote with the key in it) and the outside file itself are not deepterm's.
    let script_file = d.join("script.txt");
    assert_nowhere(&env, &[&out], CANARY, std::slice::from_ref(&script_file));
    assert_nowhere(&env, &[&out], GH_CANARY, &[]);
    assert_nowhere(&env, &[&out], OUTSIDE, &[outside]);
    // Both refusals are named, with the reason.
    let line = |needle: &str| -> String {
        err.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle} in:\n{err}"))
            .to_string()
    };
    assert!(line("AGENTS.md").contains("outside the workspace"), "{err}");
    assert!(line("OUTSIDE.md").contains("outside_secret"), "{err}");
    // The channel is live: the ordinary instruction file reaches every request.
    let reqs = env.requests();
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    for r in &reqs {
        assert!(
            r.to_string().contains(RULES),
            "the rules were not sent: {r}"
        );
    }
    // The user's text and the model's reply are kept, with the key taken out.
    let log = std::fs::read_to_string(env.log_path()).unwrap();
    assert!(log.contains("my key is [REDACTED], remember it"), "{log}");
    assert!(log.contains("noted [REDACTED]"), "{log}");
    assert!(
        reqs[1].to_string().contains("noted [REDACTED]"),
        "{}",
        reqs[1]
    );
    assert!(
        stdout(&out).contains("noted [REDACTED]"),
        "{}",
        stdout(&out)
    );
}
