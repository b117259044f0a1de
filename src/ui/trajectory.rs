//! The Trajectory pane: a dense one-line-per-row ledger of turns → requests → tool calls,
//! CONTEXT cells for developer messages (U-4), MCP lifecycle rows and failed attempts.
//!
//! Rows keep structured data and are rendered at draw time, so only visible rows cost
//! anything and a language switch re-renders them.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::agent::inspect::{DiffReason, ReasonFold};
use crate::i18n::{Arg, Localizer};
use crate::session::event::{
    CompactionTrigger, Event, EventKind, McpState, RequestContext, SurfaceOp, ToolUpdateMode,
    TurnOutcome, Usage,
};
use crate::session::ledger::RequestLedger;

use super::chat::Scroll;
use super::context_node::ContextKind;
use super::text::{sanitize, str_width, truncate};
use super::theme;

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
        /// Usage.
        usage: Option<Usage>,
        /// Set when the request read less from the cache than the prefix it shared with
        /// the previous request (the reason is shown on the row below).
        cache_break: Option<CacheBreak>,
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
    /// Compaction ran.
    Compaction {
        /// `manual` or `auto`.
        trigger: CompactionTrigger,
    },
    /// The compaction summarizer's request (numbered like every other request).
    CompactionRequest {
        /// Request number in the session, from 1.
        n: usize,
        /// Usage of the summarizer request, when it succeeded.
        usage: Option<Usage>,
        /// Error text when it produced no summary.
        error: Option<String>,
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
}

/// The ledger.
#[derive(Debug, Default)]
pub struct Trajectory {
    rows: Vec<Row>,
    /// The session's request numbering, run over the events this pane receives.
    ledger: RequestLedger,
    /// Events folded so far (the ledger's event index).
    seen: usize,
    route: String,
    mode: Option<ToolUpdateMode>,
    /// What was logged since the previous model request (the inspector's why-line fold).
    fold: ReasonFold,
    /// A compaction ran since the previous model request.
    compacted: bool,
    /// The route context in force now, and the one the previous request was sent with.
    ctx: Option<RequestContext>,
    prev_ctx: Option<RequestContext>,
    /// The previous step request's usage (the prefix the next one shares).
    prev_usage: Option<Usage>,
}

/// A provider caches in units of this many tokens (DeepSeek and the simulator: 64), so a
/// request may re-read up to one unit less than the prefix it shares.
pub const CACHE_UNIT_TOKENS: u64 = 64;

/// Why a request missed the cache, localized at draw time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakKind {
    /// The tool declarations changed (`removal_on_addition_only`: a removal on an
    /// addition-only route rewrote the history, P-6).
    Tools {
        /// A removal on an addition-only route.
        removal_on_addition_only: bool,
    },
    /// The system prompt changed.
    Prompt,
    /// The model changed.
    Model,
    /// The provider or an update mode changed.
    Route,
    /// The request header (call configuration) started a new series.
    Header,
    /// The context was compacted.
    Compaction,
    /// Nothing in the request explains it (the provider evicted or expired the cache).
    Unexplained,
}

/// A cache break: a request whose cache read fell short of the prefix it shared with the
/// previous request by more than one cache unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheBreak {
    /// Why.
    pub kind: BreakKind,
    /// Tool additions logged since the previous request.
    pub added: usize,
    /// Tool removals logged since the previous request.
    pub removed: usize,
    /// Input tokens the previous request sent (what could have been read from the cache).
    pub shared: u64,
    /// Input tokens read from the cache.
    pub cached: u64,
}

