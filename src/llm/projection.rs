//! `project_tool_updates` (reference P-1…P-14): pure projection of request messages and
//! tool declarations for a route's tool-update mode.
//!
//! "Same object" is `Arc::ptr_eq`; when nothing changed the input slice itself comes
//! back as `Cow::Borrowed`. On the capable path the declarations are always `Some`, even
//! `[]` (reference Q4); omitting an empty `tools` key on the wire is the serializer's job.
//!
//! `tool_removal = "retain"` (SPEC §13; decision 0010) changes one rule on
//! `addition-only` routes: P-6 is skipped, so every declaration of the series stays, as on
//! `in-history` (P-5), and with it the tool's addition block (P-8). Removal blocks are
//! still dropped (the route has none), so the request prefix is unchanged by a removal.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

pub use crate::llm::removal_cost::{RemovalCost, removal_cost};
use crate::llm::types::ToolHistory;
use crate::session::event::{Block, Message, Role, ToolRemoval, ToolSchema, ToolUpdateMode};

/// Result of a projection. `Cow::Borrowed` means "the input itself, unchanged".
#[derive(Debug, Clone)]
pub struct Projection<'a> {
    /// Messages to send.
    pub messages: Cow<'a, [Arc<Message>]>,
    /// Declarations to send (`None` = no `tools` at all).
    pub tools: Option<Cow<'a, [ToolSchema]>>,
}

/// Positions of the developer messages in `messages`, ascending.
pub fn developer_positions(messages: &[Arc<Message>]) -> Vec<usize> {
    messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m.role == Role::Developer)
        .map(|(i, _)| i)
        .collect()
}

/// `messages` without developer messages; the input itself when there were none.
/// Mode notes ([`Message::is_mode_note`]) stay: they are not tool changes, and the model
/// must learn its sandbox mode on every route (decision 0060).
fn without_developer<'a>(
    messages: &'a [Arc<Message>],
    developer: &[usize],
) -> Cow<'a, [Arc<Message>]> {
    let dropped = |m: &Arc<Message>| m.role == Role::Developer && !m.is_mode_note();
    if developer
        .iter()
        .any(|&i| messages.get(i).is_some_and(dropped))
    {
        Cow::Owned(messages.iter().filter(|m| !dropped(m)).cloned().collect())
    } else {
        Cow::Borrowed(messages)
    }
}

/// What the walk does with one message.
enum Kept {
    /// Keep the same object.
    Same,
    /// Drop it.
    Drop,
    /// Keep a filtered copy.
    Copy(Arc<Message>),
}

/// Projects `messages` and `tools` for `mode` using the fold snapshot `history`
/// (removals omitted, the default; see [`project_tool_updates_with`]).
pub fn project_tool_updates<'a>(
    messages: &'a [Arc<Message>],
    tools: Option<&'a [ToolSchema]>,
    mode: Option<ToolUpdateMode>,
    history: Option<&ToolHistory>,
) -> Projection<'a> {
    project_tool_updates_with(messages, tools, mode, ToolRemoval::Omit, history)
}

/// Names a request on a route keeps declaring although they may no longer be active:
/// with `tool_removal = "retain"` on an `addition-only` route, every declaration of the
/// current series (P-4); otherwise none (P-6 drops inactive ones, P-1/P-5 do not apply to
/// calls: a removed tool there fails as a plain unknown tool, R-5).
pub fn retained_declarations(
    mode: Option<ToolUpdateMode>,
    removal: ToolRemoval,
    history: &ToolHistory,
) -> Vec<String> {
    if mode != Some(ToolUpdateMode::AdditionOnly) || removal != ToolRemoval::Retain {
        return Vec::new();
    }
    let mut names: Vec<String> = history.tools.iter().map(|t| t.name.clone()).collect();
    for add in history.updates.iter().flat_map(|u| &u.additions) {
        if !names.contains(&add.name) {
            names.push(add.name.clone());
        }
    }
    names
}

