//! End-to-end tests of `deepterm exec` against the simulator over loopback: plain chat,
//! resume, tool changes on every route mode (SPEC §5–8, reference L-, P-, W-rules), and
//! bad input that must fail with one clear line and lose nothing.

use std::path::PathBuf;

use deepterm::sim::{self, SimConfig};
use serde_json::Value;

use crate::common;

use common::*;

/// The config of these tests: providers for every route mode, a disabled command tool.
trait ExecConfig {
    fn config(&self, extra: &str) -> PathBuf;
}

impl ExecConfig for TestEnv {
    /// Writes a config whose providers point at the simulator.
    fn config(&self, extra: &str) -> PathBuf {
        self.write_config("config.toml", &routes_config(&self.sim.base_url(), extra))
    }
}

type Env = TestEnv;

const TOOL_SCRIPT: &str = "Hello\n/tool enable word_count\nPlease run word_count now\n/tool disable word_count\nThanks, bye\n";

/// Runs [`TOOL_SCRIPT`] on `route` and returns its four requests (hello, tool call, after
/// the tool, bye).
async fn tool_script_requests(env: &Env, route: &str) -> Vec<serde_json::Value> {
    tool_script_requests_with(env, route, "").await
}

/// `tool_removal = "rewrite"` (the opt-out of SPEC §15.1) on the routes without modes, for
/// the tests of how those routes send the whole tool list (P-1).
const REWRITE_V4_PRO: &str =
    "[[providers.ds.models]]\nid = \"deepseek-v4-pro\"\ntool_removal = \"rewrite\"\n";
const REWRITE_OAI: &str =
    "[[providers.oai.models]]\nid = \"deepseek-flash\"\ntool_removal = \"rewrite\"\n";

