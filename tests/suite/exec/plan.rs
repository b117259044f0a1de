//! The `update_plan` tool through `exec` against the simulator (SPEC §15.3): the model's
//! plan is printed as a checklist, `--json` carries it as a `plan_updated` event, a plan
//! with two steps in progress is refused as a tool error, and the tool is declared from
//! the first request so a plan never changes the tool list.

use crate::common::*;

use deepterm::sim::{ScriptedReply, SimConfig};
use serde_json::{Value, json};

fn three_steps() -> Value {
    json!({
        "explanation": "Parser first",
        "plan": [
            {"step": "Read the parser", "status": "completed"},
            {"step": "Fix the bug", "status": "in_progress"},
            {"step": "Run the tests", "status": "pending"}
        ]
    })
}

async fn run(env: &TestEnv, script: &str, extra: &[&str]) -> std::process::Output {
    let cfg = ConfigBuilder::new(&env.sim.base_url()).write(env.dir.path());
    let ws = env.dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let out = env
        .exec_command(&cfg, script)
        .args(extra)
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", env.dir.path())
        .current_dir(&ws)
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}\n{}", stderr(&out), stdout(&out));
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_prints_the_models_plan_as_a_checklist_and_the_tool_list_never_changes() {
    let env = TestEnv::new(SimConfig::default()).await;
    env.sim
        .push_reply(ScriptedReply::tool_call("update_plan", three_steps()));
    env.sim.push_reply(ScriptedReply::text("Planned."));
    let out = run(&env, "plan the fix\n", &[]).await;
    let text = stdout(&out);
    assert!(
        text.contains("Plan · 1 of 3 done\n  Parser first\n  ☑ Read the parser\n  ▸ Fix the bug\n  ☐ Run the tests\n"),
        "{text}"
    );
    let reqs = env.requests();
    assert_eq!(reqs.len(), 2);
    // Declared from the first request, and the same list after the plan.
    assert!(tool_names(&reqs[0]).contains(&"update_plan".to_string()));
    assert_eq!(tool_names(&reqs[0]), tool_names(&reqs[1]));
    assert_eq!(reqs[0]["body"]["tools"], reqs[1]["body"]["tools"]);
    // The model reads a short result.
    let last = messages(&reqs[1]).last().unwrap().to_string();
    assert!(last.contains("Plan updated"), "{last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_json_carries_the_plan_as_an_event_after_its_call_is_logged() {
    let env = TestEnv::new(SimConfig::default()).await;
    env.sim
        .push_reply(ScriptedReply::tool_call("update_plan", three_steps()));
    env.sim.push_reply(ScriptedReply::text("Planned."));
    let out = run(&env, "plan the fix\n", &["--json"]).await;
    let events: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let at = events
        .iter()
        .position(|e| e["type"] == "plan_updated")
        .expect("a plan_updated event");
    let plan = &events[at]["data"];
    assert_eq!(plan["explanation"], "Parser first");
    assert_eq!(
        plan["plan"][1],
        json!({"step": "Fix the bug", "status": "in_progress"})
    );
    let result = events
        .iter()
        .position(|e| e["type"] == "committed" && e["data"]["type"] == "tool/result")
        .unwrap();
    assert!(result < at, "the event follows the logged result");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_with_two_steps_in_progress_is_refused_and_nothing_is_shown() {
    let env = TestEnv::new(SimConfig::default()).await;
    env.sim.push_reply(ScriptedReply::tool_call(
        "update_plan",
        json!({"plan": [
            {"step": "a", "status": "in_progress"},
            {"step": "b", "status": "in_progress"}
        ]}),
    ));
    env.sim.push_reply(ScriptedReply::text("Oops."));
    let out = run(&env, "plan\n", &[]).await;
    assert!(!stdout(&out).contains("Plan ·"), "{}", stdout(&out));
    let reqs = env.requests();
    let last = messages(&reqs[1]).last().unwrap().to_string();
    assert!(
        last.contains("at most one step can be in_progress"),
        "{last}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_plan_mode_the_model_is_asked_for_a_plan_and_an_edit_is_refused() {
    let env = TestEnv::new(SimConfig::default()).await;
    env.sim.push_reply(
        ScriptedReply::tool_call("update_plan", three_steps())
            .with_tool_call("write_file", json!({"path": "made.txt", "content": "x\n"})),
    );
    env.sim.push_reply(ScriptedReply::text("Here is the plan."));
    let out = run(&env, "/mode plan\nplan the fix\n", &["--approve", "all"]).await;
    assert!(
        stdout(&out).contains("Plan · 1 of 3 done"),
        "{}",
        stdout(&out)
    );
    assert!(
        !env.dir.path().join("ws/made.txt").exists(),
        "plan mode changed a file"
    );
    let reqs = env.requests();
    let first = reqs[0]["body"].to_string();
    assert!(first.contains("The user switched to plan mode"), "{first}");
    let after = messages(&reqs[1]).last().unwrap().to_string();
    assert!(
        after.contains("read-only"),
        "the edit's refusal names the mode: {after}"
    );
}