/// [`project_tool_updates`] with the route's `tool_removal`: `Retain` on `addition-only`
/// skips P-6 (ignored on other modes, where it means nothing).
pub fn project_tool_updates_with<'a>(
    messages: &'a [Arc<Message>],
    tools: Option<&'a [ToolSchema]>,
    mode: Option<ToolUpdateMode>,
    removal: ToolRemoval,
    history: Option<&ToolHistory>,
) -> Projection<'a> {
    let developer = developer_positions(messages);
    project_tool_updates_indexed(messages, &developer, tools, mode, removal, history)
}

/// [`project_tool_updates_with`] given the positions of the developer messages
/// (`developer`, ascending, as [`developer_positions`] computes them): only those
/// messages are examined, so an unchanged request costs nothing per history message.
pub fn project_tool_updates_indexed<'a>(
    messages: &'a [Arc<Message>],
    developer: &[usize],
    tools: Option<&'a [ToolSchema]>,
    mode: Option<ToolUpdateMode>,
    removal: ToolRemoval,
    history: Option<&ToolHistory>,
) -> Projection<'a> {
    let developer_messages = || {
        developer
            .iter()
            .filter_map(|&i| messages.get(i).map(|m| (i, m)))
    };
    // P-1: unsupported route — no updates, every declaration immediately available.
    let Some(mode) = mode else {
        let tools = match tools {
            Some(t) if t.iter().any(ToolSchema::is_deferred) => Some(Cow::Owned(
                t.iter()
                    .map(|s| ToolSchema {
                        defer_loading: None,
                        ..s.clone()
                    })
                    .collect(),
            )),
            other => other.map(Cow::Borrowed),
        };
        return Projection {
            messages: without_developer(messages, developer),
            tools,
        };
    };
    // P-2: without history, current declarations (explicit deferLoading kept).
    let fallback = || Projection {
        messages: without_developer(messages, developer),
        tools: tools.map(Cow::Borrowed),
    };
    let Some(history) = history else {
        return fallback();
    };
    // P-3: every recorded update must be present, else the prefix is incomplete.
    let present: HashSet<&str> = developer_messages().map(|(_, m)| m.id.as_str()).collect();
    if history
        .updates
        .iter()
        .any(|u| !present.contains(u.message_id.as_str()))
    {
        return fallback();
    }

    // P-4: baseline declarations as-is, then first additions deferred; never overwrite.
    let mut declarations: Vec<ToolSchema> = history.tools.clone();
    let mut declared: HashSet<&str> = history.tools.iter().map(|t| t.name.as_str()).collect();
    for update in &history.updates {
        for add in &update.additions {
            if declared.insert(add.name.as_str()) {
                declarations.push(ToolSchema {
                    defer_loading: Some(true),
                    ..add.clone()
                });
            }
        }
    }
    // P-5 / P-6 (`retain` keeps every declaration on addition-only too).
    if removal_cost(Some(mode), removal) == RemovalCost::HistoryRewritten {
        let active: HashSet<&str> = tools
            .unwrap_or(&[])
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        declarations.retain(|d| active.contains(d.name.as_str()));
    }
    let declared: HashSet<&str> = declarations.iter().map(|d| d.name.as_str()).collect();

    // P-7: explicitly deferred baseline tools are declared but not yet offered.
    let mut offered: HashSet<&str> = history
        .tools
        .iter()
        .filter(|t| !t.is_deferred())
        .map(|t| t.name.as_str())
        .collect();
    let update_ids: HashSet<&str> = history
        .updates
        .iter()
        .map(|u| u.message_id.as_str())
        .collect();

    // P-8: the walk over the developer messages (every other message is kept as the
    // same object). When every position is unchanged the input comes back borrowed, so
    // an unchanged request costs no allocation and no reference-count traffic.
    let mut changed: Vec<(usize, Kept)> = Vec::new();
    for (i, m) in developer_messages() {
        let kept = if m.is_mode_note() {
            Kept::Same
        } else if !update_ids.contains(m.id.as_str()) {
            Kept::Drop
        } else {
            let mut content = Vec::with_capacity(m.content.len());
            for b in &m.content {
                let keep = match b {
                    Block::ToolAddition { tool_name, .. } => {
                        let name = tool_name.as_str();
                        declared.contains(name) && offered.insert(name)
                    }
                    Block::ToolRemoval { tool_name } => {
                        mode == ToolUpdateMode::InHistory && offered.remove(tool_name.as_str())
                    }
                    _ => true,
                };
                if keep {
                    content.push(b.clone());
                }
            }
            if content.is_empty() {
                Kept::Drop
            } else if content.len() == m.content.len() {
                Kept::Same
            } else {
                Kept::Copy(Arc::new(Message {
                    content,
                    ..Message::clone(m)
                }))
            }
        };
        if !matches!(kept, Kept::Same) {
            changed.push((i, kept));
        }
    }
    let out: Option<Vec<Arc<Message>>> = (!changed.is_empty()).then(|| {
        let mut v = Vec::with_capacity(messages.len());
        let mut next = 0;
        for (i, kept) in changed {
            v.extend(messages.get(next..i).unwrap_or(&[]).iter().cloned());
            if let Kept::Copy(c) = kept {
                v.push(c);
            }
            next = i + 1;
        }
        v.extend(messages.get(next..).unwrap_or(&[]).iter().cloned());
        v
    });

    // P-9: always a fresh list on this path (the history, not the input, defines it).
    let tools_out = Cow::Owned(declarations);
    Projection {
        messages: match out {
            Some(v) => Cow::Owned(v),
            None => Cow::Borrowed(messages),
        },
        tools: Some(tools_out),
    }
}

