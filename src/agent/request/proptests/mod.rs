//! Dispatch equals reconstruct: random sessions (tool churn, prompt updates, compactions,
//! model switches across both wire protocols and every update mode, deferred catalogues,
//! and providers refusing a tool-change block: the logged `route/downgrade` and the same
//! log projected again, SPEC §15.1; subagents started by `task` calls, SPEC §15.3) are
//! driven through the loop's planner ([`plan_attempt`]) and compaction builder
//! ([`compaction_request`]); each request's wire body is logged next to the session. The
//! inspector then rebuilds every request from the log alone (no config: `kind_of` knows
//! no provider), a subagent's from its log inside the parent's, and must produce the same
//! bytes. Cases: `DEEPTERM_PROPTEST_CASES`, else 1,000.

mod subagent;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::agent::inspect::reconstruct;
use crate::llm::client::{SerializedBody, WireBytes, build_wire};
use crate::session::event::{
    AssistantAttempt, AssistantMessageData, AttemptError, Block, CompactionEnd, CompactionStart,
    CompactionSummary, ToolResultData,
};
use crate::session::event::{RequestContext, SystemPromptUpdate, ToolUpdateMode};

/// The routes a session switches between: both protocols, every update mode, with
/// `tool_removal = "rewrite"` (routes 0–4), an addition-only route with `retain` (route 5,
/// also what a downgrade after a refused removal leaves), and the tool bridge (`retain`
/// without `tool_update`, SPEC §15.1) on both protocols (routes 6, 7).
fn route(i: usize) -> Route {
    let (provider, model, kind, spu, tu) = match i % ROUTES {
        6 => (
            "deepseek-chat",
            "deepseek-flash-bridge",
            ProviderKind::OpenaiChat,
            None,
            None,
        ),
        7 => (
            "anthro",
            "claude-ish-bridge",
            ProviderKind::DeepseekMessages,
            None,
            None,
        ),
        5 => (
            "deepseek",
            "deepseek-flash-retain",
            ProviderKind::DeepseekMessages,
            None,
            Some(ToolUpdateMode::AdditionOnly),
        ),
        0 => (
            "deepseek",
            "deepseek-flash",
            ProviderKind::DeepseekMessages,
            Some(SystemPromptUpdate::InHistory),
            Some(ToolUpdateMode::InHistory),
        ),
        1 => (
            "deepseek",
            "deepseek-pro",
            ProviderKind::DeepseekMessages,
            None,
            Some(ToolUpdateMode::AdditionOnly),
        ),
        2 => (
            "anthro",
            "claude-ish",
            ProviderKind::DeepseekMessages,
            None,
            None,
        ),
        3 => (
            "deepseek-chat",
            "deepseek-flash",
            ProviderKind::OpenaiChat,
            None,
            None,
        ),
        _ => (
            "oa",
            "gpt-ish",
            ProviderKind::OpenaiChat,
            Some(SystemPromptUpdate::InHistory),
            None,
        ),
    };
    Route {
        provider: provider.into(),
        model: model.into(),
        kind,
        base_url: "http://127.0.0.1:1".into(),
        api_key_env: "KEY".into(),
        caps: crate::llm::types::Capabilities {
            context_window: 100_000,
            system_prompt_update: spu,
            tool_update: tu,
            tool_removal: if i % ROUTES >= 5 {
                crate::session::event::ToolRemoval::Retain
            } else {
                crate::session::event::ToolRemoval::Omit
            },
            image_input: false,
            max_tools: 128,
            prices: None,
        },
    }
}

/// How many routes [`route`] knows.
const ROUTES: usize = 8;

fn tool(name: &str, variant: bool) -> ToolSchema {
    ToolSchema {
        name: name.into(),
        description: if variant {
            format!("{name} (v2)")
        } else {
            format!("{name} tool")
        },
        parameters: json!({"type": "object", "properties": {"q": {"type": "string"}}}),
        defer_loading: None,
    }
}

const POOL: [&str; 5] = ["fetch", "grep", "read", "search", "write"];

/// Tools a deferred catalogue announces instead of declaring (SPEC §15.1).
const DEFERRED_POOL: [&str; 4] = ["mcp__alpha", "mcp__beta", "mcp__delta", "mcp__gamma"];

