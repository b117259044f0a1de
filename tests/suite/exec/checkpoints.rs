//! Checkpoints, `/undo`, `/diff`, `/rewind` and `/fork` through `exec` against the
//! simulator (SPEC §14.3), in a git repository and in a plain directory: what the agent
//! changed comes back byte for byte, the user's `.git` is never touched, a rewind's next
//! request repeats the earlier prefix (the simulator reports the cache hit), and forks go
//! on independently.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::*;

use deepterm::sim::{Script, ScriptedReply, SimConfig};
use serde_json::{Value, json};

/// Runs `exec --approve all` in `ws` with `extra` arguments.
async fn run(env: &TestEnv, ws: &Path, script: &str, extra: &[&str]) -> Output {
    let base = env.sim.base_url();
    let cfg = ConfigBuilder::new(&base).write(env.dir.path());
    let xdg = env.dir.path().join("xdg");
    std::fs::create_dir_all(&xdg).unwrap();
    let out = env
        .exec_command(&cfg, script)
        .args(["--approve", "all"])
        .args(extra)
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", env.dir.path())
        .env("XDG_CONFIG_HOME", &xdg)
        .current_dir(ws)
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}\n{}", stderr(&out), stdout(&out));
    out
}

/// One turn that edits two files and creates a third with `shell`, then a text reply.
fn editing_turn() -> Vec<ScriptedReply> {
    vec![
        ScriptedReply::tool_call(
            "edit_file",
            json!({"path": "a.txt", "old_string": "alpha", "new_string": "ALPHA"}),
        )
        .with_tool_call(
            "write_file",
            json!({"path": "sub/b.txt", "content": "rewritten\n"}),
        )
        .with_tool_call(
            "shell",
            json!({"command": "printf 'made by shell' > c.txt"}),
        ),
        ScriptedReply::text("done"),
    ]
}

fn workspace(env: &TestEnv, git: bool) -> PathBuf {
    let ws = env.dir.path().join("ws");
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    std::fs::write(ws.join("a.txt"), "alpha\nsecond line\n").unwrap();
    std::fs::write(ws.join("sub/b.txt"), b"bytes \x00\x01 kept\n").unwrap();
    if git {
        for args in [
            vec!["init", "-q"],
            vec!["add", "."],
            vec![
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@e",
                "commit",
                "-qm",
                "base",
            ],
        ] {
            let st = std::process::Command::new("git")
                .args(&args)
                .current_dir(&ws)
                .status()
                .unwrap();
            assert!(st.success(), "git {args:?}");
        }
    }
    ws
}

