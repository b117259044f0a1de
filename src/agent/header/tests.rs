use super::*;
use crate::agent::prompt::RequestSeries;
use crate::agent::request::{AttemptInput, plan_attempt};
use crate::llm::projection::project_tool_updates;
use crate::llm::types::ToolHistory;
use crate::llm::types::{ProviderKind, Route};
use crate::session::event::{
    AdapterDefaults, AssistantMessageData, SystemPromptUpdate, ToolResultData, ToolSchema,
    ToolUpdateMode, UserMessageData,
};
use serde_json::json;

fn t(name: &str) -> ToolSchema {
    ToolSchema {
        name: name.into(),
        description: format!("{name} tool"),
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
fn config() -> CallConfig {
    CallConfig {
        provider: "deepseek".into(),
        model: "deepseek-flash".into(),
        reasoning_effort: None,
        temperature: None,
        max_tokens: None,
        stop: None,
    }
}
fn candidate(tools: &[ToolSchema]) -> RequestHeader {
    canonical_header(RequestHeader {
        config: config(),
        adapter_defaults: None,
        tools: Some(tools.to_vec()),
    })
}
fn names(tools: &Option<Vec<ToolSchema>>) -> Vec<String> {
    tools
        .iter()
        .flatten()
        .map(|t| t.name.clone())
        .collect::<Vec<_>>()
}

/// One dispatched request as the runtime would see it after projection.
struct Req {
    raw: Vec<Arc<Message>>,
    messages: Vec<Arc<Message>>,
    tools: Option<Vec<ToolSchema>>,
    history: Arc<ToolHistory>,
    outcome: HeaderOutcome,
}

/// The worked sequences' driver: a session, series and turn/step counters; every
/// request goes through the loop's real planner and builder.
struct Loop {
    session: Session,
    series: RequestSeries,
    turn: u64,
    step: u64,
    tool_update: Option<ToolUpdateMode>,
    prompt_update: Option<SystemPromptUpdate>,
    pending: Vec<String>,
}

impl Loop {
    fn new(tool_update: Option<ToolUpdateMode>, prompt_update: Option<SystemPromptUpdate>) -> Self {
        let session = Session::new("s", "/");
        let series = RequestSeries::attach(&session);
        Loop {
            session,
            series,
            turn: 1,
            step: 0,
            tool_update,
            prompt_update,
            pending: Vec::new(),
        }
    }

    /// Queues a user submission; it is appended after the prompt commits (E-16).
    fn user(&mut self, text: &str) {
        self.pending.push(text.to_string());
    }

    /// The model answered with a tool call, and its result came back.
    fn tool_round(&mut self) {
        let mut m = Message::new(
            Role::Assistant,
            vec![Block::ToolCall {
                id: format!("call_{}", self.step),
                name: "x".into(),
                arguments: "{}".into(),
            }],
            Source::kind("model"),
        );
        m.id = format!("asst_{}", self.step);
        self.session
            .push(EventKind::AssistantMessage(AssistantMessageData {
                turn: self.turn,
                step: self.step,
                message: m,
                usage: None,
                timing: None,
                interrupted: None,
            }))
            .unwrap();
        let mut r = Message::text(Role::Tool, "done", Source::kind("tool"));
        r.tool_call_id = Some(format!("call_{}", self.step));
        self.session
            .push(EventKind::ToolResult(ToolResultData {
                turn: self.turn,
                step: self.step,
                message: r,
                error: None,
                sandbox_retry: None,
            }))
            .unwrap();
    }

    /// One attempt through the loop's real planner ([`plan_attempt`]).
    fn request(&mut self, prompt: &str, tools: &[ToolSchema], explicit: bool) -> Req {
        self.step += 1;
        let mut tools = tools.to_vec();
        tools.sort_by(|a, b| a.name.cmp(&b.name)); // D-2
        let route = Route {
            provider: "deepseek".into(),
            model: "deepseek-flash".into(),
            kind: ProviderKind::DeepseekMessages,
            base_url: String::new(),
            api_key_env: String::new(),
            caps: crate::llm::types::Capabilities {
                context_window: 1_000_000,
                system_prompt_update: self.prompt_update,
                tool_update: self.tool_update,
                tool_removal: Default::default(),
                image_input: false,
                max_tools: 128,
                prices: None,
            },
        };
        let input = AttemptInput {
            rendered: prompt,
            tools,
            deferred: Vec::new(),
            pending_user: std::mem::take(&mut self.pending)
                .into_iter()
                .map(|text| Message::text(Role::User, text, Source::kind("user")))
                .collect(),
            turn: self.turn,
            step: self.step,
            explicit_series_start: explicit,
            effort: None,
        };
        let planned = plan_attempt(
            &mut self.session,
            &mut self.series,
            &route,
            input,
            &mut |_| {},
        )
        .unwrap();
        let opts = planned.opts;
        let raw = opts.messages.to_vec();
        let history = opts.tool_history.clone().unwrap();
        let p = project_tool_updates(
            &raw,
            opts.tools.as_deref(),
            opts.route.caps.tool_update,
            Some(&history),
        );
        let messages = p.messages.to_vec();
        let tools = p.tools.map(|t| t.to_vec());
        Req {
            raw,
            messages,
            tools,
            history,
            outcome: planned.header,
        }
    }

    fn developer_events(&self) -> Vec<(Vec<Block>, Option<u64>)> {
        self.session
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::DeveloperMessage(d) => Some((d.message.content.clone(), d.header_seq)),
                _ => None,
            })
            .collect()
    }
}