/// One thing that happens between requests.
#[derive(Debug, Clone)]
enum Op {
    /// The active tool set becomes this subset of [`POOL`] (bit mask; bit 5 = variant
    /// descriptions, a definition-only change).
    Tools(u8),
    /// `/system`-style change of the rendered prompt.
    Prompt(u8),
    /// Switch to route `i` (model switch, possibly across protocols).
    Route(u8),
    /// A step: the model calls a tool and its result comes back (the turn continues).
    ToolRound,
    /// A step fails and is retried (an `assistant/attempt`).
    Fail,
    /// The turn ends with a text answer; a new user message starts the next turn.
    Answer,
    /// Compact the history (summary succeeds, or fails when `false`).
    Compact(bool),
    /// Explicit series start on the next request (S-4).
    Explicit,
    /// The deferred (announced, not declared) tools become this subset of
    /// [`DEFERRED_POOL`] (bit mask); while any is deferred the bridge tools are declared.
    Deferred(u8),
    /// From here on the provider answers a request carrying [`REFUSALS`]`[i]`'s block
    /// with a 400 naming it (the live fallback, SPEC §15.1).
    Refuse(u8),
    /// A step calls `task` (once, or twice at once); each subagent takes this many tool
    /// rounds, and its first request fails once when set (SPEC §15.3).
    Subagent(u8, u8, bool),
}

/// What a provider may refuse: the block as it shows in the body, and its 400's message.
const REFUSALS: [(&str, &str); 4] = [
    (
        "\"type\":\"tool_removal\"",
        "`tool_removal` is not supported",
    ),
    (
        "\"type\":\"tool_addition\"",
        "Unknown content block type: `tool_addition`",
    ),
    ("\"defer_loading\":true", "`defer_loading` is not supported"),
    (
        "\"role\":\"system\"",
        "messages with role 'system' are not supported",
    ),
];

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => any::<u8>().prop_map(Op::Tools),
        2 => (0u8..4).prop_map(Op::Prompt),
        2 => (0u8..ROUTES as u8).prop_map(Op::Route),
        4 => Just(Op::ToolRound),
        1 => Just(Op::Fail),
        3 => Just(Op::Answer),
        1 => any::<bool>().prop_map(Op::Compact),
        1 => Just(Op::Explicit),
        2 => (0u8..16).prop_map(Op::Deferred),
        1 => (0u8..REFUSALS.len() as u8).prop_map(Op::Refuse),
        2 => (1u8..3, 0u8..3, any::<bool>()).prop_map(|(a, r, f)| Op::Subagent(a, r, f)),
    ]
}

/// The bytes the client sends.
fn sent(w: WireBytes) -> (Vec<u8>, Option<String>) {
    (w.bytes, w.beta)
}

/// The inspector's rebuilt body, as bytes.
fn bytes(w: &SerializedBody) -> (Vec<u8>, Option<String>) {
    (
        serde_json::to_vec(&w.body).unwrap_or_default(),
        w.beta.clone(),
    )
}

/// The loop side: a session, its series and the live route/prompt/tools.
struct Driver {
    session: Session,
    series: RequestSeries,
    route: Route,
    prompt: String,
    tools: Vec<ToolSchema>,
    deferred: Vec<ToolSchema>,
    pending: Vec<Message>,
    explicit: bool,
    turn: u64,
    step: u64,
    calls: u64,
    /// Wire bodies as the loop built them, in request order.
    sent: Vec<(Vec<u8>, Option<String>)>,
    /// The block the provider refuses (an index into [`REFUSALS`]).
    refuses: Option<usize>,
    /// What a refusal left the route it is for (the loop's `SessionState::downgrade`).
    downgrade: Option<(String, crate::llm::downgrade::Narrowed)>,
    /// Indices into `sent` of the requests the provider refused.
    refused: Vec<usize>,
    /// Each subagent's wire bodies, in start order.
    subagent_sent: Vec<subagent::SubagentSent>,
}

impl Driver {
    fn new() -> Self {
        Driver::on(route(0))
    }

