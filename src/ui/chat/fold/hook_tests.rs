//! Hook runs in the fold (decision 0105): a tool hook's `hook/run` is a line in its call's
//! tool card, live and on a resumed log alike; any other hook's is a notice on resume.

use super::*;
use crate::i18n::{Locale, Localizer};
use crate::session::event::{Message, Role, Source, ToolCallData, ToolResultData};
use crate::session::hook_event::{HookRunData, HookRunOutcome};
use crate::ui::model::{RenderCtx, ToolCardMode};

fn event(kind: EventKind) -> Event {
    Event {
        kind,
        seq: 1,
        time: String::new(),
        surface_op: None,
        source_event_seqs: None,
    }
}

fn call(id: &str, name: &str, arguments: &str) -> Event {
    event(EventKind::ToolCall(ToolCallData {
        turn: 1,
        step: 1,
        call_id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
        bridged: None,
    }))
}

fn result(id: &str, text: &str, error: bool) -> Event {
    let mut message = Message::text(Role::Tool, text, Source::kind("tool"));
    message.tool_call_id = Some(id.into());
    if error {
        message.is_error = Some(true);
    }
    event(EventKind::ToolResult(ToolResultData {
        turn: 1,
        step: 1,
        message,
        error: error.then(|| text.to_string()),
        sandbox_retry: None,
    }))
}

fn hook(event_key: &str, call: Option<&str>, outcome: HookRunOutcome) -> HookRunData {
    HookRunData {
        event: event_key.into(),
        command: vec!["/home/u/.claude/hooks/guard.sh".into(), "--strict".into()],
        turn: Some(1),
        tool_call_id: call.map(str::to_string),
        tool_name: call.map(|_| "shell".to_string()),
        outcome,
        exit_code: Some(0),
        duration_ms: 12,
        stderr: String::new(),
        reason: None,
        timeout_secs: None,
    }
}

fn run(h: HookRunData) -> Event {
    event(EventKind::HookRun(h))
}

