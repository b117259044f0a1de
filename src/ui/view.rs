//! The Chat view model: cells built from AgentEvents, each rendering to wrapped lines that
//! are cached per (width, render generation, cell revision), plus a prefix sum of cell
//! heights so drawing and hit-testing cost depends on the visible rows only.

use std::collections::HashMap;

use ratatui::text::Line;

use crate::agent::protocol::{ApprovalDecision, Notice};
use crate::i18n::Localizer;
use crate::llm::types::StreamEvent;
use crate::session::event::{Block, Event, EventKind, SurfaceOp};

use super::context_node::ContextKind;
use super::text::sanitize;

/// How tool cards show (`Ctrl+O` cycles).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolCardMode {
    /// Header and a short preview.
    #[default]
    Collapsed,
    /// Full arguments and output.
    Expanded,
    /// Not shown.
    Hidden,
}

impl ToolCardMode {
    /// The next mode in the cycle.
    pub fn next(self) -> Self {
        match self {
            ToolCardMode::Collapsed => ToolCardMode::Expanded,
            ToolCardMode::Expanded => ToolCardMode::Hidden,
            ToolCardMode::Hidden => ToolCardMode::Collapsed,
        }
    }
    /// Fluent id of the mode's name.
    pub fn key(self) -> &'static str {
        match self {
            ToolCardMode::Collapsed => "tui-cards-collapsed",
            ToolCardMode::Expanded => "tui-cards-expanded",
            ToolCardMode::Hidden => "tui-cards-hidden",
        }
    }
}

/// What a Chat cell shows. Text fields are sanitized on the way in.
#[derive(Debug, Clone, PartialEq)]
pub enum CellKind {
    /// A user message.
    User {
        /// Text.
        text: String,
    },
    /// An assistant reply (streaming or committed).
    Assistant {
        /// Turn.
        turn: u64,
        /// Step.
        step: u64,
        /// Reasoning text.
        reasoning: String,
        /// Answer markdown.
        text: String,
        /// Still receiving deltas.
        streaming: bool,
        /// The stream was cancelled.
        interrupted: bool,
    },
    /// A tool call and its result.
    Tool {
        /// Call id.
        call_id: String,
        /// Tool name.
        name: String,
        /// Raw JSON arguments.
        arguments: String,
        /// Result text once known.
        result: Option<String>,
        /// The call failed.
        error: bool,
    },
    /// An approval request and, once answered, the decision.
    Approval {
        /// Call id.
        call_id: String,
        /// Tool name.
        tool: String,
        /// Raw JSON arguments.
        arguments: String,
        /// The answer.
        decision: Option<ApprovalDecision>,
    },
    /// A developer message shown as a context node (U-1…U-3).
    Context(ContextKind),
    /// A one-line notice, localized at draw time.
    Notice(Notice),
    /// Command output, localized at draw time.
    Output(Vec<crate::agent::protocol::OutputLine>),
    /// A compaction checkpoint with the summary the model now sees.
    Checkpoint {
        /// The summary.
        summary: String,
    },
}

/// One transcript cell.
#[derive(Debug, Clone)]
pub struct Cell {
    /// Content.
    pub kind: CellKind,
    /// Disclosure state (context nodes, reasoning, tool cards, checkpoints).
    pub expanded: bool,
    rev: u64,
    cache: Option<(u16, u64, u64, Vec<Line<'static>>)>,
}

impl Cell {
    fn new(kind: CellKind) -> Self {
        Cell {
            kind,
            expanded: false,
            rev: 0,
            cache: None,
        }
    }

