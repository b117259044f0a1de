//! The status line (turn phase, elapsed time, queued count) and the footer (route,
//! tool-update mode, session tokens, cache-hit %, context use, tool-card mode).

use std::time::Duration;

use ratatui::text::{Line, Span};

use crate::agent::protocol::{RouteInfo, TurnPhase};
use crate::i18n::{Arg, Localizer};
use crate::session::event::Usage;

use super::text::truncate;
use super::theme;
use super::trajectory::{hit_percent, tokens};
use super::view::ToolCardMode;

/// Fluent id of a phase's label.
pub fn phase_key(p: TurnPhase) -> &'static str {
    match p {
        TurnPhase::Idle => "tui-phase-idle",
        TurnPhase::Waiting => "tui-phase-waiting",
        TurnPhase::Thinking => "tui-phase-thinking",
        TurnPhase::Responding => "tui-phase-responding",
        TurnPhase::RunningTools => "tui-phase-tools",
        TurnPhase::AwaitingApproval => "tui-phase-awaiting-approval",
        TurnPhase::Compacting => "tui-phase-compacting",
    }
}

/// The status line.
pub fn status_line(
    l: Localizer,
    phase: TurnPhase,
    elapsed: Duration,
    queued: usize,
    width: u16,
) -> Line<'static> {
    let mut spans = Vec::new();
    if phase == TurnPhase::Idle {
        spans.push(Span::styled(l.tr("tui-status-idle-hint"), theme::dim()));
    } else {
        spans.push(Span::styled(
            format!("● {}", l.tr(phase_key(phase))),
            theme::accent(),
        ));
        if phase == TurnPhase::AwaitingApproval {
            // The clock is paused while the user decides; Esc denies and the turn goes on.
            spans.push(Span::styled(
                format!(
                    " {}",
                    l.tra(
                        "tui-status-paused",
                        &[("secs", Arg::from(elapsed.as_secs()))]
                    )
                ),
                theme::dim(),
            ));
            spans.push(Span::styled(
                format!(" · {}", l.tr("tui-status-approval-hint")),
                theme::warn(),
            ));
        } else {
            spans.push(Span::styled(
                format!(" {}s", elapsed.as_secs()),
                theme::dim(),
            ));
            spans.push(Span::styled(
                format!(" · {}", l.tr("tui-status-cancel-hint")),
                theme::dim(),
            ));
        }
    }
    if queued > 0 {
        spans.push(Span::styled(
            format!(
                " · {}",
                l.tra("tui-status-queued", &[("count", Arg::from(queued))])
            ),
            theme::warn(),
        ));
    }
    clip(spans, width)
}

/// The footer.
pub fn footer_line(
    l: Localizer,
    route: Option<&RouteInfo>,
    usage: &Usage,
    context_used: u64,
    cards: ToolCardMode,
    width: u16,
) -> Line<'static> {
    let mut spans = Vec::new();
    match route {
        Some(r) => {
            // Narrow screens keep the model name and drop the provider and mode.
            let narrow = width < 60;
            let id = if narrow {
                r.id.rsplit('/').next().unwrap_or(&r.id)
            } else {
                &r.id
            };
            spans.push(Span::styled(id.to_string(), theme::bold()));
            if let Some(m) = r.tool_update.filter(|_| !narrow) {
                spans.push(Span::styled(format!(" · {}", m.as_str()), theme::dim()));
            }
        }
        None => spans.push(Span::styled(l.tr("tui-footer-no-route"), theme::dim())),
    }
    spans.push(Span::raw(format!(
        "  ↑{} ⟳{} ↓{}",
        tokens(usage.input_tokens),
        tokens(usage.cache_read_tokens),
        tokens(usage.output_tokens)
    )));
    if let Some(h) = hit_percent(usage) {
        spans.push(Span::styled(
            format!("  {}", l.tra("tui-hit", &[("pct", Arg::from(h))])),
            theme::success(),
        ));
    }
    if let Some(r) = route
        && r.context_window > 0
    {
        let pct = context_used * 100 / r.context_window;
        spans.push(Span::raw(format!(
            "  {}",
            l.tra("tui-footer-context", &[("pct", Arg::from(pct))])
        )));
    }
    spans.push(Span::styled(
        format!("  {}", l.tr(cards.key())),
        theme::dim(),
    ));
    clip(spans, width)
}

/// Clips a span list to `width` columns (the right side goes first).
fn clip(spans: Vec<Span<'static>>, width: u16) -> Line<'static> {
    let mut left = width as usize;
    let mut out = Vec::new();
    for s in spans {
        let w = super::text::str_width(&s.content);
        if w <= left {
            left -= w;
            out.push(s);
        } else {
            if left > 1 {
                out.push(Span::styled(truncate(&s.content, left), s.style));
            }
            break;
        }
    }
    Line::from(out)
}
