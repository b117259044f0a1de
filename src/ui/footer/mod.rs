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
use crate::ui::model::ToolCardMode;

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
        TurnPhase::AskingServer => "tui-phase-asking-server",
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

/// The usage figures the footer shows.
#[derive(Debug, Clone, Copy, Default)]
pub struct FooterUsage<'a> {
    /// The session's usage (requests with a known usage only).
    pub session: Usage,
    /// The last request's, whose hit is shown next to the session's.
    pub last: Option<&'a Usage>,
    /// The session's cost in USD, shown when known.
    pub cost: Option<f64>,
    /// Context tokens in use; `None` when the last request's usage is unknown.
    pub context_used: Option<u64>,
    /// Requests whose usage is unknown: the cost is then a lower bound.
    pub unknown: usize,
    /// The sandbox mode and network setting (SPEC §14.2), once the loop said them.
    pub sandbox: Option<crate::agent::protocol::SandboxInfo>,
}

/// How long a footer field stays when the footer is narrow: the lowest goes first (§14.5).
/// Context use and the session hit stay longest, the sandbox mode and the effort next. The
/// session's cost outlasts the last request's hit (the Trajectory repeats each request's
/// hit, nothing else on screen repeats the cost). The mouse label goes first while the
/// mouse is released (the default, where the terminal's own selection works), but outlasts
/// the token counts and the card mode while it is captured: the terminal's selection is
/// then off, and the footer is the one place that says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Priority {
    /// The mouse mode while released (F3's help row says it anyway).
    MouseReleased,
    /// The tool-update mode (the Trajectory's ROUTE rows name it).
    ToolUpdate,
    /// The tool-card mode (Ctrl+O).
    Cards,
    /// The mouse mode while captured.
    MouseCaptured,
    /// The session's token counts.
    Tokens,
    /// The last request's hit.
    LastHit,
    /// The session's cost.
    Cost,
    /// The reasoning effort of the next request (SPEC §14.4 "the footer shows it"): set
    /// per question, short, so it outlasts the figures the Trajectory and `/cost` repeat.
    Effort,
    /// The sandbox mode and network setting: what the agent may do stays in view.
    Mode,
    /// The model.
    Model,
    /// Context use.
    Context,
    /// The session's cache hit.
    SessionHit,
}

/// One footer field: its spans and what goes before it when a field precedes it.
struct Field {
    priority: Priority,
    sep: &'static str,
    spans: Vec<Span<'static>>,
}

impl Field {
    fn width(&self, first: bool) -> usize {
        let sep = if first { 0 } else { self.sep.len() };
        sep + self
            .spans
            .iter()
            .map(|s| super::text::str_width(&s.content))
            .sum::<usize>()
    }
}