/// [`tool_script_requests`] with `extra` config.
async fn tool_script_requests_with(env: &Env, route: &str, extra: &str) -> Vec<serde_json::Value> {
    env.exec_ok(&env.config(extra), TOOL_SCRIPT, &["--model", route])
        .await;
    let reqs = env.requests();
    assert_eq!(reqs.len(), 4, "hello, tool call, after tool, bye");
    reqs
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_answers_two_turns_and_resume_last_continues_the_same_file() {
    let env = Env::new(SimConfig::default()).await;
    let cfg = env.config("");
    let out = env
        .exec_ok(&cfg, "Hello there\n\"Second\\nquestion\"\n", &[])
        .await;
    let text = stdout(&out);
    assert!(text.contains("> Hello there"), "{text}");
    assert!(text.contains("> Second"), "{text}");
    assert!(
        stderr(&out).contains("session "),
        "session id and path on stderr"
    );
    env.exec_ok(&cfg, "Third\n", &["--resume", "last"]).await;
    let log = env.log();
    let turns: Vec<u64> = log
        .iter()
        .filter(|e| e["type"] == "turn/end")
        .map(|e| e["data"]["turn"].as_u64().unwrap())
        .collect();
    assert_eq!(turns, vec![1, 2, 3]);
    let reasons: Vec<&str> = log
        .iter()
        .filter(|e| e["type"] == "request/header")
        .map(|e| e["data"]["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, vec!["initial", "resume"]);
    // seq contiguous, usage recorded with input excluding cache reads.
    for (i, e) in log.iter().enumerate() {
        assert_eq!(e["seq"].as_u64().unwrap(), i as u64);
    }
    let usages: Vec<&Value> = log
        .iter()
        .filter(|e| e["type"] == "assistant/message")
        .map(|e| &e["data"]["usage"])
        .collect();
    assert_eq!(usages.len(), 3);
    let reqs = env.requests();
    for (u, r) in usages.iter().zip(&reqs) {
        assert_eq!(u["inputTokens"], r["usage"]["input_tokens"]);
        assert_eq!(u["cacheReadTokens"], r["usage"]["cache_read_input_tokens"]);
    }
    assert!(
        usages[1]["cacheReadTokens"].as_u64().unwrap() > 0,
        "second turn reads the cache"
    );
    // The key never reaches the log.
    let raw = std::fs::read_to_string(env.log_path()).unwrap();
    assert!(!raw.contains(TEST_KEY));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn addition_only_route_keeps_every_earlier_byte_through_the_removal() {
    let env = Env::new(SimConfig::default()).await;
    env.exec_ok(&env.config(""), TOOL_SCRIPT, &[]).await;
    let reqs = env.requests();
    assert_eq!(reqs.len(), 4, "hello, tool call, after tool, bye");
    assert!(reqs.iter().all(|r| r["status"] == 200), "{reqs:#?}");
    let (r0, r1, r2, r3) = (&reqs[0], &reqs[1], &reqs[2], &reqs[3]);
    // Before the addition: no tools, no beta.
    assert!(tool_names(r0).is_empty());
    assert!(
        r0["body"].get("tools").is_none(),
        "SPEC §12.2: empty tools key omitted"
    );
    assert!(r0["headers"].get("anthropic-beta").is_none());
    // The addition: appended deferred declaration + tool_addition block + beta header (W-1, W-2, W-9).
    assert!(starts_with_previous(r0, r1));
    assert_eq!(tool_names(r1), vec!["word_count"]);
    assert_eq!(r1["body"]["tools"][0]["defer_loading"], true);
    assert!(has_block(r1, "tool_addition"));
    assert_eq!(
        r1["headers"]["anthropic-beta"],
        "mid-conversation-tool-changes-2026-07-01"
    );
    assert_eq!(r1["effectiveTools"], serde_json::json!(["word_count"]));
    assert!(
        r1["cache"]["hitTokens"].as_u64().unwrap() + 64
            >= r0["cache"]["totalTokens"].as_u64().unwrap(),
        "prefix cache kept: {:?} vs {:?}",
        r1["cache"],
        r0["cache"]
    );
    assert_eq!(r1["toolCalls"][0]["name"], "word_count");
    assert!(starts_with_previous(r1, r2));
    assert!(has_block(r2, "tool_addition"));
    // The removal on addition-only keeps the declaration and the addition; the model reads
    // that the tool is gone in an appended note (SPEC §15.1): nothing earlier changes.
    assert_eq!(tool_names(r3), vec!["word_count"]);
    assert!(has_block(r3, "tool_addition") && !has_block(r3, "tool_removal"));
    assert!(starts_with_previous(r2, r3));
    assert!(
        r3["rawBody"]
            .as_str()
            .unwrap()
            .contains("Tool removed: word_count.")
    );
    // The log records each change once, capability-independently.
    let dev = developer_contents(&env.log());
    assert_eq!(
        dev,
        vec![
            serde_json::json!([{"type": "tool-addition", "toolName": "word_count"}]),
            serde_json::json!([{"type": "tool-removal", "toolName": "word_count"}]),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_history_route_keeps_the_removed_declaration_and_sends_the_removal() {
    let cfg = SimConfig {
        tool_removal_ok: true,
        ..SimConfig::default()
    };
    let env = Env::new(cfg).await;
    let reqs = tool_script_requests(&env, "dsih/deepseek-flash").await;
    for w in reqs.windows(2) {
        assert!(
            starts_with_previous(&w[0], &w[1]),
            "every request extends the previous one"
        );
    }
    let r3 = &reqs[3];
    assert_eq!(
        tool_names(r3),
        vec!["word_count"],
        "P-5: removed tool stays declared"
    );
    assert_eq!(r3["body"]["tools"][0]["defer_loading"], true);
    assert!(has_block(r3, "tool_addition") && has_block(r3, "tool_removal"));
    assert!(r3["headers"].get("anthropic-beta").is_some());
    assert_eq!(
        r3["effectiveTools"],
        serde_json::json!([]),
        "not offered after removal"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn route_without_modes_sends_the_full_list_and_no_developer_messages() {
    let env = Env::new(SimConfig::default()).await;
    let reqs = tool_script_requests_with(&env, "ds/deepseek-v4-pro", REWRITE_V4_PRO).await;
    for r in &reqs {
        assert!(
            messages(r).iter().all(|m| m["role"] != "system"),
            "P-1: no developer messages"
        );
        assert!(!r["rawBody"].as_str().unwrap().contains("defer_loading"));
        assert!(r["headers"].get("anthropic-beta").is_none());
    }
    assert_eq!(tool_names(&reqs[1]), vec!["word_count"]);
    assert!(tool_names(&reqs[3]).is_empty());
    // R-2: logged the same way on every route.
    assert_eq!(developer_contents(&env.log()).len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_route_sends_full_tools_and_the_cache_breaks_at_the_change() {
    let env = Env::new(SimConfig::default()).await;
    let reqs = tool_script_requests_with(&env, "oai/deepseek-flash", REWRITE_OAI).await;
    assert!(reqs.iter().all(|r| r["route"] == "openai"));
    let r1 = &reqs[1];
    assert_eq!(r1["body"]["tools"][0]["type"], "function");
    assert_eq!(tool_names(r1), vec!["word_count"]);
    assert!(
        messages(r1)
            .iter()
            .filter(|m| m["role"] == "system")
            .count()
            == 1
    );
    assert!(r1["body"]["stream_options"]["include_usage"] == true);
    // Tools render before messages, so adding one breaks the cached prefix early.
    let first_diff = r1["cache"]["firstDiffByte"].as_u64().unwrap();
    assert!(
        r1["cache"]["hitTokens"].as_u64().unwrap()
            < reqs[0]["cache"]["totalTokens"].as_u64().unwrap(),
        "{:?}",
        r1["cache"]
    );
    assert!(first_diff < 200, "break near the start: {first_diff}");
    assert_eq!(developer_contents(&env.log()).len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_one_clear_line_and_a_non_zero_exit() {
    let env = Env::new(SimConfig::default()).await;
    // Malformed config.
    let bad = env.dir.path().join("bad.toml");
    std::fs::write(&bad, "model = \n").unwrap();
    let out = env.exec(&bad, "hi\n", &[]).await;
    assert!(!out.status.success());
    assert!(stderr(&out).contains("bad.toml"), "{}", stderr(&out));
    assert_eq!(stderr(&out).trim().lines().count(), 1, "{}", stderr(&out));
    // Unknown route.
    let cfg = env.config("");
    let out = env.exec(&cfg, "hi\n", &["--model", "nope/x"]).await;
    assert!(!out.status.success());
    assert!(stderr(&out).contains("nope"), "{}", stderr(&out));
    // Missing key names the variable.
    let out = env
        .exec_command(&cfg, "hi\n")
        .env_remove(KEY_VAR)
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    assert!(stderr(&out).contains(KEY_VAR), "{}", stderr(&out));
    // Non-UTF-8 script.
    let out = env
        .exec_command_in("zh-CN", &cfg, b"hello \xff\xfe\n")
        .env(KEY_VAR, "k")
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    assert!(stderr(&out).contains("UTF-8"), "{}", stderr(&out));
    assert!(stderr(&out).contains("脚本"), "localized: {}", stderr(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_base_url_fails_after_retries_with_attempt_events() {
    let env = Env::new(SimConfig::default()).await;
    let cfg = env.config("");
    let out = env
        .exec(
            &cfg,
            "hi\n",
            &["--base-url", "http://127.0.0.1:9/anthropic"],
        )
        .await;
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.lines().any(|l| l.contains("deepterm:")), "{err}");
    let log = env.log();
    let attempts = log
        .iter()
        .filter(|e| e["type"] == "assistant/attempt")
        .count();
    assert_eq!(attempts, 4, "first try + 3 retries");
    let end = log.iter().rev().find(|e| e["type"] == "turn/end").unwrap();
    assert_eq!(end["data"]["outcome"], "error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_process_on_the_same_session_is_refused_and_a_torn_tail_is_recovered() {
    let env = Env::new(SimConfig::default()).await;
    let cfg = env.config("");
    env.exec_ok(&cfg, "one\n", &[]).await;
    let path = env.log_path();
    // Hold the lock as another process would.
    let held = deepterm::session::store::Store::open(&path).unwrap();
    let before = std::fs::read(&path).unwrap();
    let out = env.exec(&cfg, "two\n", &["--resume", "last"]).await;
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("another deepterm process"),
        "{}",
        stderr(&out)
    );
    drop(held);
    assert_eq!(std::fs::read(&path).unwrap(), before, "log untouched");
    // A crash mid-write leaves a partial line: it is cut, saved, reported once.
    let mut torn = before.clone();
    torn.extend_from_slice(br#"{"type":"turn/start","da"#);
    std::fs::write(&path, &torn).unwrap();
    let out = env.exec_ok(&cfg, "two\n", &["--resume", "last"]).await;
    assert!(stderr(&out).contains("incomplete"), "{}", stderr(&out));
    let log = env.log();
    assert!(
        log.iter()
            .any(|e| e["type"] == "turn/end" && e["data"]["turn"] == 2)
    );
    let out = env.exec(&cfg, "three\n", &["--resume", "last"]).await;
    assert!(!stderr(&out).contains("incomplete"), "reported once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compact_replaces_the_history_with_a_checkpoint_and_starts_a_new_series() {
    let env = Env::new(SimConfig::default()).await;
    let cfg = env.config("");
    env.exec_ok(
        &cfg,
        "First question\nSecond question\n/compact\nThird question\n",
        &[],
    )
    .await;
    let log = env.log();
    let t = types(&log);
    let start = t.iter().position(|x| x == "compaction/start").unwrap();
    assert_eq!(t[start + 1], "compaction/summary");
    assert_eq!(t[start + 2], "user/message");
    assert_eq!(t[start + 3], "compaction/end");
    let checkpoint = &log[start + 2];
    assert_eq!(checkpoint["surfaceOp"]["op"], "replace");
    assert_eq!(
        checkpoint["data"]["message"]["source"]["kind"],
        "compaction"
    );
    assert_eq!(log[start + 3]["data"]["outcome"], "completed");
    // The next request starts a new series (L-1b) and carries only head + checkpoint + new input.
    let header = log[start..]
        .iter()
        .find(|e| e["type"] == "request/header")
        .expect("a header after compaction");
    assert!(
        header["data"]["reason"] == "series" || header["data"]["startsSeries"] == true,
        "{header}"
    );
    let reqs = env.requests();
    assert_eq!(reqs.len(), 4, "two turns, the summarizer, the third turn");
    let summarizer = &reqs[2];
    let last_msg = messages(summarizer).last().unwrap().to_string();
    assert!(
        last_msg.contains("Summarize the conversation"),
        "{last_msg}"
    );
    let after = &reqs[3];
    let text = after["rawBody"].as_str().unwrap();
    assert!(text.contains("Summary of the earlier conversation"));
    assert!(
        !text.contains("Second question"),
        "shadowed region is gone from the request"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_summary_leaves_the_history_untouched() {
    let env = Env::new(SimConfig::default()).await;
    env.sim
        .push_reply(sim::ScriptedReply::text("First answer."));
    env.sim
        .push_reply(sim::ScriptedReply::fault(sim::Fault::HttpError {
            status: 400,
            message: "summary refused".into(),
            retry_after: None,
        }));
    let cfg = env.config("");
    let out = env.exec_ok(&cfg, "First\n/compact\nNext\n", &[]).await;
    assert!(stderr(&out).contains("summary refused"), "{}", stderr(&out));
    let log = env.log();
    let end = log.iter().find(|e| e["type"] == "compaction/end").unwrap();
    assert_eq!(end["data"]["outcome"], "failed");
    assert!(!log.iter().any(|e| e["surfaceOp"]["op"] == "replace"));
    let reqs = env.requests();
    let last = reqs.last().unwrap()["rawBody"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(last.contains("First answer."), "history still sent in full");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn automatic_compaction_above_80_percent_keeps_the_latest_turn() {
    let env = Env::new(SimConfig::default()).await;
    let cfg = env.config(
        r#"
[[providers.ds.models]]
id = "deepseek-flash"
context_window = 900
system_prompt_update = "in-history"
tool_update = "addition-only"
"#,
    );
    let long = "Tell me about the weather in every city you know. ".repeat(40);
    let script = format!("{long}\nAnd the rivers please\n");
    env.exec_ok(&cfg, &script, &[]).await;
    let log = env.log();
    let start = log
        .iter()
        .find(|e| e["type"] == "compaction/start")
        .unwrap_or_else(|| panic!("auto compaction ran: {log:?}"));
    assert_eq!(start["data"]["trigger"], "auto");
    let reqs = env.requests();
    let last = reqs.last().unwrap()["rawBody"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        last.contains("And the rivers please"),
        "latest turn kept verbatim"
    );
    assert!(
        !last.contains("every city you know"),
        "older turn summarized"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approval_ask_is_answered_by_exec_approve_flag() {
    let env = Env::new(SimConfig::default()).await;
    let cfg = env.config(&format!(
        "[tools.command.stamp]\n{STAMP_TOOL}\napproval = \"ask\""
    ));
    env.exec_ok(&cfg, "Please call stamp\n", &[]).await;
    let log = env.log();
    let result = log.iter().find(|e| e["type"] == "tool/result").unwrap();
    assert_eq!(result["data"]["message"]["isError"], true);
    assert!(result["data"]["error"].as_str().unwrap().contains("denied"));
    std::fs::remove_dir_all(env.sessions()).unwrap();
    env.exec_ok(&cfg, "Please call stamp\n", &["--approve", "all"])
        .await;
    let log = env.log();
    let result = log.iter().find(|e| e["type"] == "tool/result").unwrap();
    assert!(result["data"]["message"].get("isError").is_none());
    assert!(result["data"]["message"].to_string().contains("STAMPED"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn system_command_appends_on_capable_routes_and_consolidates_elsewhere() {
    // S-1: in-history prompt route appends a system node; the wire keeps the head prompt.
    let env = Env::new(SimConfig::default()).await;
    let cfg = env.config("");
    env.exec_ok(&cfg, "One\n/system Always answer in haiku.\nTwo\n", &[])
        .await;
    let reqs = env.requests();
    assert!(starts_with_previous(&reqs[0], &reqs[1]));
    assert_eq!(reqs[0]["body"]["system"], reqs[1]["body"]["system"]);
    let sys: Vec<&Value> = messages(&reqs[1])
        .iter()
        .filter(|m| m["role"] == "system")
        .collect();
    assert_eq!(sys.len(), 1);
    assert!(sys[0].to_string().contains("Always answer in haiku."));
    assert!(
        reqs[1]["effectiveSystem"]
            .as_str()
            .unwrap()
            .contains("haiku")
    );
    // L-11: a route without prompt updates consolidates at the head (earlier bytes change).
    let env = Env::new(SimConfig::default()).await;
    let cfg = env.config("");
    env.exec_ok(
        &cfg,
        "One\n/system Always answer in haiku.\nTwo\n",
        &["--model", "ds/deepseek-v4-pro"],
    )
    .await;
    let reqs = env.requests();
    assert!(
        reqs[1]["body"]["system"]
            .as_str()
            .unwrap()
            .contains("haiku")
    );
    assert!(messages(&reqs[1]).iter().all(|m| m["role"] != "system"));
    let log = env.log();
    assert!(
        log.iter()
            .any(|e| e["type"] == "system/message" && e["surfaceOp"]["op"] == "replace")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_switch_mid_session_continues_the_series_and_modes_follow_the_route() {
    let env = Env::new(SimConfig::default()).await;
    let cfg = env.config("");
    let script = "One\n/tool enable word_count\n/model ds/deepseek-v4-pro\nTwo\n/model ds/deepseek-flash\nThree\n";
    env.exec_ok(&cfg, script, &[]).await;
    let log = env.log();
    let contexts: Vec<(&str, Option<&str>)> = log
        .iter()
        .filter(|e| e["type"] == "request/context")
        .map(|e| {
            (
                e["data"]["model"].as_str().unwrap(),
                e["data"]["toolUpdate"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        contexts,
        vec![
            ("deepseek-flash", Some("addition-only")),
            ("deepseek-v4-pro", None),
            ("deepseek-flash", Some("addition-only")),
        ]
    );
    // SPEC §12.4: a route switch alone never starts a series.
    assert!(
        log.iter()
            .filter(|e| e["type"] == "request/header")
            .all(|e| e["data"]["reason"] != "series" && e["data"].get("startsSeries").is_none())
    );
    let reqs = env.requests();
    assert_eq!(reqs[1]["model"], "deepseek-v4-pro");
    assert!(
        messages(&reqs[1]).iter().all(|m| m["role"] != "system"),
        "no modes on v4-pro"
    );
    assert!(
        has_block(&reqs[2], "tool_addition"),
        "flash again: the addition is replayed: {}",
        reqs[2]["rawBody"]
    );
}

/// A message sent while a turn answers is its own turn (§14.5): it waits
/// for the running turn, then runs as the next one, and its request is labelled with its
/// own turn number; the conversation's prefix is kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_sent_during_a_turn_is_its_own_turn_after_it() {
    use deepterm::agent::protocol::AgentEvent;
    let env = Env::new(SimConfig {
        latency: std::time::Duration::from_millis(40),
        ..SimConfig::default()
    })
    .await;
    let mut ui = env.start_interactive(env.config(""));
    ui.submit("First message");
    // Wait until the first reply is streaming, then send another message.
    loop {
        match ui.next_event().await {
            AgentEvent::Stream { .. } => break,
            _ => continue,
        }
    }
    ui.submit("Also consider this");
    let mut queued_seen = false;
    let mut finished = 0;
    while finished < 2 {
        match ui.next_event().await {
            AgentEvent::Queued(n) if n > 0 => queued_seen = true,
            AgentEvent::TurnFinished => finished += 1,
            _ => {}
        }
    }
    ui.shutdown().await;
    assert!(queued_seen, "the UI is told the message is queued");
    let log = env.log();
    let t = types(&log);
    let turns: Vec<u64> = log
        .iter()
        .filter(|e| e["type"] == "turn/start")
        .map(|e| e["data"]["turn"].as_u64().unwrap())
        .collect();
    assert_eq!(turns, vec![1, 2], "{t:?}");
    // Each answer is labelled with its own turn.
    let answered: Vec<(u64, u64)> = log
        .iter()
        .filter(|e| e["type"] == "assistant/message")
        .map(|e| {
            (
                e["data"]["turn"].as_u64().unwrap(),
                e["data"]["step"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(answered, vec![(1, 1), (2, 1)]);
    let second_turn = t.iter().rposition(|x| x == "turn/start").unwrap();
    let first_reply = t.iter().position(|x| x == "assistant/message").unwrap();
    assert!(
        first_reply < second_turn,
        "the second turn starts after the first answer"
    );
    let reqs = env.requests();
    assert!(starts_with_previous(&reqs[0], &reqs[1]));
}

/// A log that ends with a tool call but no result (deepterm stopped while the tool ran)
/// is repaired on the next turn: the call gets an error result, so the provider's
/// pairing rule holds and the session stays usable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unanswered_tool_calls_are_answered_before_the_next_request() {
    let env = Env::new(SimConfig::default()).await;
    let cfg = env.config("");
    env.exec_ok(
        &cfg,
        "/tool enable word_count\nPlease run word_count now\n",
        &[],
    )
    .await;
    // Cut the log right after the tool call, as a crash during the tool would leave it.
    let path = env.log_path();
    let text = std::fs::read_to_string(&path).unwrap();
    let kept: Vec<&str> = text
        .lines()
        .take_while(|l| !l.contains("\"type\":\"tool/result\""))
        .collect();
    assert!(kept.last().unwrap().contains("\"type\":\"tool/call\""));
    std::fs::write(&path, format!("{}\n", kept.join("\n"))).unwrap();
    env.exec_ok(&cfg, "And now?\n", &["--resume", "last"]).await;
    let log = env.log();
    let result = log.iter().find(|e| e["type"] == "tool/result").unwrap();
    assert_eq!(result["data"]["message"]["isError"], true);
    assert!(
        result["data"]["error"]
            .as_str()
            .unwrap()
            .contains("did not finish")
    );
    let reqs = env.requests();
    assert_eq!(reqs.last().unwrap()["status"], 200, "pairing accepted");
}

/// Text queued behind a command keeps its place: it is not pulled into the running turn
/// ahead of the command.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn steering_stops_at_a_queued_command() {
    use deepterm::agent::protocol::AgentEvent;
    let env = Env::new(SimConfig {
        latency: std::time::Duration::from_millis(40),
        ..SimConfig::default()
    })
    .await;
    let mut ui = env.start_interactive(env.config(""));
    ui.submit("First message");
    while !matches!(ui.next_event().await, AgentEvent::Stream { .. }) {}
    ui.submit("/help");
    ui.submit("After help");
    let mut order = Vec::new();
    while order.iter().filter(|x| **x == "turn").count() < 2 {
        match ui.next_event().await {
            AgentEvent::TurnFinished => order.push("turn"),
            AgentEvent::Output(_) => order.push("help"),
            _ => {}
        }
    }
    ui.shutdown().await;
    assert_eq!(order, vec!["turn", "help", "turn"]);
    let log = env.log();
    let t = types(&log);
    assert_eq!(t.iter().filter(|x| *x == "turn/start").count(), 2);
}
