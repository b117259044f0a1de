//! `deepterm exec --json` (SPEC §13): one protocol event per line on
//! stdout, in the typed protocol's serde form, against the simulator over loopback.

use deepterm::agent::protocol::AgentEvent;
use deepterm::i18n::{Locale, Localizer};
use deepterm::sim::SimConfig;
use serde_json::Value;

use crate::common;

use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_json_prints_every_event_as_one_json_line() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""));
    let out = env.exec_ok(&cfg, "Hello there\n/help\n", &["--json"]).await;
    let text = stdout(&out);
    assert!(!text.contains(TEST_KEY), "the key never reaches stdout");
    let mut events = Vec::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        // Each line is an event of the typed protocol.
        serde_json::from_value::<AgentEvent>(v.clone()).unwrap_or_else(|e| panic!("{e}: {line}"));
        events.push(v);
    }
    let committed = |kind: &str| {
        events
            .iter()
            .position(|e| e["type"] == "committed" && e["data"]["type"] == kind)
    };
    let user = committed("user/message").expect("the user message is committed");
    assert_eq!(
        events[user]["data"]["data"]["message"]["content"][0]["text"],
        "Hello there"
    );
    let deltas: String = events
        .iter()
        .filter(|e| e["type"] == "stream" && e["data"]["event"]["type"] == "text_delta")
        .map(|e| e["data"]["event"]["data"].as_str().unwrap_or(""))
        .collect();
    assert!(!deltas.is_empty(), "stream deltas are printed");
    let assistant = committed("assistant/message").expect("the reply is committed");
    let reply: String = events[assistant]["data"]["data"]["message"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "text")
        .map(|b| b["text"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(reply, deltas, "the deltas add up to the final message");
    let finished = events
        .iter()
        .position(|e| e["type"] == "turn_finished")
        .expect("TurnFinished");
    assert!(user < assistant && assistant < finished);
    // Plain answers are not printed besides the events.
    assert!(text.lines().all(|l| l.starts_with('{')));
    // Output lines carry their key, arguments and the text in the current locale.
    let help = events
        .iter()
        .find(|e| e["type"] == "output")
        .expect("/help output");
    let l = Localizer::new(Locale::EnUs);
    assert_eq!(help["data"][0]["key"], "cmd-help-title");
    assert_eq!(help["data"][0]["text"], l.tr("cmd-help-title"));
    assert!(
        help["data"][1]["text"]
            .as_str()
            .unwrap()
            .contains(&l.tr("cmd-help"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_without_json_prints_plain_answers() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""));
    let out = env.exec_ok(&cfg, "Hello there\n", &[]).await;
    assert!(!stdout(&out).lines().any(|l| l.starts_with('{')));
}

#[test]
fn exec_help_documents_json_in_both_locales() {
    for locale in Locale::ALL {
        let l = Localizer::new(locale);
        let mut cmd = deepterm::cli::command(l);
        let exec = cmd
            .find_subcommand_mut("exec")
            .expect("exec subcommand")
            .render_help()
            .to_string();
        assert!(exec.contains("--json"), "{exec}");
        let first_words: String = l.tr("cli-exec-json").chars().take(8).collect();
        assert!(exec.contains(&first_words), "{exec}");
    }
}
