//! Unit tests of the projection: every worked example PX1…PX17 of the reference.

use super::*;
use crate::llm::types::ToolHistoryUpdate;
use crate::session::event::Source;
use ToolUpdateMode::{AdditionOnly, InHistory};
use serde_json::json;

fn t(name: &str) -> ToolSchema {
    let mut d = name.to_string();
    d[..1].make_ascii_uppercase();
    ToolSchema {
        name: name.into(),
        description: d,
        parameters: json!({}),
        defer_loading: None,
    }
}
fn star(s: ToolSchema) -> ToolSchema {
    ToolSchema {
        defer_loading: Some(true),
        ..s
    }
}
fn s() -> ToolSchema {
    t("search")
}
fn f() -> ToolSchema {
    t("fetch")
}
fn p() -> Arc<Message> {
    Arc::new(Message::text(Role::User, "prompt", Source::kind("user")))
}
fn dm(id: &str, blocks: Vec<Block>) -> Arc<Message> {
    let mut m = Message::new(Role::Developer, blocks, Source::kind("tool-registry"));
    m.id = id.into();
    Arc::new(m)
}
fn add(n: &str) -> Block {
    Block::addition(n)
}
fn rem(n: &str) -> Block {
    Block::removal(n)
}
fn h(tools: Vec<ToolSchema>, updates: Vec<(&str, Vec<ToolSchema>)>) -> ToolHistory {
    ToolHistory {
        tools,
        updates: updates
            .into_iter()
            .map(|(id, additions)| ToolHistoryUpdate {
                message_id: id.into(),
                additions,
            })
            .collect(),
    }
}
fn tools_of(p: &Projection<'_>) -> Option<Vec<ToolSchema>> {
    p.tools.as_ref().map(|t| t.to_vec())
}
fn is_borrowed(p: &Projection<'_>, input: &[Arc<Message>]) -> bool {
    matches!(&p.messages, Cow::Borrowed(b) if std::ptr::eq(*b, input))
}
/// Asserts `out` holds exactly the `expected` objects (pointer identity).
fn same_objects(out: &[Arc<Message>], expected: &[&Arc<Message>]) {
    assert_eq!(out.len(), expected.len(), "message count");
    for (o, e) in out.iter().zip(expected) {
        assert!(
            Arc::ptr_eq(o, e),
            "expected the same message object {}",
            e.id
        );
    }
}
fn blocks(m: &Message) -> &[Block] {
    &m.content
}

#[test]
fn in_history_without_a_change_returns_the_same_declarations() {
    let msgs = vec![p()];
    let tools = vec![s()];
    let hist = h(vec![s()], vec![]);
    let out = project_tool_updates(&msgs, Some(&tools), Some(InHistory), Some(&hist));
    assert!(is_borrowed(&out, &msgs));
    assert_eq!(tools_of(&out), Some(vec![s()]));
}

#[test]
fn a_route_without_tool_updates_drops_developer_messages_and_strips_defer() {
    let (p1, p2) = (p(), p());
    let msgs = vec![p1.clone(), dm("A", vec![add("fetch")]), p2.clone()];
    let tools = vec![s(), star(f())];
    let hist = h(vec![s()], vec![("A", vec![f()])]);
    let out = project_tool_updates(&msgs, Some(&tools), None, Some(&hist));
    same_objects(&out.messages, &[&p1, &p2]);
    assert_eq!(tools_of(&out), Some(vec![s(), f()]));
}

#[test]
fn a_route_without_tool_updates_keeps_the_tools_object() {
    let msgs = vec![p()];
    let tools = vec![s(), f()];
    let out = project_tool_updates(&msgs, Some(&tools), None, None);
    assert!(is_borrowed(&out, &msgs));
    assert!(matches!(&out.tools, Some(Cow::Borrowed(b)) if std::ptr::eq(*b, tools.as_slice())));
    let out = project_tool_updates(&msgs, None, None, Some(&h(vec![s()], vec![])));
    assert!(out.tools.is_none());
}

#[test]
fn without_a_tool_history_developer_messages_drop_and_tools_stay() {
    let p1 = p();
    let msgs = vec![p1.clone(), dm("A", vec![add("fetch")])];
    let tools = vec![s(), star(f())];
    let out = project_tool_updates(&msgs, Some(&tools), Some(InHistory), None);
    same_objects(&out.messages, &[&p1]);
    // Explicit deferLoading is kept (Q6).
    assert!(matches!(&out.tools, Some(Cow::Borrowed(b)) if std::ptr::eq(*b, tools.as_slice())));
}