    /// Whether Enter/Space/click can toggle this cell.
    pub fn selectable(&self) -> bool {
        match &self.kind {
            CellKind::Context(k) => k.expandable(),
            CellKind::Assistant { reasoning, .. } => !reasoning.is_empty(),
            CellKind::Tool { .. } | CellKind::Checkpoint { .. } => true,
            _ => false,
        }
    }
}

/// Rendering inputs shared by every cell.
#[derive(Debug, Clone, Copy)]
pub struct RenderCtx {
    /// Strings.
    pub l: Localizer,
    /// Tool card mode.
    pub cards: ToolCardMode,
    /// Bumped whenever `l` or `cards` changes so caches miss.
    pub generation: u64,
}

/// Renders one cell to wrapped lines for a width. The Chat pane passes its renderer
/// (`chat::render_cell`), so this view model does not depend on the drawing code; pass the
/// same one every time (the line cache is keyed by width, generation and revision only).
pub type RenderCell = fn(&Cell, usize, &RenderCtx) -> Vec<Line<'static>>;

/// The Chat transcript.
#[derive(Debug, Default)]
pub struct Transcript {
    cells: Vec<Cell>,
    by_call: HashMap<String, usize>,
    streaming: HashMap<(u64, u64), usize>,
    heights: Vec<usize>,
    prefix: Vec<usize>,
    valid: usize,
    layout_key: (u16, u64),
}

impl Transcript {
    /// An empty transcript.
    pub fn new() -> Self {
        Transcript {
            prefix: vec![0],
            ..Default::default()
        }
    }

    /// The cells.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether there are no cells.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Appends a cell; returns its index.
    pub fn push(&mut self, kind: CellKind) -> usize {
        self.cells.push(Cell::new(kind));
        self.cells.len() - 1
    }

    fn touch(&mut self, i: usize) {
        if let Some(c) = self.cells.get_mut(i) {
            c.rev += 1;
        }
        self.valid = self.valid.min(i);
    }

    /// Toggles a cell's disclosure; returns whether it changed.
    pub fn toggle(&mut self, i: usize) -> bool {
        let Some(c) = self.cells.get_mut(i) else {
            return false;
        };
        if !c.selectable() {
            return false;
        }
        c.expanded = !c.expanded;
        self.touch(i);
        true
    }

    /// Index of the most recent tool-change context node.
    pub fn last_tool_change(&self) -> Option<usize> {
        self.cells.iter().rposition(
            |c| matches!(&c.kind, CellKind::Context(k) if k.is_tool_change() && k.expandable()),
        )
    }

    /// Records a decision on an approval cell.
    pub fn decide(&mut self, call: &str, d: ApprovalDecision) {
        let found = self.cells.iter().rposition(
            |c| matches!(&c.kind, CellKind::Approval { call_id, .. } if call_id == call),
        );
        if let Some(i) = found {
            if let CellKind::Approval { decision, .. } = &mut self.cells[i].kind {
                *decision = Some(d);
            }
            self.touch(i);
        }
    }

    /// Applies a stream delta to the streaming assistant cell of `(turn, step)`.
    pub fn stream(&mut self, turn: u64, step: u64, ev: &StreamEvent) {
        let (is_reasoning, delta) = match ev {
            StreamEvent::TextDelta(s) => (false, s),
            StreamEvent::ReasoningDelta(s) => (true, s),
            _ => return,
        };
        let i = match self.streaming.get(&(turn, step)) {
            Some(&i) => i,
            None => {
                let i = self.push(CellKind::Assistant {
                    turn,
                    step,
                    reasoning: String::new(),
                    text: String::new(),
                    streaming: true,
                    interrupted: false,
                });
                self.streaming.insert((turn, step), i);
                i
            }
        };
        if let CellKind::Assistant {
            reasoning, text, ..
        } = &mut self.cells[i].kind
        {
            let target = if is_reasoning { reasoning } else { text };
            target.push_str(&sanitize(delta));
        }
        self.touch(i);
    }

