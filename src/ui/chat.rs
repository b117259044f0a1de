//! Chat cells rendered as a function of (cell, width, ctx), and the virtualized Chat pane.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::agent::protocol::{ApprovalDecision, NoticeLevel};
use crate::i18n::Arg;

use super::markdown;
use super::text::{truncate, wrap_line};
use super::theme;
use super::view::{Cell, CellKind, RenderCtx, ToolCardMode, Transcript};

/// Lines of a tool result shown in a collapsed card.
const PREVIEW_LINES: usize = 3;

/// Renders one cell to wrapped lines (including its trailing blank separator).
pub fn render_cell(cell: &Cell, width: usize, ctx: &RenderCtx) -> Vec<Line<'static>> {
    let l = ctx.l;
    let mut out: Vec<Line<'static>> = Vec::new();
    match &cell.kind {
        CellKind::User { text } => {
            out.push(Line::from(Span::styled(
                l.tr("tui-role-user"),
                theme::role(),
            )));
            out.extend(text.split('\n').map(|s| Line::from(s.to_string())));
        }
        CellKind::Assistant {
            reasoning,
            text,
            streaming,
            interrupted,
            ..
        } => {
            if reasoning.is_empty() && text.is_empty() && !streaming {
                return vec![];
            }
            out.push(Line::from(Span::styled(
                l.tr("tui-role-assistant"),
                theme::role(),
            )));
            if !reasoning.is_empty() {
                let n = reasoning.lines().count();
                if cell.expanded {
                    out.push(Line::from(Span::styled(
                        l.tr("tui-thinking-expanded"),
                        theme::dim(),
                    )));
                    out.extend(
                        reasoning
                            .split('\n')
                            .map(|s| Line::from(Span::styled(format!("  {s}"), theme::dim()))),
                    );
                } else {
                    out.push(Line::from(Span::styled(
                        l.tra("tui-thinking-collapsed", &[("lines", Arg::from(n))]),
                        theme::dim(),
                    )));
                }
            }
            if text.is_empty() && *streaming {
                out.push(Line::from(Span::styled("…", theme::dim())));
            } else {
                out.extend(markdown::render(
                    text,
                    *streaming,
                    &l.tr("tui-table-pending"),
                ));
            }
            if *interrupted {
                out.push(Line::from(Span::styled(
                    l.tr("tui-interrupted"),
                    theme::warn(),
                )));
            }
        }
        CellKind::Tool {
            name,
            arguments,
            result,
            error,
            ..
        } => {
            let mode = if cell.expanded {
                ToolCardMode::Expanded
            } else {
                ctx.cards
            };
            if mode == ToolCardMode::Hidden {
                return vec![];
            }
            let (status, style) = match (result, error) {
                (None, _) => (l.tr("tui-tool-running"), theme::warn()),
                (Some(_), true) => (l.tr("tui-tool-failed"), theme::error()),
                (Some(_), false) => (l.tr("tui-tool-done"), theme::success()),
            };
            out.push(Line::from(vec![
                Span::styled(
                    format!("{} / {name}", l.tr("tui-tool")),
                    style.patch(theme::bold()),
                ),
                Span::styled(format!("  {status}"), style),
            ]));
            if mode == ToolCardMode::Expanded {
                out.extend(
                    arguments
                        .split('\n')
                        .map(|s| Line::from(Span::styled(format!("  {s}"), theme::dim()))),
                );
            } else {
                let one: String = arguments.replace('\n', " ");
                out.push(Line::from(Span::styled(
                    format!("  {}", truncate(&one, width.saturating_sub(2))),
                    theme::dim(),
                )));
            }
            if let Some(r) = result {
                let lines: Vec<&str> = r.split('\n').collect();
                let shown = if mode == ToolCardMode::Expanded {
                    lines.len()
                } else {
                    PREVIEW_LINES
                };
                for s in lines.iter().take(shown) {
                    out.push(Line::from(Span::styled(format!("  │ {s}"), theme::dim())));
                }
                if lines.len() > shown {
                    out.push(Line::from(Span::styled(
                        format!(
                            "  {}",
                            l.tra(
                                "tui-more-lines",
                                &[("count", Arg::from(lines.len() - shown))]
                            )
                        ),
                        theme::dim(),
                    )));
                }
            }
        }
        CellKind::Approval {
            tool,
            arguments,
            decision,
            ..
        } => {
            out.push(Line::from(Span::styled(
                l.tra("tui-approval-title", &[("tool", Arg::from(tool))]),
                theme::warn().patch(theme::bold()),
            )));
            out.push(Line::from(Span::styled(
                format!("  {arguments}"),
                theme::dim(),
            )));
            let (key, style) = match decision {
                None => ("tui-approval-keys", theme::accent()),
                Some(ApprovalDecision::Allow) => ("tui-approval-allowed", theme::success()),
                Some(ApprovalDecision::AlwaysAllow) => ("tui-approval-always", theme::success()),
                Some(ApprovalDecision::Deny) => ("tui-approval-denied", theme::error()),
            };
            out.push(Line::from(Span::styled(l.tr(key), style)));
        }
        CellKind::Context(k) => {
            let marker = if !k.expandable() {
                "◆ "
            } else if cell.expanded {
                "▾ "
            } else {
                "▸ "
            };
            out.push(Line::from(vec![
                Span::styled(marker, theme::accent()),
                Span::styled(k.one_line(l), theme::accent()),
            ]));
            if cell.expanded {
                out.extend(
                    k.detail(l)
                        .into_iter()
                        .map(|s| Line::from(Span::styled(format!("    {s}"), theme::dim()))),
                );
            }
        }
        CellKind::Notice(n) => {
            let style = match n.level {
                NoticeLevel::Info => theme::dim(),
                NoticeLevel::Warn => theme::warn(),
                NoticeLevel::Error => theme::error(),
            };
            out.push(Line::from(Span::styled(
                super::text::sanitize(&l.tra_owned(&n.key, &n.args)),
                style,
            )));
        }
        CellKind::Output(lines) => {
            out.extend(
                lines
                    .iter()
                    .map(|t| Line::from(super::text::sanitize(&l.text(t)))),
            );
        }
        CellKind::Checkpoint { summary } => {
            out.push(Line::from(Span::styled(
                format!("┄ {} ┄", l.tr("tui-checkpoint")),
                theme::dim(),
            )));
            if cell.expanded {
                out.extend(
                    summary
                        .split('\n')
                        .map(|s| Line::from(Span::styled(format!("  {s}"), theme::dim()))),
                );
            }
        }
    }
    let mut wrapped = Vec::with_capacity(out.len() + 1);
    for line in &out {
        wrapped.extend(wrap_line(line, width, 0));
    }
    wrapped.push(Line::default());
    wrapped
}

