//! The virtualized Chat pane: draws the visible rows of a [`Transcript`] (cells render
//! themselves, see `view.rs`) and keeps the scroll anchored across lazy re-layouts.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::text::truncate;
use super::theme;
use super::view::{REFINE_PER_FRAME, RenderCtx, Transcript};

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
///
/// After a width change only the cells on (and a screen around) the viewport get exact
/// heights before this frame; the rest keep estimates that each frame refines
/// ([`REFINE_PER_FRAME`] cells, from the bottom up). A scroll position that is not
/// following the tail stays on the same cell (and row within it) while heights change.
pub fn draw(
    t: &mut Transcript,
    scroll: &mut Scroll,
    selected: Option<usize>,
    ctx: &RenderCtx,
    area: Rect,
    buf: &mut Buffer,
) -> usize {
    if area.width == 0 || area.height == 0 {
        return 0;
    }
    let height = area.height as usize;
    // Anchor (cell, row within it) in the layout of the previous frame.
    let anchor = scroll.top.and_then(|top| {
        let top = top.min(t.total_height().saturating_sub(height));
        t.cell_at(top).map(|i| (i, top - t.cell_top(i)))
    });
    t.layout(area.width, ctx);
    let resolve = |t: &Transcript, scroll: &mut Scroll| {
        if let Some((i, off)) = anchor {
            let h = t.cell_height(i).max(1);
            scroll.top = Some(t.cell_top(i) + off.min(h - 1));
        }
        scroll.resolve(t.total_height(), height)
    };
    let mut top = resolve(t, scroll);
    for _ in 0..8 {
        let from = top.saturating_sub(height);
        if !t.make_exact(from..top + 2 * height, area.width, ctx) {
            break;
        }
        top = resolve(t, scroll);
    }
    if t.estimated() > 0 && t.refine(REFINE_PER_FRAME, area.width, ctx) {
        top = resolve(t, scroll);
    }
    // Ctrl+T expanded a node: scroll so all of it (or its top, when taller) is visible.
    if let Some(i) = t.take_reveal()
        && i < t.len()
    {
        let (cell_top, cell_h) = (t.cell_top(i), t.cell_height(i));
        let want = if cell_top < top {
            cell_top
        } else if cell_top + cell_h > top + height {
            (cell_top + cell_h).saturating_sub(height).min(cell_top)
        } else {
            top
        };
        if want != top {
            scroll.top = Some(want);
            t.make_exact(want..want + height, area.width, ctx);
            top = scroll.resolve(t.total_height(), height);
        }
    }
    if let Some(top_now) = scroll.top
        && top_now >= t.total_height().saturating_sub(height)
    {
        scroll.top = None;
    }
    let Some(mut i) = t.cell_at(top) else {
        return top;
    };
    let mut skip = top - t.cell_top(i);
    let mut y = 0usize;
    while y < height && i < t.len() {
        let is_sel = selected == Some(i);
        let rows = t.rows(i, area.width, ctx);
        for (k, line) in rows.iter().enumerate().skip(skip) {
            if y >= height {
                break;
            }
            if is_sel && k == 0 {
                let line = line.clone().patch_style(theme::selected());
                buf.set_line(area.x, area.y + y as u16, &line, area.width);
            } else {
                buf.set_line(area.x, area.y + y as u16, line, area.width);
            }
            y += 1;
        }
        skip = 0;
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