#[test]
fn an_incomplete_prefix_falls_back_to_the_current_tools() {
    let msgs = vec![p()];
    let tools = vec![s(), f()];
    let hist = h(vec![s()], vec![("A", vec![f()])]);
    let out = project_tool_updates(&msgs, Some(&tools), Some(InHistory), Some(&hist));
    assert!(is_borrowed(&out, &msgs));
    assert_eq!(tools_of(&out), Some(vec![s(), f()]));
}

#[test]
fn developer_messages_of_an_earlier_series_are_dropped() {
    let p1 = p();
    let c = dm("C", vec![add("fetch")]);
    let msgs = vec![p1.clone(), dm("E", vec![add("search")]), c.clone()];
    let tools = vec![s(), f()];
    let hist = h(vec![s()], vec![("C", vec![f()])]);
    let out = project_tool_updates(&msgs, Some(&tools), Some(InHistory), Some(&hist));
    same_objects(&out.messages, &[&p1, &c]);
    assert_eq!(tools_of(&out), Some(vec![s(), star(f())]));
}

#[test]
fn in_history_keeps_a_removed_tools_declaration() {
    let a = dm("A", vec![add("fetch"), Block::text("fetch is available")]);
    let r = dm("R", vec![rem("search")]);
    let msgs = vec![p(), a, p(), r, p()];
    let tools = vec![f()];
    let hist = h(vec![s()], vec![("A", vec![f()]), ("R", vec![])]);
    let out = project_tool_updates(&msgs, Some(&tools), Some(InHistory), Some(&hist));
    assert!(is_borrowed(&out, &msgs));
    assert_eq!(tools_of(&out), Some(vec![s(), star(f())]));
}

#[test]
fn addition_only_drops_inactive_tools_and_every_removal() {
    let (p1, p2, p3) = (p(), p(), p());
    let msgs = vec![
        p1.clone(),
        dm("W", vec![add("fetch"), rem("search")]),
        p2.clone(),
        dm("R2", vec![rem("fetch")]),
        p3.clone(),
    ];
    let tools: Vec<ToolSchema> = vec![];
    let hist = h(vec![s()], vec![("W", vec![f()]), ("R2", vec![])]);
    let out = project_tool_updates(&msgs, Some(&tools), Some(AdditionOnly), Some(&hist));
    same_objects(&out.messages, &[&p1, &p2, &p3]);
    assert_eq!(tools_of(&out), Some(vec![]));
}

#[test]
fn addition_only_filters_blocks_into_a_copy() {
    let (p1, p2) = (p(), p());
    let w = dm("W", vec![add("fetch"), rem("search")]);
    let msgs = vec![p1.clone(), w.clone(), p2.clone()];
    let tools = vec![f()];
    let hist = h(vec![s()], vec![("W", vec![f()])]);
    let out = project_tool_updates(&msgs, Some(&tools), Some(AdditionOnly), Some(&hist));
    assert_eq!(out.messages.len(), 3);
    assert!(Arc::ptr_eq(&out.messages[0], &p1) && Arc::ptr_eq(&out.messages[2], &p2));
    let w2 = &out.messages[1];
    assert!(!Arc::ptr_eq(w2, &w));
    assert_eq!(blocks(w2), [add("fetch")]);
    assert_eq!((&w2.id, w2.role, &w2.source), (&w.id, w.role, &w.source));
    // Inputs are never mutated.
    assert_eq!(blocks(&w), [add("fetch"), rem("search")]);
    assert_eq!(tools_of(&out), Some(vec![star(f())]));
}

fn removal_and_readdition_messages() -> Vec<Arc<Message>> {
    vec![
        p(),
        dm("R", vec![rem("search")]),
        p(),
        dm("T", vec![add("search")]),
        p(),
    ]
}

#[test]
fn in_history_restoration_keeps_the_removal_and_the_readdition() {
    let msgs = removal_and_readdition_messages();
    let tools = vec![s(), f()];
    let hist = h(vec![s(), f()], vec![("R", vec![]), ("T", vec![s()])]);
    let out = project_tool_updates(&msgs, Some(&tools), Some(InHistory), Some(&hist));
    assert!(is_borrowed(&out, &msgs));
    assert_eq!(tools_of(&out), Some(vec![s(), f()]));
}

#[test]
fn addition_only_restoration_drops_removal_and_readdition() {
    let msgs = removal_and_readdition_messages();
    let tools = vec![s(), f()];
    let hist = h(vec![s(), f()], vec![("R", vec![]), ("T", vec![s()])]);
    let out = project_tool_updates(&msgs, Some(&tools), Some(AdditionOnly), Some(&hist));
    same_objects(&out.messages, &[&msgs[0], &msgs[2], &msgs[4]]);
    assert_eq!(tools_of(&out), Some(vec![s(), f()]));
}

