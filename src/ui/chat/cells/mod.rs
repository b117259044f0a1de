//! Chat cells: one type per kind (`message.rs`, `tool.rs`, `context.rs`, `notice.rs`), each
//! rendering its own rows through the [`HistoryCell`] trait (`base.rs`), held in a [`Cell`]
//! that keeps the disclosure state and caches the rows per (width, render generation, cell
//! revision).
//!
//! An assistant cell streams through a [`crate::ui::markdown::StreamCollector`]: its
//! committed rows are cached by the collector and borrowed, only the open tail is rendered
//! per delta.

pub mod base;
pub mod checkpoint;
pub mod context;
pub mod hook_run;
pub mod message;
pub mod notice;
pub mod subagent_live;
pub mod tool;

#[cfg(test)]
#[path = "line_count_tests.rs"]
mod line_count_tests;

use ratatui::text::Line;

use crate::agent::protocol::Notice;
use crate::ui::model::RenderCtx;

pub use base::{HistoryCell, Parts};
pub use checkpoint::{CheckpointCell, CheckpointNode};
pub use context::ContextCell;
pub use message::{AssistantCell, AttachmentCell, AttemptCell, CompactionCell, UserCell};
pub use notice::OutputCell;
pub use subagent_live::SubagentLive;
pub use tool::{ApprovalCell, ToolApproval, ToolCell};

/// What a Chat cell shows: one variant per kind, each a type of its own. Text fields are
/// sanitized on the way in (an answer's source is sanitized by its collector, which keeps
/// the source as received).
#[derive(Debug, Clone)]
pub enum CellKind {
    /// A user message.
    User(UserCell),
    /// An assistant reply (streaming or committed).
    Assistant(AssistantCell),
    /// A tool call and its result.
    Tool(ToolCell),
    /// An approval request (without a logged card) and, once answered, the decision.
    Approval(ApprovalCell),
    /// A tool change (or other developer message) shown as a context node: one cell per
    /// change, made when the change happens.
    Context(ContextCell),
    /// A one-line notice, localized at draw time.
    Notice(Notice),
    /// Command output, localized at draw time.
    Output(OutputCell),
    /// A compaction summary with the summary the model now sees.
    Compaction(CompactionCell),
    /// A file attached to the user message above through an `@path` mention.
    Attachment(AttachmentCell),
    /// A failed model attempt (`assistant/attempt`).
    Attempt(AttemptCell),
    /// A checkpoint, an undo or a rewind (SPEC §14.3).
    Checkpoint(CheckpointCell),
}

impl CellKind {
    /// The cell's kind as the trait every kind implements.
    pub fn as_cell(&self) -> &dyn HistoryCell {
        match self {
            CellKind::User(c) => c,
            CellKind::Assistant(c) => c,
            CellKind::Tool(c) => c,
            CellKind::Approval(c) => c,
            CellKind::Context(c) => c,
            CellKind::Notice(c) => c,
            CellKind::Output(c) => c,
            CellKind::Compaction(c) => c,
            CellKind::Attachment(c) => c,
            CellKind::Attempt(c) => c,
            CellKind::Checkpoint(c) => c,
        }
    }
}

/// One transcript cell.
#[derive(Debug, Clone)]
pub struct Cell {
    /// Content.
    pub kind: CellKind,
    /// Disclosure state (context nodes, reasoning, tool cards, checkpoints).
    pub expanded: bool,
    pub(super) rev: u64,
    cache: Option<LineCache>,
}

/// A cell's rendered rows at one (width, generation, revision): `head`, then the borrowed
/// committed markdown rows of an assistant cell, then `foot`.
#[derive(Debug, Clone)]
struct LineCache {
    key: (u16, u64, u64),
    head: Vec<Line<'static>>,
    foot: Vec<Line<'static>>,
}

/// The rows of one cell, borrowed from its caches.
#[derive(Debug, Clone, Copy)]
pub struct CellRows<'a> {
    head: &'a [Line<'static>],
    body: &'a [Line<'static>],
    foot: &'a [Line<'static>],
}

impl<'a> CellRows<'a> {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.head.len() + self.body.len() + self.foot.len()
    }

    /// Whether the cell has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows in order, without copying.
    pub fn iter(&self) -> impl Iterator<Item = &'a Line<'static>> + 'a {
        self.head.iter().chain(self.body).chain(self.foot)
    }

    /// Row `k`.
    pub fn get(&self, k: usize) -> Option<&'a Line<'static>> {
        let (h, b) = (self.head.len(), self.body.len());
        if k < h {
            self.head.get(k)
        } else if k < h + b {
            self.body.get(k - h)
        } else {
            self.foot.get(k - h - b)
        }
    }
}

impl Cell {
    pub(super) fn new(kind: CellKind) -> Self {
        Cell {
            kind,
            expanded: false,
            rev: 0,
            cache: None,
        }
    }

    /// Forgets the cached rows (after a change of the disclosure state made outside the
    /// transcript, as the Ctrl+T transcript's copies are).
    pub fn touch(&mut self) {
        self.rev += 1;
        self.cache = None;
    }

    /// Whether Enter/Space/click can toggle this cell.
    pub fn selectable(&self) -> bool {
        self.kind.as_cell().selectable()
    }

    /// The cell's rows at `width` (including its trailing blank separator), cached per
    /// (width, generation, revision). An assistant cell's committed markdown rows are
    /// borrowed from its collector's cache, so a stream delta renders only the open tail.
    pub fn rows(&mut self, width: u16, ctx: &RenderCtx) -> CellRows<'_> {
        let key = (width, ctx.generation, self.rev);
        if self.cache.as_ref().is_none_or(|c| c.key != key) {
            let Parts { head, foot } = self.kind.as_cell().rows(width as usize, ctx, self.expanded);
            self.cache = Some(LineCache { key, head, foot });
        }
        let body: &[Line<'static>] = match &mut self.kind {
            CellKind::Assistant(a) if a.shows_body() => a.text.committed_ref(width as usize),
            _ => &[],
        };
        match &self.cache {
            Some(c) => CellRows {
                head: &c.head,
                body,
                foot: &c.foot,
            },
            None => CellRows {
                head: &[],
                body,
                foot: &[],
            },
        }
    }
}
