//! The Trajectory pane: a dense one-line-per-row ledger of turns → requests → tool calls,
//! CONTEXT cells for developer messages (U-4), MCP lifecycle rows and failed attempts.
//!
//! Rows keep structured data and are rendered at draw time, so only visible rows cost
//! anything and a language switch re-renders them.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::i18n::{Arg, Localizer};
use crate::session::event::{
    CompactionTrigger, Event, EventKind, McpState, SurfaceOp, ToolUpdateMode, TurnOutcome, Usage,
};
use crate::session::ledger::RequestLedger;

use super::chat::Scroll;
use super::context_node::ContextKind;
use super::text::{sanitize, truncate};
use super::theme;

/// One ledger row.
#[derive(Debug, Clone, PartialEq)]
pub enum Row {
    /// A turn begins.
    Turn {
        /// Turn number.
        turn: u64,
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
}

/// Cache-hit percentage: cache-read ÷ (uncached + cache-read).
pub fn hit_percent(u: &Usage) -> Option<u64> {
    let total = u.total_input();
    (total > 0).then(|| (u.cache_read_tokens * 100 + total / 2) / total)
}

/// `↑uncached ⟳cache-read ↓output` and the hit rate of one request.
fn usage_spans(u: &Usage, l: Localizer) -> Vec<Span<'static>> {
    let mut spans = vec![Span::styled(
        format!(
            " ↑{} ⟳{} ↓{}",
            tokens(u.input_tokens),
            tokens(u.cache_read_tokens),
            tokens(u.output_tokens)
        ),
        theme::dim(),
    )];
    if let Some(h) = hit_percent(u) {
        spans.push(Span::styled(
            format!(" {}", l.tra("tui-hit", &[("pct", Arg::from(h))])),
            theme::success(),
        ));
    }
    spans
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
        match (&ev.kind, settled) {
            (EventKind::TurnStart(t), _) => self.rows.push(Row::Turn { turn: t.turn }),
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
            }
            (EventKind::AssistantMessage(d), Some(n)) => {
                self.rows.push(Row::Request {
                    n,
                    turn: d.turn,
                    step: d.step,
                    route: self.route.clone(),
                    mode: self.mode,
                    ttft_ms: d.timing.and_then(|t| t.ttft_ms),
                    duration_ms: d.timing.map(|t| t.duration_ms),
                    usage: d.usage,
                });
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

    /// Renders one row to a line. Badges are localized and padded to a common display
    /// width so the columns line up in both languages.
    pub fn render_row(row: &Row, l: Localizer) -> Line<'static> {
        let badge = |name: &str, st| {
            let text = l.tr(&format!("tui-badge-{name}"));
            let pad = 8usize.saturating_sub(unicode_width::UnicodeWidthStr::width(text.as_str()));
            Span::styled(format!("{text}{}", " ".repeat(pad.max(1))), st)
        };
        match row {
            Row::Turn { turn } => Line::from(vec![Span::styled(
                l.tra("tui-badge-turn", &[("turn", Arg::from(*turn))]),
                theme::bold().patch(theme::accent()),
            )]),
            Row::TurnEnd { turn, outcome } => {
                let key = match outcome {
                    TurnOutcome::Cancelled => "tui-traj-cancelled",
                    _ => "tui-traj-error",
                };
                Line::from(vec![
                    Span::raw(" "),
                    badge("end", theme::warn()),
                    Span::styled(l.tra(key, &[("turn", Arg::from(*turn))]), theme::warn()),
                ])
            }
            Row::Route { route, mode } => {
                let mut spans = vec![
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
                ..
            } => {
                let mut s = format!("#{n} T{turn}.S{step}");
                if let Some(t) = ttft_ms {
                    s.push_str(&format!(" ttft {}", ms(*t)));
                }
                if let Some(d) = duration_ms {
                    s.push_str(&format!(" {}", ms(*d)));
                }
                let mut spans = vec![Span::raw(" "), badge("req", theme::bold()), Span::raw(s)];
                if let Some(u) = usage {
                    spans.extend(usage_spans(u, l));
                }
                Line::from(spans)
            }
            Row::Tool { name, failed, .. } => {
                let (mark, st) = match failed {
                    None => ("…", theme::warn()),
                    Some(true) => ("✗", theme::error()),
                    Some(false) => ("✓", theme::success()),
                };
                Line::from(vec![
                    Span::raw("   "),
                    badge("tool", theme::dim()),
                    Span::raw(format!("{name} ")),
                    Span::styled(mark, st),
                ])
            }
            Row::Context(k) => Line::from(vec![
                Span::raw(" "),
                badge("context", theme::accent()),
                Span::styled(k.one_line(l), theme::accent()),
            ]),
            Row::ContextDetail { kind, line } => Line::from(Span::styled(
                format!(
                    "{:10}{}",
                    "",
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
                let mut s = format!("#{n} T{turn}.S{step}  {code}");
                if let Some(st) = status {
                    s.push_str(&format!(" {st}"));
                }
                s.push_str(&format!("  {message}"));
                let mut spans = vec![
                    Span::raw(" "),
                    badge("fail", theme::error()),
                    Span::styled(s, theme::error()),
                ];
                if *retried {
                    spans.push(Span::styled(
                        format!("  {}", l.tr("tui-traj-retried")),
                        theme::warn(),
                    ));
                }
                Line::from(spans)
            }
            Row::CompactionRequest { n, usage, error } => {
                let label = l.tr("tui-traj-compaction-request");
                let mut spans = vec![Span::raw(" ")];
                match error {
                    Some(e) => {
                        spans.push(badge("fail", theme::error()));
                        spans.push(Span::styled(format!("#{n} {label}  {e}"), theme::error()));
                    }
                    None => {
                        spans.push(badge("req", theme::bold()));
                        spans.push(Span::raw(format!("#{n} {label}")));
                    }
                }
                if let Some(u) = usage {
                    spans.extend(usage_spans(u, l));
                }
                Line::from(spans)
            }
            Row::Compaction { trigger } => Line::from(vec![
                Span::raw(" "),
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
        let top = scroll.resolve(self.rows.len(), height);
        for (y, row) in self.rows.iter().skip(top).take(height).enumerate() {
            let mut line = Self::render_row(row, l);
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
}