fn dev_blocks(msgs: &[Arc<Message>]) -> Vec<Vec<Block>> {
    msgs.iter()
        .filter(|m| m.role == Role::Developer)
        .map(|m| m.content.clone())
        .collect()
}

#[test]
fn a_route_without_tool_updates_declares_the_current_tools_and_sends_no_developer_message() {
    let mut lp = Loop::new(None, None);
    let (s, f) = (t("search"), t("fetch"));
    lp.user("go");
    let r1 = lp.request("prompt", std::slice::from_ref(&s), false);
    lp.tool_round();
    let r2 = lp.request("prompt", &[s.clone(), f.clone()], false);
    lp.tool_round();
    let r3 = lp.request("prompt", std::slice::from_ref(&f), false);
    lp.tool_round();
    let r4 = lp.request("prompt", std::slice::from_ref(&f), false);
    let reqs = [&r1, &r2, &r3, &r4];
    let updates: Vec<usize> = reqs.iter().map(|r| r.history.updates.len()).collect();
    assert_eq!(updates, [0, 1, 2, 2]);
    let tool_names: Vec<Vec<String>> = reqs.iter().map(|r| names(&r.tools)).collect();
    assert_eq!(
        tool_names,
        [
            vec!["search"],
            vec!["fetch", "search"],
            vec!["fetch"],
            vec!["fetch"]
        ]
    );
    for r in reqs {
        assert!(r.messages.iter().all(|m| m.role != Role::Developer));
        assert!(r.tools.iter().flatten().all(|t| t.defer_loading.is_none()));
    }
    let h2 = r2.outcome.applied.header.as_ref().unwrap().seq;
    assert_eq!(
        lp.developer_events(),
        [
            (vec![Block::addition("fetch")], Some(h2)),
            (vec![Block::removal("search")], None)
        ]
    );
    let reasons: Vec<Option<HeaderReason>> = reqs
        .iter()
        .map(|r| r.outcome.plan.header.map(|w| w.reason))
        .collect();
    assert_eq!(
        reasons,
        [
            Some(HeaderReason::Initial),
            Some(HeaderReason::Change),
            Some(HeaderReason::Change),
            None
        ]
    );
    // The prompt head already matched: no replacement, so no series start.
    assert_eq!(lp.session.content_generation(), 0);
}

