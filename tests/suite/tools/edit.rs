//! The edit tools end to end: `deepterm exec` in a workspace, the loopback simulator
//! scripting the model's calls, on the DeepSeek and the OpenAI-compatible route. Each test
//! checks the files on disk, not only the tool result.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Output;

use deepterm::sim::{ScriptedReply, SimConfig};
use serde_json::{Value, json};

use crate::common::*;

/// The two wire formats the edit tools must work on.
const ROUTES: [&str; 2] = ["ds/deepseek-flash", "oai/deepseek-flash"];

/// A simulator, a config with the built-in tools on, and a workspace directory.
struct Edit {
    env: TestEnv,
    ws: PathBuf,
    config: PathBuf,
}

impl Edit {
    async fn new() -> Edit {
        let env = TestEnv::new(SimConfig::default()).await;
        let base = env.sim.base_url();
        let config = env.write_config(
            "config.toml",
            &format!(
                r#"
model = "ds/deepseek-flash"

[providers.ds]
kind = "deepseek-messages"
base_url = "{base}/anthropic"
api_key_env = "{KEY_VAR}"

[providers.oai]
kind = "openai-chat"
base_url = "{base}"
api_key_env = "{KEY_VAR}"
"#
            ),
        );
        let ws = std::fs::canonicalize(env.dir.path()).unwrap().join("ws");
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        std::fs::write(ws.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        Edit { env, ws, config }
    }

    /// Scripts one reply making `calls`, then "done", and runs exec in the workspace.
    async fn run(&self, route: &str, calls: &[(&str, Value)], approve_all: bool) -> Output {
        let mut reply = ScriptedReply::tool_call(calls[0].0, calls[0].1.clone());
        for (name, args) in &calls[1..] {
            reply = reply.with_tool_call(*name, args.clone());
        }
        self.env.sim.push_reply(reply);
        self.env.sim.push_reply(ScriptedReply::text("done"));
        let script = self.env.dir.path().join("script.txt");
        std::fs::write(&script, "edit the files\n").unwrap();
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_deepterm"));
        cmd.arg("exec")
            .arg("--script")
            .arg(&script)
            .arg("--config")
            .arg(&self.config)
            .arg("--session-dir")
            .arg(self.env.sessions())
            .arg("--locale")
            .arg("en-US")
            .arg("--model")
            .arg(route)
            .current_dir(&self.ws)
            .env(KEY_VAR, TEST_KEY)
            .env("HOME", self.env.dir.path())
            .kill_on_drop(true);
        if approve_all {
            cmd.args(["--approve", "all"]);
        }
        let out = tokio::time::timeout(std::time::Duration::from_secs(60), cmd.output())
            .await
            .expect("exec finishes")
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        out
    }

    /// `(is_error, text)` of every tool result in the log, in order.
    fn results(&self) -> Vec<(bool, String)> {
        let log = self.env.log();
        tool_results(&log)
            .into_iter()
            .map(|m| (m["isError"] == true, result_text(m)))
            .collect()
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.ws.join(rel)).unwrap()
    }
}

/// Every file under `dir` with its content, sorted.
fn snapshot(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(dir).unwrap().display().to_string();
            let t = e.file_type().unwrap();
            if t.is_dir() {
                stack.push(p);
                out.push((rel, "/".to_string()));
            } else if t.is_file() {
                out.push((rel, std::fs::read_to_string(&p).unwrap_or_default()));
            } else {
                out.push((rel, "(special)".to_string()));
            }
        }
    }
    out.sort();
    out
}

fn seed(ws: &Path) {
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(
        ws.join("src/util.py"),
        "def add(a, b):\n    # TODO: handle None\n    return a + b\n",
    )
    .unwrap();
    std::fs::write(ws.join("src/old.py"), "print('old')\n").unwrap();
    std::fs::write(ws.join("src/name.py"), "NAME = 'a'\n").unwrap();
    std::fs::write(ws.join("obsolete.txt"), "bye\n").unwrap();
}

const MULTI: &str = "\
*** Begin Patch
*** Add File: tests/test_util.py
+from src.util import add
+
+def test_add():
+    assert add(1, 2) == 3
*** Update File: src/util.py
@@ def add(a, b):
-    # TODO: handle None
+    if a is None or b is None:
+        return None
     return a + b
