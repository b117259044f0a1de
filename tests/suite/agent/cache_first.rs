//! Cache-first on every route with the default config (SPEC §15.1): a tool change loses no
//! cached token on any route kind, a tool added on a route without `tool_update` is called
//! through the bridge and runs as itself, and a provider that refuses a tool-change block
//! costs one retry, not a failed turn. `deepterm exec` against the simulator.

use deepterm::sim::{Fault, ScriptedReply, SimConfig};
use serde_json::{Value, json};

use crate::common::*;

/// A conversation long enough for the cache to hold many units, with a tool enabled and
/// disabled in the middle.
const CHURN: &str = "Please remember: the quick brown fox jumps over the lazy dog, again \
    and again, while the cache keeps every byte of it warm and nothing is sent twice.\n\
    /tool enable word_count\nSecond\n/tool disable word_count\nThird\n\
    /tool enable word_count\nFourth\n";

fn config(env: &TestEnv) -> std::path::PathBuf {
    env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""))
}

/// The requests the provider answered (a refused one is left out).
fn answered(env: &TestEnv) -> Vec<Value> {
    env.requests()
        .into_iter()
        .filter(|r| r["status"] == 200)
        .collect()
}

fn cache(r: &Value, field: &str) -> u64 {
    r["cache"][field].as_u64().unwrap()
}