impl CacheBreak {
    /// Derives the break, if any, from the previous and this request's usage and the
    /// inspector's reasons for the change between them (prefix-breaking ones first).
    pub fn derive(
        prev: &Usage,
        cur: &Usage,
        reasons: &[DiffReason],
        compacted: bool,
        model_changed: bool,
        (added, removed): (usize, usize),
    ) -> Option<CacheBreak> {
        let shared = prev.total_input();
        if cur.cache_read_tokens + CACHE_UNIT_TOKENS >= shared {
            return None;
        }
        // A model switch rebuilds the whole request (its prompt and header too), so it
        // names the break before the reasons it entails.
        let kind = if compacted {
            BreakKind::Compaction
        } else if model_changed && reasons.contains(&DiffReason::RouteChanged) {
            BreakKind::Model
        } else {
            reasons
                .iter()
                .find_map(|r| match r {
                    DiffReason::RemovalOnAdditionOnly => Some(BreakKind::Tools {
                        removal_on_addition_only: true,
                    }),
                    DiffReason::Consolidation | DiffReason::PromptUpdateAppended => {
                        Some(BreakKind::Prompt)
                    }
                    DiffReason::RouteChanged if model_changed => Some(BreakKind::Model),
                    DiffReason::RouteChanged => Some(BreakKind::Route),
                    DiffReason::NewSeries => Some(BreakKind::Header),
                    DiffReason::ToolAdditionAppended
                    | DiffReason::ToolRemovalAppended
                    | DiffReason::RemovalRetained => Some(BreakKind::Tools {
                        removal_on_addition_only: false,
                    }),
                    _ => None,
                })
                .unwrap_or(BreakKind::Unexplained)
        };
        Some(CacheBreak {
            kind,
            added,
            removed,
            shared,
            cached: cur.cache_read_tokens,
        })
    }

    /// The short localized reason.
    pub fn reason(&self, l: Localizer) -> String {
        let key = match self.kind {
            BreakKind::Tools {
                removal_on_addition_only: true,
            } => "tui-traj-break-tools-removal",
            BreakKind::Tools { .. } => "tui-traj-break-tools",
            BreakKind::Prompt => "tui-traj-break-prompt",
            BreakKind::Model => "tui-traj-break-model",
            BreakKind::Route => "tui-traj-break-route",
            BreakKind::Header => "tui-traj-break-header",
            BreakKind::Compaction => "tui-traj-break-compaction",
            BreakKind::Unexplained => "tui-traj-break-unexplained",
        };
        l.tra(
            key,
            &[
                ("added", Arg::from(self.added)),
                ("removed", Arg::from(self.removed)),
            ],
        )
    }
}

/// The request-row columns, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// `#n`, the number `/inspect N` takes.
    Number,
    /// `T1.S2`: turn 1, step 2.
    Step,
    /// Time to first token.
    Ttft,
    /// Total duration.
    Total,
    /// Uncached input tokens (↑).
    In,
    /// Cache-read input tokens (⟳).
    Cached,
    /// Output tokens (↓).
    Out,
    /// Cache-hit %.
    Hit,
}

impl Column {
    /// Every column, in display order.
    pub const ALL: [Column; 8] = [
        Column::Number,
        Column::Step,
        Column::Ttft,
        Column::Total,
        Column::In,
        Column::Cached,
        Column::Out,
        Column::Hit,
    ];
    /// The order columns are dropped in when the pane is narrow: the least important
    /// first; the hit % goes last.
    pub const DROP_ORDER: [Column; 7] = [
        Column::Ttft,
        Column::Total,
        Column::Out,
        Column::Step,
        Column::In,
        Column::Cached,
        Column::Number,
    ];

    /// Display width in columns.
    pub fn width(self) -> usize {
        match self {
            Column::Number | Column::Hit => 4,
            Column::Step | Column::Cached => 6,
            _ => 5,
        }
    }

    fn right_aligned(self) -> bool {
        !matches!(self, Column::Number | Column::Step)
    }

    fn header_key(self) -> &'static str {
        match self {
            Column::Number => "tui-traj-col-number",
            Column::Step => "tui-traj-col-step",
            Column::Ttft => "tui-traj-col-ttft",
            Column::Total => "tui-traj-col-total",
            Column::In => "tui-traj-col-in",
            Column::Cached => "tui-traj-col-cached",
            Column::Out => "tui-traj-col-out",
            Column::Hit => "tui-traj-col-hit",
        }
    }
}

