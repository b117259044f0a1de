//! A change that costs the cached prefix is announced first (§14.5, decision 0091): one
//! notice, on the routes where the projection rewrites the prefix only (`tool_removal =
//! "rewrite"`, the opt-out), and with the default a removal is said to cost nothing, truly
//! (§15.1). `deepterm exec` against the simulator.

use deepterm::sim::SimConfig;
use serde_json::Value;

use crate::common::*;

/// `(total input, cache read)` of every answered request, in order.
fn usages(log: &[Value]) -> Vec<(u64, u64)> {
    log.iter()
        .filter(|e| e["type"] == "assistant/message")
        .map(|e| {
            let u = &e["data"]["usage"];
            let input = u["inputTokens"].as_u64().unwrap();
            let cached = u["cacheReadTokens"].as_u64().unwrap();
            (input + cached, cached)
        })
        .collect()
}

/// Several lines of history, so the prefix is worth many cache units.
const HISTORY: &str = "Please remember this text for later: the quick brown fox jumps over \
    the lazy dog, again and again, while the cache keeps every byte of it warm.";

async fn run(env: &TestEnv, cfg: &std::path::Path, middle: &str) -> (String, Vec<(u64, u64)>) {
    let script = format!("{HISTORY}\n{HISTORY}\n{middle}\nAnd now?\n");
    let out = env.exec_ok(cfg, &script, &[]).await;
    (stderr(&out), usages(&env.log()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disabling_a_tool_with_rewrite_on_an_addition_only_route_warns_first_and_costs_the_prefix()
{
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env
        .config_builder()
        .model_entry("id = \"deepseek-flash\"\ntool_removal = \"rewrite\"")
        .write(env.dir.path());
    let (err, u) = run(&env, &cfg, "/tool disable grep").await;
    assert!(
        err.contains(
            "Cache: removing grep on ds/deepseek-flash rewrites the history, so the next \
             request re-sends about"
        ),
        "{err}"
    );
    assert!(err.contains("remove tool_removal = \"rewrite\""), "{err}");
    let warned = err.find("Cache: removing").unwrap();
    let done = err
        .find("Tool disabled: grep")
        .expect("the change still happens");
    assert!(warned < done, "the notice comes first: {err}");
    // The notice told the truth: the next request read far less than the prefix.
    let (prev_input, _) = u[1];
    let (_, cached) = u[2];
    assert!(cached + 64 < prev_input, "{u:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disabling_a_tool_with_the_default_config_says_it_costs_nothing_and_keeps_the_prefix() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.config_builder().write(env.dir.path());
    let (err, u) = run(&env, &cfg, "/tool disable grep").await;
    assert!(
        err.contains("Cache: removing grep on ds/deepseek-flash keeps the cached prefix"),
        "{err}"
    );
    assert!(err.contains("Tool disabled: grep"), "{err}");
    let (prev_input, _) = u[1];
    let (_, cached) = u[2];
    assert!(cached + 64 >= prev_input, "prefix kept: {u:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_route_without_tool_updates_warns_that_the_tool_list_changes_only_with_rewrite() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = ConfigBuilder::with_provider("oa", "openai-chat", &env.sim.base_url())
        .write(env.dir.path());
    // The default: the tool bridge keeps the tool list, and the notice says so.
    let (err, u) = run(&env, &cfg, "/tool disable grep").await;
    assert!(
        err.contains("Cache: removing grep on oa/deepseek-flash keeps the cached prefix"),
        "{err}"
    );
    let (prev_input, _) = u[1];
    let (_, cached) = u[2];
    assert!(cached + 64 >= prev_input, "prefix kept: {u:?}");
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = ConfigBuilder::with_provider("oa", "openai-chat", &env.sim.base_url())
        .model_entry("id = \"deepseek-flash\"\ntool_removal = \"rewrite\"")
        .write(env.dir.path());
    let (err, _) = run(&env, &cfg, "/tool disable grep").await;
    assert!(
        err.contains("Cache: oa/deepseek-flash declares every tool up front, so removing grep"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn switching_the_model_warns_that_its_cache_is_its_own() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.config_builder().write(env.dir.path());
    let (err, _) = run(&env, &cfg, "/model ds/deepseek-v4-pro").await;
    assert!(
        err.contains(
            "Cache: each model has its own cache, so after switching to ds/deepseek-v4-pro"
        ),
        "{err}"
    );
    assert!(
        err.contains("Route switched to ds/deepseek-v4-pro"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_that_keep_the_prefix_or_come_before_any_request_are_not_warned_about() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.config_builder().write(env.dir.path());
    // The mode switch is an appended note; nothing is cached before the
    // first answer.
    let script = "/tool disable grep\n/model ds/deepseek-v4-pro\nHello\n\
        /mode read-only\nAgain\n/model ds/deepseek-v4-pro\n";
    let out = env.exec_ok(&cfg, script, &[]).await;
    let err = stderr(&out);
    assert!(!err.contains("Cache:"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_warning_reads_in_chinese() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env
        .config_builder()
        .model_entry("id = \"deepseek-flash\"\ntool_removal = \"rewrite\"")
        .write(env.dir.path());
    let script = format!("{HISTORY}\n/tool disable grep\n");
    let mut cmd = env.exec_command_in("zh-CN", &cfg, script);
    cmd.env(KEY_VAR, TEST_KEY).env("HOME", env.dir.path());
    let out = cmd.output().await.unwrap();
    let err = stderr(&out);
    assert!(
        err.contains("缓存：在 ds/deepseek-flash 上移除 grep 会改写历史"),
        "{err}"
    );
    assert!(err.contains("tool_removal = \"rewrite\""), "{err}");
}