/// The footer: the fields left to right and, when given, the mouse mode at the right end.
/// When they do not all fit in `width`, fields are dropped from the lowest [`Priority`] up.
pub fn footer_line(
    l: Localizer,
    route: Option<&RouteInfo>,
    figures: &FooterUsage<'_>,
    cards: ToolCardMode,
    mouse: Option<MouseLabel>,
    width: u16,
) -> Line<'static> {
    let FooterUsage {
        session: ref usage,
        last,
        cost,
        context_used,
        unknown,
        sandbox,
    } = *figures;
    let mut fields = Vec::new();
    let mut field = |priority, sep, spans| {
        fields.push(Field {
            priority,
            sep,
            spans,
        })
    };
    match route {
        Some(r) => {
            // Below 100 columns the model name stays and the provider goes.
            let narrow = width < 100;
            let id = if narrow {
                r.id.rsplit('/').next().unwrap_or(&r.id)
            } else {
                &r.id
            };
            field(
                Priority::Model,
                "  ",
                vec![Span::styled(id.to_string(), theme::bold())],
            );
            if let Some(m) = r.caps.tool_update.filter(|_| !narrow) {
                field(
                    Priority::ToolUpdate,
                    " · ",
                    vec![Span::styled(
                        super::trajectory::mode_label(l, m),
                        theme::dim(),
                    )],
                );
            }
        }
        None => field(
            Priority::Model,
            "  ",
            vec![Span::styled(l.tr("tui-footer-no-route"), theme::dim())],
        ),
    }
    // SPEC §14.4: the effort of the next request, when one is set.
    if let Some(e) = route.and_then(|r| r.effort) {
        let text = l.tra("tui-footer-effort", &[("effort", Arg::from(e.as_str()))]);
        field(
            Priority::Effort,
            " · ",
            vec![Span::styled(text, theme::dim())],
        );
    }
    if let Some(sb) = sandbox {
        use crate::sandbox::SandboxMode;
        let style = match sb.mode {
            _ if sb.plan => theme::accent(),
            SandboxMode::ReadOnly => theme::dim(),
            SandboxMode::WorkspaceWrite => theme::success(),
            SandboxMode::FullAccess => theme::warn(),
        };
        field(
            Priority::Mode,
            "  ",
            vec![Span::styled(
                l.tra(
                    "tui-footer-mode",
                    &[
                        ("mode", Arg::from(sb.agent_mode().as_str())),
                        (
                            "network",
                            Arg::from(crate::agent::mode::network_arg(sb.network)),
                        ),
                    ],
                ),
                style,
            )],
        );
    }
    field(
        Priority::Tokens,
        "  ",
        vec![Span::raw(format!(
            "↑{} ⟳{} ↓{}",
            tokens(usage.input_tokens),
            tokens(usage.cache_read_tokens),
            tokens(usage.output_tokens)
        ))],
    );
    // The session's cost, when a price is known.
    if let Some(c) = cost {
        // Requests of unknown usage cost something too: the sum is a lower bound.
        let key = if unknown > 0 {
            "tui-footer-cost-at-least"
        } else {
            "tui-footer-cost"
        };
        field(
            Priority::Cost,
            "  ",
            vec![Span::raw(l.tra(
                key,
                &[("cost", Arg::from(crate::llm::catalog::format_usd(c)))],
            ))],
        );
    }
    if let Some(h) = hit_percent(usage) {
        // Labelled as the session's, next to the last request's, each coloured by band.
        field(
            Priority::SessionHit,
            "  ",
            vec![Span::styled(
                l.tra("tui-footer-hit-session", &[("pct", Arg::from(h))]),
                theme::hit_band(h),
            )],
        );
        if let Some(h) = last.and_then(hit_percent) {
            field(
                Priority::LastHit,
                " · ",
                vec![Span::styled(
                    l.tra("tui-footer-hit-last", &[("pct", Arg::from(h))]),
                    theme::hit_band(h),
                )],
            );
        }
    }
    if let Some(r) = route
        && r.caps.context_window > 0
    {
        let text = match context_used {
            Some(used) => {
                let pct = u128::from(used) * 100 / u128::from(r.caps.context_window);
                l.tra("tui-footer-context", &[("pct", Arg::from(pct as u64))])
            }
            None => l.tr("tui-footer-context-unknown"),
        };
        field(Priority::Context, "  ", vec![Span::raw(text)]);
    }
    field(
        Priority::Cards,
        "  ",
        vec![Span::styled(l.tr(cards.key()), theme::dim())],
    );
    let mouse = mouse.map(|m| Field {
        priority: if m.captured {
            Priority::MouseCaptured
        } else {
            Priority::MouseReleased
        },
        sep: "  ",
        spans: vec![m.span],
    });
    let width = usize::from(width);
    let left_width = |fields: &[Field]| {
        fields
            .iter()
            .enumerate()
            .map(|(i, f)| f.width(i == 0))
            .sum::<usize>()
    };
    let mut mouse = mouse;
    loop {
        let total = left_width(&fields) + mouse.as_ref().map_or(0, |m| m.width(false));
        if total <= width || fields.len() <= 1 {
            break;
        }
        // The lowest priority goes; of equals, the rightmost. The mouse label, drawn at
        // the right edge, goes when nothing left of it is lower.
        let (i, lowest) = fields
            .iter()
            .enumerate()
            .min_by_key(|(i, f)| (f.priority, std::cmp::Reverse(*i)))
            .map(|(i, f)| (i, f.priority))
            .expect("more than one field");
        if mouse.as_ref().is_some_and(|m| lowest >= m.priority) {
            mouse = None;
            continue;
        }
        fields.remove(i);
    }
    let mut spans = Vec::new();
    for (i, f) in fields.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::raw(f.sep));
        }
        spans.extend(f.spans);
    }
    if let Some(m) = mouse {
        let used: usize = spans
            .iter()
            .map(|s| super::text::str_width(&s.content))
            .sum();
        let mw = m.width(true);
        spans.push(Span::raw(
            " ".repeat(width.saturating_sub(used + mw).max(2)),
        ));
        spans.extend(m.spans);
    }
    clip(spans, width as u16)
}