/// The legend the key help shows for the Trajectory: (what you see, its explanation).
pub const LEGEND: [(&str, &str); 5] = [
    ("T1.S2", "tui-help-legend-step"),
    ("tui-key-legend-durations", "tui-help-legend-ttft"),
    ("↑ ⟳ ↓", "tui-help-legend-tokens"),
    ("tui-key-legend-hit", "tui-help-legend-hit"),
    ("!", "tui-help-legend-break"),
];

/// Width of the marker gutter every row starts with (the cache-break `!`).
pub const GUTTER: usize = 2;

/// The columns that fit `width`, in display order.
pub fn columns_for(width: usize) -> Vec<Column> {
    let mut cols = Column::ALL.to_vec();
    let need = |c: &[Column]| GUTTER + c.iter().map(|c| c.width()).sum::<usize>() + c.len() - 1;
    for d in Column::DROP_ORDER {
        if need(&cols) <= width {
            break;
        }
        cols.retain(|c| *c != d);
    }
    cols
}

fn pad(text: &str, w: usize, right: bool) -> String {
    let t = truncate(text, w);
    let fill = " ".repeat(w.saturating_sub(str_width(&t)));
    if right {
        format!("{fill}{t}")
    } else {
        format!("{t}{fill}")
    }
}

/// Lays out `cells` (text and style per column) in `cols`, after the gutter span.
fn columns_line(
    gutter: Span<'static>,
    cols: &[Column],
    cell: impl Fn(Column) -> (String, ratatui::style::Style),
) -> Vec<Span<'static>> {
    let mut spans = vec![gutter];
    for (i, c) in cols.iter().enumerate() {
        if i > 0 {
            spans.push(Span::raw(" "));
        }
        let (text, style) = cell(*c);
        spans.push(Span::styled(
            pad(&text, c.width(), c.right_aligned()),
            style,
        ));
    }
    spans
}

/// The localized column header for a pane `width` columns wide.
pub fn header_line(l: Localizer, width: usize) -> Line<'static> {
    let cols = columns_for(width);
    Line::from(columns_line(Span::raw(" ".repeat(GUTTER)), &cols, |c| {
        (l.tr(c.header_key()), theme::dim().patch(theme::bold()))
    }))
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

/// Cache-hit percentage: cache-read ÷ (uncached + cache-read).
pub fn hit_percent(u: &Usage) -> Option<u64> {
    let total = u.total_input();
    (total > 0).then(|| (u.cache_read_tokens * 100 + total / 2) / total)
}

/// The style of a hit % (see [`theme::hit_band`]).
pub fn hit_style(pct: u64) -> ratatui::style::Style {
    theme::hit_band(pct)
}