/// Scroll state of a pane: `None` follows the tail.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scroll {
    /// Top row when not following.
    pub top: Option<usize>,
}

impl Scroll {
    /// The effective top row for `total` rows in a viewport of `height`.
    pub fn resolve(&self, total: usize, height: usize) -> usize {
        let max = total.saturating_sub(height);
        self.top.map_or(max, |t| t.min(max))
    }

    /// Scrolls by `delta` rows (negative = up); reaching the bottom resumes following.
    pub fn by(&mut self, delta: isize, total: usize, height: usize) {
        let max = total.saturating_sub(height);
        let cur = self.resolve(total, height) as isize;
        let next = (cur + delta).clamp(0, max as isize) as usize;
        self.top = if next >= max { None } else { Some(next) };
    }

    /// Whether the pane follows the tail.
    pub fn following(&self) -> bool {
        self.top.is_none()
    }
}

/// Draws the visible slice of the transcript into `area`; returns the top row used.
pub fn draw(
    t: &mut Transcript,
    scroll: &Scroll,
    selected: Option<usize>,
    ctx: &RenderCtx,
    area: Rect,
    buf: &mut Buffer,
) -> usize {
    if area.width == 0 || area.height == 0 {
        return 0;
    }
    t.layout(area.width, ctx, render_cell);
    let total = t.total_height();
    let height = area.height as usize;
    let top = scroll.resolve(total, height);
    let Some(mut i) = t.cell_at(top) else {
        return top;
    };
    let mut row = t.cell_top(i);
    let mut y = 0usize;
    while y < height && i < t.len() {
        let is_sel = selected == Some(i);
        let lines = t.lines(i, area.width, ctx, render_cell);
        for (k, line) in lines.iter().enumerate() {
            if row + k < top {
                continue;
            }
            if y >= height {
                break;
            }
            let mut line = line.clone();
            if is_sel && k == 0 {
                line = line.patch_style(theme::selected());
            }
            buf.set_line(area.x, area.y + y as u16, &line, area.width);
            y += 1;
        }
        row += lines.len();
        i += 1;
    }
    top
}

/// The dim "jump to latest" hint shown when not following.
pub fn jump_hint(ctx: &RenderCtx, width: u16) -> Line<'static> {
    let s = ctx.l.tr("tui-jump-latest");
    Line::from(Span::styled(
        truncate(&s, width as usize),
        theme::accent().patch(Style::default()),
    ))
}