    /// A driver whose session starts on `route`.
    fn on(route: Route) -> Self {
        let session = Session::new("prop", "/");
        let series = RequestSeries::attach(&session);
        Driver {
            session,
            series,
            route,
            prompt: "You are helpful.".into(),
            tools: vec![tool("search", false)],
            deferred: Vec::new(),
            pending: vec![Message::text(Role::User, "hello", Source::kind("user"))],
            explicit: false,
            turn: 1,
            step: 0,
            calls: 0,
            sent: Vec::new(),
            refuses: None,
            downgrade: None,
            refused: Vec::new(),
            subagent_sent: Vec::new(),
        }
    }

    /// The declared and the deferred tools, as the registry plans them: the bridge tools
    /// are declared while a tool is deferred.
    fn plan(&self) -> (Vec<ToolSchema>, Vec<ToolSchema>) {
        let mut tools = self.tools.clone();
        if !self.deferred.is_empty() {
            tools.extend(crate::llm::bridge::bridge_schemas());
            tools.sort_by(|a, b| a.name.cmp(&b.name));
        }
        (tools, self.deferred.clone())
    }

    /// The route as narrowed by a refusal, as the loop's `effective_route` applies it.
    fn effective_route(&self) -> Route {
        let mut route = self.route.clone();
        if let Some((id, narrowed)) = &self.downgrade
            && *id == route.id()
        {
            route.caps = narrowed.apply(&route.caps);
        }
        route
    }

    /// After a request the provider refuses: the failed attempt and the `route/downgrade`
    /// as the loop logs them, and the narrowing. `false` when it is not a refusal the
    /// fallback takes (the loop would fail the turn; here the request stands).
    fn refused_by_provider(&mut self, route: &Route) -> bool {
        let Some(i) = self.refuses else {
            return false;
        };
        let (block, message) = REFUSALS[i];
        let body = &self.sent.last().expect("a request was sent").0;
        if !String::from_utf8_lossy(body).contains(block) {
            return false;
        }
        let e = crate::llm::types::LlmError {
            code: crate::llm::types::ErrorCode::InvalidRequest,
            status: Some(400),
            message: message.into(),
            retry_after: None,
        };
        let Some((to, blocks)) = crate::llm::downgrade::narrowing(&route.caps, &e) else {
            return false;
        };
        for kind in [
            EventKind::AssistantAttempt(AssistantAttempt {
                turn: self.turn,
                step: self.step,
                error: AttemptError {
                    code: "invalid_request".into(),
                    status: Some(400),
                    message: message.into(),
                    retried: true,
                    detail: None,
                },
            }),
            EventKind::RouteDowngrade(crate::llm::downgrade::RouteDowngrade {
                turn: self.turn,
                step: self.step,
                route: route.id(),
                blocks,
                to,
                message: message.into(),
            }),
        ] {
            self.session.push(kind).expect("refusal");
        }
        self.downgrade = Some((route.id(), to));
        self.refused.push(self.sent.len() - 1);
        true
    }

    /// One attempt through the real planner; the wire body it would send. A request the
    /// provider refuses is sent again once through the narrowed route, as the loop does.
    fn attempt(&mut self) -> GenerateOptions {
        self.step += 1;
        let first = self.plan_and_send();
        let route = self.effective_route();
        match self.refused_by_provider(&route) {
            true => self.plan_and_send(),
            false => first,
        }
    }

    fn plan_and_send(&mut self) -> GenerateOptions {
        let route = self.effective_route();
        let (tools, deferred) = self.plan();
        let input = AttemptInput {
            rendered: &self.prompt,
            tools,
            deferred,
            pending_user: std::mem::take(&mut self.pending),
            turn: self.turn,
            step: self.step,
            explicit_series_start: std::mem::take(&mut self.explicit),
            effort: None,
        };
        let planned = plan_attempt(
            &mut self.session,
            &mut self.series,
            &route,
            input,
            &mut |_| {},
        )
        .expect("plan");
        let wire = build_wire(&planned.opts).expect("the loop's request serializes");
        self.sent.push(sent(wire));
        planned.opts
    }

    fn assistant(&mut self, blocks: Vec<Block>) {
        let m = Message::new(Role::Assistant, blocks, Source::kind("model"));
        self.session
            .push(EventKind::AssistantMessage(AssistantMessageData {
                turn: self.turn,
                step: self.step,
                message: m,
                usage: None,
                timing: None,
                interrupted: None,
            }))
            .expect("assistant");
    }