fn readded_tool_case() -> (Vec<Arc<Message>>, ToolHistory) {
    let msgs = vec![
        p(),
        dm("A", vec![add("fetch")]),
        p(),
        dm("R", vec![rem("fetch")]),
        p(),
        dm("T", vec![add("fetch")]),
        p(),
    ];
    let hist = h(
        vec![s()],
        vec![("A", vec![f()]), ("R", vec![]), ("T", vec![f()])],
    );
    (msgs, hist)
}

#[test]
fn in_history_a_readded_tool_is_declared_once() {
    let (msgs, hist) = readded_tool_case();
    let tools = vec![s(), f()];
    let out = project_tool_updates(&msgs, Some(&tools), Some(InHistory), Some(&hist));
    assert!(is_borrowed(&out, &msgs));
    assert_eq!(tools_of(&out), Some(vec![s(), star(f())]));
}

#[test]
fn addition_only_keeps_only_the_first_addition() {
    let (msgs, hist) = readded_tool_case();
    let tools = vec![s(), f()];
    let out = project_tool_updates(&msgs, Some(&tools), Some(AdditionOnly), Some(&hist));
    same_objects(
        &out.messages,
        &[&msgs[0], &msgs[1], &msgs[2], &msgs[4], &msgs[6]],
    );
    assert_eq!(tools_of(&out), Some(vec![s(), star(f())]));
}

fn deferred_baseline_case() -> (Vec<Arc<Message>>, ToolHistory) {
    let ss = star(s());
    let msgs = vec![
        p(),
        dm("A", vec![add("search")]),
        dm("D", vec![add("search")]),
        dm("R", vec![rem("search")]),
        dm("T", vec![add("search")]),
    ];
    let hist = h(
        vec![ss.clone()],
        vec![
            ("A", vec![ss.clone()]),
            ("D", vec![ss.clone()]),
            ("R", vec![]),
            ("T", vec![ss]),
        ],
    );
    (msgs, hist)
}

#[test]
fn in_history_a_deferred_baseline_tool_is_activated_by_its_first_addition() {
    let (msgs, hist) = deferred_baseline_case();
    let tools = vec![star(s())];
    let out = project_tool_updates(&msgs, Some(&tools), Some(InHistory), Some(&hist));
    same_objects(&out.messages, &[&msgs[0], &msgs[1], &msgs[3], &msgs[4]]);
    assert_eq!(tools_of(&out), Some(vec![star(s())]));
}

#[test]
fn addition_only_keeps_a_deferred_baseline_deferred() {
    let (msgs, hist) = deferred_baseline_case();
    let tools = vec![star(s())];
    let out = project_tool_updates(&msgs, Some(&tools), Some(AdditionOnly), Some(&hist));
    same_objects(&out.messages, &[&msgs[0], &msgs[1]]);
    assert_eq!(tools_of(&out), Some(vec![star(s())]));
}

#[test]
fn a_long_history_offers_each_tool_once() {
    for mode in [InHistory, AdditionOnly] {
        let fs = star(f());
        let msgs = vec![
            dm("a", vec![add("search"), add("fetch")]),
            dm("d", vec![add("fetch")]),
        ];
        let tools = vec![s(), fs.clone()];
        let hist = h(
            vec![s(), fs.clone()],
            vec![("a", vec![s(), fs.clone()]), ("d", vec![fs.clone()])],
        );
        let out = project_tool_updates(&msgs, Some(&tools), Some(mode), Some(&hist));
        assert_eq!(out.messages.len(), 1);
        assert_eq!(out.messages[0].id, "a");
        assert_eq!(blocks(&out.messages[0]), [add("fetch")]);
        assert_eq!(tools_of(&out), Some(vec![s(), fs]));
    }
}

#[test]
fn a_series_baseline_that_already_offers_the_tool_adds_nothing() {
    let msgs = vec![dm("x", vec![add("fetch")])];
    let tools = vec![s(), f()];
    let hist = h(vec![s(), f()], vec![("x", vec![f()])]);
    let out = project_tool_updates(&msgs, Some(&tools), Some(InHistory), Some(&hist));
    assert!(out.messages.is_empty());
    assert_eq!(tools_of(&out), Some(vec![s(), f()]));
}