fn text(t: &mut Transcript, i: usize, locale: Locale) -> String {
    let ctx = RenderCtx {
        l: Localizer::new(locale),
        cards: ToolCardMode::Collapsed,
        // A switch of language is a new render generation (rows are cached per one).
        generation: u64::from(locale == Locale::ZhCn),
    };
    let rows = t.rows(i, 120, &ctx);
    rows.iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A `grep` call refused by one `pre_tool_use` hook after another let it through, then
/// a `shell` call a `post_tool_use` hook answered and one that timed out.
fn session() -> Vec<Event> {
    let mut blocked = hook("pre_tool_use", Some("c1"), HookRunOutcome::Blocked);
    blocked.exit_code = Some(2);
    blocked.stderr = "no grep in\nthis repository".into();
    blocked.reason = Some(blocked.stderr.clone());
    let mut feedback = hook("post_tool_use", Some("c2"), HookRunOutcome::Blocked);
    feedback.exit_code = Some(2);
    feedback.reason = Some("lint: 2 warnings".into());
    let mut slow = hook("post_tool_use", Some("c2"), HookRunOutcome::TimedOut);
    slow.exit_code = None;
    slow.duration_ms = 5_010;
    slow.timeout_secs = Some(5);
    vec![
        call("c1", "grep", r#"{"pattern":"x"}"#),
        run(hook("pre_tool_use", Some("c1"), HookRunOutcome::Continued)),
        run(blocked),
        result(
            "c1",
            "a pre_tool_use hook refused this call: no grep in this repository",
            true,
        ),
        call("c2", "shell", r#"{"command":"ls"}"#),
        result("c2", "exit 0\nsrc", false),
        run(feedback),
        run(slow),
    ]
}

#[test]
fn a_tool_hooks_runs_are_lines_in_the_calls_card_not_notices() {
    let mut t = Transcript::new();
    for e in session() {
        t.apply(&e);
    }
    assert_eq!(t.len(), 2, "two cards and nothing else");
    let grep = text(&mut t, 0, Locale::EnUs);
    let lines: Vec<&str> = grep.lines().collect();
    assert!(
        lines.contains(&"  hook pre_tool_use guard.sh --strict: ok (12 ms)"),
        "{grep}"
    );
    assert!(
        lines.contains(
            &"  hook pre_tool_use guard.sh --strict: blocked: no grep in this repository"
        ),
        "{grep}"
    );
    let shell = text(&mut t, 1, Locale::EnUs);
    assert!(
        shell.contains("hook post_tool_use guard.sh --strict: told the model: lint: 2 warnings"),
        "{shell}"
    );
    assert!(
        shell.contains("hook post_tool_use guard.sh --strict: timed out after 5 s"),
        "{shell}"
    );
    let zh = text(&mut t, 0, Locale::ZhCn);
    assert!(
        zh.contains(
            "钩子 pre_tool_use guard.sh --strict：已拦截，原因：no grep in this repository"
        ),
        "{zh}"
    );
}

#[test]
fn a_resumed_log_shows_the_same_cards_as_the_live_session() {
    let mut live = Transcript::new();
    for e in session() {
        live.apply(&e);
    }
    let mut resumed = Transcript::new();
    resumed.set_replaying(true);
    for e in session() {
        resumed.apply(&e);
    }
    resumed.set_replaying(false);
    assert_eq!(resumed.len(), live.len());
    for i in 0..live.len() {
        for locale in [Locale::EnUs, Locale::ZhCn] {
            assert_eq!(
                text(&mut resumed, i, locale),
                text(&mut live, i, locale),
                "cell {i}"
            );
        }
    }
}

#[test]
fn a_prompt_hook_is_a_notice_on_resume_which_the_live_loop_already_showed() {
    let mut h = hook("user_prompt_submit", None, HookRunOutcome::Blocked);
    h.exit_code = Some(2);
    h.reason = Some("no secrets".into());
    let mut live = Transcript::new();
    live.apply(&run(h.clone()));
    assert!(live.is_empty(), "live, the loop's notice says it");
    let mut resumed = Transcript::new();
    resumed.set_replaying(true);
    resumed.apply(&run(h));
    assert_eq!(resumed.len(), 1);
    let said = text(&mut resumed, 0, Locale::EnUs);
    assert!(
        said.contains("blocked the prompt") && said.contains("no secrets"),
        "{said}"
    );
}

#[test]
fn the_cards_rows_at_80_columns_name_each_hook_and_how_it_ended_in_both_locales() {
    let mut t = Transcript::new();
    for e in session() {
        t.apply(&e);
    }
    let want = [
        (
            Locale::EnUs,
            [
                "Tool / grep  failed",
                "  {\"pattern\":\"x\"}",
                "  │ a pre_tool_use hook refused this call: no grep in this repository",
                "  hook pre_tool_use guard.sh --strict: ok (12 ms)",
                "  hook pre_tool_use guard.sh --strict: blocked: no grep in this repository",
            ],
            "  hook post_tool_use guard.sh --strict: timed out after 5 s",
        ),
        (
            Locale::ZhCn,
            [
                "工具 / grep  失败",
                "  {\"pattern\":\"x\"}",
                // The refusal deepterm wrote for the model is shown in Chinese.
                "  │ pre_tool_use 钩子拒绝了这次调用：no grep in this repository",
                "  钩子 pre_tool_use guard.sh --strict：通过（12 毫秒）",
                "  钩子 pre_tool_use guard.sh --strict：已拦截，原因：no grep in this repository",
            ],
            "  钩子 post_tool_use guard.sh --strict：超时，5 秒后已终止",
        ),
    ];
    for (generation, (locale, grep, timed_out)) in want.into_iter().enumerate() {
        let ctx = RenderCtx {
            l: Localizer::new(locale),
            cards: ToolCardMode::Collapsed,
            generation: generation as u64,
        };
        let rows = |t: &mut Transcript, i| -> Vec<String> {
            t.rows(i, 80, &ctx)
                .iter()
                .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
                .collect()
        };
        let card = rows(&mut t, 0);
        assert_eq!(card[..grep.len()], grep, "{locale:?}");
        let shell = rows(&mut t, 1);
        assert!(shell.iter().any(|r| r == timed_out), "{shell:?}");
    }
}
