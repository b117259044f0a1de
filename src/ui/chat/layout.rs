//! The Chat layout: cell heights and their prefix sum, kept per (width, render generation)
//! and made exact lazily after a resize, and the virtualized draw of the visible rows that
//! keeps the scroll anchored across those re-layouts (cells render themselves, `cells.rs`).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::ui::scroll::Scroll;
use crate::ui::text::truncate;
use crate::ui::theme;

use super::cells::CellRows;
use crate::ui::model::RenderCtx;

/// Cells whose estimated height is replaced by an exact one per frame after a resize.
pub const REFINE_PER_FRAME: usize = 256;
use super::fold::Transcript;

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

impl Transcript {
    fn set_height(&mut self, i: usize, h: usize) {
        if !self.exact[i] {
            self.exact[i] = true;
            self.estimated -= 1;
        }
        if self.heights[i] != h {
            self.heights[i] = h;
            self.prefix_valid = self.prefix_valid.min(i);
        }
    }

    fn fix_prefix(&mut self) {
        let n = self.cells.len();
        for i in self.prefix_valid..n {
            self.prefix[i + 1] = self.prefix[i] + self.heights[i];
        }
        self.prefix_valid = n;
    }

    /// Brings heights and the prefix sum up to date for `width` and `ctx`: new and changed
    /// cells get exact heights; after a width or generation change every other cell keeps
    /// an estimate (its old height scaled by the width ratio) until
    /// [`Transcript::make_exact`] or [`Transcript::refine`] replaces it.
    pub fn layout(&mut self, width: u16, ctx: &RenderCtx) {
        let key = (width, ctx.generation);
        let old = self.heights.len();
        if self.layout_key != key {
            let (old_w, _) = self.layout_key;
            for i in 0..old {
                self.heights[i] = estimate(self.heights[i], old_w, width);
                if self.exact[i] {
                    self.exact[i] = false;
                    self.estimated += 1;
                }
            }
            self.layout_key = key;
            self.prefix_valid = 0;
            self.refine_next = old;
        }
        let n = self.cells.len();
        self.heights.resize(n, 0);
        self.exact.resize(n, true);
        self.prefix.resize(n + 1, 0);
        self.prefix_valid = self.prefix_valid.min(old);
        for i in old..n {
            self.heights[i] = self.cells[i].rows(width, ctx).len();
        }
        let dirty = std::mem::take(&mut self.dirty);
        for i in dirty {
            if i < n {
                let h = self.cells[i].rows(width, ctx).len();
                self.set_height(i, h);
            }
        }
        self.fix_prefix();
    }

    /// Gives every cell covering transcript rows `rows` an exact height (after
    /// [`Transcript::layout`] with the same arguments); returns whether any height changed.
    pub fn make_exact(
        &mut self,
        rows: std::ops::Range<usize>,
        width: u16,
        ctx: &RenderCtx,
    ) -> bool {
        if self.estimated == 0 || self.cells.is_empty() {
            return false;
        }
        let before = self.total_height();
        let first = self.cell_at(rows.start).unwrap_or(self.cells.len() - 1);
        let last = self
            .cell_at(rows.end.saturating_sub(1))
            .unwrap_or(self.cells.len() - 1);
        let mut changed = false;
        for i in first..=last {
            if !self.exact[i] {
                let old = self.heights[i];
                let h = self.cells[i].rows(width, ctx).len();
                self.set_height(i, h);
                changed |= h != old;
            }
        }
        self.fix_prefix();
        changed || self.total_height() != before
    }

    /// Replaces up to `budget` estimated heights with exact ones, from the bottom up;
    /// returns whether any height changed.
    pub fn refine(&mut self, budget: usize, width: u16, ctx: &RenderCtx) -> bool {
        let mut left = budget;
        let mut changed = false;
        while self.estimated > 0 && left > 0 && self.refine_next > 0 {
            self.refine_next -= 1;
            let i = self.refine_next;
            if i < self.exact.len() && !self.exact[i] {
                let old = self.heights[i];
                let h = self.cells[i].rows(width, ctx).len();
                self.set_height(i, h);
                changed |= h != old;
                left -= 1;
            }
        }
        if self.refine_next == 0 && self.estimated > 0 {
            // Cells touched below the cursor were made exact by `layout`; start over for any
            // left (cannot loop: each pass makes at least one cell exact).
            self.refine_next = self.cells.len();
        }
        self.fix_prefix();
        changed
    }

    /// Number of cells whose height is still an estimate.
    pub fn estimated(&self) -> usize {
        self.estimated
    }

    /// Total height in rows (after [`Transcript::layout`]).
    pub fn total_height(&self) -> usize {
        self.prefix.last().copied().unwrap_or(0)
    }

    /// First row of cell `i` (after layout).
    pub fn cell_top(&self, i: usize) -> usize {
        self.prefix.get(i).copied().unwrap_or(0)
    }

    /// Height of cell `i` (after layout).
    pub fn cell_height(&self, i: usize) -> usize {
        self.heights.get(i).copied().unwrap_or(0)
    }

    /// The cell covering transcript row `row` (after layout).
    pub fn cell_at(&self, row: usize) -> Option<usize> {
        if row >= self.total_height() {
            return None;
        }
        // prefix is non-decreasing; find the last i with prefix[i] <= row and a non-empty cell.
        let i = self.prefix.partition_point(|&p| p <= row).saturating_sub(1);
        Some(i.min(self.cells.len().saturating_sub(1)))
    }

    /// The rows of cell `i` at `width`, borrowed from the cell's caches.
    pub fn rows(&mut self, i: usize, width: u16, ctx: &RenderCtx) -> CellRows<'_> {
        self.cells[i].rows(width, ctx)
    }
}

/// A height at `old_w` columns scaled to `new_w` (the blank separator row is kept as is).
fn estimate(h: usize, old_w: u16, new_w: u16) -> usize {
    if h <= 1 || old_w == 0 || new_w == 0 || old_w == new_w {
        return h;
    }
    let body = h - 1;
    1 + (body * old_w as usize).div_ceil(new_w as usize).max(1)
}

#[cfg(test)]
#[path = "layout_tests.rs"]
mod tests;