#[test]
fn an_addition_is_kept_and_deferred_end_to_end() {
    let (c, x) = (t("cache_tool_control"), t("cache_sample"));
    let a = dm("A", vec![add("cache_sample")]);
    let msgs = vec![p(), a.clone()];
    let tools = vec![c.clone(), x.clone()];
    let hist = h(vec![c.clone()], vec![("A", vec![x.clone()])]);
    let out = project_tool_updates(&msgs, Some(&tools), Some(AdditionOnly), Some(&hist));
    assert!(is_borrowed(&out, &msgs));
    assert_eq!(tools_of(&out), Some(vec![c, star(x)]));
}

#[test]
fn addition_only_drops_a_removal_and_the_later_addition_end_to_end() {
    let (c, x) = (t("cache_tool_control"), t("cache_sample"));
    let (p1, p2) = (p(), p());
    let msgs = vec![
        p1.clone(),
        dm("A", vec![add("cache_sample")]),
        p2.clone(),
        dm("R", vec![rem("cache_sample")]),
    ];
    let tools = vec![c.clone()];
    let hist = h(vec![c.clone()], vec![("A", vec![x]), ("R", vec![])]);
    let out = project_tool_updates(&msgs, Some(&tools), Some(AdditionOnly), Some(&hist));
    same_objects(&out.messages, &[&p1, &p2]);
    assert_eq!(tools_of(&out), Some(vec![c]));
}

#[test]
fn a_rewound_update_falls_back_to_the_current_tools() {
    let (alpha, beta) = (t("alpha"), t("beta"));
    let msgs = vec![p(), p()];
    let tools = vec![alpha.clone(), beta.clone()];
    let hist = h(vec![alpha.clone()], vec![("D", vec![beta.clone()])]);
    let out = project_tool_updates(&msgs, Some(&tools), Some(AdditionOnly), Some(&hist));
    assert!(is_borrowed(&out, &msgs));
    assert_eq!(tools_of(&out), Some(vec![alpha, beta]));
}

#[test]
fn a_capable_route_gets_an_empty_list_for_absent_tools() {
    let msgs = vec![p()];
    let out = project_tool_updates(&msgs, None, Some(InHistory), Some(&h(vec![], vec![])));
    assert_eq!(tools_of(&out), Some(vec![]));
}

// --- tool_removal = "retain" ---

fn retain(
    msgs: &[Arc<Message>],
    tools: &[ToolSchema],
    mode: Option<ToolUpdateMode>,
    hist: &ToolHistory,
) -> (Vec<Arc<Message>>, Option<Vec<ToolSchema>>) {
    let out = project_tool_updates_with(msgs, Some(tools), mode, ToolRemoval::Retain, Some(hist));
    let tools = tools_of(&out);
    (out.messages.into_owned(), tools)
}

#[test]
fn retain_keeps_a_removed_tool_declared_and_its_addition() {
    // PX19 with retain: the removed cache_sample keeps its deferred declaration and
    // its addition; the removal block is dropped (addition-only has none).
    let (c, x) = (t("cache_tool_control"), t("cache_sample"));
    let (p1, a, p2) = (p(), dm("A", vec![add("cache_sample")]), p());
    let msgs = vec![
        p1.clone(),
        a.clone(),
        p2.clone(),
        dm("R", vec![rem("cache_sample")]),
    ];
    let hist = h(vec![c.clone()], vec![("A", vec![x.clone()]), ("R", vec![])]);
    let (out, tools) = retain(&msgs, std::slice::from_ref(&c), Some(AdditionOnly), &hist);
    same_objects(&out[..3], &[&p1, &a, &p2]);
    // The route has no removal block: the model reads that the tool is gone (§15.1).
    assert_eq!(out.len(), 4);
    assert_eq!(
        blocks(&out[3]),
        [crate::llm::bridge::removal_note("cache_sample")]
    );
    assert_eq!(tools, Some(vec![c, star(x)]));
}