    fn apply(&mut self, op: &Op) {
        match op {
            Op::Tools(mask) => {
                let variant = mask & 0x20 != 0;
                self.tools = POOL
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| mask & (1 << i) != 0)
                    .map(|(_, n)| tool(n, variant))
                    .collect();
            }
            Op::Prompt(p) => self.prompt = format!("You are helpful. Rule {p}."),
            Op::Route(i) => self.route = route(usize::from(*i)),
            Op::Explicit => self.explicit = true,
            Op::Refuse(i) => self.refuses = Some(usize::from(*i)),
            Op::Deferred(mask) => {
                self.deferred = DEFERRED_POOL
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| mask & (1 << i) != 0)
                    .map(|(_, n)| tool(n, false))
                    .collect();
            }
            Op::ToolRound => {
                self.attempt();
                self.calls += 1;
                let id = format!("call_{}", self.calls);
                let name = self
                    .tools
                    .first()
                    .map(|t| t.name.clone())
                    .unwrap_or_else(|| "gone".into());
                self.assistant(vec![Block::ToolCall {
                    id: id.clone(),
                    name,
                    arguments: "{\"q\":\"x\"}".into(),
                }]);
                let mut r = Message::text(Role::Tool, "result", Source::kind("tool"));
                r.tool_call_id = Some(id);
                self.session
                    .push(EventKind::ToolResult(ToolResultData {
                        turn: self.turn,
                        step: self.step,
                        message: r,
                        error: None,
                        sandbox_retry: None,
                    }))
                    .expect("tool result");
            }
            Op::Fail => {
                self.attempt();
                self.session
                    .push(EventKind::AssistantAttempt(AssistantAttempt {
                        turn: self.turn,
                        step: self.step,
                        error: AttemptError {
                            code: "server".into(),
                            status: Some(503),
                            message: "busy".into(),
                            retried: true,
                            detail: None,
                        },
                    }))
                    .expect("attempt");
                // The retry is the same step.
                self.step -= 1;
            }
            Op::Answer => {
                self.attempt();
                self.assistant(vec![Block::Text {
                    text: format!("answer {}", self.turn),
                }]);
                self.turn += 1;
                self.step = 0;
                self.pending.push(Message::text(
                    Role::User,
                    format!("question {}", self.turn),
                    Source::kind("user"),
                ));
            }
            Op::Compact(ok) => self.compact(*ok),
            Op::Subagent(agents, rounds, fail) => self.subagents(*agents, *rounds, *fail),
        }
    }

    /// Compaction as the loop runs it: build the request (real builder), log the start,
    /// then the summary and checkpoint, or the failure.
    fn compact(&mut self, ok: bool) {
        // Only between turns, with the next user message still pending (as `/compact`).
        if self.pending.is_empty() {
            return;
        }
        let nodes = self.session.surface().nodes();
        let start = usize::from(
            nodes
                .first()
                .is_some_and(|n| n.event_type == "system/message"),
        );
        if nodes.len() <= start
            || nodes[start..]
                .iter()
                .filter(|n| n.derives_message())
                .count()
                < 2
        {
            return;
        }
        let (start_seq, end_seq) = (nodes[start].seq, nodes[nodes.len() - 1].seq);
        let route = self.effective_route();
        let opts = compaction_request(
            &mut self.session,
            &route,
            None,
            start_seq,
            end_seq,
            &mut |_| {},
        )
        .expect("compaction request");
        let wire = build_wire(&opts).expect("the summarizer request serializes");
        self.sent.push(sent(wire));
        self.session
            .push(EventKind::CompactionStart(CompactionStart {
                trigger: crate::session::event::CompactionTrigger::Manual,
                start_seq,
                end_seq,
            }))
            .expect("start");
        if ok {
            self.session
                .push(EventKind::CompactionSummary(CompactionSummary {
                    text: "summary".into(),
                    usage: None,
                }))
                .expect("summary");
            self.session
                .replace(
                    EventKind::UserMessage(UserMessageData {
                        message: Message::text(
                            Role::User,
                            "Summary of the earlier conversation",
                            Source::kind("compaction"),
                        ),
                    }),
                    start_seq,
                    end_seq,
                )
                .expect("checkpoint");
        }
        self.session
            .push(EventKind::CompactionEnd(CompactionEnd {
                outcome: if ok {
                    crate::session::event::CompactionOutcome::Completed
                } else {
                    crate::session::event::CompactionOutcome::Failed
                },
                error: (!ok).then(|| "busy".into()),
            }))
            .expect("end");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::testing::proptest_cases(1_000), ..ProptestConfig::default() })]

    /// Dispatch equals reconstruct (SPEC §12.1): for every request of a
    /// random session the inspector's rebuilt body equals the loop's wire body byte for
    /// byte, and both number the same requests; a subagent's requests too, rebuilt from
    /// its log inside the parent's (SPEC §15.3), which numbers the parent's requests as
    /// the parent does.
    #[test]
    fn inspector_rebuilds_every_request_byte_for_byte(ops in prop::collection::vec(op(), 1..40)) {
        let mut d = Driver::new();
        for op in &ops {
            d.apply(op);
        }
        // The last pending user message is a request too.
        d.attempt();
        d.assistant(vec![Block::Text { text: "done".into() }]);

        let events = d.session.events().to_vec();
        prop_assert_eq!(d.session.ledger().len(), d.sent.len());
        let wanted: Vec<usize> = (1..=d.sent.len()).collect();
        // No config: every route fact must come from the log.
        let rebuilt = reconstruct(&events, &wanted, &|_| None).expect("reconstruct");
        prop_assert_eq!(rebuilt.len(), d.sent.len());
        for (r, sent) in rebuilt.iter().zip(&d.sent) {
            // What the inspector shows is its rebuilt body's text.
            let shown = r.wire.body.to_string();
            prop_assert_eq!(shown.as_bytes(), &sent.0[..]);
            let got = bytes(&r.wire);
            prop_assert!(
                &got == sent,
                "request #{} differs:\nsent:    {}\nrebuilt: {}",
                r.at.n,
                String::from_utf8_lossy(&sent.0),
                String::from_utf8_lossy(&got.0)
            );
        }
        // A replayed log (resume) gives the same ledger.
        let plain: Vec<Event> = events.iter().map(|e| Event::clone(e)).collect();
        let replayed = Session::from_events(plain).expect("replay");
        prop_assert_eq!(replayed.ledger().refs(), d.session.ledger().refs());
        for (agent, sent) in &d.subagent_sent {
            let log = crate::agent::subagent::log::subagent_log(&replayed, agent)
                .expect("the subagent is logged")
                .expect("its log loads");
            let refs = log.ledger().refs();
            prop_assert!(refs.len() > sent.len());
            let parents = refs.len() - sent.len();
            prop_assert_eq!(&refs[..parents], &d.session.ledger().refs()[..parents]);
            let wanted: Vec<usize> = (parents + 1..=refs.len()).collect();
            let rebuilt = reconstruct(log.events(), &wanted, &|_| None).expect("reconstruct");
            prop_assert_eq!(rebuilt.len(), sent.len());
            for (r, sent) in rebuilt.iter().zip(sent) {
                let got = bytes(&r.wire);
                prop_assert!(
                    &got == sent,
                    "{} request {} differs:\nsent:    {}\nrebuilt: {}",
                    agent,
                    r.at.n,
                    String::from_utf8_lossy(&sent.0),
                    String::from_utf8_lossy(&got.0)
                );
            }
        }
    }
}

