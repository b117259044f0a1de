//! `/mcp resources [NAME]` (SPEC §15.2) against the real npm server and the fixture.

use deepterm::sim::SimConfig;

use super::mcp_npm::{PACKAGE, entry_script, node_available, npm_dir};
use crate::common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_resources_lists_a_servers_resources_and_templates() {
    if !require_external("node", node_available()) {
        return;
    }
    let what = format!(
        "the npm package {PACKAGE} (npm install --prefix {})",
        npm_dir().unwrap_or_default().display()
    );
    let Some(entry) = entry_script() else {
        assert!(!require_external(&what, false));
        return;
    };
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env
        .config_builder()
        .builtin_tools(false)
        .mcp_server(
            "ev",
            &format!(
                "command = \"node\"\nargs = [{:?}, \"stdio\"]\nenabled = false",
                entry.display().to_string()
            ),
        )
        .fixture_server("fx", "FIXTURE_TOOLS = \"echo\"")
        .write(env.dir.path());
    let script = "/mcp resources\n/mcp connect ev\n/mcp connect fx\n/mcp resources ev\n\
                  /mcp resources fx\n/mcp resources nosuch\n";
    let out = env.exec_ok(&cfg, script, &[]).await;
    let (o, e) = (stdout(&out), stderr(&out));
    // Before any connect there is nothing to ask.
    assert!(o.contains("No MCP server is connected."), "{o}");
    assert!(o.contains("ev: "), "{o}");
    assert!(o.contains("resources and templates"), "{o}");
    assert!(o.contains("demo://resource/static/document/"), "{o}");
    assert!(o.contains("demo://resource/dynamic/text/{"), "{o}");
    assert!(o.contains("(template)"), "{o}");
    // A server without resources says so; an unknown name is a warning.
    assert!(o.contains("fx: no resources"), "{o}");
    assert!(e.contains("nosuch"), "{e}");
}
