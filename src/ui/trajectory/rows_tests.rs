//! Tests of the Trajectory pane: its rows, their columns and how they draw.
use super::rows::*;
use super::*;
use crate::agent::inspect::DiffReason;
use crate::agent::protocol::AgentEvent;
use crate::i18n::Locale;
use crate::i18n::Localizer;
use crate::session::event::{EventKind, ToolUpdateMode, Usage};
use crate::session::event::{Message, Role, Source, StepMessage};
use crate::ui::sample::Script;
use crate::ui::scroll::Scroll;
use crate::ui::text::str_width;
use crate::ui::theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

#[test]
fn hit_percent_is_cache_read_over_all_input() {
    let u = Usage {
        input_tokens: 200,
        cache_read_tokens: 800,
        output_tokens: 50,
    };
    assert_eq!(hit_percent(&u), Some(80));
    assert_eq!(hit_percent(&Usage::default()), None);
    assert_eq!(tokens(12_345), "12.3k");
}

fn usage(input: u64, cached: u64) -> Usage {
    Usage {
        input_tokens: input,
        cache_read_tokens: cached,
        output_tokens: 100,
    }
}

fn text(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

/// The trajectory built from a script's committed events.
fn fold(script: &Script) -> Trajectory {
    let mut t = Trajectory::new();
    for e in &script.events {
        if let AgentEvent::Committed(ev) = e {
            t.apply(ev);
        }
    }
    t
}

fn breaks(t: &Trajectory) -> Vec<(usize, BreakKind)> {
    t.rows()
        .iter()
        .filter_map(|r| match r {
            Row::Request {
                n,
                cache_break: Some(b),
                ..
            } => Some((*n, b.kind)),
            _ => None,
        })
        .collect()
}

#[test]
fn hit_bands_colour_a_miss_unlike_a_hit() {
    assert_eq!(theme::hit_band(100), theme::success());
    assert_eq!(theme::hit_band(90), theme::success());
    assert_eq!(theme::hit_band(89), theme::warn());
    assert_eq!(theme::hit_band(50), theme::warn());
    assert_eq!(theme::hit_band(49), theme::error());
    assert_eq!(theme::hit_band(0), theme::error());
    assert_ne!(theme::hit_band(0), theme::hit_band(99));
    // The hit cell of a rendered row carries the band's colour.
    let l = Localizer::new(Locale::EnUs);
    let row = |cached| Row::Request {
        n: 2,
        turn: 1,
        step: 1,
        route: String::new(),
        mode: None,
        ttft_ms: Some(10),
        duration_ms: Some(900),
        usage: Some(usage(1000 - cached, cached)),
        cache_break: None,
        cost: None,
    };
    for (cached, style) in [
        (990, theme::success()),
        (700, theme::warn()),
        (0, theme::error()),
    ] {
        let line = Trajectory::render_row(&row(cached), l, 60);
        let hit = line.spans.last().expect("hit cell");
        assert!(hit.content.trim().ends_with('%'), "{}", hit.content);
        assert_eq!(hit.style, style, "{}", hit.content);
    }
}

#[test]
fn columns_drop_from_the_least_important_and_keep_hit_last() {
    use Column::*;
    // Pane widths: 120 and 100 columns split in two give 59 and 49.
    for w in [59, 60, 80, 100, 120] {
        assert_eq!(columns_for(w), Column::ALL.to_vec(), "{w}");
    }
    // The cost goes first (the footer shows the session's total).
    assert_eq!(
        columns_for(49),
        vec![Number, Step, Ttft, Total, In, Cached, Out, Hit]
    );
    assert_eq!(columns_for(40), vec![Number, Step, In, Cached, Out, Hit]);
    assert_eq!(columns_for(30), vec![Number, In, Cached, Hit]);
    assert_eq!(columns_for(20), vec![Number, Cached, Hit]);
    assert_eq!(columns_for(12), vec![Number, Hit]);
    assert_eq!(columns_for(8), vec![Hit]);
    // A request row fits its width and ends with the hit % at every width.
    let l = Localizer::new(Locale::EnUs);
    let row = Row::Request {
        n: 12,
        turn: 3,
        step: 2,
        route: String::new(),
        mode: None,
        ttft_ms: Some(1_250),
        duration_ms: Some(12_300),
        usage: Some(usage(1_234, 45_678)),
        cache_break: None,
        cost: None,
    };
    for w in [8, 12, 20, 30, 40, 49, 60, 80, 100, 120] {
        let line = text(&Trajectory::render_row(&row, l, w));
        assert!(str_width(&line) <= w, "{w}: {line}");
        assert!(line.ends_with("97%"), "{w}: {line}");
    }
}

#[test]
fn header_names_the_columns_and_lines_up_with_rows() {
    let row = Row::Request {
        n: 3,
        turn: 1,
        step: 2,
        route: String::new(),
        mode: None,
        ttft_ms: Some(420),
        duration_ms: Some(2_300),
        usage: Some(usage(1_200, 4_800)),
        cache_break: Some(CacheBreak {
            kind: BreakKind::Prompt,
            added: 0,
            removed: 0,
            shared: 6_000,
            cached: 4_800,
        }),
        cost: Some(0.00123),
    };
    let en = Localizer::new(Locale::EnUs);
    let zh = Localizer::new(Locale::ZhCn);
    let h = text(&header_line(en, 60));
    for label in [
        "#", "step", "TTFT", "total", "↑in", "⟳cache", "↓out", "cost", "hit",
    ] {
        assert!(h.contains(label), "{label} in {h}");
    }
    let hz = text(&header_line(zh, 60));
    for label in [
        "轮.步",
        "首字",
        "耗时",
        "↑输入",
        "⟳缓存",
        "↓输出",
        "费用",
        "命中",
    ] {
        assert!(hz.contains(label), "{label} in {hz}");
    }
    for l in [en, zh] {
        for w in [30, 40, 49, 59, 60] {
            let head = text(&header_line(l, w));
            let line = text(&Trajectory::render_row(&row, l, w));
            // Same width, so every right-aligned figure ends under its label.
            assert_eq!(str_width(&head), str_width(&line), "{w}: {head} / {line}");
            // The number starts at the same column in the header and the row.
            assert_eq!(head.find('#'), line.find('#'), "{w}");
        }
    }
    // Every kind of row starts after the same gutter.
    let rows = [
        row.clone(),
        Row::Turn {
            turn: 1,
            prompt: Some("fix the bug".into()),
        },
        Row::Route {
            route: "deepseek/x".into(),
            mode: None,
        },
        Row::Tool {
            call_id: "c".into(),
            name: "grep".into(),
            failed: Some(false),
            bridged: false,
        },
    ];
    for r in &rows {
        let line = text(&Trajectory::render_row(r, en, 60));
        let start = line.len() - line.trim_start_matches([' ', '!']).len();
        assert_eq!(start, GUTTER, "{line}");
    }
}

#[test]
fn turn_row_shows_the_first_words_of_the_prompt() {
    let mut s = Script::new();
    s.route(false).user(
        1,
        "Please look at the\nparser and find why it drops the last token of every long line",
    );
    let t = fold(&s);
    let l = Localizer::new(Locale::EnUs);
    let line = text(&Trajectory::render_row(&t.rows()[1], l, 120));
    assert!(
        line.contains("TURN 1 · Please look at the parser"),
        "{line}"
    );
    assert!(str_width(&line) < 80, "{line}");
}

#[test]
fn empty_pane_shows_a_localized_placeholder() {
    for locale in [Locale::EnUs, Locale::ZhCn] {
        let l = Localizer::new(locale);
        let area = Rect::new(0, 0, 40, 6);
        let mut buf = Buffer::empty(area);
        Trajectory::new().draw(&Scroll::default(), None, l, area, &mut buf);
        let shown: String = (0..6)
            .flat_map(|y| (0..40).map(move |x| (x, y)))
            .map(|(x, y)| buf[(x, y)].symbol().to_string())
            .collect();
        // Wide characters leave a blank continuation cell: compare without spaces.
        let shown = shown.replace(' ', "");
        let first: String = l.tr("tui-traj-empty").chars().take(8).collect();
        assert!(shown.contains(&first.replace(' ', "")), "{shown}");
    }
}

#[test]
fn break_reasons_are_derived_from_the_why_line() {
    let prev = usage(100, 5_900);
    let cold = usage(6_100, 0);
    let tools = |aoo| BreakKind::Tools {
        removal_on_addition_only: aoo,
    };
    let d = |reasons: &[DiffReason], compacted, model| {
        CacheBreak::derive(&prev, &cold, reasons, compacted, model, (22, 6)).map(|b| b.kind)
    };
    assert_eq!(
        d(
            &[
                DiffReason::RemovalOnAdditionOnly,
                DiffReason::ToolAdditionAppended
            ],
            false,
            false
        ),
        Some(tools(true))
    );
    assert_eq!(
        d(&[DiffReason::Consolidation], false, false),
        Some(BreakKind::Prompt)
    );
    assert_eq!(
        d(
            &[
                DiffReason::Consolidation,
                DiffReason::NewSeries,
                DiffReason::RouteChanged
            ],
            false,
            true
        ),
        Some(BreakKind::Model)
    );
    assert_eq!(
        d(&[DiffReason::HistoryAppended], false, false),
        Some(BreakKind::Unexplained)
    );
    assert_eq!(
        d(&[DiffReason::HistoryAppended], true, false),
        Some(BreakKind::Compaction)
    );
    // A warm request (re-read all but less than one cache unit) is no break.
    let warm = usage(150, 5_950);
    assert_eq!(
        CacheBreak::derive(
            &prev,
            &warm,
            &[DiffReason::Consolidation],
            false,
            false,
            (0, 0)
        ),
        None
    );
    // The reason names the counts, in both languages.
    let b = CacheBreak::derive(
        &prev,
        &cold,
        &[DiffReason::RemovalOnAdditionOnly],
        false,
        false,
        (22, 6),
    )
    .expect("break");
    let en = b.reason(Localizer::new(Locale::EnUs));
    assert!(en.contains("22 added, 6 removed"), "{en}");
    assert!(en.contains("addition-only"), "{en}");
    let zh = b.reason(Localizer::new(Locale::ZhCn));
    assert!(zh.contains("新增 22 个、移除 6 个"), "{zh}");
    let one = CacheBreak {
        removed: 1,
        added: 0,
        ..b
    }
    .reason(Localizer::new(Locale::EnUs));
    assert!(one.contains("(1 removed)"), "{one}");
}

#[test]
fn trajectory_marks_the_request_that_lost_the_cache() {
    let mut s = Script::new();
    s.route(false)
        .context("deepseek-flash", Some(ToolUpdateMode::AdditionOnly))
        .user(1, "one")
        .assistant_usage(1, 1, "a", usage(6_000, 0))
        .user(2, "two")
        .assistant_usage(2, 1, "b", usage(64, 6_100));
    // A removal on the addition-only route: the next request re-reads nothing.
    s.tools_changed(3, &["fetch"], &["grep"])
        .user(3, "three")
        .assistant_usage(3, 1, "c", usage(6_300, 0));
    // A prompt change.
    s.commit(EventKind::SystemMessage(StepMessage {
        turn: 4,
        step: 1,
        message: Message::text(Role::System, "terse", Source::kind("system-prompt")),
    }))
    .user(4, "four")
    .assistant_usage(4, 1, "d", usage(6_500, 0));
    // A model switch.
    s.context("deepseek-v4-pro", None)
        .user(5, "five")
        .assistant_usage(5, 1, "e", usage(6_700, 0));
    let t = fold(&s);
    assert_eq!(
        breaks(&t),
        vec![
            (
                3,
                BreakKind::Tools {
                    removal_on_addition_only: true
                }
            ),
            (4, BreakKind::Prompt),
            (5, BreakKind::Model),
        ]
    );
    // Each break has its reason on the row below, and the row is styled unlike a warm one.
    let l = Localizer::new(Locale::EnUs);
    let rows = t.rows();
    let at = rows
        .iter()
        .position(|r| matches!(r, Row::Request { n: 3, .. }))
        .expect("row 3");
    let reason = text(&Trajectory::render_row(&rows[at + 1], l, 120));
    assert!(
        reason.contains("tools changed (1 added, 1 removed)"),
        "{reason}"
    );
    let warm = rows
        .iter()
        .find(|r| matches!(r, Row::Request { n: 2, .. }))
        .expect("row 2");
    let (warm, cold) = (
        Trajectory::render_row(warm, l, 60),
        Trajectory::render_row(&rows[at], l, 60),
    );
    assert!(text(&cold).starts_with('!'), "{}", text(&cold));
    assert!(!text(&warm).starts_with('!'));
    assert_ne!(warm.spans[0].style, cold.spans[0].style);
    assert_eq!(warm.spans.last().map(|s| s.style), Some(theme::success()));
    assert_eq!(cold.spans.last().map(|s| s.style), Some(theme::error()));
    // The footer's "last" figure is the last request's.
    assert_eq!(t.last_usage().map(|u| u.input_tokens), Some(6_700));
}

#[test]
fn key_help_explains_the_glyphs_step_and_durations() {
    for locale in [Locale::EnUs, Locale::ZhCn] {
        let l = Localizer::new(locale);
        let area = Rect::new(0, 0, 140, 110);
        let mut buf = Buffer::empty(area);
        crate::ui::help::draw(l, area, &mut buf);
        let shown: String = (0..110)
            .map(|y| {
                (0..140)
                    .map(|x| buf[(x, y)].symbol().to_string())
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
            .replace(' ', "");
        for want in [
            "T1.S2".to_string(),
            "↑⟳↓".to_string(),
            l.tr("tui-help-legend-title"),
            l.tr("tui-key-legend-durations"),
            l.tr("tui-help-legend-break"),
        ] {
            let want = want.replace(' ', "");
            let head: String = want.chars().take(12).collect();
            assert!(shown.contains(&head), "{head} in {shown}");
        }
    }
}

#[test]
fn cost_request_rows_and_the_session_total_follow_the_route_prices() {
    use crate::llm::catalog::DEEPSEEK_FLASH_PRICES;
    let mut s = Script::new();
    s.route(false)
        .context("deepseek-flash", None)
        .user(1, "one")
        // 20k uncached, 0 cached, 100 out.
        .assistant_usage(1, 1, "a", usage(20_000, 0))
        .user(2, "two")
        // 1k uncached, 40k cached, 100 out.
        .assistant_usage(2, 1, "b", usage(1_000, 40_000))
        .context("unpriced-model", None)
        .user(3, "three")
        .assistant_usage(3, 1, "c", usage(1_000, 40_000));
    let mut t = fold(&s);
    // No price known yet: no cost anywhere, the cell is blank.
    assert_eq!(t.session_cost(), None);
    assert_eq!(t.cache_saving(2), None);
    let en = Localizer::new(Locale::EnUs);
    let req = |t: &Trajectory, n: usize| {
        t.rows()
            .iter()
            .find(|r| matches!(r, Row::Request { n: m, .. } if *m == n))
            .cloned()
            .unwrap()
    };
    assert!(!text(&Trajectory::render_row(&req(&t, 2), en, 59)).contains('$'));
    // Nor a cost column in the pane's header.
    assert!(!text(&t.header(en, 59)).contains("cost"));
    // The route's prices arrive (AgentEvent::Route): the rows listed on it are priced.
    t.set_prices("deepseek/deepseek-flash", Some(DEEPSEEK_FLASH_PRICES));
    // #1: 20k × $0.14/M + 100 × $0.28/M = $0.002828.
    // #2: 1k × $0.14/M + 40k × $0.0028/M + 100 × $0.28/M = $0.000280.
    let total = t.session_cost().unwrap();
    assert!((total - 0.003108).abs() < 1e-12, "{total}");
    let (cached, saved) = t.cache_saving(2).unwrap();
    assert_eq!(cached, 40_000);
    assert!((saved - 40_000.0 * (0.14 - 0.0028) / 1e6).abs() < 1e-12);
    // #3 went to a model with no price: no cost, no saving.
    assert_eq!(t.cache_saving(3), None);
    let r3 = text(&Trajectory::render_row(&req(&t, 3), en, 59));
    assert!(!r3.contains('$'), "{r3}");
    // At 59 columns (a 120-column terminal) the row shows its cost before the hit %.
    let r2 = text(&Trajectory::render_row(&req(&t, 2), en, 59));
    assert!(r2.contains("$0.00028"), "{r2}");
    assert!(r2.ends_with("98%"), "{r2}");
    assert!(text(&t.header(en, 59)).contains("cost"));
    let head = text(&t.header(Localizer::new(Locale::ZhCn), 59));
    assert!(head.contains("费用"), "{head}");
    // Narrow, the cost column is the first to go.
    let r2 = text(&Trajectory::render_row(&req(&t, 2), en, 49));
    assert!(!r2.contains('$'), "{r2}");
    // Requests after the prices are known are priced as they arrive, and a session
    // switch keeps the prices.
    let mut t2 = t.renewed();
    for e in &s.events {
        if let AgentEvent::Committed(ev) = e {
            t2.apply(ev);
        }
    }
    assert_eq!(t2.session_cost(), t.session_cost());
}

#[test]
fn a_bridged_call_shows_the_real_tool_and_the_bridge_in_both_languages() {
    let row = Row::Tool {
        call_id: "c".into(),
        name: "word_count".into(),
        failed: Some(false),
        bridged: true,
    };
    let en = text(&Trajectory::render_row(
        &row,
        Localizer::new(Locale::EnUs),
        60,
    ));
    assert!(en.contains("word_count (via call_tool) ✓"), "{en}");
    let zh = text(&Trajectory::render_row(
        &row,
        Localizer::new(Locale::ZhCn),
        60,
    ));
    assert!(zh.contains("word_count （经 call_tool 调用）"), "{zh}");
}

#[test]
fn a_route_downgrade_is_a_trajectory_row_with_the_providers_reason() {
    let row = Row::Downgrade {
        route: "dsih/deepseek-flash".into(),
        blocks: vec!["tool_removal".into()],
        message: "`tool_removal` is not supported".into(),
    };
    let en = text(&Trajectory::render_row(
        &row,
        Localizer::new(Locale::EnUs),
        200,
    ));
    assert!(en.contains("dsih/deepseek-flash refused"), "{en}");
    assert!(
        en.contains("tool_removal is not supported")
            || en.contains("`tool_removal` is not supported"),
        "{en}"
    );
}

#[test]
fn a_subagent_s_requests_are_listed_under_the_parent_step_with_their_cache_hit() {
    use crate::session::event::SubagentEvent;
    use crate::session::event::{AssistantMessageData, Event};
    use crate::session::subagent_event::{SubagentMode, SubagentStart};
    let ev = |kind: EventKind| Event {
        kind,
        seq: 1,
        time: String::new(),
        surface_op: None,
        source_event_seqs: None,
    };
    let mut t = Trajectory::new();
    t.apply(&ev(EventKind::SubagentStart(SubagentStart {
        agent: "a1".into(),
        turn: 3,
        step: 2,
        call_id: "c1".into(),
        description: "look".into(),
        mode: SubagentMode::ReadOnly,
        parent_seq: 0,
    })));
    t.apply(&ev(EventKind::SubagentEvent(SubagentEvent {
        agent: "a1".into(),
        event: Box::new(ev(EventKind::AssistantMessage(AssistantMessageData {
            turn: 3,
            step: 1,
            message: Message::text(Role::Assistant, "done", Source::kind("model")),
            usage: Some(usage(124, 3987)),
            timing: None,
            interrupted: None,
        }))),
    })));
    let row = t
        .rows()
        .iter()
        .find(|r| matches!(r, Row::Subagent { .. }))
        .expect("the subagent's request is listed")
        .clone();
    let en = text(&Trajectory::render_row(
        &row,
        Localizer::new(Locale::EnUs),
        100,
    ));
    assert!(en.contains("T3.S2·a1.S1 · cache hit 3987 of"), "{en}");
    let zh = text(&Trajectory::render_row(
        &row,
        Localizer::new(Locale::ZhCn),
        100,
    ));
    assert!(zh.contains("T3.S2·a1.S1 · 缓存命中 3987／"), "{zh}");
}