/// Formats a token count compactly (`950`, `12.3k`, `1.2M`).
pub fn tokens(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{:.1}k", n as f64 / 1000.0),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

fn ms(v: u64) -> String {
    if v >= 1000 {
        format!("{:.1}s", v as f64 / 1000.0)
    } else {
        format!("{v}ms")
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

    /// Folds a committed event into the ledger.
    pub fn apply(&mut self, ev: &Event) {
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
                    let text = first_words(&u.message.joined_text());
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
                if route != self.route || c.tool_update != self.mode {
                    self.rows.push(Row::Route {
                        route: route.clone(),
                        mode: c.tool_update,
                    });
                }
                self.route = route;
                self.mode = c.tool_update;
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
            (EventKind::ToolCall(d), _) => self.rows.push(Row::Tool {
                call_id: d.call_id.clone(),
                name: sanitize(&d.name),
                failed: None,
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
                });
            }
            (EventKind::CompactionEnd(c), Some(n)) => {
                self.rows.push(Row::CompactionRequest {
                    n,
                    usage: None,
                    error: Some(sanitize(c.error.as_deref().unwrap_or(c.outcome.as_str()))),
                });
            }
            _ => {}
        }
    }

    /// The last step request's usage (what the footer shows as the last request's hit).
    pub fn last_usage(&self) -> Option<&Usage> {
        self.rows.iter().rev().find_map(|r| match r {
            Row::Request { usage, .. } => usage.as_ref(),
            _ => None,
        })
    }

    /// Renders one row to a line `width` columns wide. Every row starts after the same
    /// two-column gutter; request rows lay their figures out in the header's columns
    /// ([`columns_for`]); badges are localized and padded to a common display width.
    pub fn render_row(row: &Row, l: Localizer, width: usize) -> Line<'static> {
        let badge = |name: &str, st| {
            let text = l.tr(&format!("tui-badge-{name}"));
            let pad = 8usize.saturating_sub(str_width(text.as_str()));
            Span::styled(format!("{text}{}", " ".repeat(pad.max(1))), st)
        };
        let gutter = || Span::raw(" ".repeat(GUTTER));
        let cols = columns_for(width);
        match row {
            Row::Turn { turn, prompt } => {
                let mut spans = vec![
                    gutter(),
                    Span::styled(
                        l.tra("tui-badge-turn", &[("turn", Arg::from(*turn))]),
                        theme::bold().patch(theme::accent()),
                    ),
                ];
                if let Some(p) = prompt {
                    spans.push(Span::styled(format!(" · {p}"), theme::accent()));
                }
                Line::from(spans)
            }
            Row::TurnEnd { turn, outcome } => {
                let key = match outcome {
                    TurnOutcome::Cancelled => "tui-traj-cancelled",
                    _ => "tui-traj-error",
                };
                Line::from(vec![
                    gutter(),
                    badge("end", theme::warn()),
                    Span::styled(l.tra(key, &[("turn", Arg::from(*turn))]), theme::warn()),
                ])
            }
            Row::Route { route, mode } => {
                let mut spans = vec![
                    gutter(),
                    badge("route", theme::dim()),
                    Span::styled(route.clone(), theme::bold()),
                ];
                if let Some(m) = mode {
                    spans.push(Span::styled(format!(" · {}", m.as_str()), theme::dim()));
                }
                Line::from(spans)
            }
            Row::Request {
                n,
                turn,
                step,
                ttft_ms,
                duration_ms,
                usage,
                cache_break,
                ..
            } => {
                let mark = if cache_break.is_some() {
                    Span::styled("! ", theme::error().patch(theme::bold()))
                } else {
                    gutter()
                };
                let step = format!("T{turn}.S{step}");
                Line::from(columns_line(mark, &cols, |c| {
                    usage_cell(c, *n, &step, *ttft_ms, *duration_ms, usage.as_ref())
                }))
            }
            Row::BreakReason { cache_break, .. } => Line::from(vec![
                gutter(),
                Span::styled(
                    format!(
                        "↳ {}",
                        l.tra(
                            "tui-traj-break",
                            &[("reason", Arg::from(cache_break.reason(l)))]
                        )
                    ),
                    theme::error(),
                ),
            ]),
            Row::Tool { name, failed, .. } => {
                let (mark, st) = match failed {
                    None => ("…", theme::warn()),
                    Some(true) => ("✗", theme::error()),
                    Some(false) => ("✓", theme::success()),
                };
                Line::from(vec![
                    gutter(),
                    badge("tool", theme::dim()),
                    Span::raw(format!("{name} ")),
                    Span::styled(mark, st),
                ])
            }
            Row::Context(k) => Line::from(vec![
                gutter(),
                badge("context", theme::accent()),
                Span::styled(k.one_line(l), theme::accent()),
            ]),
            Row::ContextDetail { kind, line } => Line::from(Span::styled(
                format!(
                    "{:1$}{2}",
                    "",
                    GUTTER + 8,
                    kind.detail(l).get(*line).cloned().unwrap_or_default()
                ),
                theme::dim(),
            )),
            Row::Mcp {
                server,
                state,
                tools,
                error,
            } => {
                let key = match state {
                    McpState::Connecting => "tui-mcp-connecting",
                    McpState::Connected => "tui-mcp-connected",
                    McpState::Disconnected => "tui-mcp-disconnected",
                    McpState::Failed => "tui-mcp-failed",
                };
                let st = match state {
                    McpState::Connected => theme::success(),
                    McpState::Failed => theme::error(),
                    _ => theme::warn(),
                };
                let mut spans = vec![
                    gutter(),
                    badge("mcp", st),
                    Span::raw(format!("{server} ")),
                    Span::styled(l.tr(key), st),
                ];
                if let Some(n) = tools {
                    spans.push(Span::raw(format!(
                        " · {}",
                        l.tra("tui-mcp-tools", &[("count", Arg::from(*n))])
                    )));
                }
                if let Some(e) = error {
                    spans.push(Span::styled(format!(" · {e}"), theme::error()));
                }
                Line::from(spans)
            }
            Row::Failed {
                n,
                turn,
                step,
                code,
                status,
                message,
                retried,
            } => {
                let mut s = format!("{} {code}", l.tr("tui-badge-fail"));
                if let Some(st) = status {
                    s.push_str(&format!(" {st}"));
                }
                s.push_str(&format!("  {message}"));
                let mut spans = vec![
                    gutter(),
                    Span::styled(
                        pad(&format!("#{n}"), Column::Number.width(), false),
                        theme::error(),
                    ),
                ];
                if cols.contains(&Column::Step) {
                    spans.push(Span::styled(
                        format!(" {}", pad(&format!("T{turn}.S{step}"), 6, false)),
                        theme::error(),
                    ));
                }
                spans.push(Span::styled(format!(" {s}"), theme::error()));
                if *retried {
                    spans.push(Span::styled(
                        format!("  {}", l.tr("tui-traj-retried")),
                        theme::warn(),
                    ));
                }
                Line::from(spans)
            }
            Row::CompactionRequest { n, usage, error } => match error {
                Some(e) => Line::from(vec![
                    gutter(),
                    Span::styled(
                        format!(
                            "{} {} {}  {e}",
                            pad(&format!("#{n}"), Column::Number.width(), false),
                            l.tr("tui-badge-fail"),
                            l.tr("tui-traj-compaction-request")
                        ),
                        theme::error(),
                    ),
                ]),
                None => Line::from(columns_line(gutter(), &cols, |c| {
                    let label = l.tr("tui-traj-col-summary");
                    usage_cell(c, *n, &label, None, None, usage.as_ref())
                })),
            },
            Row::Compaction { trigger } => Line::from(vec![
                gutter(),
                badge("compact", theme::dim()),
                Span::styled(
                    l.tra(
                        "tui-traj-compaction",
                        &[("trigger", Arg::from(trigger.as_str()))],
                    ),
                    theme::dim(),
                ),
            ]),
        }
    }

    /// Draws the visible rows (`selected` highlighted); returns the top row.
    pub fn draw(
        &self,
        scroll: &Scroll,
        selected: Option<usize>,
        l: Localizer,
        area: Rect,
        buf: &mut Buffer,
    ) -> usize {
        let height = area.height as usize;
        if self.rows.is_empty() {
            // The empty pane says what it will show.
            let text = l.tr("tui-traj-empty");
            let w = (area.width as usize).saturating_sub(GUTTER).max(1);
            for (y, r) in super::text::wrap_ranges(&text, w)
                .into_iter()
                .take(height)
                .enumerate()
            {
                let line = Line::from(vec![
                    Span::raw(" ".repeat(GUTTER)),
                    Span::styled(text[r].trim().to_string(), theme::dim()),
                ]);
                buf.set_line(area.x, area.y + y as u16, &line, area.width);
            }
            return 0;
        }
        let top = scroll.resolve(self.rows.len(), height);
        for (y, row) in self.rows.iter().skip(top).take(height).enumerate() {
            let mut line = Self::render_row(row, l, area.width as usize);
            if selected == Some(top + y) {
                line = line.patch_style(theme::selected());
            }
            let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
            let line = if super::text::str_width(&text) > area.width as usize {
                truncate_line(line, area.width as usize)
            } else {
                line
            };
            buf.set_line(area.x, area.y + y as u16, &line, area.width);
        }
        top
    }
}

