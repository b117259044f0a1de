//! A real npm MCP server next to the in-repo fixture: `@modelcontextprotocol/server-everything`,
//! installed by `.ci/run` into `DEEPTERM_NPM_MCP_DIR` (default
//! `$HOME/.cache/deepterm-ci/npm`) and started with `node` directly (no `npx`, which may try
//! the network). Skipped with a message when Node or the package is missing, or failed under
//! `DEEPTERM_REQUIRE_EXTERNAL=1`.

use std::path::PathBuf;

use deepterm::sim::SimConfig;
use serde_json::Value;

use crate::common;

use common::*;

/// The npm package this test runs.
pub(crate) const PACKAGE: &str = "@modelcontextprotocol/server-everything";

/// Where `.ci/run` installs npm packages (`npm install --prefix DIR`).
pub(crate) fn npm_dir() -> Option<PathBuf> {
    if let Ok(d) = std::env::var("DEEPTERM_NPM_MCP_DIR")
        && !d.trim().is_empty()
    {
        return Some(PathBuf::from(d));
    }
    let home = std::env::var_os("HOME")?;
    Some(PathBuf::from(home).join(".cache/deepterm-ci/npm"))
}

/// The installed package's entry script, if present.
pub(crate) fn entry_script() -> Option<PathBuf> {
    let p = npm_dir()?
        .join("node_modules")
        .join(PACKAGE)
        .join("dist/index.js");
    p.is_file().then_some(p)
}

pub(crate) fn node_available() -> bool {
    std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn npm_server_everything_lists_its_tools_and_a_call_reaches_the_log() {
    if !require_external("node", node_available()) {
        return;
    }
    let entry = entry_script();
    let what = format!(
        "the npm package {PACKAGE} (npm install --prefix {})",
        npm_dir().unwrap_or_default().display()
    );
    if !require_external(&what, entry.is_some()) {
        return;
    }
    let entry = entry.unwrap_or_default();
    let env = TestEnv::new(SimConfig::default()).await;
    let entry = entry.display().to_string();
    let cfg = env
        .config_builder()
        .builtin_tools(false)
        .mcp_server(
            "ev",
            &format!(
                "command = \"node\"\nargs = [{entry:?}, \"stdio\"]\nenabled = false\ntimeout_secs = 30"
            ),
        )
        .write(env.dir.path());
    let script = "/mcp connect ev\n/mcp\nplease call ev__echo \"hello from deepterm\"\n";
    let out = env.exec(&cfg, script, &[]).await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("MCP server ev connected"), "{err}");
    assert!(stdout(&out).contains("ev: connected"), "{}", stdout(&out));
    // Its tools are listed (logged with the connect) and declared to the model.
    let log = env.log();
    let connected = log
        .iter()
        .find(|e| e["type"] == "mcp/status" && e["data"]["state"] == "connected")
        .expect("a connected status");
    let listed: Vec<&str> = connected["data"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for t in ["ev__echo", "ev__get-sum"] {
        assert!(listed.contains(&t), "{t} in {listed:?}");
    }
    let reqs = env.requests();
    assert!(tool_names(&reqs[0]).contains(&"ev__echo".to_string()));
    assert_eq!(reqs[0]["toolCalls"][0]["name"], "ev__echo");
    // The call ran on the real server and its result reached the session log.
    let results: Vec<&Value> = log
        .iter()
        .filter(|e| e["type"] == "tool/result")
        .map(|e| &e["data"]["message"])
        .collect();
    assert_eq!(results.len(), 1);
    assert_ne!(results[0]["isError"], true, "{}", results[0]);
    let text: String = results[0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect();
    assert_eq!(text, "Echo: hello from deepterm");
}
