//! `/status`, `/cost` and `/clear` in `exec` (SPEC §14.5): the first two print to stdout
//! in the interface language; `/clear` has no screen to clear, says so on stderr and
//! changes nothing that is sent.

use deepterm::sim::SimConfig;
use serde_json::Value;

use crate::common;

use common::*;

/// The recorded request bodies, without the thinking signatures (each simulator signs
/// with its own key, so two runs differ there and only there).
fn requests(env: &TestEnv) -> Vec<Value> {
    fn unsign(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("signature");
                m.values_mut().for_each(unsign);
            }
            Value::Array(a) => a.iter_mut().for_each(unsign),
            _ => {}
        }
    }
    env.sim
        .requests()
        .into_iter()
        .map(|mut r| {
            unsign(&mut r.body);
            r.body
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_and_cost_print_the_session_to_stdout_in_both_languages() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""));
    let out = env
        .exec_ok(
            &cfg,
            "/cost\nHello\n/status\n/cost\n/lang zh\n/status\n/cost\n",
            &[],
        )
        .await;
    let text = stdout(&out);
    assert!(text.contains("Session cost\nNo requests yet."), "{text}");
    for want in [
        "Status",
        "Route: ",
        "Workspace: ",
        "Session: ",
        "Tokens: ",
        "Cache hit: ",
    ] {
        assert!(text.contains(want), "{want:?} in {text}");
    }
    assert!(text.contains("Total: "), "{text}");
    for want in [
        "状态",
        "路由：",
        "工作区：",
        "会话：",
        "缓存命中：",
        "会话费用",
        "合计：",
    ] {
        assert!(text.contains(want), "{want:?} in {text}");
    }
    // The per-route line carries the tokens the simulator reported.
    let route_line = text
        .lines()
        .find(|l| l.contains(" input, ") && l.contains(" output · "))
        .unwrap_or_else(|| panic!("a per-route cost line in {text}"));
    assert!(route_line.contains('/'), "{route_line}");
    assert!(
        !stderr(&out).contains("Route: "),
        "output is on stdout only"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clear_in_exec_is_a_notice_and_leaves_the_next_request_unchanged() {
    let plain = TestEnv::new(SimConfig::default()).await;
    let cfg = plain.write_config("config.toml", &routes_config(&plain.sim.base_url(), ""));
    let out = plain.exec(&cfg, "Hello\nAgain\n", &[]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let cleared = TestEnv::new(SimConfig::default()).await;
    let cfg = cleared.write_config("config.toml", &routes_config(&cleared.sim.base_url(), ""));
    let out = cleared.exec(&cfg, "Hello\n/clear\nAgain\n", &[]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing was cleared"),
        "{}",
        stderr(&out)
    );
    assert!(!stdout(&out).contains("nothing was cleared"));
    let (a, b) = (requests(&plain), requests(&cleared));
    assert_eq!(a.len(), 2);
    assert_eq!(a.len(), b.len());
    assert_eq!(
        a[1], b[1],
        "the request after /clear is the one sent without it"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_says_the_sandbox_mode_the_approval_policy_and_the_effort_in_both_languages() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""));
    let out = env
        .exec_ok(
            &cfg,
            "/status\n/mode read-only\n/effort high\n/lang zh\n/status\n",
            &[],
        )
        .await;
    let text = stdout(&out);
    // exec's defaults: workspace-write, policy never, the provider's effort.
    for want in [
        "Sandbox mode: workspace-write; network off",
        "Approval policy: never",
        "Effort: the provider's default",
        // After the switches, in Chinese.
        "沙箱模式：read-only；网络关闭",
        "审批策略：never",
        "思考强度：high",
    ] {
        assert!(text.contains(want), "{want:?} in {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_says_which_routes_need_a_key_that_is_not_set() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""));
    let out = env
        .exec_command(&cfg, "/model\n")
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", env.dir.path())
        .env_remove("DEEPSEEK_API_KEY")
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    // The built-in provider's routes are listed with the variable their key is read from.
    let builtin: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("deepseek/"))
        .collect();
    assert!(!builtin.is_empty(), "{text}");
    for l in &builtin {
        assert!(l.contains("(needs a key: set DEEPSEEK_API_KEY)"), "{l}");
    }
    // A route whose key is set says nothing of the kind.
    let own = text
        .lines()
        .find(|l| l.contains("(current)"))
        .unwrap_or_else(|| panic!("the current route in {text}"));
    assert!(!own.contains("needs a key"), "{own}");
}