/// What the routes of a fresh config are, one per route kind (SPEC §15.1): Messages
/// `addition-only`, Messages `in-history`, Chat Completions; `retain`, the default.
fn default_route(kind: u8) -> Route {
    let mut r = match kind % 3 {
        0 => route(1),
        1 => route(0),
        _ => route(3),
    };
    r.caps.tool_removal = crate::session::event::ToolRemoval::CONFIG_DEFAULT;
    r
}

/// A tool change (a set of [`POOL`], bit 5 = changed definitions under the same names, or
/// a set of deferred tools), a tool round or an answer.
fn churn_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u8..64).prop_map(Op::Tools),
        2 => (0u8..16).prop_map(Op::Deferred),
        2 => Just(Op::ToolRound),
        2 => Just(Op::Answer),
    ]
}

/// The sent body's `(system, messages, tools)`, as JSON.
fn parts(body: &[u8]) -> (Value, Vec<Value>, Vec<Value>) {
    let v: Value = serde_json::from_slice(body).expect("a JSON body");
    let list = |k: &str| v[k].as_array().cloned().unwrap_or_default();
    (v["system"].clone(), list("messages"), list("tools"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::testing::proptest_cases(300), ..ProptestConfig::default() })]

    /// SPEC §15.1: with the default config, no sequence of tool changes alters the bytes
    /// an earlier request sent, on any route kind: each request's messages start with the
    /// previous request's, its system is the same, and its tools start with the previous
    /// tools (a capable route appends a deferred declaration, cached at its addition; the
    /// bridge never changes them). Deferred catalogues come and go too: their notes are
    /// appended. A same-name definition change is included on every route: the request
    /// keeps the logged definition and a definition note tells the model.
    /// A provider that refuses `tool_removal` blocks costs one refused request and nothing
    /// of the prefix: the route keeps `tool_addition` and tells removals in text.
    #[test]
    fn tool_churn_never_alters_an_earlier_request_on_any_route_kind(
        kind in 0u8..3,
        refuses_removals in any::<bool>(),
        ops in prop::collection::vec(churn_op(), 1..30),
    ) {
        let mut d = Driver::on(default_route(kind));
        d.refuses = refuses_removals.then_some(0);
        for op in &ops {
            d.apply(op);
        }
        d.attempt();
        // What the provider answered (a refused request is never cached).
        let answered: Vec<(Vec<u8>, Option<String>)> = d
            .sent
            .iter()
            .enumerate()
            .filter(|(i, _)| !d.refused.contains(i))
            .map(|(_, s)| s.clone())
            .collect();
        for (i, w) in answered.windows(2).enumerate() {
            let (s0, m0, t0) = parts(&w[0].0);
            let (s1, m1, t1) = parts(&w[1].0);
            prop_assert_eq!(&s0, &s1, "request {} changed the system", i + 2);
            prop_assert!(
                m1.len() >= m0.len() && m1[..m0.len()] == m0[..],
                "request {} rewrote earlier messages:\n{}\n{}",
                i + 2,
                String::from_utf8_lossy(&w[0].0),
                String::from_utf8_lossy(&w[1].0)
            );
            prop_assert!(
                t1.len() >= t0.len() && t1[..t0.len()] == t0[..],
                "request {} rewrote earlier tools",
                i + 2
            );
        }
    }
}

