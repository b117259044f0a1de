//! The Trajectory's rows: a dense one-line-per-row ledger of turns → requests → tool calls,
//! CONTEXT cells for developer messages (U-4), MCP lifecycle rows and failed attempts,
//! folded from the session's events with the request numbering, usage and cost.
//!
//! Rows keep structured data and are rendered at draw time (`render.rs`), so only visible
//! rows cost anything and a language switch re-renders them.

use crate::agent::inspect::ReasonFold;
use crate::llm::catalog::Prices;
use crate::session::event::{
    CompactionTrigger, Event, EventKind, McpState, RequestContext, SurfaceOp, ToolUpdateMode,
    TurnOutcome, Usage,
};
use crate::session::ledger::RequestLedger;
use crate::ui::context_node::ContextKind;
use crate::ui::text::{sanitize, str_width, truncate};

use super::cache_break::CacheBreak;
use crate::session::rewound::Rewound;

/// One ledger row.
#[derive(Debug, Clone, PartialEq)]
pub enum Row {
    /// A turn begins.
    Turn {
        /// Turn number.
        turn: u64,
        /// The first words of the turn's prompt (filled when the user message arrives).
        prompt: Option<String>,
    },
    /// A turn ended other than normally.
    TurnEnd {
        /// Turn number.
        turn: u64,
        /// Outcome.
        outcome: TurnOutcome,
    },
    /// The route (and tool-update mode) of the following requests, shown when it changes.
    Route {
        /// `provider/model`.
        route: String,
        /// Tool update mode.
        mode: Option<ToolUpdateMode>,
    },
    /// One model request (a settled assistant message).
    Request {
        /// Request number in the session, from 1.
        n: usize,
        /// Turn.
        turn: u64,
        /// Step.
        step: u64,
        /// `provider/model`.
        route: String,
        /// Tool update mode from the latest request/context.
        mode: Option<ToolUpdateMode>,
        /// Time to first token.
        ttft_ms: Option<u64>,
        /// Duration.
        duration_ms: Option<u64>,
        /// Usage; `None` when the provider reported an impossible one (unknown).
        usage: Option<Usage>,
        /// Set when the request read less from the cache than the prefix it shared with
        /// the previous request (the reason is shown on the row below).
        cache_break: Option<CacheBreak>,
        /// What it cost in USD, when its route's prices are known.
        cost: Option<f64>,
    },
    /// The reason line under a request that broke the cache.
    BreakReason {
        /// The request number.
        n: usize,
        /// Why.
        cache_break: CacheBreak,
    },
    /// A tool call.
    Tool {
        /// Call id.
        call_id: String,
        /// Tool name.
        name: String,
        /// `None` running, `Some(true)` failed.
        failed: Option<bool>,
        /// Called through the tool bridge's `call_tool` (SPEC §15.1).
        bridged: bool,
    },
    /// A developer message as a CONTEXT cell (U-4).
    Context(ContextKind),
    /// One detail line of the CONTEXT cell above.
    ContextDetail {
        /// The node.
        kind: ContextKind,
        /// Which detail line.
        line: usize,
    },
    /// The provider refused a tool-change block: the route sends such changes as text
    /// from here on (`route/downgrade`, SPEC §15.1).
    Downgrade {
        /// The route.
        route: String,
        /// The refused blocks.
        blocks: Vec<String>,
        /// The provider's message.
        message: String,
    },
    /// An MCP server state change.
    Mcp {
        /// Server name.
        server: String,
        /// New state.
        state: McpState,
        /// Registered tool count.
        tools: Option<usize>,
        /// Last error.
        error: Option<String>,
    },
    /// A failed model attempt (a request too: it has a number).
    Failed {
        /// Request number in the session, from 1.
        n: usize,
        /// Turn.
        turn: u64,
        /// Step.
        step: u64,
        /// Error code.
        code: String,
        /// HTTP status.
        status: Option<u16>,
        /// Provider message (verbatim).
        message: String,
        /// Whether the loop retried.
        retried: bool,
    },
    /// A subagent's request, under the parent step that called it (SPEC §15.3):
    /// `T3.S2·a1.S1` and its cache hit.
    Subagent {
        /// `T3.S2·a1.S1`.
        label: String,
        /// The subagent (`a1`) and its step: what the inspector opens.
        agent: String,
        /// Its step.
        step: u64,
        /// Its usage, when known.
        usage: Option<Usage>,
    },
    /// Compaction ran.
    Compaction {
        /// `manual` or `auto`.
        trigger: CompactionTrigger,
    },
    /// The compaction summarizer's request (numbered like every other request).
    CompactionRequest {
        /// Request number in the session, from 1.
        n: usize,
        /// Usage of the summarizer request, when it succeeded (`None` with no `error`:
        /// unknown).
        usage: Option<Usage>,
        /// Error text when it produced no summary.
        error: Option<String>,
        /// `provider/model` it was sent on.
        route: String,
        /// What it cost in USD, when its route's prices are known.
        cost: Option<f64>,
    },
}