    /// Folds one committed session event into the transcript.
    pub fn apply(&mut self, ev: &Event) {
        let append = !matches!(ev.surface_op, Some(SurfaceOp::Replace(_)));
        match &ev.kind {
            EventKind::UserMessage(d) => {
                let text = sanitize(&d.message.joined_text());
                if append && d.message.source.kind == "user" {
                    self.push(CellKind::User { text });
                } else if !append {
                    self.push(CellKind::Checkpoint { summary: text });
                }
            }
            EventKind::DeveloperMessage(d) if append => {
                let kind = ContextKind::from_message(&d.message);
                // U-1: Chat hides ordinary context rows; tool-change nodes stay visible.
                if kind.is_tool_change() {
                    self.push(CellKind::Context(kind));
                }
            }
            EventKind::AssistantMessage(d) => {
                let mut reasoning = String::new();
                let mut text = String::new();
                for b in &d.message.content {
                    match b {
                        Block::Text { text: t } => text.push_str(t),
                        Block::Reasoning { text: t, .. } => reasoning.push_str(t),
                        _ => {}
                    }
                }
                let kind = CellKind::Assistant {
                    turn: d.turn,
                    step: d.step,
                    reasoning: sanitize(&reasoning),
                    text: sanitize(&text),
                    streaming: false,
                    interrupted: d.interrupted == Some(true),
                };
                match self.streaming.remove(&(d.turn, d.step)) {
                    Some(i) => {
                        self.cells[i].kind = kind;
                        self.touch(i);
                    }
                    None => {
                        self.push(kind);
                    }
                }
            }
            EventKind::ToolCall(d) => {
                let i = self.push(CellKind::Tool {
                    call_id: d.call_id.clone(),
                    name: sanitize(&d.name),
                    arguments: sanitize(&d.arguments),
                    result: None,
                    error: false,
                });
                self.by_call.insert(d.call_id.clone(), i);
            }
            EventKind::ToolResult(d) => {
                let id = d.message.tool_call_id.clone().unwrap_or_default();
                let out = sanitize(&d.message.joined_text());
                let failed = d.error.is_some() || d.message.is_error == Some(true);
                if let Some(&i) = self.by_call.get(&id) {
                    if let CellKind::Tool { result, error, .. } = &mut self.cells[i].kind {
                        *result = Some(out);
                        *error = failed;
                    }
                    self.touch(i);
                }
            }
            _ => {}
        }
    }

    /// Marks every streaming cell as finished (turn end or cancel).
    pub fn end_streams(&mut self) {
        let open: Vec<usize> = self.streaming.drain().map(|(_, i)| i).collect();
        for i in open {
            if let CellKind::Assistant {
                streaming,
                interrupted,
                ..
            } = &mut self.cells[i].kind
            {
                *streaming = false;
                *interrupted = true;
            }
            self.touch(i);
        }
    }

    /// Brings heights and the prefix sum up to date for `width` and `ctx`.
    pub fn layout(&mut self, width: u16, ctx: &RenderCtx, render: RenderCell) {
        if self.layout_key != (width, ctx.generation) {
            self.layout_key = (width, ctx.generation);
            self.valid = 0;
        }
        let n = self.cells.len();
        if self.valid >= n && self.prefix.len() == n + 1 {
            return;
        }
        self.heights.resize(n, 0);
        self.prefix.resize(n + 1, 0);
        for i in self.valid..n {
            let h = self.lines(i, width, ctx, render).len();
            self.heights[i] = h;
            self.prefix[i + 1] = self.prefix[i] + h;
        }
        self.valid = n;
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

    /// The wrapped lines of cell `i`, cached per (width, generation, revision).
    pub fn lines(
        &mut self,
        i: usize,
        width: u16,
        ctx: &RenderCtx,
        render: RenderCell,
    ) -> &[Line<'static>] {
        let cell = &mut self.cells[i];
        let fresh = matches!(&cell.cache, Some((w, g, r, _)) if *w == width && *g == ctx.generation && *r == cell.rev);
        if !fresh {
            let lines = render(cell, width as usize, ctx);
            cell.cache = Some((width, ctx.generation, cell.rev, lines));
        }
        match &cell.cache {
            Some((_, _, _, l)) => l,
            None => &[],
        }
    }
}
