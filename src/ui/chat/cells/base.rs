//! What every Chat cell kind shares: the [`HistoryCell`] trait each kind implements and
//! the small wrapping helpers the kinds use (the rendering inputs, `RenderCtx`, come from
//! the model).

use ratatui::text::{Line, Span};

use crate::ui::model::RenderCtx;
use crate::ui::text::{wrap_line, wrap_prefixed};
use crate::ui::theme;

/// A cell's rendered rows except an assistant's committed markdown (borrowed from its
/// collector): `head`, then the body, then `foot`, all wrapped to the width. `foot` ends
/// with the blank separator when the cell has one.
#[derive(Debug, Clone, Default)]
pub struct Parts {
    /// Rows before the body.
    pub head: Vec<Line<'static>>,
    /// Rows after the body.
    pub foot: Vec<Line<'static>>,
}

impl Parts {
    /// Rows that end with the blank separator.
    pub fn separated(head: Vec<Line<'static>>) -> Self {
        Parts {
            head,
            foot: vec![Line::default()],
        }
    }
}

/// One kind of Chat cell (a user message, a tool card, a notice, …): it renders its own
/// rows at a width, and says whether Enter, Space or a click toggles it. The per-width
/// cache and the disclosure state live in the [`super::Cell`] that holds it.
pub trait HistoryCell {
    /// The rows at `width` columns; `expanded` is the cell's disclosure state.
    fn rows(&self, width: usize, ctx: &RenderCtx, expanded: bool) -> Parts;

    /// How many rows the cell takes at `width` (the blank separator included); the
    /// committed markdown of an assistant cell is counted by its holder.
    fn height(&self, width: usize, ctx: &RenderCtx, expanded: bool) -> usize {
        let p = self.rows(width, ctx, expanded);
        p.head.len() + p.foot.len()
    }

    /// Whether Enter, Space or a click toggles this cell.
    fn selectable(&self) -> bool {
        false
    }
}

/// Every row wrapped to `width`.
pub fn wrap_all(v: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    v.iter()
        .flat_map(|line| wrap_line(line, width, 0))
        .collect()
}

/// One dim row wrapped to `width`.
pub fn dim_line(text: String, width: usize) -> Vec<Line<'static>> {
    wrap_line(&Line::from(Span::styled(text, theme::dim())), width, 0)
}

/// `s` dimmed, each of its lines wrapped under `indent`.
pub fn dim_indented(s: &str, indent: &'static str, width: usize) -> Vec<Line<'static>> {
    let pre = [Span::styled(indent, theme::dim())];
    s.split('\n')
        .flat_map(|row| {
            wrap_prefixed(
                &Line::from(Span::styled(row.to_string(), theme::dim())),
                width,
                &pre,
                &pre,
            )
        })
        .collect()
}