impl Row {
    /// The request number of a request or failed-attempt row (what `/inspect N` takes).
    pub fn request_number(&self) -> Option<usize> {
        match self {
            Row::Request { n, .. } | Row::Failed { n, .. } | Row::CompactionRequest { n, .. } => {
                Some(*n)
            }
            _ => None,
        }
    }

    /// What Enter on this row opens in the inspector: a request of the session, or a
    /// subagent's (SPEC §15.3); `None` for a row that is no request.
    pub fn inspect_command(&self) -> Option<crate::agent::protocol::AgentCommand> {
        use crate::agent::protocol::AgentCommand;
        match self {
            Row::Subagent { agent, step, .. } => Some(AgentCommand::InspectSubagent {
                agent: agent.clone(),
                step: *step,
            }),
            _ => self
                .request_number()
                .map(|n| AgentCommand::Inspect { request: Some(n) }),
        }
    }
}

/// The ledger.
#[derive(Debug, Default)]
pub struct Trajectory {
    pub(super) rows: Vec<Row>,
    /// The session's request numbering, run over the events this pane receives.
    pub(super) ledger: RequestLedger,
    /// Events folded so far (the ledger's event index).
    pub(super) seen: usize,
    pub(super) route: String,
    pub(super) mode: Option<ToolUpdateMode>,
    /// What was logged since the previous model request (the inspector's why-line fold).
    pub(super) fold: ReasonFold,
    /// A compaction ran since the previous model request.
    pub(super) compacted: bool,
    /// The route context in force now, and the one the previous request was sent with.
    pub(super) ctx: Option<RequestContext>,
    pub(super) prev_ctx: Option<RequestContext>,
    /// The previous step request's usage (the prefix the next one shares).
    pub(super) prev_usage: Option<Usage>,
    /// Known prices by `provider/model` (from the routes the agent announced).
    pub(super) prices: std::collections::HashMap<String, Prices>,
    /// What the log's rewinds took back.
    pub(super) rewound: Rewound,
    /// Per row: whether a rewind took back the event that made it.
    pub(super) rows_rewound: Vec<bool>,
    /// Each subagent's parent turn and step, from its `subagent/start`.
    pub(super) subagents: std::collections::HashMap<String, (u64, u64)>,
}