/// What a repository looks like from the outside: status, log, refs, object count, and
/// every file under `.git` with its bytes.
fn git_state(ws: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for args in [
        vec!["status", "--porcelain", "--untracked-files=all"],
        vec!["log", "--format=%H %s"],
        vec!["for-each-ref"],
        vec!["count-objects", "-v"],
    ] {
        let o = std::process::Command::new("git")
            .args(&args)
            .current_dir(ws)
            .output()
            .unwrap();
        out.push(String::from_utf8_lossy(&o.stdout).into_owned());
    }
    let mut files: Vec<String> = walk(&ws.join(".git"))
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_default();
            format!("{} {}", p.display(), bytes.len())
        })
        .collect();
    files.sort();
    out.extend(files);
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_puts_back_two_edited_files_and_one_made_by_shell_in_git_and_plain_directories() {
    for git in [true, false] {
        let env = TestEnv::new(SimConfig {
            script: Some(Script::new(editing_turn())),
            ..SimConfig::default()
        })
        .await;
        let ws = workspace(&env, git);
        let a = std::fs::read(ws.join("a.txt")).unwrap();
        let b = std::fs::read(ws.join("sub/b.txt")).unwrap();
        let before = git.then(|| git_state(&ws));
        let out = run(&env, &ws, "change the files\n/diff\n/undo\n", &[]).await;
        let so = stdout(&out);
        // The turn did change all three (the diff shows them) before the undo.
        assert!(so.contains("+ALPHA"), "git={git}: {so}");
        assert!(so.contains("+++ b/c.txt"), "git={git}: {so}");
        assert!(so.contains("Undid prompt 1"), "git={git}: {so}");
        assert!(so.contains("restored c.txt"), "git={git}: {so}");
        assert_eq!(std::fs::read(ws.join("a.txt")).unwrap(), a, "git={git}");
        assert_eq!(std::fs::read(ws.join("sub/b.txt")).unwrap(), b, "git={git}");
        assert!(
            !ws.join("c.txt").exists(),
            "git={git}: the created file is gone"
        );
        if let Some(before) = before {
            assert_eq!(git_state(&ws), before, "the repository is untouched");
        }
        // The log says turn → checkpoint, and the undo.
        let types: Vec<String> = env
            .log()
            .iter()
            .map(|e| e["type"].as_str().unwrap_or("").to_string())
            .collect();
        for t in ["checkpoint/taken", "checkpoint/settled", "checkpoint/undo"] {
            assert!(types.iter().any(|x| x == t), "{t} in {types:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_edited_after_the_turn_is_a_conflict_and_is_not_overwritten_unless_forced() {
    let env = TestEnv::new(SimConfig {
        script: Some(Script::new(editing_turn())),
        ..SimConfig::default()
    })
    .await;
    let ws = workspace(&env, false);
    run(&env, &ws, "change the files\n", &[]).await;
    // Someone else edits a file the turn changed, after it.
    std::fs::write(ws.join("a.txt"), "edited by the user\n").unwrap();
    let out = run(&env, &ws, "/undo\n", &["--resume", "last"]).await;
    let so = stdout(&out);
    assert!(so.contains("conflict, left alone"), "{so}");
    assert!(so.contains("a.txt"), "{so}");
    assert!(so.contains("/undo --force"), "{so}");
    assert_eq!(
        std::fs::read_to_string(ws.join("a.txt")).unwrap(),
        "edited by the user\n"
    );
    // The other files did go back.
    assert!(!ws.join("c.txt").exists());
    // Confirmed, the conflicting file goes back too.
    run(&env, &ws, "/undo --force\n", &["--resume", "last"]).await;
    assert_eq!(
        std::fs::read_to_string(ws.join("a.txt")).unwrap(),
        "alpha\nsecond line\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_twice_goes_back_two_turns() {
    let env = TestEnv::new(SimConfig {
        script: Some(Script::new(vec![
            ScriptedReply::tool_call("write_file", json!({"path": "n.txt", "content": "one"})),
            ScriptedReply::text("ok"),
            ScriptedReply::tool_call("write_file", json!({"path": "n.txt", "content": "two"})),
            ScriptedReply::text("ok"),
        ])),
        ..SimConfig::default()
    })
    .await;
    let ws = workspace(&env, false);
    run(&env, &ws, "first\nsecond\n/undo\n", &[]).await;
    assert_eq!(std::fs::read_to_string(ws.join("n.txt")).unwrap(), "one");
    run(&env, &ws, "/undo\n", &["--resume", "last"]).await;
    assert!(!ws.join("n.txt").exists());
}

/// The raw bodies the simulator recorded, in order.
fn bodies(env: &TestEnv) -> Vec<(String, Value)> {
    env.requests()
        .into_iter()
        .map(|r| (r["rawBody"].as_str().unwrap_or("").to_string(), r))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rewind_repeats_the_earlier_request_prefix_byte_for_byte_and_the_cache_hits() {
    let env = TestEnv::new(SimConfig::default()).await;
    let ws = workspace(&env, true);
    let out = run(
        &env,
        &ws,
        "first prompt\nsecond prompt\nthird prompt\n/rewind 2 conversation\n/inspect\nsecond, again\n",
        &[],
    )
    .await;
    assert!(
        stdout(&out).contains("Rewound to before prompt 2"),
        "{}",
        stdout(&out)
    );
    // The inspector's why-line says the rewind keeps the cache.
    assert!(
        stdout(&out).contains("after a rewind: the request repeats the prefix"),
        "{}",
        stdout(&out)
    );
    let reqs = bodies(&env);
    assert_eq!(reqs.len(), 4, "one request per prompt");
    let (second, _) = &reqs[1];
    let (after, rec) = &reqs[3];
    // Up to the second prompt's user message, the bytes are the same.
    let at = second
        .rfind("second prompt")
        .expect("the prompt is in its request");
    let cut = second[..at]
        .rfind("{\"role\":\"user\"")
        .expect("a user message");
    assert_eq!(&after[..cut], &second[..cut]);
    assert!(after.contains("second, again"));
    assert!(
        !after.contains("third prompt"),
        "the rewound turn is left out"
    );
    assert!(
        !after.contains("second prompt"),
        "the rewound prompt is left out"
    );
    let hit = rec["cache"]["hitTokens"].as_u64().unwrap_or(0);
    assert!(
        hit > 0,
        "the simulator reports the cache hit: {}",
        rec["cache"]
    );
    let first_diff = rec["cache"]["firstDiffByte"].as_u64().unwrap_or(0);
    assert!(first_diff > 0, "{}", rec["cache"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_after_a_rewind_shows_and_sends_the_rewound_history() {
    let env = TestEnv::new(SimConfig::default()).await;
    let ws = workspace(&env, false);
    run(
        &env,
        &ws,
        "first prompt\nsecond prompt\n/rewind 2\nreplacement\n",
        &[],
    )
    .await;
    run(&env, &ws, "after resume\n", &["--resume", "last"]).await;
    let reqs = bodies(&env);
    let (last, _) = reqs.last().unwrap();
    assert!(last.contains("first prompt") && last.contains("replacement"));
    assert!(!last.contains("second prompt"), "sent history");
    // The TUI's loop sends the whole log on resume and after a live rewind; the UI's fold
    // shows what still counts and gives the prompt back.
    let cfg = ConfigBuilder::new(&env.sim.base_url()).write(env.dir.path());
    let mut ui = env.start_interactive(cfg);
    ui.submit("/resume last");
    let history = loop {
        if let deepterm::agent::protocol::AgentEvent::SessionOpened { history, .. } =
            ui.next_event().await
            && history.iter().any(|e| is_user(e, "replacement"))
        {
            break history;
        }
    };
    let shown = chat_users(history);
    assert!(shown.contains(&"first prompt".to_string()), "{shown:?}");
    assert!(
        !shown.contains(&"second prompt".to_string()),
        "shown history: {shown:?}"
    );
    ui.submit("/rewind 2 conversation");
    let (history, prompt) = loop {
        if let deepterm::agent::protocol::AgentEvent::Rewound { history, prompt } =
            ui.next_event().await
        {
            break (history, prompt);
        }
    };
    assert_eq!(prompt, "replacement");
    let shown = chat_users(history);
    assert_eq!(shown, vec!["first prompt".to_string()]);
    ui.shutdown().await;
}

/// The user messages Chat shows for `history` (a resume's fold).
fn chat_users(history: Vec<std::sync::Arc<deepterm::session::event::Event>>) -> Vec<String> {
    let mut app = deepterm::ui::app::App::new(deepterm::i18n::Locale::EnUs, false);
    app.on_agent_event(deepterm::agent::protocol::AgentEvent::SessionOpened {
        id: "s".into(),
        path: String::new(),
        history,
    });
    app.transcript()
        .cells()
        .iter()
        .filter_map(|c| match &c.kind {
            deepterm::ui::chat::CellKind::User(u) => Some(u.text.clone()),
            _ => None,
        })
        .collect()
}

fn is_user(e: &deepterm::session::event::Event, text: &str) -> bool {
    matches!(&e.kind, deepterm::session::event::EventKind::UserMessage(u)
        if u.message.joined_text() == text)
}

fn session_ids(env: &TestEnv) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(env.sessions()).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "jsonl") {
            let text = std::fs::read_to_string(&p).unwrap();
            let start: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
            let id = start["data"]["id"].as_str().unwrap().to_string();
            let parent = start["data"]["forkedFrom"]["id"]
                .as_str()
                .map(str::to_string);
            out.push((id, parent));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_and_its_parent_each_continue_and_resume_independently() {
    let env = TestEnv::new(SimConfig::default()).await;
    let ws = workspace(&env, false);
    let out = run(&env, &ws, "shared prompt\n/fork\nonly in the fork\n", &[]).await;
    let ids = session_ids(&env);
    assert_eq!(ids.len(), 2, "{ids:?}");
    let parent = ids.iter().find(|(_, p)| p.is_none()).unwrap().0.clone();
    let fork = ids.iter().find(|(_, p)| p.is_some()).unwrap().clone();
    assert_eq!(fork.1.as_deref(), Some(parent.as_str()));
    let fork = fork.0;
    // It says which session the user is in now, and how to go back.
    let said = stderr(&out);
    assert!(
        said.contains(&format!("you are now in the new session {fork}"))
            && said.contains(&format!("/resume {parent} goes back")),
        "{said}"
    );
    // The fork's first request repeats the parent's prefix: the cache serves it.
    let reqs = bodies(&env);
    assert!(reqs[1].1["cache"]["hitTokens"].as_u64().unwrap_or(0) > 0);

    run(&env, &ws, "only in the parent\n", &["--resume", &parent]).await;
    let (last, _) = bodies(&env).pop().unwrap();
    assert!(last.contains("shared prompt") && !last.contains("only in the fork"));

    run(&env, &ws, "fork again\n", &["--resume", &fork]).await;
    let (last, _) = bodies(&env).pop().unwrap();
    assert!(last.contains("only in the fork") && !last.contains("only in the parent"));

    // `--fork ID` at start forks the parent again; the listing names each fork's parent.
    let out = run(&env, &ws, "third line\n/resume\n", &["--fork", &parent]).await;
    assert!(
        stdout(&out).contains(&format!("← {parent}")),
        "{}",
        stdout(&out)
    );
    let (last, _) = bodies(&env).pop().unwrap();
    assert!(last.contains("only in the parent") && last.contains("third line"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_skips_the_turns_that_changed_no_file_and_puts_back_the_edit_at_once() {
    let env = TestEnv::new(SimConfig {
        script: Some(Script::new(vec![
            ScriptedReply::tool_call("write_file", json!({"path": "n.txt", "content": "one"})),
            ScriptedReply::text("ok"),
            // Two turns that run a command (a checkpoint each) and change nothing.
            ScriptedReply::tool_call("shell", json!({"command": "true"})),
            ScriptedReply::text("ran"),
            ScriptedReply::tool_call("shell", json!({"command": "ls"})),
            ScriptedReply::text("listed"),
        ])),
        ..SimConfig::default()
    })
    .await;
    let ws = workspace(&env, false);
    let out = run(&env, &ws, "write\ncheck\nlist\n/undo\n/undo\n", &[]).await;
    assert!(!ws.join("n.txt").exists(), "one /undo puts the edit back");
    let text = stdout(&out);
    assert!(text.contains("Undid prompt 1"), "{text}");
    assert!(
        !text.contains("Undid prompt 3") && !text.contains("Undid prompt 2"),
        "{text}"
    );
    // The second /undo finds nothing left: its notice is on stderr.
    assert!(stderr(&out).contains("Nothing to undo"), "{}", stderr(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rewind_to_before_an_undo_puts_the_undone_edit_back_as_chat_shows_it() {
    let env = TestEnv::new(SimConfig {
        script: Some(Script::new(vec![
            ScriptedReply::tool_call("write_file", json!({"path": "n.txt", "content": "one"})),
            ScriptedReply::text("ok"),
            ScriptedReply::text("just talk"),
            ScriptedReply::text("again"),
        ])),
        ..SimConfig::default()
    })
    .await;
    let ws = workspace(&env, false);
    let out = run(&env, &ws, "write\ntalk\n/undo\n/rewind 2\n", &[]).await;
    // Before prompt 2, prompt 1's edit was in the file, and the conversation keeps it.
    assert_eq!(
        std::fs::read_to_string(ws.join("n.txt")).ok().as_deref(),
        Some("one"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("1 file put back."),
        "{}",
        stdout(&out)
    );
    // The log agrees: the edit counts again, so /undo takes it back once more.
    run(&env, &ws, "/undo\n", &["--resume", "last"]).await;
    assert!(!ws.join("n.txt").exists());
}