*** Delete File: obsolete.txt
*** Update File: src/name.py
*** Move to: src/renamed.py
@@
-NAME = 'a'
+NAME = 'b'
*** End Patch
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_file_patch_is_applied_on_both_routes() {
    for route in ROUTES {
        let e = Edit::new().await;
        seed(&e.ws);
        e.run(route, &[("apply_patch", json!({ "patch": MULTI }))], true)
            .await;
        assert_eq!(
            e.read("tests/test_util.py"),
            "from src.util import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
            "{route}"
        );
        assert_eq!(
            e.read("src/util.py"),
            "def add(a, b):\n    if a is None or b is None:\n        return None\n    return a + b\n"
        );
        assert!(!e.ws.join("obsolete.txt").exists());
        assert!(!e.ws.join("src/name.py").exists());
        assert_eq!(e.read("src/renamed.py"), "NAME = 'b'\n");
        assert_eq!(e.read("src/old.py"), "print('old')\n", "untouched");
        let results = e.results();
        assert_eq!(results.len(), 1, "{route}: {results:?}");
        let (is_error, text) = &results[0];
        assert!(!is_error, "{route}: {text}");
        let summary: Vec<&str> = text.lines().take(5).collect();
        assert_eq!(
            summary,
            [
                "Changed 4 files:",
                "added tests/test_util.py (+4 -0)",
                "updated src/util.py (+2 -1)",
                "deleted obsolete.txt (+0 -1)",
                "moved src/name.py -> src/renamed.py (+1 -1)",
            ],
            "{route}"
        );
        assert!(
            text.contains("-    # TODO: handle None\n+    if a is None"),
            "{text}"
        );
        // The logged result gives the Chat card back, diff included.
        let cards = deepterm::tools::edit::parse_result(text).expect("an edit result");
        assert_eq!(cards.files[1].path, "src/util.py");
        assert_eq!((cards.files[1].added, cards.files[1].removed), (2, 1));
        assert!(
            cards.files[1]
                .diff
                .starts_with("diff --git a/src/util.py b/src/util.py\n")
        );
        // The model got the same text.
        let last = e.env.requests().pop().unwrap();
        assert!(
            last["body"].to_string().contains("Changed 4 files:"),
            "{route}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_patch_with_one_bad_hunk_changes_nothing_on_both_routes() {
    for route in ROUTES {
        let e = Edit::new().await;
        seed(&e.ws);
        let before = snapshot(&e.ws);
        let bad = MULTI.replace("-NAME = 'a'", "-NAME = 'zzz'");
        e.run(route, &[("apply_patch", json!({ "patch": bad }))], true)
            .await;
        assert_eq!(snapshot(&e.ws), before, "{route}: nothing changed");
        let results = e.results();
        let (is_error, text) = &results[0];
        assert!(is_error, "{route}: {text}");
        assert!(
            text.contains("\"src/name.py\"") && text.contains("\"NAME = 'zzz'\""),
            "{route}: names the file and the line: {text}"
        );
        assert!(text.ends_with("no file was changed"), "{text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_file_with_zero_or_two_matches_changes_nothing_and_says_so() {
    for route in ROUTES {
        let e = Edit::new().await;
        std::fs::write(e.ws.join("a.txt"), "x = 1\nx = 1\ny = 2\n").unwrap();
        e.run(
            route,
            &[
                (
                    "edit_file",
                    json!({"path": "a.txt", "old_string": "z = 3", "new_string": "z = 4"}),
                ),
                (
                    "edit_file",
                    json!({"path": "a.txt", "old_string": "x = 1", "new_string": "x = 9"}),
                ),
                (
                    "edit_file",
                    json!({"path": "a.txt", "old_string": "y = 2", "new_string": "y = 5"}),
                ),
            ],
            true,
        )
        .await;
        let r = e.results();
        assert!(
            r[0].0 && r[0].1.starts_with("old_string occurs 0 times in \"a.txt\""),
            "{r:?}"
        );
        assert!(
            r[1].0 && r[1].1.starts_with("old_string occurs 2 times in \"a.txt\""),
            "{r:?}"
        );
        assert!(
            !r[2].0 && r[2].1.starts_with("Changed 1 file:\nupdated a.txt (+1 -1)"),
            "{r:?}"
        );
        assert_eq!(e.read("a.txt"), "x = 1\nx = 1\ny = 5\n", "{route}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_file_through_a_symlink_outside_into_git_or_onto_a_fifo_is_refused() {
    for route in ROUTES {
        let e = Edit::new().await;
        let outside = e.ws.parent().unwrap().join("outside.txt");
        std::fs::write(&outside, "keep\n").unwrap();
        symlink(&outside, e.ws.join("out-link")).unwrap();
        symlink(".git/HEAD", e.ws.join("head-link")).unwrap();
        let fifo = e.ws.join("pipe");
        let st = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(st.success());
        e.run(
            route,
            &[
                (
                    "write_file",
                    json!({"path": "out-link", "content": "pwned\n"}),
                ),
                (
                    "write_file",
                    json!({"path": "head-link", "content": "pwned\n"}),
                ),
                ("write_file", json!({"path": "pipe", "content": "pwned\n"})),
                ("write_file", json!({"path": "ok.txt", "content": "fine\n"})),
            ],
            true,
        )
        .await;
        let r = e.results();
        assert!(
            r[0].0 && r[0].1.contains("is outside the workspace"),
            "{r:?}"
        );
        assert!(r[1].0 && r[1].1.contains("is protected"), "{r:?}");
        assert!(
            r[2].0 && r[2].1.contains("is not a regular file (it is a FIFO)"),
            "{r:?}"
        );
        assert!(!r[3].0, "{r:?}");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep\n");
        assert_eq!(e.read(".git/HEAD"), "ref: refs/heads/main\n");
        assert_eq!(e.read("ok.txt"), "fine\n", "{route}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_under_the_never_policy_edits_inside_the_workspace_without_asking() {
    // `never` (exec's default) never asks: an edit inside the writable roots runs, as a
    // sandboxed command does (SPEC §14.2); one outside is refused by the write scope.
    let e = Edit::new().await;
    let out = e
        .run(
            ROUTES[0],
            &[("write_file", json!({"path": "new.txt", "content": "x\n"}))],
            false,
        )
        .await;
    assert_eq!(e.read("new.txt"), "x\n", "{}", stderr(&out));
    assert!(!e.results()[0].0, "{:?}", e.results());
}
