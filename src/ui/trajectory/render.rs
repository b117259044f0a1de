//! How the Trajectory draws: each row in the columns `columns.rs` picks, the localized
//! badges, and the virtualized draw of the rows with their wrapped cache-break reasons.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::i18n::{Arg, Localizer};
use crate::llm::catalog::format_usd;
use crate::session::event::{McpState, TurnOutcome, Usage};
use crate::ui::scroll::Scroll;
use crate::ui::text::{str_width, truncate};
use crate::ui::theme;

use super::columns::{
    Column, GUTTER, columns_for, columns_line, columns_priced, header_of, hit_percent, hit_style,
    mode_label, ms, pad, tokens,
};
use super::rows::{Row, Trajectory};
use crate::ui::trajectory::cache_break::CacheBreak;

impl Trajectory {
    /// Renders one row to a line `width` columns wide. Every row starts after the same
    /// two-column gutter; request rows lay their figures out in the header's columns
    /// ([`columns_for`]); badges are localized and padded to a common display width.
    pub fn render_row(row: &Row, l: Localizer, width: usize) -> Line<'static> {
        Self::render_row_in(row, l, &columns_for(width))
    }

    /// Whether any route's price is known (else the cost column is left out).
    fn priced(&self) -> bool {
        !self.prices.is_empty()
    }

    /// The localized column header for this pane, `width` columns wide: with the cost
    /// column only when a price is known.
    pub fn header(&self, l: Localizer, width: usize) -> Line<'static> {
        header_of(l, &columns_priced(width, self.priced()))
    }

    fn render_row_in(row: &Row, l: Localizer, cols: &[Column]) -> Line<'static> {
        let badge = |name: &str, st| {
            let text = l.tr(&format!("tui-badge-{name}"));
            let pad = 8usize.saturating_sub(str_width(text.as_str()));
            Span::styled(format!("{text}{}", " ".repeat(pad.max(1))), st)
        };
        let gutter = || Span::raw(" ".repeat(GUTTER));
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
                    spans.push(Span::styled(
                        format!(" · {}", mode_label(l, *m)),
                        theme::dim(),
                    ));
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
                cost,
                ..
            } => {
                let mark = if cache_break.is_some() {
                    Span::styled("! ", theme::error().patch(theme::bold()))
                } else {
                    gutter()
                };
                let step = crate::ui::step_label::step_label(*turn, *step, l);
                let usage = Figures::of(usage.as_ref(), *cost, l);
                Line::from(columns_line(mark, cols, |c| {
                    usage_cell(c, *n, &step, *ttft_ms, *duration_ms, &usage)
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
            Row::Tool {
                name,
                failed,
                bridged,
                ..
            } => {
                let (mark, st) = match failed {
                    None => ("…", theme::warn()),
                    Some(true) => ("✗", theme::error()),
                    Some(false) => ("✓", theme::success()),
                };
                let mut spans = vec![
                    gutter(),
                    badge("tool", theme::dim()),
                    Span::raw(format!("{name} ")),
                ];
                if *bridged {
                    spans.push(Span::styled(
                        format!("{} ", l.tr("cache-first-bridged-call")),
                        theme::dim(),
                    ));
                }
                spans.push(Span::styled(mark, st));
                Line::from(spans)
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
            Row::Downgrade {
                route,
                blocks,
                message,
            } => Line::from(vec![
                gutter(),
                badge("route", theme::warn()),
                Span::styled(
                    l.tra(
                        "cache-first-trajectory-downgrade",
                        &[
                            ("route", Arg::from(route.clone())),
                            ("blocks", Arg::List(blocks.clone())),
                            ("message", Arg::from(message.clone())),
                        ],
                    ),
                    theme::warn(),
                ),
            ]),
            Row::Subagent { label, usage, .. } => {
                let text = match usage {
                    Some(u) => l.tra(
                        "tui-trajectory-subagent",
                        &[
                            ("label", Arg::from(label.clone())),
                            ("hit", Arg::from(u.cache_read_tokens)),
                            ("total", Arg::from(u.total_input())),
                        ],
                    ),
                    None => label.clone(),
                };
                Line::from(vec![
                    gutter(),
                    Span::raw(" ".repeat(Column::Number.width())),
                    Span::styled(format!(" {text}"), theme::dim()),
                ])
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
                let message = crate::ui::step_label::error_message(code, message, l);
                let code = crate::ui::step_label::error_code_label(code, l);
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
                        format!(
                            " {}",
                            pad(
                                &crate::ui::step_label::step_label(*turn, *step, l),
                                6,
                                false
                            )
                        ),
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
            Row::CompactionRequest {
                n,
                usage,
                error,
                cost,
                ..
            } => match error {
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
                None => Line::from(columns_line(gutter(), cols, |c| {
                    let label = l.tr("tui-traj-col-summary");
                    usage_cell(
                        c,
                        *n,
                        &label,
                        None,
                        None,
                        &Figures::of(usage.as_ref(), *cost, l),
                    )
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
            for (y, r) in crate::ui::text::wrap_ranges(&text, w)
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
        // Only the rows on screen are rendered: every row's height is known without rendering
        // it (one screen row, or a wrapped reason's), so a long session costs no more per frame
        // than a short one beyond that sum.
        let width = area.width as usize;
        let cols = columns_priced(width, self.priced());
        let top = scroll.resolve(self.screen_len(l, width), height);
        let (mut at, mut y) = (0usize, 0usize);
        'rows: for (i, row) in self.rows.iter().enumerate() {
            let h = Self::row_height(row, l, width);
            if at + h <= top {
                at += h;
                continue;
            }
            for (k, line) in self
                .row_lines_of(i, row, l, width, &cols)
                .into_iter()
                .enumerate()
            {
                if at + k < top {
                    continue;
                }
                if y >= height {
                    break 'rows;
                }
                let line = if selected == Some(i) {
                    line.patch_style(theme::selected())
                } else {
                    line
                };
                buf.set_line(area.x, area.y + y as u16, &line, area.width);
                y += 1;
            }
            at += h;
            if y >= height {
                break;
            }
        }
        top
    }

    /// The pane's screen rows at `width` columns, each with the index of the row it
    /// belongs to: a cache-break reason wraps over as many rows as it needs (its
    /// continuation rows aligned under the reason text, since the reason says how to keep
    /// the cache), every other row is one screen row, cut with `…` if too wide. Scrolling
    /// and the selection count these rows.
    pub fn screen_rows(&self, l: Localizer, width: usize) -> Vec<(usize, Line<'static>)> {
        let cols = columns_priced(width, self.priced());
        let mut out = Vec::with_capacity(self.rows.len());
        for (i, row) in self.rows.iter().enumerate() {
            out.extend(
                self.row_lines_of(i, row, l, width, &cols)
                    .into_iter()
                    .map(|line| (i, line)),
            );
        }
        out
    }

    /// The screen rows of row `i`: those of a request a rewind took back are dimmed, its
    /// turn's row marked (SPEC §14.3).
    fn row_lines_of(
        &self,
        i: usize,
        row: &Row,
        l: Localizer,
        width: usize,
        cols: &[Column],
    ) -> Vec<Line<'static>> {
        if !self.row_rewound(i) {
            return Self::row_lines(row, l, width, cols);
        }
        let mut line = Self::render_row_in(row, l, cols);
        if matches!(row, Row::Turn { .. }) {
            line.spans
                .insert(1, Span::raw(format!("{}  ", l.tr("tui-traj-rewound"))));
        }
        for s in &mut line.spans {
            s.style = theme::dim();
        }
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        if crate::ui::text::str_width(&text) > width {
            vec![truncate_line(line, width)]
        } else {
            vec![line]
        }
    }

    /// The screen rows of one row at `width` columns (see [`Self::screen_rows`]).
    fn row_lines(row: &Row, l: Localizer, width: usize, cols: &[Column]) -> Vec<Line<'static>> {
        if let Row::BreakReason { cache_break, .. } = row {
            return Self::reason_rows(cache_break, l, width);
        }
        let line = Self::render_row_in(row, l, cols);
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        if crate::ui::text::str_width(&text) > width {
            vec![truncate_line(line, width)]
        } else {
            vec![line]
        }
    }

    /// How many screen rows one row takes at `width` columns, without rendering it unless
    /// it is a (rare) break reason.
    fn row_height(row: &Row, l: Localizer, width: usize) -> usize {
        match row {
            Row::BreakReason { cache_break, .. } => Self::reason_rows(cache_break, l, width).len(),
            _ => 1,
        }
    }

    /// The number of screen rows at `width` columns (what scrolling counts).
    pub fn screen_len(&self, l: Localizer, width: usize) -> usize {
        self.rows
            .iter()
            .map(|r| Self::row_height(r, l, width))
            .sum()
    }

    /// The screen rows (first, last + 1) that row `index` takes at `width` columns.
    pub fn screen_span(&self, index: usize, l: Localizer, width: usize) -> (usize, usize) {
        let first = self.rows[..index.min(self.rows.len())]
            .iter()
            .map(|r| Self::row_height(r, l, width))
            .sum();
        let count = self
            .rows
            .get(index)
            .map_or(1, |r| Self::row_height(r, l, width).max(1));
        (first, first + count)
    }

    /// A cache-break reason wrapped to `width` columns: `↳ ` before the first row, the
    /// continuation rows indented to the reason text.
    pub fn reason_rows(cb: &CacheBreak, l: Localizer, width: usize) -> Vec<Line<'static>> {
        let body = Line::from(Span::styled(
            l.tra("tui-traj-break", &[("reason", Arg::from(cb.reason(l)))]),
            theme::error(),
        ));
        let g = " ".repeat(GUTTER);
        crate::ui::text::wrap_prefixed(
            &body,
            width,
            &[Span::raw(g.clone()), Span::styled("↳ ", theme::error())],
            &[Span::raw(format!("{g}  "))],
        )
    }
}

/// A request row's usage figures: known, or unknown with the localized mark to show in
/// their place.
enum Figures<'a> {
    Known(&'a Usage, Option<f64>),
    Unknown(String),
}

impl<'a> Figures<'a> {
    fn of(usage: Option<&'a Usage>, cost: Option<f64>, l: Localizer) -> Self {
        match usage {
            Some(u) => Figures::Known(u, cost),
            None => Figures::Unknown(l.tr("tui-traj-usage-unknown")),
        }
    }
}

/// One request-row cell: its text and style.
fn usage_cell(
    c: Column,
    n: usize,
    step: &str,
    ttft_ms: Option<u64>,
    duration_ms: Option<u64>,
    usage: &Figures<'_>,
) -> (String, ratatui::style::Style) {
    let none = || ("—".to_string(), theme::dim());
    let plain = ratatui::style::Style::default();
    match (c, usage) {
        (Column::Number, _) => (format!("#{n}"), theme::bold()),
        (Column::Step, _) => (step.to_string(), plain),
        (Column::Ttft, _) => ttft_ms.map_or_else(none, |v| (ms(v), theme::dim())),
        (Column::Total, _) => duration_ms.map_or_else(none, |v| (ms(v), plain)),
        (_, Figures::Unknown(mark)) => (mark.clone(), theme::warn()),
        (Column::In, Figures::Known(u, _)) => (tokens(u.input_tokens), plain),
        (Column::Cached, Figures::Known(u, _)) => (tokens(u.cache_read_tokens), plain),
        (Column::Out, Figures::Known(u, _)) => (tokens(u.output_tokens), plain),
        // No price known, no cost: the cell stays blank rather than a misleading `$0`.
        (Column::Cost, Figures::Known(_, cost)) => {
            cost.map_or_else(|| (String::new(), plain), |c| (format_usd(c), plain))
        }
        (Column::Hit, Figures::Known(u, _)) => match hit_percent(u) {
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
        let w = crate::ui::text::str_width(&s.content);
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
