//! What a user reads about the cache-first fallbacks (SPEC §15.1), from the log of a real
//! `deepterm exec` run against the simulator: after a provider refused a tool-change block,
//! the Trajectory has a row with the provider's words and the inspector's why-line names
//! the downgrade; a call through the tool bridge shows under the real tool's name with the
//! bridge noted, in the Trajectory and in the inspector, in both languages.

use std::sync::Arc;

use deepterm::agent::inspect::{inspect_past, reconstruct, render_text, request_refs};
use deepterm::i18n::{Locale, Localizer};
use deepterm::llm::types::ProviderKind;
use deepterm::session::event::Event;
use deepterm::sim::{ScriptedReply, SimConfig};
use deepterm::ui::request_viewer::RequestViewer;
use deepterm::ui::trajectory::{Row, Trajectory};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use serde_json::json;

use crate::common::*;

/// A conversation with a tool enabled, then disabled: the in-history route's provider
/// refuses the removal block once.
const CHURN: &str = "Please remember: the quick brown fox jumps over the lazy dog.\n\
    /tool enable word_count\nSecond\n/tool disable word_count\nThird\n";

fn config(env: &TestEnv) -> std::path::PathBuf {
    env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""))
}

fn kind_of(provider: &str) -> Option<ProviderKind> {
    match provider {
        "ds" | "dsih" => Some(ProviderKind::DeepseekMessages),
        "oai" => Some(ProviderKind::OpenaiChat),
        _ => None,
    }
}

fn trajectory(events: &[Arc<Event>]) -> Trajectory {
    let mut t = Trajectory::new();
    for e in events {
        t.apply(e);
    }
    t
}

fn text(row: &Row, l: Localizer, width: usize) -> String {
    Trajectory::render_row(row, l, width)
        .spans
        .iter()
        .map(|s| s.content.as_ref())
        .collect()
}

const LOCALES: [Locale; 2] = [Locale::EnUs, Locale::ZhCn];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_refused_removal_the_trajectory_and_the_inspector_say_why_in_both_languages() {
    let env = TestEnv::new(SimConfig::default()).await;
    env.exec_ok(&config(&env), CHURN, &["--model", "dsih/deepseek-flash"])
        .await;
    let events = env.events();
    let traj = trajectory(&events);
    let rows: Vec<&Row> = traj
        .rows()
        .iter()
        .filter(|r| matches!(r, Row::Downgrade { .. }))
        .collect();
    assert_eq!(rows.len(), 1, "one downgrade row");
    let en = text(rows[0], Localizer::new(Locale::EnUs), 200);
    assert!(
        en.contains("dsih/deepseek-flash refused tool_removal: tool changes go as text"),
        "{en}"
    );
    assert!(en.contains("`tool_removal` is not supported"), "{en}");
    let zh = text(rows[0], Localizer::new(Locale::ZhCn), 200);
    assert!(
        zh.contains("dsih/deepseek-flash 拒绝了 tool_removal：此后工具变更以文本发送"),
        "{zh}"
    );
    assert!(zh.contains("`tool_removal` is not supported"), "{zh}");
    // The row stands between the refused request and its retry.
    let pos = |pred: &dyn Fn(&Row) -> bool| traj.rows().iter().position(pred).unwrap();
    let refs = request_refs(&events);
    let refused = refs.iter().find(|r| r.failed).expect("the refused attempt");
    let retry = refused.n + 1;
    let at = pos(&|r| matches!(r, Row::Downgrade { .. }));
    assert!(pos(&|r| r.request_number() == Some(refused.n)) < at);
    assert!(at < pos(&|r| r.request_number() == Some(retry)));

    // The inspector on the retry: the why-line names the downgrade (not a bare "route
    // changed"), and the request was appended to what the refused one sent.
    let data = inspect_past(&events, retry, &kind_of).unwrap();
    let en = render_text(&data, Localizer::new(Locale::EnUs)).join("\n");
    assert!(
        en.contains("the provider refused a tool-change block, so this route sends tool changes as text from here"),
        "{en}"
    );
    assert!(!en.contains("route settings changed"), "{en}");
    let zh = render_text(&data, Localizer::new(Locale::ZhCn)).join("\n");
    assert!(zh.contains("服务商拒绝了工具变更块"), "{zh}");
    // The refused request's body differs from the retry only at the end: the removal
    // block became a text note.
    let prev = data.previous.as_ref().unwrap();
    let last = prev.messages.len() - 1;
    assert!(
        data.divergence.message.is_some_and(|m| m >= last),
        "{:?}",
        data.divergence
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridged_call_shows_under_the_real_tool_in_the_trajectory_and_the_inspector() {
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
    let events = env.events();
    let traj = trajectory(&events);
    let tool = traj
        .rows()
        .iter()
        .find(|r| matches!(r, Row::Tool { .. }))
        .expect("a tool row");
    let en = text(tool, Localizer::new(Locale::EnUs), 80);
    assert!(en.contains("word_count (via call_tool)"), "{en}");
    let zh = text(tool, Localizer::new(Locale::ZhCn), 80);
    assert!(zh.contains("word_count （经 call_tool 调用）"), "{zh}");

    // The inspector's summary of the request after the call names both, and the request
    // viewer's sections show the call under the real tool, in both languages.
    let data = inspect_past(&events, 3, &kind_of).unwrap();
    assert!(
        data.selected
            .messages
            .iter()
            .any(|m| m.contains("tool_call call_tool(word_count)")),
        "{:?}",
        data.selected.messages
    );
    let rebuilt = reconstruct(&events, &[3], &kind_of).unwrap();
    let body = rebuilt[0].wire.body.to_string();
    for (locale, want) in LOCALES.into_iter().zip([
        "tool call word_count (via call_tool)",
        "工具调用 word_count （经 call_tool 调用）",
    ]) {
        let l = Localizer::new(locale);
        let viewer = RequestViewer::new(&body);
        let area = Rect::new(0, 0, 120, 60);
        let mut buf = Buffer::empty(area);
        viewer.render(area, &mut buf, &l);
        let shown = viewer.copy_text();
        assert!(shown.contains(want), "{shown}");
    }
}