/// Every answered request extends the one before it and the simulator's cache read all
/// of the previous request (a deferred declaration a capable route appends is cached at
/// its `tool_addition`, deepseek-wire §5, so the tool list may grow there).
fn assert_no_token_lost(reqs: &[Value], route: &str) {
    assert!(reqs.len() >= 4, "{route}: {} requests", reqs.len());
    for (i, w) in reqs.windows(2).enumerate() {
        assert!(
            starts_with_previous(&w[0], &w[1]),
            "{route}: request {} rewrote request {i}'s messages",
            i + 1
        );
        assert!(
            cache(&w[1], "hitTokens") + 64 >= cache(&w[0], "totalTokens"),
            "{route}: request {} lost cached tokens: {} read of {}",
            i + 1,
            cache(&w[1], "hitTokens"),
            cache(&w[0], "totalTokens")
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enabling_and_disabling_a_tool_loses_no_cached_token_on_any_route_kind() {
    for route in [
        "oai/deepseek-flash",
        "ds/deepseek-v4-pro",
        "ds/deepseek-flash",
        "dsih/deepseek-flash",
    ] {
        let env = TestEnv::new(SimConfig::default()).await;
        env.exec_ok(&config(&env), CHURN, &["--model", route]).await;
        assert_no_token_lost(&answered(&env), route);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_added_on_a_chat_completions_route_runs_through_call_tool_under_its_own_name() {
    let env = TestEnv::new(SimConfig::default()).await;
    env.sim.push_reply(ScriptedReply::text("Hello."));
    env.sim.push_reply(ScriptedReply::tool_call(
        "call_tool",
        json!({"name": "word_count", "arguments": {"path": "a.txt"}}),
    ));
    env.sim.push_reply(ScriptedReply::text("Counted."));
    let script = "Hello\n/tool enable word_count\nCount the bytes please\n";
    env.exec_ok(&config(&env), script, &["--model", "oai/deepseek-flash"])
        .await;
    let reqs = answered(&env);
    assert_eq!(reqs.len(), 3);
    let names = |r: &Value| -> Vec<String> {
        r["body"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap().to_string())
            .collect()
    };
    for r in &reqs {
        assert_eq!(
            names(r),
            ["tool_search", "call_tool"],
            "the tool list never changes"
        );
    }
    assert!(starts_with_previous(&reqs[0], &reqs[1]) && starts_with_previous(&reqs[1], &reqs[2]));
    assert!(
        reqs[1]["rawBody"]
            .as_str()
            .unwrap()
            .contains("Tool added: word_count: Count the bytes of the JSON arguments.")
    );
    // The log, the card and the hooks see the real tool, and the real command ran: `wc -c`
    // of the arguments it was given.
    let log = env.log();
    let call = log
        .iter()
        .find(|e| e["type"] == "tool/call")
        .expect("a tool call is logged");
    assert_eq!(call["data"]["name"], "word_count");
    assert_eq!(call["data"]["arguments"], r#"{"path":"a.txt"}"#);
    assert_eq!(
        call["data"]["bridged"], true,
        "the Trajectory notes the bridge"
    );
    let result = log
        .iter()
        .find(|e| e["type"] == "tool/result")
        .expect("a tool result is logged");
    assert_ne!(result["data"]["message"]["isError"], true, "{result}");
    let text = result["data"]["message"]["content"][0]["text"]
        .as_str()
        .unwrap();
    // The command tool writes the arguments and a newline to `wc -c`.
    assert_eq!(text.trim(), (r#"{"path":"a.txt"}"#.len() + 1).to_string());
    // The model's own call is answered under its id.
    assert!(
        reqs[2]["rawBody"]
            .as_str()
            .unwrap()
            .contains("\"tool_call_id\"")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_removal_block_downgrades_the_route_and_the_turn_still_succeeds() {
    // The simulator answers a `tool_removal` block with 400 "`tool_removal` is not
    // supported", as a real route may: the in-history route keeps its additions and tells
    // the model of removals in text from then on.
    let env = TestEnv::new(SimConfig::default()).await;
    env.exec_ok(&config(&env), CHURN, &["--model", "dsih/deepseek-flash"])
        .await;
    let all = env.requests();
    let refused: Vec<&Value> = all.iter().filter(|r| r["status"] == 400).collect();
    assert_eq!(refused.len(), 1, "one refusal, then the session knows");
    assert!(
        refused[0]["rawBody"]
            .as_str()
            .unwrap()
            .contains("\"tool_removal\"")
    );
    let log = env.log();
    let downgrade = log
        .iter()
        .find(|e| e["type"] == "route/downgrade")
        .expect("the downgrade is logged");
    assert_eq!(downgrade["data"]["blocks"], json!(["tool_removal"]));
    assert_eq!(downgrade["data"]["to"]["toolUpdate"], "addition-only");
    assert!(
        downgrade["data"]["message"]
            .as_str()
            .unwrap()
            .contains("`tool_removal` is not supported")
    );
    assert!(log.iter().any(|e| e["type"] == "assistant/attempt"
        && e["data"]["error"]["status"] == 400
        && e["data"]["error"]["retried"] == true));
    let reqs = answered(&env);
    assert_no_token_lost(&reqs, "dsih/deepseek-flash");
    let after = reqs
        .iter()
        .find(|r| {
            r["rawBody"]
                .as_str()
                .unwrap()
                .contains("Tool removed: word_count.")
        })
        .expect("the removal is told in text");
    assert!(
        !after["rawBody"]
            .as_str()
            .unwrap()
            .contains("\"tool_removal\"")
    );
    assert!(
        after["rawBody"]
            .as_str()
            .unwrap()
            .contains("\"tool_addition\"")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_addition_block_sends_tool_changes_through_the_bridge_and_the_turn_succeeds() {
    // A Messages route that declares `tool_update` but whose provider refuses the
    // `tool_addition` block: the route loses `tool_update` for the session, the same log is
    // projected through the bridge and sent again once.
    let env = TestEnv::new(SimConfig::default()).await;
    env.sim.push_reply(ScriptedReply::text("Hello."));
    env.sim.push_reply(ScriptedReply::fault(Fault::HttpError {
        status: 400,
        message: "Unknown content block type: `tool_addition`".into(),
        retry_after: None,
    }));
    env.sim.push_reply(ScriptedReply::tool_call(
        "call_tool",
        json!({"name": "word_count", "arguments": {"path": "c.txt"}}),
    ));
    env.sim.push_reply(ScriptedReply::text("Counted."));
    let script = "Hello\n/tool enable word_count\nCount the bytes please\n";
    env.exec_ok(&config(&env), script, &["--model", "ds/deepseek-flash"])
        .await;
    let all = env.requests();
    let refused: Vec<&Value> = all.iter().filter(|r| r["status"] == 400).collect();
    assert_eq!(refused.len(), 1, "one refusal, then the session knows");
    assert!(
        refused[0]["rawBody"]
            .as_str()
            .unwrap()
            .contains("\"tool_addition\"")
    );
    let log = env.log();
    let downgrade = log
        .iter()
        .find(|e| e["type"] == "route/downgrade")
        .expect("the downgrade is logged");
    assert_eq!(downgrade["data"]["blocks"], json!(["tool_addition"]));
    assert!(
        downgrade["data"]["to"]["toolUpdate"].is_null(),
        "{downgrade}"
    );
    assert!(
        downgrade["data"]["message"]
            .as_str()
            .unwrap()
            .contains("`tool_addition`")
    );
    // Not retried as anything else: the failed attempt, then the retry at once.
    let attempts: Vec<&Value> = log
        .iter()
        .filter(|e| e["type"] == "assistant/attempt")
        .collect();
    assert_eq!(attempts.len(), 1);
    assert_eq!(attempts[0]["data"]["error"]["retried"], true);
    // From the retry on, the tool change is text and the real tool runs through call_tool.
    let reqs = answered(&env);
    assert_eq!(reqs.len(), 3);
    for r in &reqs[1..] {
        let raw = r["rawBody"].as_str().unwrap();
        assert!(!raw.contains("\"tool_addition\""), "{raw}");
        assert!(raw.contains("Tool added: word_count"), "{raw}");
    }
    assert!(starts_with_previous(&reqs[1], &reqs[2]));
    let result = log
        .iter()
        .find(|e| e["type"] == "tool/result")
        .expect("the bridged call's result");
    assert_eq!(
        result["data"]["message"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .trim(),
        (r#"{"path":"c.txt"}"#.len() + 1).to_string()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_role_system_message_downgrades_prompt_and_tool_updates_and_the_turn_succeeds() {
    // A provider that takes no role-`system` messages in the history: the prompt change
    // and tool changes go another way for the rest of the session, and the user sees the
    // answer, not a failed turn.
    let env = TestEnv::new(SimConfig::default()).await;
    env.sim.push_reply(ScriptedReply::text("Hello."));
    env.sim.push_reply(ScriptedReply::fault(Fault::HttpError {
        status: 400,
        message: "messages with role 'system' are not supported".into(),
        retry_after: None,
    }));
    env.sim.push_reply(ScriptedReply::text("Briefly, yes."));
    let script = "Hello\n/system Answer briefly.\nAre you brief now?\n";
    let out = env
        .exec_ok(&config(&env), script, &["--model", "dsih/deepseek-flash"])
        .await;
    assert!(stdout(&out).contains("Briefly, yes."), "{}", stdout(&out));
    let all = env.requests();
    let refused: Vec<&Value> = all.iter().filter(|r| r["status"] == 400).collect();
    assert_eq!(refused.len(), 1, "one refusal, then the session knows");
    assert!(
        refused[0]["body"]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "system"),
        "the refused request carried the prompt update as a system message"
    );
    let log = env.log();
    let downgrade = log
        .iter()
        .find(|e| e["type"] == "route/downgrade")
        .expect("the downgrade is logged");
    assert_eq!(downgrade["data"]["blocks"], json!(["system"]));
    assert!(
        downgrade["data"]["to"]["toolUpdate"].is_null(),
        "{downgrade}"
    );
    assert!(
        downgrade["data"]["to"]["systemPromptUpdate"].is_null(),
        "{downgrade}"
    );
    // The retry carries the new prompt and no role-`system` message.
    let reqs = answered(&env);
    let retry = reqs.last().unwrap();
    let raw = retry["rawBody"].as_str().unwrap();
    assert!(raw.contains("Answer briefly."), "{raw}");
    let messages = retry["body"]["messages"].as_array().unwrap();
    assert!(
        messages.iter().all(|m| m["role"] != "system"),
        "{messages:?}"
    );
}