#[test]
fn on_an_in_history_route_each_request_extends_the_previous_one_with_tool_changes() {
    let mut lp = Loop::new(Some(ToolUpdateMode::InHistory), None);
    let (s, f) = (t("search"), t("fetch"));
    lp.user("go");
    let r1 = lp.request("prompt", std::slice::from_ref(&s), false);
    lp.tool_round();
    let r2 = lp.request("prompt", &[s.clone(), f.clone()], false);
    lp.tool_round();
    let r3 = lp.request("prompt", std::slice::from_ref(&s), false);
    for (r, reason) in [
        (&r1, HeaderReason::Initial),
        (&r2, HeaderReason::Change),
        (&r3, HeaderReason::Change),
    ] {
        assert_eq!(
            r.outcome.plan.header,
            Some(HeaderWrite {
                reason,
                starts_series: false
            })
        );
    }
    assert_eq!(r1.tools, Some(vec![s.clone()]));
    assert_eq!(r2.tools, Some(vec![s.clone(), star(f.clone())]));
    assert_eq!(dev_blocks(&r2.messages), [vec![Block::addition("fetch")]]);
    assert_eq!(r3.tools, r2.tools);
    assert_eq!(
        dev_blocks(&r3.messages),
        [
            vec![Block::addition("fetch")],
            vec![Block::removal("fetch")]
        ]
    );
    assert_eq!(r3.outcome.header.tools, Some(vec![s]));
    // Each request's messages extend the previous request's (prefix cache).
    for (a, b) in [(&r1, &r2), (&r2, &r3)] {
        assert!(
            a.messages
                .iter()
                .zip(&b.messages)
                .all(|(x, y)| Arc::ptr_eq(x, y))
        );
    }
}

#[test]
fn a_prompt_update_and_a_tool_addition_keep_earlier_messages() {
    let mut lp = Loop::new(
        Some(ToolUpdateMode::AdditionOnly),
        Some(SystemPromptUpdate::InHistory),
    );
    let (c, x) = (t("cache_tool_control"), t("cache_sample"));
    lp.user("add a tool");
    let r1 = lp.request("P1", std::slice::from_ref(&c), false);
    lp.tool_round();
    let r2 = lp.request("P2", &[c.clone(), x.clone()], false);
    assert_eq!(lp.session.content_generation(), 0);
    let n = r1.messages.len();
    assert!(
        r1.messages
            .iter()
            .zip(&r2.messages)
            .all(|(a, b)| Arc::ptr_eq(a, b))
    );
    // After the prefix: the assistant tool call, its result, the prompt update and
    // the tool addition — exactly two system-side messages.
    let tail = &r2.messages[n..];
    let roles: Vec<Role> = tail.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::Assistant, Role::Tool, Role::System, Role::Developer]
    );
    assert_eq!(tail[2].joined_text(), "P2");
    assert_eq!(tail[3].content, [Block::addition("cache_sample")]);
    assert_eq!(r2.tools, Some(vec![c, star(x)]));
    assert_eq!(
        r2.outcome.plan.header,
        Some(HeaderWrite {
            reason: HeaderReason::Change,
            starts_series: false
        })
    );
}

#[test]
fn a_route_without_tool_updates_consolidates_the_prompt_and_starts_a_series() {
    let mut lp = Loop::new(None, Some(SystemPromptUpdate::InHistory));
    let (c, x) = (t("cache_tool_control"), t("cache_sample"));
    lp.user("add a tool");
    let r1 = lp.request("P1", std::slice::from_ref(&c), false);
    lp.tool_round();
    let r2 = lp.request("P2", &[c.clone(), x.clone()], false);
    assert_eq!(lp.session.content_generation(), 1);
    assert!(!Arc::ptr_eq(&r1.messages[0], &r2.messages[0]));
    assert_eq!(r2.messages[0].joined_text(), "P2");
    assert_eq!(
        r2.messages
            .iter()
            .filter(|m| m.role == Role::System)
            .count(),
        1
    );
    assert_eq!(
        r2.outcome.plan.header,
        Some(HeaderWrite {
            reason: HeaderReason::Change,
            starts_series: true
        })
    );
    assert_eq!(r2.tools, Some(vec![x, c]));
    assert!(dev_blocks(&r2.messages).is_empty());
    // The log still records the change, capability-independently.
    assert_eq!(lp.developer_events().len(), 1);
}

