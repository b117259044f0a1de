//! Deferred catalogues (SPEC §15.1): past `defer_tools_over` command and MCP tools, the
//! tools are announced by name in an appended note instead of declared; `tool_search` finds
//! them, a capable route declares a found tool by a `tool_addition` in the next request so
//! the model calls it natively, and every route runs one through `call_tool`. No request
//! loses a cached token on the way. `deepterm exec` against the simulator, with real
//! command tools and the real MCP fixture server process.

use deepterm::sim::{ScriptedReply, SimConfig};
use serde_json::{Value, json};

use crate::common::*;

/// A second command tool, so that two command tools pass a threshold of 1.
const LINE_COUNT: &str = r#"[tools]
defer_tools_over = 1

[tools.command.line_count]
description = "Count the lines of the JSON arguments.\nMore detail the note leaves out."
command = ["wc", "-l"]
parameters = { type = "object", properties = { path = { type = "string" } } }"#;

/// `word_count` is configured disabled: enabling it makes two command tools.
const SCRIPT_START: &str = "/tool enable word_count\n";

fn config(env: &TestEnv) -> std::path::PathBuf {
    env.write_config(
        "config.toml",
        &routes_config(&env.sim.base_url(), LINE_COUNT),
    )
}

fn answered(env: &TestEnv) -> Vec<Value> {
    env.requests()
        .into_iter()
        .filter(|r| r["status"] == 200)
        .collect()
}

fn raw(r: &Value) -> &str {
    r["rawBody"].as_str().unwrap()
}

