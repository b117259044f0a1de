//! The Chat event fold: [`Transcript`] turns committed session events, stream deltas,
//! tool changes and approvals into cells, the same way live and on a resumed log.

mod approvals;
mod checkpoints;
mod progress;
pub mod subagent;
mod tool_changes;

use std::collections::HashMap;

use crate::agent::protocol::{ApprovalDecision, Notice, NoticeLevel, ToolInfo};
use crate::i18n::Arg;
use crate::llm::types::StreamEvent;
use crate::session::event::{
    AttemptError, Block, Event, EventKind, McpState, McpStatus, SurfaceOp, TurnOutcome,
};
use crate::tools::registry::ToolSource;
use crate::ui::context_node::ContextKind;
use crate::ui::markdown::StreamCollector;
use crate::ui::text::sanitize;

use super::cells::{
    AssistantCell, AttachmentCell, AttemptCell, Cell, CellKind, CheckpointCell, CheckpointNode,
    CompactionCell, ToolApproval, ToolCell, UserCell,
};
use crate::session::rewound::Rewound;
use crate::ui::model::RenderCtx;

/// One prompt the fold saw: its `turn/start` seq, logged turn number and typed text.
#[derive(Debug, Clone)]
struct TurnSeen {
    seq: u64,
    turn: u64,
    prompt: String,
}

/// The Fluent id of a logged attempt error's code (as the loop's notice uses it).
fn attempt_error_id(code: &str) -> &'static str {
    crate::llm::types::ErrorCode::parse(code).map_or("llm-error-server", |c| c.message_id())
}

/// Most tools whose source and description the transcript remembers for later nodes.
const MAX_TOOL_INFOS: usize = 4096;

/// The Chat transcript.
#[derive(Debug, Default)]
pub struct Transcript {
    pub(super) cells: Vec<Cell>,
    by_call: HashMap<String, usize>,
    streaming: HashMap<(u64, u64), usize>,
    pub(super) heights: Vec<usize>,
    pub(super) exact: Vec<bool>,
    pub(super) estimated: usize,
    pub(super) dirty: Vec<usize>,
    pub(super) prefix: Vec<usize>,
    pub(super) prefix_valid: usize,
    pub(super) refine_next: usize,
    pub(super) layout_key: (u16, u64),
    /// The tool-change node that later changes merge into until the next request goes
    /// out.
    open_node: Option<usize>,
    /// The log records tool changes as `tools/changed` events; its developer messages
    /// then make no node.
    logs_tool_changes: bool,
    /// Source and description of every tool seen (changes, request headers).
    tool_infos: HashMap<String, ToolInfo>,
    /// The attempt each failed turn gave up after (its one line names the error).
    turn_errors: HashMap<u64, AttemptError>,
    /// Replaying a resumed log (outcomes the live loop announced as notices are shown).
    replaying: bool,
    /// A cell the Chat pane should scroll into view on the next frame.
    reveal: Option<usize>,
    /// What the log's rewinds took back: left out of the cells.
    rewound: Rewound,
    /// Every prompt seen, rewound ones too (a rewind's node names the prompt).
    turns: Vec<TurnSeen>,
}

impl Transcript {
    /// An empty transcript.
    pub fn new() -> Self {
        Transcript {
            prefix: vec![0],
            ..Default::default()
        }
    }