#[test]
fn an_explicit_series_start_consolidates_even_on_a_capable_route() {
    let mut lp = Loop::new(
        Some(ToolUpdateMode::InHistory),
        Some(SystemPromptUpdate::InHistory),
    );
    let s = t("search");
    lp.user("go");
    lp.request("P1", std::slice::from_ref(&s), false);
    lp.tool_round();
    let r2 = lp.request("P2", std::slice::from_ref(&s), false);
    assert_eq!(r2.raw.iter().filter(|m| m.role == Role::System).count(), 2);
    lp.tool_round();
    let r3 = lp.request("P2", std::slice::from_ref(&s), true);
    let systems: Vec<String> = r3
        .raw
        .iter()
        .filter(|m| m.role == Role::System)
        .map(|m| m.joined_text())
        .collect();
    assert_eq!(systems, ["P2"]);
    assert_eq!(lp.session.content_generation(), 2);
    assert_eq!(
        r3.outcome.plan.header,
        Some(HeaderWrite {
            reason: HeaderReason::Series,
            starts_series: false
        })
    );
}

#[test]
fn replacing_the_prompt_surface_starts_a_series_and_rebuilds_the_tool_fold() {
    let mut lp = Loop::new(Some(ToolUpdateMode::InHistory), None);
    let (s, f) = (t("search"), t("fetch"));
    lp.user("a");
    lp.request("P", std::slice::from_ref(&s), false);
    lp.tool_round();
    lp.request("P", &[s.clone(), f.clone()], false);
    // Compaction-like replacement of the user..tool range.
    let nodes: Vec<u64> = lp.session.surface().nodes().iter().map(|n| n.seq).collect();
    let (start, end) = (nodes[1], *nodes.last().unwrap());
    lp.session
        .replace(
            EventKind::UserMessage(UserMessageData {
                message: Message::text(Role::User, "summary", Source::kind("compaction")),
            }),
            start,
            end,
        )
        .unwrap();
    let r = lp.request("P", &[s.clone(), f.clone()], false);
    assert_eq!(
        r.outcome.plan.header,
        Some(HeaderWrite {
            reason: HeaderReason::Series,
            starts_series: false
        })
    );
    assert_eq!(
        *r.history,
        ToolHistory {
            tools: vec![f.clone(), s.clone()],
            updates: vec![]
        }
    );
    assert_eq!(r.tools, Some(vec![f, s]));
}

#[test]
fn a_retry_with_nothing_changed_logs_no_header() {
    let mut lp = Loop::new(Some(ToolUpdateMode::InHistory), None);
    lp.user("a");
    lp.request("P", &[t("search")], false);
    let n = lp.session.events().len();
    lp.step -= 1; // retry of the same step
    let r = lp.request("P", &[t("search")], false);
    assert!(r.outcome.plan.header.is_none());
    assert_eq!(lp.session.events().len(), n);
}