/// The builder reads the protocol from the log: a context without it (an older log)
/// falls back to the config, and an unknown provider is an error, not a guess.
#[test]
fn the_logged_route_uses_the_logged_protocol_and_falls_back_for_old_logs() {
    let live = route(3);
    // What a rebuilt request knows of the route: the logged facts, no connection details.
    let facts = Route {
        base_url: String::new(),
        api_key_env: String::new(),
        caps: live.caps.logged(),
        ..live.clone()
    };
    let ctx = live.context();
    assert_eq!(ctx.protocol.as_deref(), Some("openai-chat"));
    assert_eq!(Route::from_context(&ctx, &|_| None), Some(facts.clone()));
    let old = RequestContext {
        protocol: None,
        ..ctx.clone()
    };
    assert_eq!(Route::from_context(&old, &|_| None), None);
    let back = Route::from_context(&old, &|_| Some(ProviderKind::OpenaiChat)).unwrap();
    assert_eq!(back, facts);
    // Old logs without the field still load.
    let json = r#"{"provider":"p","model":"m","contextWindow":10}"#;
    let parsed: RequestContext = serde_json::from_str(json).unwrap();
    assert_eq!(parsed.protocol, None);
    assert_eq!(serde_json::to_string(&parsed).unwrap(), json);
}

/// A compaction after a model switch goes to the new route and logs its context first,
/// so the inspector rebuilds it for the route it was sent to.
#[test]
fn compaction_after_a_model_switch_is_rebuilt_for_the_new_route() {
    let mut d = Driver::new();
    d.apply(&Op::ToolRound);
    d.apply(&Op::Answer);
    d.apply(&Op::Route(3));
    d.apply(&Op::Compact(true));
    let events = d.session.events().to_vec();
    let n = d.sent.len();
    let r = reconstruct(&events, &[n], &|_| None).unwrap();
    assert_eq!(r[0].opts.route.kind, ProviderKind::OpenaiChat);
    assert_eq!(bytes(&r[0].wire), d.sent[n - 1]);
}