/// The footer's mouse mode: released (the default), the terminal's own
/// selection works; captured with F3, the wheel and clicks reach the panes, which the
/// warning colour recalls since selection then needs the terminal's modifier.
pub struct MouseLabel {
    span: Span<'static>,
    captured: bool,
}

/// The mouse mode's label for the footer.
pub fn mouse_label(l: Localizer, captured: bool) -> MouseLabel {
    let span = if captured {
        Span::styled(l.tr("tui-footer-mouse-scroll"), theme::warn())
    } else {
        Span::styled(l.tr("tui-footer-mouse-select"), theme::dim())
    };
    MouseLabel { span, captured }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Locale;

    #[test]
    fn footer_labels_the_session_hit_and_shows_the_last_requests() {
        let session = Usage {
            input_tokens: 130,
            cache_read_tokens: 870,
            output_tokens: 10,
        };
        let last = Usage {
            input_tokens: 880,
            cache_read_tokens: 120,
            output_tokens: 10,
        };
        for (locale, want) in [
            (Locale::EnUs, ["session hit 87%", "last 12%"]),
            (Locale::ZhCn, ["会话命中 87%", "上次 12%"]),
        ] {
            let line = footer_line(
                Localizer::new(locale),
                None,
                &FooterUsage {
                    session,
                    last: Some(&last),
                    context_used: Some(0),
                    ..FooterUsage::default()
                },
                ToolCardMode::Collapsed,
                None,
                200,
            );
            let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
            for w in want {
                let span = line
                    .spans
                    .iter()
                    .find(|s| s.content.contains(w))
                    .unwrap_or_else(|| panic!("{w} in {text}"));
                // Each figure is coloured by its band: 87 % warns, 12 % is a miss.
                let pct = if w.contains("87") { 87 } else { 12 };
                assert_eq!(span.style, theme::hit_band(pct), "{w}");
            }
        }
    }

    #[test]
    fn cost_footer_shows_the_session_cost_only_when_known() {
        let session = Usage {
            input_tokens: 1_000,
            cache_read_tokens: 40_000,
            output_tokens: 100,
        };
        let render = |locale, cost, width| {
            let line = footer_line(
                Localizer::new(locale),
                None,
                &FooterUsage {
                    session,
                    cost,
                    context_used: Some(0),
                    ..FooterUsage::default()
                },
                ToolCardMode::Collapsed,
                None,
                width,
            );
            line.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        };
        for (locale, want) in [
            (Locale::EnUs, "cost $0.0123"),
            (Locale::ZhCn, "费用 $0.0123"),
        ] {
            for width in [80, 120] {
                let text = render(locale, Some(0.0123), width);
                assert!(text.contains(want), "{width}: {text}");
            }
            // No price known: no cost at all.
            let text = render(locale, None, 120);
            assert!(!text.contains('$'), "{text}");
        }
    }
}

#[cfg(test)]
mod priority_tests;

#[cfg(test)]
mod effort_tests;