#[cfg(test)]
mod tests {
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
    fn px01_unchanged_in_history_returns_same_array() {
        let msgs = vec![p()];
        let tools = vec![s()];
        let hist = h(vec![s()], vec![]);
        let out = project_tool_updates(&msgs, Some(&tools), Some(InHistory), Some(&hist));
        assert!(is_borrowed(&out, &msgs));
        assert_eq!(tools_of(&out), Some(vec![s()]));
    }

    #[test]
    fn px02_unsupported_route_drops_developer_and_strips_defer() {
        let (p1, p2) = (p(), p());
        let msgs = vec![p1.clone(), dm("A", vec![add("fetch")]), p2.clone()];
        let tools = vec![s(), star(f())];
        let hist = h(vec![s()], vec![("A", vec![f()])]);
        let out = project_tool_updates(&msgs, Some(&tools), None, Some(&hist));
        same_objects(&out.messages, &[&p1, &p2]);
        assert_eq!(tools_of(&out), Some(vec![s(), f()]));
    }

    #[test]
    fn px03_unsupported_route_keeps_tools_object() {
        let msgs = vec![p()];
        let tools = vec![s(), f()];
        let out = project_tool_updates(&msgs, Some(&tools), None, None);
        assert!(is_borrowed(&out, &msgs));
        assert!(matches!(&out.tools, Some(Cow::Borrowed(b)) if std::ptr::eq(*b, tools.as_slice())));
        let out = project_tool_updates(&msgs, None, None, Some(&h(vec![s()], vec![])));
        assert!(out.tools.is_none());
    }

    #[test]
    fn px04_missing_history_drops_developer_keeps_tools() {
        let p1 = p();
        let msgs = vec![p1.clone(), dm("A", vec![add("fetch")])];
        let tools = vec![s(), star(f())];
        let out = project_tool_updates(&msgs, Some(&tools), Some(InHistory), None);
        same_objects(&out.messages, &[&p1]);
        // Explicit deferLoading is kept (Q6).
        assert!(matches!(&out.tools, Some(Cow::Borrowed(b)) if std::ptr::eq(*b, tools.as_slice())));
    }

    #[test]
    fn px05_incomplete_prefix_falls_back() {
        let msgs = vec![p()];
        let tools = vec![s(), f()];
        let hist = h(vec![s()], vec![("A", vec![f()])]);
        let out = project_tool_updates(&msgs, Some(&tools), Some(InHistory), Some(&hist));
        assert!(is_borrowed(&out, &msgs));
        assert_eq!(tools_of(&out), Some(vec![s(), f()]));
    }