    /// Empties the view (`/clear`): every cell and its layout go; what the transcript
    /// knows about tools and failed turns stays, for the cells that come after. The loop
    /// runs `/clear` only between turns, so no stream or approval points into the cells.
    pub fn clear_screen(&mut self) {
        let keep = (
            std::mem::take(&mut self.tool_infos),
            std::mem::take(&mut self.turn_errors),
            self.replaying,
            std::mem::take(&mut self.rewound),
            std::mem::take(&mut self.turns),
            self.logs_tool_changes,
        );
        *self = Transcript::new();
        (
            self.tool_infos,
            self.turn_errors,
            self.replaying,
            self.rewound,
            self.turns,
            self.logs_tool_changes,
        ) = keep;
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

    /// Whether Enter on cell `i` changes what it shows at `width`: a selectable cell
    /// whose expanded rows are its collapsed rows (a command with a short output, a node
    /// with nothing more to list) is not one ↑/↓ stop at.
    pub fn actionable(&self, i: usize, width: u16, ctx: &RenderCtx) -> bool {
        let Some(c) = self.cells.get(i) else {
            return false;
        };
        if !c.selectable() {
            return false;
        }
        if width == 0 {
            return true;
        }
        let cell = c.kind.as_cell();
        let closed = cell.rows(width as usize, ctx, false);
        let open = cell.rows(width as usize, ctx, true);
        closed.head != open.head || closed.foot != open.foot
    }

    /// The first acting tool's card (an edit tool or `shell`) still without a result.
    fn first_pending_acting_card(&self) -> Option<usize> {
        // Of this turn: a card an earlier turn left without a result (cancelled) stays.
        let turn_start = self
            .cells
            .iter()
            .rposition(|c| matches!(c.kind, CellKind::User(_)))
            .unwrap_or(0);
        self.by_call
            .values()
            .copied()
            .filter(|&i| i > turn_start)
            .filter(|&i| {
                matches!(&self.cells[i].kind, CellKind::Tool(t)
                    if t.result.is_none()
                        && crate::agent::checkpoint::changes_workspace(&t.name))
            })
            .min()
    }

    /// Moves the last cell to index `k`, the cells from `k` on one down: the indices
    /// kept into them follow, and their rows are laid out again.
    pub(crate) fn move_last_to(&mut self, k: usize) {
        let n = self.cells.len();
        if k + 1 >= n {
            return;
        }
        self.cells[k..].rotate_right(1);
        let shift = |i: &mut usize| {
            if *i >= k && *i < n - 1 {
                *i += 1;
            } else if *i == n - 1 {
                *i = k;
            }
        };
        self.by_call.values_mut().for_each(shift);
        self.streaming.values_mut().for_each(shift);
        if let Some(i) = self.open_node.as_mut() {
            shift(i);
        }
        if let Some(i) = self.reveal.as_mut() {
            shift(i);
        }
        for i in k..n {
            self.touch(i);
        }
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
        if i < self.heights.len() && self.dirty.last() != Some(&i) {
            self.dirty.push(i);
        }
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
        self.cells
            .iter()
            .rposition(|c| matches!(&c.kind, CellKind::Context(n) if n.kind.is_tool_change()))
    }

    /// Asks the Chat pane to bring cell `i` into view on its next frame (Ctrl+T).
    pub fn reveal(&mut self, i: usize) {
        self.reveal = Some(i);
    }

    /// The cell to bring into view, once.
    pub fn take_reveal(&mut self) -> Option<usize> {
        self.reveal.take()
    }

    /// What the log's rewinds take back (all of the log's rewinds, known before its
    /// events are folded: a rewind comes after what it takes back).
    pub fn set_rewound(&mut self, r: Rewound) {
        self.rewound = r;
    }

    /// Marks the events applied until `set_replaying(false)` as a resumed log.
    pub fn set_replaying(&mut self, on: bool) {
        self.replaying = on;
    }

    /// Applies a stream delta to the streaming assistant cell of `(turn, step)`; a step's
    /// next attempt streams into a new cell (see [`Transcript::apply`]).
    pub fn stream(&mut self, turn: u64, step: u64, ev: &StreamEvent) {
        let (is_reasoning, delta) = match ev {
            StreamEvent::TextDelta(s) => (false, s),
            StreamEvent::ReasoningDelta(s) => (true, s),
            _ => return,
        };
        let i = match self.streaming.get(&(turn, step)) {
            Some(&i) => i,
            None => {
                let i = self.push(CellKind::Assistant(AssistantCell::streaming(turn, step)));
                self.streaming.insert((turn, step), i);
                i
            }
        };
        if let CellKind::Assistant(cell) = &mut self.cells[i].kind {
            // The answer is kept as received (`/copy` copies its source) and sanitized
            // for display by the collector; the reasoning is only ever displayed.
            if is_reasoning {
                cell.thinking_since
                    .get_or_insert_with(std::time::Instant::now);
                cell.reasoning.push_str(&sanitize(delta));
            } else {
                // The reply starts: the thinking time is fixed (SPEC §14.4).
                if cell.thought_secs.is_none() {
                    cell.thought_secs = cell.thought_until_now();
                }
                cell.text.push(delta);
            }
        }
        self.touch(i);
    }

    /// Folds one committed session event into the transcript. An event a rewind took
    /// back makes no cell; a checkpoint, an undo and a rewind each make a node.
    ///
    /// `assistant/attempt` ends the step's current stream: the failed attempt's partial
    /// text (never in the log) is dropped and the next attempt opens a new cell.
    /// Replaying the log therefore shows the same rows.
    pub fn apply(&mut self, ev: &Event) {
        if !self.observe_checkpoints(ev) {
            return;
        }
        if let Some(node) = self.checkpoint_node(ev) {
            let taken = matches!(node, CheckpointNode::Taken { .. });
            let i = self.push(CellKind::Checkpoint(CheckpointCell::new(node)));
            // The checkpoint was taken before the call that first changes the workspace
            // ran: its node goes above that call's card (the first acting card without a
            // result; calls with side effects run one at a time, in call order).
            if taken
                && let Some(card) = self.first_pending_acting_card()
                && card < i
            {
                self.move_last_to(card);
            }
            return;
        }
        let append = !matches!(ev.surface_op, Some(SurfaceOp::Replace(_)));
        match &ev.kind {
            EventKind::UserMessage(d) => {
                // `@path` attachments show as their own lines under the text.
                let (typed, attachments) = crate::agent::mentions::split(&d.message);
                let text = sanitize(&typed);
                if append && d.message.source.kind == "user" {
                    self.push(CellKind::User(UserCell { text }));
                    let n = attachments.len();
                    for (k, (info, content)) in attachments.into_iter().enumerate() {
                        self.push(CellKind::Attachment(AttachmentCell {
                            info,
                            content: sanitize(&content),
                            last: k + 1 == n,
                        }));
                    }
                } else if !append {
                    self.push(CellKind::Compaction(CompactionCell { summary: text }));
                }
            }
            EventKind::DeveloperMessage(d) if append => {
                // The request that carries the changes is being built: later changes
                // are the next request's node.
                self.open_node = None;
                // U-1: Chat hides ordinary context rows; tool-change nodes stay visible.
                if let ContextKind::Tools { added, removed } = ContextKind::from_message(&d.message)
                {
                    let added = added.iter().map(|n| sanitize(n)).collect();
                    let removed = removed.iter().map(|n| sanitize(n)).collect();
                    self.developer_tools(added, removed, d.step == 1);
                }
            }
            // A request goes out: later changes are the next request's node.
            EventKind::StepStart(_) | EventKind::StepEnd(_) => self.open_node = None,
            EventKind::ToolsChanged(c) => self.tools_changed(c),
            EventKind::RequestHeader(h) => {
                for t in h.header.tools.iter().flatten() {
                    let e = self
                        .tool_infos
                        .entry(t.name.clone())
                        .or_insert_with(|| ToolInfo {
                            name: t.name.clone(),
                            source: ToolSource::of_name(&t.name).label(),
                            description: String::new(),
                        });
                    e.description = t.description.clone();
                }
            }
            EventKind::TurnEnd(t) => match t.outcome {
                // The logged end is the one fact of a cancel, live and on resume.
                Some(TurnOutcome::Cancelled) => {
                    self.push(CellKind::Notice(Notice::new(
                        NoticeLevel::Warn,
                        "agent-turn-cancelled",
                        vec![],
                    )));
                }
                // A turn whose request failed for good keeps one dim line, live and on
                // resume (§14.5); its attempts stay in the Trajectory.
                Some(TurnOutcome::Error) => {
                    if let Some(e) = self.turn_errors.get(&t.turn) {
                        let n = failed_turn_notice(e);
                        self.push(CellKind::Notice(n));
                    } else if self.replaying {
                        // Live, the loop's own notice said why (too many steps, the log).
                        self.push(CellKind::Notice(Notice::new(
                            NoticeLevel::Error,
                            "tui-turn-failed",
                            vec![],
                        )));
                    }
                }
                _ => {}
            },
            // A failed MCP server is a Trajectory row, and a notice in Chat too: the
            // Trajectory may be hidden. The logged status is the one fact, live and on
            // resume (`/mcp connect` in the TUI adds nothing to it).
            EventKind::McpStatus(m) if m.state == McpState::Failed => {
                self.push(CellKind::Notice(mcp_failed_notice(m)));
            }
            // A failed attempt leaves nothing in Chat (§14.5): the status line said it
            // was retried, and the Trajectory keeps it. Its partial text is dropped (the
            // cell stays, showing nothing, so indices into the cells hold); the next
            // attempt streams into a new cell, as a resumed log shows it.
            EventKind::AssistantAttempt(a) => {
                if !a.error.retried {
                    self.turn_errors.insert(a.turn, a.error.clone());
                }
                if let Some(i) = self.streaming.remove(&(a.turn, a.step)) {
                    self.cells[i].kind = CellKind::Attempt(AttemptCell);
                    self.cells[i].expanded = false;
                    self.touch(i);
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
                let streamed = self.streaming.remove(&(d.turn, d.step));
                // The thinking time the loop logged, so the label is the same live, after
                // a rewind refolds the log, and on resume; a log without it keeps what
                // streamed here, else shows the line count.
                let logged = d
                    .timing
                    .and_then(|t| t.thinking_ms)
                    .map(|ms| (ms / 1000).max(1));
                let thought_secs = logged.or_else(|| {
                    streamed.and_then(|i| match &self.cells[i].kind {
                        CellKind::Assistant(c) => c.thought_until_now(),
                        _ => None,
                    })
                });
                let kind = CellKind::Assistant(AssistantCell {
                    reasoning: sanitize(&reasoning),
                    text: StreamCollector::complete(&text),
                    streaming: false,
                    interrupted: d.interrupted == Some(true),
                    thought_secs: thought_secs.filter(|_| !reasoning.is_empty()),
                    ..AssistantCell::streaming(d.turn, d.step)
                });
                match streamed {
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
                let i = self.push(CellKind::Tool(ToolCell::new(
                    d.call_id.clone(),
                    sanitize(&d.name),
                    sanitize(&d.arguments),
                )));
                self.by_call.insert(d.call_id.clone(), i);
            }
            EventKind::HookRun(h) => self.hook_run(h),
            EventKind::SubagentStart(_) | EventKind::SubagentEvent(_) => self.subagent(&ev.kind),
            EventKind::ToolResult(d) => {
                let id = d.message.tool_call_id.clone().unwrap_or_default();
                let out = sanitize(&d.message.joined_text());
                let failed = d.error.is_some() || d.message.is_error == Some(true);
                if let Some(&i) = self.by_call.get(&id) {
                    if let CellKind::Tool(ToolCell {
                        name,
                        result,
                        error,
                        approval,
                        retry,
                        ..
                    }) = &mut self.cells[i].kind
                    {
                        // The log keeps the denial as the model-facing result; a resumed
                        // session shows it as the user's denial, like the live one did.
                        if failed && crate::agent::tool_runner::is_denial(name, &out) {
                            *approval = Some(ToolApproval::Decided(ApprovalDecision::Deny));
                        }
                        // A command the sandbox seemed to refuse: the logged retry says
                        // what ran and what the user answered, live and resumed alike;
                        // the live answer adds nothing to it.
                        if let Some(r) = &d.sandbox_retry {
                            *retry = Some(Box::new(r.clone()));
                            *approval = None;
                        }
                        *result = Some(out);
                        *error = failed;
                    }
                    self.touch(i);
                }
            }
            _ => {}
        }
    }

    /// A logged hook run: a tool hook's is a line in its call's card; any
    /// other hook's, which the live loop announced as a notice, is one on a resumed log.
    fn hook_run(&mut self, h: &crate::session::hook_event::HookRunData) {
        let card = h.tool_call_id.as_ref().and_then(|id| self.by_call.get(id));
        if let Some(&i) = card
            && let CellKind::Tool(c) = &mut self.cells[i].kind
        {
            c.hooks.push(h.clone());
            self.touch(i);
        } else if self.replaying || h.tool_call_id.is_some() {
            let n = crate::agent::hooks::notice::run_notice(h);
            self.push(CellKind::Notice(n));
        }
    }

    /// Marks every streaming cell as finished (turn end or cancel).
    pub fn end_streams(&mut self) {
        let open: Vec<usize> = self.streaming.drain().map(|(_, i)| i).collect();
        for i in open {
            if let CellKind::Assistant(AssistantCell {
                streaming,
                interrupted,
                text,
                ..
            }) = &mut self.cells[i].kind
            {
                *streaming = false;
                *interrupted = true;
                text.finish();
            }
            self.touch(i);
        }
    }
}

/// The one line of a turn whose request failed for good: the logged message in the
/// interface language, or, from an older log, the error's class and the provider's text.
fn failed_turn_notice(e: &AttemptError) -> Notice {
    match &e.detail {
        Some(t) => Notice {
            level: NoticeLevel::Info,
            key: t.key.clone(),
            args: t.args.clone(),
        },
        None => Notice::new(
            NoticeLevel::Info,
            attempt_error_id(&e.code),
            vec![("message", Arg::from(e.message.as_str()))],
        ),
    }
}

/// What Chat says of a server that failed: its error in the interface language when the
/// log has it, else the logged English text.
fn mcp_failed_notice(m: &McpStatus) -> Notice {
    let error = match &m.detail {
        Some(t) => Arg::from((**t).clone()),
        None => Arg::from(m.error.clone().unwrap_or_default()),
    };
    Notice::new(
        NoticeLevel::Warn,
        "mcp-connect-failed",
        vec![("name", Arg::from(m.server.clone())), ("error", error)],
    )
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod hook_tests;