#[test]
fn retain_removal_leaves_the_previous_projection_as_the_prefix() {
    // The request before the removal (PX18) and the one after it: same declarations,
    // and the earlier messages are an unchanged prefix of the later ones.
    let (c, x) = (t("cache_tool_control"), t("cache_sample"));
    let before_msgs = vec![p(), dm("A", vec![add("cache_sample")]), p()];
    let before_hist = h(vec![c.clone()], vec![("A", vec![x.clone()])]);
    let before_tools = [c.clone(), x.clone()];
    let before = project_tool_updates_with(
        &before_msgs,
        Some(&before_tools),
        Some(AdditionOnly),
        ToolRemoval::Retain,
        Some(&before_hist),
    );
    let mut after_msgs = before_msgs.clone();
    after_msgs.push(dm("R", vec![rem("cache_sample")]));
    after_msgs.push(p());
    let after_hist = h(vec![c.clone()], vec![("A", vec![x.clone()]), ("R", vec![])]);
    let (after, after_tools) = retain(
        &after_msgs,
        std::slice::from_ref(&c),
        Some(AdditionOnly),
        &after_hist,
    );
    assert_eq!(after_tools, tools_of(&before));
    // The removal note and the prompt after it are appended.
    assert_eq!(after.len(), before.messages.len() + 2);
    same_objects(
        &after[..before.messages.len()],
        &before.messages.iter().collect::<Vec<_>>(),
    );
    // The default (omit) rewrites the same history (P-6).
    let after_tools = [c.clone()];
    let omit = project_tool_updates(
        &after_msgs,
        Some(&after_tools),
        Some(AdditionOnly),
        Some(&after_hist),
    );
    assert_eq!(tools_of(&omit), Some(vec![c]));
    assert_eq!(omit.messages.len(), 3);
}

#[test]
fn retain_keeps_a_removed_baseline_tool() {
    // PX8 with retain: search (baseline) and fetch (added) are both inactive; both stay
    // declared, the addition of fetch is kept and every removal dropped.
    let (p1, p2, p3) = (p(), p(), p());
    let msgs = vec![
        p1.clone(),
        dm("W", vec![add("fetch"), rem("search")]),
        p2.clone(),
        dm("R2", vec![rem("fetch")]),
        p3.clone(),
    ];
    let hist = h(vec![s()], vec![("W", vec![f()]), ("R2", vec![])]);
    let (out, tools) = retain(&msgs, &[], Some(AdditionOnly), &hist);
    assert_eq!(out.len(), 5);
    same_objects(
        &[out[0].clone(), out[2].clone(), out[4].clone()],
        &[&p1, &p2, &p3],
    );
    assert_eq!(out[1].id, "W");
    let note = crate::llm::bridge::removal_note;
    assert_eq!(blocks(&out[1]), [add("fetch"), note("search")]);
    assert_eq!(blocks(&out[3]), [note("fetch")]);
    assert_eq!(tools, Some(vec![s(), star(f())]));
}

#[test]
fn retain_readded_tool_keeps_only_its_first_addition() {
    // PX13 with retain equals PX13: the re-addition is dropped (never un-offered).
    let (msgs, hist) = readded_tool_case();
    let tools = vec![s(), f()];
    let (out, decl) = retain(&msgs, &tools, Some(AdditionOnly), &hist);
    let additions = out
        .iter()
        .flat_map(|m| blocks(m))
        .filter(|b| matches!(b, Block::ToolAddition { .. }))
        .count();
    assert_eq!(additions, 1, "{out:#?}");
    assert_eq!(out.len(), 6, "the removal is a note in place: {out:#?}");
    assert_eq!(decl, Some(vec![s(), star(f())]));
}

#[test]
fn retain_changes_nothing_on_in_history() {
    let msgs = vec![
        p(),
        dm("A", vec![add("fetch")]),
        p(),
        dm("R", vec![rem("fetch")]),
    ];
    let hist = h(vec![s()], vec![("A", vec![f()]), ("R", vec![])]);
    let mode = Some(InHistory);
    let (out, tools) = retain(&msgs, &[s()], mode, &hist);
    let current = [s()];
    let omit = project_tool_updates(&msgs, Some(&current), mode, Some(&hist));
    same_objects(&out, &omit.messages.iter().collect::<Vec<_>>());
    assert_eq!(tools, tools_of(&omit));
}

#[test]
fn retained_declarations_are_the_series_declarations_where_a_removal_keeps_the_prefix() {
    let hist = h(
        vec![s()],
        vec![("A", vec![f()]), ("R", vec![]), ("T", vec![f()])],
    );
    assert_eq!(
        retained_declarations(Some(AdditionOnly), ToolRemoval::Retain, &hist),
        vec!["search".to_string(), "fetch".to_string()]
    );
    // Every route that keeps a removed tool declared: in-history, and the bridge.
    for (mode, removal) in [
        (Some(InHistory), ToolRemoval::Omit),
        (Some(InHistory), ToolRemoval::Retain),
        (None, ToolRemoval::Retain),
    ] {
        assert_eq!(
            retained_declarations(mode, removal, &hist),
            vec!["search".to_string(), "fetch".to_string()]
        );
    }
    for (mode, removal) in [
        (Some(AdditionOnly), ToolRemoval::Omit),
        (None, ToolRemoval::Omit),
    ] {
        assert!(retained_declarations(mode, removal, &hist).is_empty());
    }
}
