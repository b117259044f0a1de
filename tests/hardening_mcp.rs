//! Issue 9, defect 6: MCP servers with too many tools. `deepterm exec` against the loopback
//! simulator with the real fixture server process (`deepterm-mcp-fixture`) as server `fx`.

use std::path::PathBuf;

use deepterm::sim::SimConfig;
use serde_json::Value;

mod common;

use common::*;

const FIXTURE: &str = env!("CARGO_BIN_EXE_deepterm-mcp-fixture");

/// A config on the simulator: built-in tools on, one command tool, the fixture as `fx`
/// (started by `/mcp connect fx`) with `fx_env` (a TOML inline-table body) and `fx_extra`
/// lines; `model_extra` goes into a `[[providers.ds.models]]` entry for `deepseek-flash`.
fn config(env: &TestEnv, fx_env: &str, fx_extra: &str, model_extra: &str) -> PathBuf {
    let base = env.sim.base_url();
    let models = if model_extra.is_empty() {
        String::new()
    } else {
        format!(
            "[[providers.ds.models]]\nid = \"deepseek-flash\"\ntool_update = \"addition-only\"\n\
             system_prompt_update = \"in-history\"\n{model_extra}\n"
        )
    };
    let text = format!(
        r#"
model = "ds/deepseek-flash"

[providers.ds]
kind = "deepseek-messages"
base_url = "{base}/anthropic"
api_key_env = "{KEY_VAR}"
{models}
[tools.builtin]
enabled = true

[tools.command.stamp]
description = "Print a stamp."
command = ["echo", "STAMPED"]
parameters = {{ type = "object", properties = {{}} }}

[mcp.servers.fx]
command = "{FIXTURE}"
enabled = false
env = {{ {fx_env} }}
{fx_extra}
"#
    );
    env.write_config("config.toml", &text)
}

fn tool_results(log: &[Value]) -> Vec<&Value> {
    log.iter()
        .filter(|e| e["type"] == "tool/result")
        .map(|e| &e["data"]["message"])
        .collect()
}

fn result_text(m: &Value) -> String {
    m["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect()
}

/// D6a: a server with 300 tools. Every request declares at most 128 tools, built-ins and
/// the command tool first, then MCP tools by name; the rest is dropped with a warning that
/// names the server and the dropped tools; the turn (a call of a kept MCP tool) succeeds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hardening_d6_300_mcp_tools_are_capped_at_128_builtins_first_with_a_warning() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, "FIXTURE_GENERATED_TOOLS = \"300\"", "", "");
    let script = "Hello\n/mcp connect fx\nplease call fx__echo \"capped but working\"\nThanks\n";
    let out = env.exec(&cfg, script, &[]).await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("MCP server fx connected (306 tools)"), "{err}");
    // 3 built-ins + 1 command tool + 124 of the 306 MCP tools are declared.
    assert!(
        err.contains(
            "182 tools were not declared to the model: a request may declare at most 128 tools"
        ),
        "{err}"
    );
    assert!(
        err.contains("Dropped from MCP server fx: fx__gen_119, fx__gen_120, fx__gen_121, fx__gen_122, fx__gen_123, …"),
        "{err}"
    );
    assert_eq!(
        err.matches("tools were not declared").count(),
        1,
        "warned once, not per request: {err}"
    );
    let reqs = env.requests();
    assert_eq!(reqs.len(), 4, "hello, call, after the call, thanks");
    assert_eq!(
        tool_names(&reqs[0]),
        vec!["grep", "list_dir", "read_file", "stamp"]
    );
    for r in &reqs[1..] {
        let names = tool_names(r);
        assert_eq!(names.len(), 128, "{}", names.len());
        for b in [
            "grep",
            "list_dir",
            "read_file",
            "stamp",
            "fx__echo",
            "fx__gen_118",
        ] {
            assert!(names.contains(&b.to_string()), "{b} declared");
        }
        assert!(!names.contains(&"fx__gen_119".to_string()));
        assert_eq!(names, tool_names(&reqs[1]), "the same set every request");
        assert!(
            starts_with_previous(&reqs[0], r),
            "earlier messages unchanged"
        );
    }
    assert_eq!(reqs[1]["toolCalls"][0]["name"], "fx__echo");
    let log = env.log();
    let results = tool_results(&log);
    assert_eq!(results.len(), 1);
    assert_eq!(result_text(results[0]), "capped but working");
    // The log records exactly what was declared: the header holds the 128 tools, and the
    // developer message adds the 124 MCP tools, none of the dropped.
    let headers: Vec<&Value> = log
        .iter()
        .filter(|e| e["type"] == "request/header")
        .collect();
    assert_eq!(headers.len(), 2, "initial, then the change");
    let mut logged: Vec<String> = headers[1]["data"]["header"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    let mut declared = tool_names(&reqs[1]);
    logged.sort();
    declared.sort();
    assert_eq!(logged, declared);
    let dev = developer_contents(&log);
    let added: Vec<&str> = dev
        .iter()
        .flat_map(|d| d.as_array().unwrap().iter())
        .filter(|b| b["type"] == "tool-addition")
        .map(|b| b["toolName"].as_str().unwrap())
        .collect();
    assert_eq!(added.len(), 124, "{added:?}");
    assert!(!added.contains(&"fx__gen_119"));
}

/// D6a: the limit is per route: `[[providers.X.models]] max_tools = N` lowers it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hardening_d6_max_tools_from_the_model_entry_caps_the_declarations() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, "", "", "max_tools = 6");
    let out = env
        .exec(&cfg, "/mcp connect fx\nplease call fx__add now\n", &[])
        .await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(
            "4 tools were not declared to the model: a request may declare at most 6 tools"
        ),
        "{err}"
    );
    assert!(
        err.contains("Dropped from MCP server fx: fx__fail, fx__fixture_add_tool, fx__fixture_crash, fx__fixture_remove_tool"),
        "{err}"
    );
    let reqs = env.requests();
    assert_eq!(
        tool_names(&reqs[0]),
        vec![
            "fx__add",
            "fx__echo",
            "grep",
            "list_dir",
            "read_file",
            "stamp"
        ]
    );
}