#[test]
fn resume_logs_a_resume_header_and_the_tool_changes_between_runs() {
    let mut lp = Loop::new(Some(ToolUpdateMode::InHistory), None);
    lp.user("a");
    lp.request("P", &[t("search")], false);
    let events: Vec<_> = lp
        .session
        .events()
        .iter()
        .map(|e| Event::clone(e))
        .collect();
    let session = Session::from_events(events).unwrap();
    let series = RequestSeries::attach(&session);
    let mut lp2 = Loop {
        session,
        series,
        ..lp
    };
    lp2.user("b");
    let r = lp2.request("P", &[t("search"), t("fetch")], false);
    assert_eq!(
        r.outcome.plan.header,
        Some(HeaderWrite {
            reason: HeaderReason::Resume,
            starts_series: false
        })
    );
    assert_eq!(r.outcome.plan.developer_blocks, [Block::addition("fetch")]);
    let dev = r.outcome.applied.developer.as_ref().unwrap();
    match &dev.kind {
        EventKind::DeveloperMessage(d) => {
            assert_eq!(
                d.header_seq,
                Some(r.outcome.applied.header.as_ref().unwrap().seq)
            );
            assert_eq!(d.message.source.kind, TOOL_REGISTRY_SOURCE);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(dev_blocks(&r.messages), [vec![Block::addition("fetch")]]);
}

#[test]
fn a_changed_definition_or_order_alone_sends_no_developer_message() {
    let s = t("search");
    let mut s2 = t("search");
    s2.description = "other".into();
    let base = candidate(&[s.clone(), t("fetch")]);
    let plan = plan_header(Some(&base), &candidate(&[s2, t("fetch")]), false, false);
    assert_eq!(plan.header.map(|w| w.reason), Some(HeaderReason::Change));
    assert!(plan.developer_blocks.is_empty());
    let plan = plan_header(Some(&base), &candidate(&[t("fetch"), s]), false, false);
    assert_eq!(plan.header.map(|w| w.reason), Some(HeaderReason::Change));
    assert!(plan.developer_blocks.is_empty() && !plan.header_seq_owed);
}

#[test]
fn tool_changes_list_additions_in_current_order_then_removals_in_baseline_order() {
    let base = candidate(&[t("a"), t("b"), t("c"), t("d")]);
    let cur = candidate(&[t("z"), t("b"), t("y"), t("d")]);
    let plan = plan_header(Some(&base), &cur, false, false);
    assert_eq!(
        plan.developer_blocks,
        [
            Block::addition("z"),
            Block::addition("y"),
            Block::removal("a"),
            Block::removal("c")
        ]
    );
    assert!(plan.header_seq_owed);
    // A series re-log never owes a developer message; initial has no baseline.
    let plan = plan_header(Some(&base), &base, false, true);
    assert_eq!(plan.header.map(|w| w.reason), Some(HeaderReason::Series));
    assert!(plan.developer_blocks.is_empty());
    let plan = plan_header(None, &cur, true, false);
    assert_eq!(plan.header.map(|w| w.reason), Some(HeaderReason::Initial));
    assert!(plan.developer_blocks.is_empty());
    // Removal-only owes no headerSeq.
    let plan = plan_header(Some(&base), &candidate(&[t("a")]), false, false);
    assert!(!plan.header_seq_owed && plan.developer_blocks.len() == 3);
}

#[test]
fn canonical_form_and_header_identity() {
    let mut h = RequestHeader {
        config: config(),
        adapter_defaults: Some(AdapterDefaults {
            reasoning_effort: Some(false),
            max_tokens: None,
        }),
        tools: Some(vec![]),
    };
    h = canonical_header(h);
    assert!(h.tools.is_none() && h.adapter_defaults.is_none());
    let with_marker = canonical_header(RequestHeader {
        adapter_defaults: Some(AdapterDefaults {
            reasoning_effort: Some(true),
            max_tokens: None,
        }),
        ..h.clone()
    });
    assert!(with_marker.adapter_defaults.is_some());
    assert!(!header_equals(&h, &with_marker));
    assert!(header_equals(&h, &candidate(&[])));
    let mut a = t("fetch");
    a.parameters = json!({"a": 1, "b": 2});
    let mut b = t("fetch");
    b.parameters = json!({"b": 2, "a": 1});
    assert!(!header_equals(
        &candidate(std::slice::from_ref(&a)),
        &candidate(&[b])
    ));
    assert!(header_equals(
        &candidate(std::slice::from_ref(&a)),
        &candidate(&[a])
    ));
    let mut other = config();
    other.temperature = Some(0.5);
    let h2 = RequestHeader {
        config: other,
        ..h.clone()
    };
    assert!(!header_equals(&h, &h2));
}