/// The first words of a prompt (one line, at most about 60 columns).
fn first_words(text: &str) -> String {
    let one: String = sanitize(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if str_width(&one) > 60 {
        truncate(&one, 60)
    } else {
        one
    }
}

impl Trajectory {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// The rows.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// An empty ledger that keeps the prices this one knows (a session switch).
    pub fn renewed(&self) -> Self {
        Trajectory {
            prices: self.prices.clone(),
            ..Self::default()
        }
    }

    /// Records the prices of route `route` (`provider/model`, as the agent announces it)
    /// and prices the requests already listed on it. `None` changes nothing.
    pub fn set_prices(&mut self, route: &str, prices: Option<Prices>) {
        let Some(p) = prices else { return };
        let route = sanitize(route);
        for row in &mut self.rows {
            if let Row::Request {
                route: r,
                usage: Some(u),
                cost,
                ..
            }
            | Row::CompactionRequest {
                route: r,
                usage: Some(u),
                cost,
                ..
            } = row
                && *r == route
            {
                *cost = Some(p.cost(u));
            }
        }
        self.prices.insert(route, p);
    }

    fn cost_of(&self, usage: Option<&Usage>) -> Option<f64> {
        Some(self.prices.get(&self.route)?.cost(usage?))
    }

    /// The session's cost in USD: the sum over its priced requests; `None` when no
    /// request has a known price (then no cost is shown).
    pub fn session_cost(&self) -> Option<f64> {
        self.rows
            .iter()
            .filter_map(|r| match r {
                Row::Request { cost, .. } | Row::CompactionRequest { cost, .. } => *cost,
                _ => None,
            })
            .reduce(|a, b| a + b)
    }

    /// What the cache saved on request `n`: its cache-read tokens and the USD they would
    /// have cost more at the miss price. `None` when its route has no known price.
    pub fn cache_saving(&self, n: usize) -> Option<(u64, f64)> {
        self.rows.iter().find_map(|r| match r {
            Row::Request {
                n: m,
                route,
                usage: Some(u),
                ..
            }
            | Row::CompactionRequest {
                n: m,
                route,
                usage: Some(u),
                ..
            } if *m == n => {
                let p = self.prices.get(route)?;
                Some((u.cache_read_tokens, p.cache_saving(u)))
            }
            _ => None,
        })
    }

    /// What the log's rewinds take back (known before its events are folded).
    pub fn set_rewound(&mut self, r: Rewound) {
        self.rewound = r;
    }

    /// Whether a rewind took back the event at `seq`.
    pub fn is_rewound(&self, seq: u64) -> bool {
        self.rewound.contains(seq)
    }

    /// Whether row `i` belongs to what a rewind took back (dimmed, its turn marked).
    pub fn row_rewound(&self, i: usize) -> bool {
        self.rows_rewound.get(i).copied().unwrap_or(false)
    }

    /// Folds a committed event into the ledger. A request a rewind took back keeps its
    /// row and number (the ledger numbers every request of the log; it was paid for):
    /// its rows are marked.
    pub fn apply(&mut self, ev: &Event) {
        self.rewound.observe(ev);
        let before = self.rows.len();
        self.apply_rows(ev);
        let taken = self.rewound.contains(ev.seq);
        self.rows_rewound.resize(before, false);
        self.rows_rewound.resize(self.rows.len(), taken);
    }

    fn apply_rows(&mut self, ev: &Event) {
        let settled = self.ledger.apply(self.seen, ev).map(|r| r.n);
        self.seen += 1;
        self.fold.observe(ev);
        match (&ev.kind, settled) {
            (EventKind::TurnStart(t), _) => self.rows.push(Row::Turn {
                turn: t.turn,
                prompt: None,
            }),
            (EventKind::UserMessage(u), _) => {
                if let Some(Row::Turn { prompt, .. }) = self
                    .rows
                    .iter_mut()
                    .rev()
                    .find(|r| matches!(r, Row::Turn { .. }))
                    && prompt.is_none()
                {
                    // The typed text, without `@path` attachments.
                    let text = first_words(&crate::agent::mentions::split(&u.message).0);
                    *prompt = (!text.is_empty()).then_some(text);
                }
            }
            (EventKind::TurnEnd(t), _) => {
                if let Some(o) = t.outcome
                    && o != TurnOutcome::Completed
                {
                    self.rows.push(Row::TurnEnd {
                        turn: t.turn,
                        outcome: o,
                    });
                }
            }
            (EventKind::RequestContext(c), _) => {
                let route = sanitize(&format!("{}/{}", c.provider, c.model));
                if route != self.route || c.caps.tool_update != self.mode {
                    self.rows.push(Row::Route {
                        route: route.clone(),
                        mode: c.caps.tool_update,
                    });
                }
                self.route = route;
                self.mode = c.caps.tool_update;
                self.ctx = Some(c.clone());
            }
            (EventKind::AssistantMessage(d), Some(n)) => {
                let cache_break = match (&self.prev_usage, &d.usage) {
                    (Some(prev), Some(cur)) => {
                        let reasons =
                            self.fold
                                .reasons(self.prev_ctx.as_ref(), self.ctx.as_ref(), false);
                        let model_changed = match (&self.prev_ctx, &self.ctx) {
                            (Some(a), Some(b)) => a.model != b.model || a.provider != b.provider,
                            _ => false,
                        };
                        CacheBreak::derive(
                            prev,
                            cur,
                            &reasons,
                            self.compacted,
                            model_changed,
                            (self.fold.added, self.fold.removed),
                        )
                    }
                    _ => None,
                };
                self.rows.push(Row::Request {
                    n,
                    turn: d.turn,
                    step: d.step,
                    route: self.route.clone(),
                    mode: self.mode,
                    ttft_ms: d.timing.and_then(|t| t.ttft_ms),
                    duration_ms: d.timing.map(|t| t.duration_ms),
                    usage: d.usage,
                    cache_break,
                    cost: self.cost_of(d.usage.as_ref()),
                });
                if let Some(cache_break) = cache_break {
                    self.rows.push(Row::BreakReason { n, cache_break });
                }
                if d.usage.is_some() {
                    self.prev_usage = d.usage;
                }
                self.prev_ctx = self.ctx.clone();
                self.fold = ReasonFold::new();
                self.compacted = false;
            }
            (EventKind::SubagentStart(st), _) => {
                self.subagents.insert(st.agent.clone(), (st.turn, st.step));
            }
            (EventKind::SubagentEvent(se), _) => {
                if let (EventKind::AssistantMessage(d), Some((turn, step))) =
                    (&se.event.kind, self.subagents.get(&se.agent))
                {
                    self.rows.push(Row::Subagent {
                        label: sanitize(&crate::agent::inspect::subagent::subagent_label(
                            *turn, *step, &se.agent, d.step,
                        )),
                        agent: se.agent.clone(),
                        step: d.step,
                        usage: d.usage,
                    });
                }
            }
            (EventKind::ToolCall(d), _) => self.rows.push(Row::Tool {
                call_id: d.call_id.clone(),
                name: sanitize(&d.name),
                failed: None,
                bridged: d.bridged == Some(true),
            }),
            (EventKind::ToolResult(d), _) => {
                let id = d.message.tool_call_id.as_deref().unwrap_or("");
                let bad = d.error.is_some() || d.message.is_error == Some(true);
                if let Some(Row::Tool { failed, .. }) = self
                    .rows
                    .iter_mut()
                    .rev()
                    .find(|r| matches!(r, Row::Tool { call_id, .. } if call_id == id))
                {
                    *failed = Some(bad);
                }
            }
            (EventKind::DeveloperMessage(d), _)
                if !matches!(ev.surface_op, Some(SurfaceOp::Replace(_))) =>
            {
                let kind = ContextKind::from_message(&d.message);
                let n = match &kind {
                    ContextKind::Tools { added, removed } if added.len() + removed.len() > 1 => {
                        usize::from(!added.is_empty()) + usize::from(!removed.is_empty())
                    }
                    _ => 0,
                };
                self.rows.push(Row::Context(kind.clone()));
                for line in 0..n {
                    self.rows.push(Row::ContextDetail {
                        kind: kind.clone(),
                        line,
                    });
                }
            }
            (EventKind::RouteDowngrade(d), _) => self.rows.push(Row::Downgrade {
                route: sanitize(&d.route),
                blocks: d.blocks.iter().map(|b| sanitize(b)).collect(),
                message: sanitize(&d.message).replace('\n', " "),
            }),
            (EventKind::McpStatus(m), _) => self.rows.push(Row::Mcp {
                server: sanitize(&m.server),
                state: m.state,
                tools: m.tools.as_ref().map(Vec::len),
                error: m.error.as_deref().map(sanitize),
            }),
            (EventKind::AssistantAttempt(a), Some(n)) => {
                self.rows.push(Row::Failed {
                    n,
                    turn: a.turn,
                    step: a.step,
                    code: sanitize(&a.error.code),
                    status: a.error.status,
                    message: sanitize(&a.error.message).replace('\n', " "),
                    retried: a.error.retried,
                });
            }
            (EventKind::CompactionStart(c), _) => {
                self.compacted = true;
                self.rows.push(Row::Compaction { trigger: c.trigger });
            }
            (EventKind::CompactionSummary(c), Some(n)) => {
                self.rows.push(Row::CompactionRequest {
                    n,
                    usage: c.usage,
                    error: None,
                    route: self.route.clone(),
                    cost: self.cost_of(c.usage.as_ref()),
                });
            }
            (EventKind::CompactionEnd(c), Some(n)) => {
                self.rows.push(Row::CompactionRequest {
                    n,
                    usage: None,
                    error: Some(sanitize(c.error.as_deref().unwrap_or(c.outcome.as_str()))),
                    route: self.route.clone(),
                    cost: None,
                });
            }
            _ => {}
        }
    }

    /// The last step request's usage (what the footer shows as the last request's hit);
    /// `None` before the first request and when the last one's usage is unknown.
    pub fn last_usage(&self) -> Option<&Usage> {
        self.rows.iter().rev().find_map(|r| match r {
            Row::Request { usage, .. } => Some(usage.as_ref()),
            _ => None,
        })?
    }

    /// How many requests have an unknown usage: the session's totals and
    /// cost leave them out.
    pub fn unknown_usage(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| {
                matches!(
                    r,
                    Row::Request { usage: None, .. }
                        | Row::CompactionRequest {
                            usage: None,
                            error: None,
                            ..
                        }
                )
            })
            .count()
    }

    /// Whether request `n` has an unknown usage.
    pub fn usage_unknown(&self, n: usize) -> bool {
        self.rows.iter().any(|r| match r {
            Row::Request { n: m, usage, .. } => *m == n && usage.is_none(),
            Row::CompactionRequest {
                n: m, usage, error, ..
            } => *m == n && usage.is_none() && error.is_none(),
            _ => false,
        })
    }
}