/// The declared tool names of a request on either protocol.
fn declared(r: &Value) -> Vec<String> {
    r["body"]["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|t| {
                    t["name"]
                        .as_str()
                        .or_else(|| t["function"]["name"].as_str())
                        .unwrap()
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Each answered request extends the previous one and reads all of it from the cache.
fn assert_no_token_lost(reqs: &[Value], route: &str) {
    for (i, w) in reqs.windows(2).enumerate() {
        assert!(
            starts_with_previous(&w[0], &w[1]),
            "{route}: request {} rewrote request {i}'s messages",
            i + 1
        );
        let hit = w[1]["cache"]["hitTokens"].as_u64().unwrap();
        let total = w[0]["cache"]["totalTokens"].as_u64().unwrap();
        assert!(
            hit + 64 >= total,
            "{route}: request {} lost cached tokens: {hit} read of {total}",
            i + 1
        );
    }
}

/// The text the real `word_count` command answers for `args`: `wc -c` of the arguments
/// and a newline.
fn word_count_of(args: &str) -> String {
    (args.len() + 1).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_search_on_a_capable_route_declares_the_found_tool_and_the_model_calls_it_natively() {
    let env = TestEnv::new(SimConfig::default()).await;
    env.sim.push_reply(ScriptedReply::tool_call(
        "tool_search",
        json!({"query": "bytes"}),
    ));
    env.sim.push_reply(ScriptedReply::tool_call(
        "word_count",
        json!({"path": "a.txt"}),
    ));
    env.sim.push_reply(ScriptedReply::text("Counted."));
    let script = format!("{SCRIPT_START}Count the bytes please\n");
    env.exec_ok(&config(&env), &script, &["--model", "ds/deepseek-flash"])
        .await;
    let reqs = answered(&env);
    assert_eq!(
        reqs.len(),
        3,
        "search, native call, answer: no extra round trip"
    );
    // Nothing but the bridge is declared up front; the tools are announced in text.
    assert_eq!(declared(&reqs[0]), ["call_tool", "tool_search"]);
    let first = raw(&reqs[0]);
    assert!(
        first.contains("- line_count: Count the lines of the JSON arguments.")
            && first.contains("- word_count: Count the bytes of the JSON arguments."),
        "{first}"
    );
    assert!(!first.contains("More detail the note leaves out"));
    // The search answered the schema and said the tool is declared next.
    let log = env.log();
    let search = log
        .iter()
        .find(|e| e["type"] == "tool/result")
        .expect("the search's result");
    let text = search["data"]["message"]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(text.starts_with("word_count: Count the bytes"), "{text}");
    assert!(text.contains("schema: {"), "{text}");
    assert!(text.contains("call them directly"), "{text}");
    // The next request declares word_count, deferred, with its addition block.
    assert_eq!(
        declared(&reqs[1]),
        ["call_tool", "tool_search", "word_count"]
    );
    assert!(raw(&reqs[1]).contains("\"tool_addition\""));
    assert!(!declared(&reqs[1]).contains(&"line_count".to_string()));
    // The model's native call ran the real command, not through the bridge.
    let call = log
        .iter()
        .filter(|e| e["type"] == "tool/call")
        .nth(1)
        .expect("the native call");
    assert_eq!(call["data"]["name"], "word_count");
    assert!(call["data"].get("bridged").is_none(), "{call}");
    let result = log
        .iter()
        .filter(|e| e["type"] == "tool/result")
        .nth(1)
        .unwrap();
    assert_eq!(
        result["data"]["message"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .trim(),
        word_count_of(r#"{"path":"a.txt"}"#)
    );
    assert_no_token_lost(&reqs, "ds/deepseek-flash");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deferred_tool_runs_through_call_tool_on_every_route_kind_and_no_token_is_lost() {
    for route in [
        "ds/deepseek-flash",
        "dsih/deepseek-flash",
        "oai/deepseek-flash",
    ] {
        let env = TestEnv::new(SimConfig::default()).await;
        env.sim.push_reply(ScriptedReply::text("Hello."));
        env.sim.push_reply(ScriptedReply::tool_call(
            "call_tool",
            json!({"name": "line_count", "arguments": {"path": "b.txt"}}),
        ));
        env.sim.push_reply(ScriptedReply::text("Counted."));
        let script = format!("{SCRIPT_START}Hello\nCount the lines please\n");
        env.exec_ok(&config(&env), &script, &["--model", route])
            .await;
        let reqs = answered(&env);
        assert_eq!(reqs.len(), 3, "{route}");
        for r in &reqs {
            let mut names = declared(r);
            names.sort();
            assert_eq!(names, ["call_tool", "tool_search"], "{route}");
        }
        assert!(raw(&reqs[0]).contains("- line_count:"), "{route}");
        let log = env.log();
        let call = log
            .iter()
            .find(|e| e["type"] == "tool/call")
            .expect("a tool call");
        assert_eq!(call["data"]["name"], "line_count", "{route}");
        assert_eq!(call["data"]["bridged"], true, "{route}");
        let result = log.iter().find(|e| e["type"] == "tool/result").unwrap();
        assert_ne!(
            result["data"]["message"]["isError"], true,
            "{route}: {result}"
        );
        // `wc -l` of one line of arguments.
        assert_eq!(
            result["data"]["message"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .trim(),
            "1",
            "{route}"
        );
        assert_no_token_lost(&reqs, route);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disabling_and_enabling_a_deferred_tool_is_announced_in_text_and_loses_nothing() {
    let env = TestEnv::new(SimConfig::default()).await;
    for _ in 0..3 {
        env.sim.push_reply(ScriptedReply::text("Noted."));
    }
    let script = format!(
        "{SCRIPT_START}First question\n/tool disable line_count\nSecond\n\
         /tool enable line_count\nThird\n"
    );
    env.exec_ok(&config(&env), &script, &["--model", "ds/deepseek-flash"])
        .await;
    let reqs = answered(&env);
    assert_eq!(reqs.len(), 3);
    assert!(raw(&reqs[1]).contains("No longer available: line_count."));
    assert!(raw(&reqs[2]).contains("More tools are available through tool_search:\\n- line_count"));
    for r in &reqs {
        assert_eq!(declared(r), ["call_tool", "tool_search"]);
    }
    assert_no_token_lost(&reqs, "ds/deepseek-flash");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_mcp_server_with_three_hundred_tools_is_announced_and_its_tool_called_natively() {
    // The default config: the fixture server process registers 306 tools, past
    // `defer_tools_over = 32`; the command tool the first request declared stays declared.
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env
        .config_builder()
        .builtin_tools(false)
        .command_tool("stamp", STAMP_TOOL)
        .fixture_server("fx", "FIXTURE_GENERATED_TOOLS = \"300\"")
        .write(env.dir.path());
    env.sim.push_reply(ScriptedReply::text("Hello."));
    env.sim.push_reply(ScriptedReply::tool_call(
        "tool_search",
        json!({"query": "echo text back", "limit": 1}),
    ));
    env.sim.push_reply(ScriptedReply::tool_call(
        "fx__echo",
        json!({"text": "deferred but here"}),
    ));
    env.sim.push_reply(ScriptedReply::text("Echoed."));
    let out = env
        .exec(&cfg, "Hello\n/mcp connect fx\nPlease echo something\n", &[])
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let reqs = answered(&env);
    assert_eq!(reqs.len(), 4, "hello, search, native call, answer");
    assert_eq!(declared(&reqs[0]), ["stamp"]);
    // After the connect: the bridge is added, nothing else; the 306 tools are announced.
    assert_eq!(declared(&reqs[1]), ["stamp", "call_tool", "tool_search"]);
    assert!(raw(&reqs[1]).contains("- fx__echo: Echo the text back."));
    assert!(raw(&reqs[1]).contains("- fx__gen_299"));
    assert_eq!(
        declared(&reqs[2]),
        ["stamp", "call_tool", "tool_search", "fx__echo"]
    );
    let log = env.log();
    let results: Vec<&Value> = log.iter().filter(|e| e["type"] == "tool/result").collect();
    assert_eq!(results.len(), 2);
    assert_eq!(
        results[1]["data"]["message"]["content"][0]["text"],
        "deferred but here"
    );
    assert_no_token_lost(&reqs, "the default route");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_refusing_defer_loading_costs_one_retry_and_the_found_tool_runs_through_call_tool()
 {
    // The request that declares the found tool with `defer_loading` is refused: the route
    // loses `tool_update` for the session, the same log goes through the bridge, and the
    // model reaches the tool with call_tool. The user sees the answer.
    let env = TestEnv::new(SimConfig::default()).await;
    env.sim.push_reply(ScriptedReply::tool_call(
        "tool_search",
        json!({"query": "bytes"}),
    ));
    env.sim
        .push_reply(ScriptedReply::fault(deepterm::sim::Fault::HttpError {
            status: 400,
            message: "`defer_loading` is not supported".into(),
            retry_after: None,
        }));
    env.sim.push_reply(ScriptedReply::tool_call(
        "call_tool",
        json!({"name": "word_count", "arguments": {"path": "b.txt"}}),
    ));
    env.sim.push_reply(ScriptedReply::text("Counted."));
    let script = format!("{SCRIPT_START}Count the bytes please\n");
    let out = env
        .exec_ok(&config(&env), &script, &["--model", "ds/deepseek-flash"])
        .await;
    assert!(stdout(&out).contains("Counted."), "{}", stdout(&out));
    let all = env.requests();
    let refused: Vec<&Value> = all.iter().filter(|r| r["status"] == 400).collect();
    assert_eq!(refused.len(), 1, "one refusal, then the session knows");
    assert!(raw(refused[0]).contains("\"defer_loading\":true"));
    let log = env.log();
    let downgrade = log
        .iter()
        .find(|e| e["type"] == "route/downgrade")
        .expect("the downgrade is logged");
    assert_eq!(downgrade["data"]["blocks"], json!(["defer_loading"]));
    assert!(
        downgrade["data"]["to"]["toolUpdate"].is_null(),
        "{downgrade}"
    );
    let reqs = answered(&env);
    assert_eq!(reqs.len(), 3, "search, the retry, the answer");
    // The fallback itself keeps the cached prefix: the bridge tools stay where the
    // catalogue declared them.
    assert_no_token_lost(&reqs, "ds/deepseek-flash");
    for r in &reqs[1..] {
        assert_eq!(declared(r), ["call_tool", "tool_search"]);
        assert!(!raw(r).contains("defer_loading"), "{}", raw(r));
    }
    let call = log
        .iter()
        .filter(|e| e["type"] == "tool/call")
        .nth(1)
        .expect("the bridged call");
    assert_eq!(call["data"]["name"], "word_count");
    assert_eq!(call["data"]["bridged"], true);
    let result = log
        .iter()
        .filter(|e| e["type"] == "tool/result")
        .nth(1)
        .unwrap();
    assert_eq!(
        result["data"]["message"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .trim(),
        word_count_of(r#"{"path":"b.txt"}"#)
    );
}