/// One request-row cell: its text and style.
fn usage_cell(
    c: Column,
    n: usize,
    step: &str,
    ttft_ms: Option<u64>,
    duration_ms: Option<u64>,
    usage: Option<&Usage>,
) -> (String, ratatui::style::Style) {
    let none = || ("—".to_string(), theme::dim());
    let plain = ratatui::style::Style::default();
    match c {
        Column::Number => (format!("#{n}"), theme::bold()),
        Column::Step => (step.to_string(), plain),
        Column::Ttft => ttft_ms.map_or_else(none, |v| (ms(v), theme::dim())),
        Column::Total => duration_ms.map_or_else(none, |v| (ms(v), plain)),
        Column::In => usage.map_or_else(none, |u| (tokens(u.input_tokens), plain)),
        Column::Cached => usage.map_or_else(none, |u| (tokens(u.cache_read_tokens), plain)),
        Column::Out => usage.map_or_else(none, |u| (tokens(u.output_tokens), plain)),
        Column::Hit => match usage.and_then(hit_percent) {
            Some(h) => (format!("{h}%"), hit_style(h)),
            None => none(),
        },
    }
}

fn truncate_line(line: Line<'static>, width: usize) -> Line<'static> {
    // The line's own style (the selection's reverse video) survives the cut.
    let style = line.style;
    let mut left = width.saturating_sub(1);
    let mut spans = Vec::new();
    for s in line.spans {
        if left == 0 {
            break;
        }
        let w = super::text::str_width(&s.content);
        if w <= left {
            left -= w;
            spans.push(s);
        } else {
            let t = truncate(&s.content, left + 1);
            let t = t.trim_end_matches('…').to_string();
            left = 0;
            spans.push(Span::styled(t, s.style));
        }
    }
    spans.push(Span::styled("…", theme::dim()));
    Line::from(spans).style(style)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::protocol::AgentEvent;
    use crate::i18n::Locale;
    use crate::session::event::{Message, Role, Source, StepMessage};
    use crate::ui::sample::Script;

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
    fn issue12_item3_hit_bands_colour_a_miss_unlike_a_hit() {
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
    fn issue12_item6_columns_drop_from_the_least_important_and_keep_hit_last() {
        use Column::*;
        // Pane widths: 120 and 100 columns split in two give 59 and 49.
        for w in [49, 59, 60, 80, 100, 120] {
            assert_eq!(columns_for(w), Column::ALL.to_vec(), "{w}");
        }
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
        };
        for w in [8, 12, 20, 30, 40, 49, 60, 80, 100, 120] {
            let line = text(&Trajectory::render_row(&row, l, w));
            assert!(str_width(&line) <= w, "{w}: {line}");
            assert!(line.ends_with("97%"), "{w}: {line}");
        }
    }

    #[test]
    fn issue12_item6_header_names_the_columns_and_lines_up_with_rows() {
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
        };
        let en = Localizer::new(Locale::EnUs);
        let zh = Localizer::new(Locale::ZhCn);
        let h = text(&header_line(en, 60));
        for label in ["#", "step", "TTFT", "total", "↑in", "⟳cache", "↓out", "hit"] {
            assert!(h.contains(label), "{label} in {h}");
        }
        let hz = text(&header_line(zh, 60));
        for label in ["轮.步", "首字", "耗时", "↑输入", "⟳缓存", "↓输出", "命中"]
        {
            assert!(hz.contains(label), "{label} in {hz}");
        }
        for l in [en, zh] {
            for w in [30, 40, 49, 60] {
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
            },
        ];
        for r in &rows {
            let line = text(&Trajectory::render_row(r, en, 60));
            let start = line.len() - line.trim_start_matches([' ', '!']).len();
            assert_eq!(start, GUTTER, "{line}");
        }
    }

    #[test]
    fn issue12_item6_turn_row_shows_the_first_words_of_the_prompt() {
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
    fn issue12_item6_empty_pane_shows_a_localized_placeholder() {
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
    fn issue12_item3_break_reasons_are_derived_from_the_why_line() {
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
    fn issue12_item3_trajectory_marks_the_request_that_lost_the_cache() {
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
    fn issue12_item6_key_help_explains_the_glyphs_step_and_durations() {
        for locale in [Locale::EnUs, Locale::ZhCn] {
            let l = Localizer::new(locale);
            let area = Rect::new(0, 0, 140, 90);
            let mut buf = Buffer::empty(area);
            crate::ui::help::draw(l, area, &mut buf);
            let shown: String = (0..90)
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
}