    #[test]
    fn px06_earlier_series_developer_messages_are_dropped() {
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
    fn px07_in_history_keeps_removed_declaration() {
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
    fn px08_addition_only_drops_inactive_and_all_removals() {
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
    fn px09_addition_only_filters_blocks_into_a_copy() {
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

    fn px10_messages() -> Vec<Arc<Message>> {
        vec![
            p(),
            dm("R", vec![rem("search")]),
            p(),
            dm("T", vec![add("search")]),
            p(),
        ]
    }

    #[test]
    fn px10_in_history_restoration_keeps_removal_and_readdition() {
        let msgs = px10_messages();
        let tools = vec![s(), f()];
        let hist = h(vec![s(), f()], vec![("R", vec![]), ("T", vec![s()])]);
        let out = project_tool_updates(&msgs, Some(&tools), Some(InHistory), Some(&hist));
        assert!(is_borrowed(&out, &msgs));
        assert_eq!(tools_of(&out), Some(vec![s(), f()]));
    }

    #[test]
    fn px11_addition_only_restoration_drops_both() {
        let msgs = px10_messages();
        let tools = vec![s(), f()];
        let hist = h(vec![s(), f()], vec![("R", vec![]), ("T", vec![s()])]);
        let out = project_tool_updates(&msgs, Some(&tools), Some(AdditionOnly), Some(&hist));
        same_objects(&out.messages, &[&msgs[0], &msgs[2], &msgs[4]]);
        assert_eq!(tools_of(&out), Some(vec![s(), f()]));
    }

    fn px12_case() -> (Vec<Arc<Message>>, ToolHistory) {
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
    fn px12_in_history_readded_tool_declared_once() {
        let (msgs, hist) = px12_case();
        let tools = vec![s(), f()];
        let out = project_tool_updates(&msgs, Some(&tools), Some(InHistory), Some(&hist));
        assert!(is_borrowed(&out, &msgs));
        assert_eq!(tools_of(&out), Some(vec![s(), star(f())]));
    }

    #[test]
    fn px13_addition_only_keeps_only_first_addition() {
        let (msgs, hist) = px12_case();
        let tools = vec![s(), f()];
        let out = project_tool_updates(&msgs, Some(&tools), Some(AdditionOnly), Some(&hist));
        same_objects(
            &out.messages,
            &[&msgs[0], &msgs[1], &msgs[2], &msgs[4], &msgs[6]],
        );
        assert_eq!(tools_of(&out), Some(vec![s(), star(f())]));
    }

    fn px14_case() -> (Vec<Arc<Message>>, ToolHistory) {
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
    fn px14_in_history_deferred_baseline_activated_by_first_addition() {
        let (msgs, hist) = px14_case();
        let tools = vec![star(s())];
        let out = project_tool_updates(&msgs, Some(&tools), Some(InHistory), Some(&hist));
        same_objects(&out.messages, &[&msgs[0], &msgs[1], &msgs[3], &msgs[4]]);
        assert_eq!(tools_of(&out), Some(vec![star(s())]));
    }

    #[test]
    fn px15_addition_only_deferred_baseline() {
        let (msgs, hist) = px14_case();
        let tools = vec![star(s())];
        let out = project_tool_updates(&msgs, Some(&tools), Some(AdditionOnly), Some(&hist));
        same_objects(&out.messages, &[&msgs[0], &msgs[1]]);
        assert_eq!(tools_of(&out), Some(vec![star(s())]));
    }

    #[test]
    fn px16_fx9_history_offers_each_tool_once() {
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
    fn px17_fx6_series_baseline_already_offers_fetch() {
        let msgs = vec![dm("x", vec![add("fetch")])];
        let tools = vec![s(), f()];
        let hist = h(vec![s(), f()], vec![("x", vec![f()])]);
        let out = project_tool_updates(&msgs, Some(&tools), Some(InHistory), Some(&hist));
        assert!(out.messages.is_empty());
        assert_eq!(tools_of(&out), Some(vec![s(), f()]));
    }

    #[test]
    fn px18_e2e_addition_is_kept_and_deferred() {
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
    fn px19_e2e_after_removal_addition_only_drops_both() {
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
    fn px20_rewound_update_falls_back_to_current_tools() {
        let (alpha, beta) = (t("alpha"), t("beta"));
        let msgs = vec![p(), p()];
        let tools = vec![alpha.clone(), beta.clone()];
        let hist = h(vec![alpha.clone()], vec![("D", vec![beta.clone()])]);
        let out = project_tool_updates(&msgs, Some(&tools), Some(AdditionOnly), Some(&hist));
        assert!(is_borrowed(&out, &msgs));
        assert_eq!(tools_of(&out), Some(vec![alpha, beta]));
    }

    #[test]
    fn p9_capable_path_returns_empty_list_for_absent_tools() {
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
        let out =
            project_tool_updates_with(msgs, Some(tools), mode, ToolRemoval::Retain, Some(hist));
        let tools = tools_of(&out);
        (out.messages.into_owned(), tools)
    }

    #[test]
    fn p6_retain_keeps_removed_tool_declared_and_its_addition_px19() {
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
        same_objects(&out, &[&p1, &a, &p2]);
        assert_eq!(tools, Some(vec![c, star(x)]));
    }

    #[test]
    fn p6_retain_removal_leaves_the_previous_projection_as_prefix() {
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
        assert_eq!(after.len(), before.messages.len() + 1);
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
    fn p6_retain_keeps_a_removed_baseline_tool_px8() {
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
        assert_eq!(out.len(), 4);
        same_objects(
            &[out[0].clone(), out[2].clone(), out[3].clone()],
            &[&p1, &p2, &p3],
        );
        assert_eq!(out[1].id, "W");
        assert_eq!(blocks(&out[1]), [add("fetch")]);
        assert_eq!(tools, Some(vec![s(), star(f())]));
    }

    #[test]
    fn p13_retain_readded_tool_keeps_only_its_first_addition() {
        // PX13 with retain equals PX13: the re-addition is dropped (never un-offered).
        let (msgs, hist) = px12_case();
        let tools = vec![s(), f()];
        let (out, decl) = retain(&msgs, &tools, Some(AdditionOnly), &hist);
        let omit = project_tool_updates(&msgs, Some(&tools), Some(AdditionOnly), Some(&hist));
        same_objects(&out, &omit.messages.iter().collect::<Vec<_>>());
        assert_eq!(decl, Some(vec![s(), star(f())]));
    }

    #[test]
    fn p1_p5_retain_changes_nothing_off_addition_only() {
        let msgs = vec![
            p(),
            dm("A", vec![add("fetch")]),
            p(),
            dm("R", vec![rem("fetch")]),
        ];
        let hist = h(vec![s()], vec![("A", vec![f()]), ("R", vec![])]);
        for mode in [None, Some(InHistory)] {
            let (out, tools) = retain(&msgs, &[s()], mode, &hist);
            let current = [s()];
            let omit = project_tool_updates(&msgs, Some(&current), mode, Some(&hist));
            same_objects(&out, &omit.messages.iter().collect::<Vec<_>>());
            assert_eq!(tools, tools_of(&omit), "{mode:?}");
        }
    }

    #[test]
    fn p4_retained_declarations_are_the_series_declarations_only_with_retain() {
        let hist = h(
            vec![s()],
            vec![("A", vec![f()]), ("R", vec![]), ("T", vec![f()])],
        );
        assert_eq!(
            retained_declarations(Some(AdditionOnly), ToolRemoval::Retain, &hist),
            vec!["search".to_string(), "fetch".to_string()]
        );
        for (mode, removal) in [
            (Some(AdditionOnly), ToolRemoval::Omit),
            (Some(InHistory), ToolRemoval::Retain),
            (None, ToolRemoval::Retain),
        ] {
            assert!(retained_declarations(mode, removal, &hist).is_empty());
        }
    }
}
