//! The Chat view model: cells built from AgentEvents that render themselves to wrapped
//! lines cached per (width, render generation, cell revision), plus a prefix sum of cell
//! heights so drawing and hit-testing cost depends on the visible rows only.
//!
//! An assistant cell streams through a [`StreamCollector`]: its committed rows are cached
//! by the collector and borrowed, only the open tail is rendered per delta. After a width
//! change the layout is lazy: cells near the viewport get exact heights, the others an
//! estimate that later frames refine a bounded number of cells at a time.

use std::collections::HashMap;

use ratatui::text::{Line, Span};

use crate::agent::protocol::{ApprovalDecision, Notice, NoticeLevel, ToolChange, ToolInfo};
use crate::i18n::{Arg, Localizer};
use crate::llm::types::StreamEvent;
use crate::session::event::{AttemptError, Block, Event, EventKind, SurfaceOp, TurnOutcome};
use crate::tools::registry::ToolSource;

use super::context_node::ContextKind;
use super::markdown::StreamCollector;
use super::text::{sanitize, truncate, wrap_line, wrap_prefixed};
use super::theme;

/// Lines of a tool result shown in a collapsed card.
const PREVIEW_LINES: usize = 3;
/// Cells whose estimated height is replaced by an exact one per frame after a resize.
pub const REFINE_PER_FRAME: usize = 256;

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

/// Where a tool call that needs approval stands: the card reads
/// tool + arguments → waiting for you → allowed / denied → result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolApproval {
    /// Waiting for the user; the turn's clock is paused.
    Waiting,
    /// Another call of the step waits for the user; this one has not started.
    Queued,
    /// Answered.
    Decided(ApprovalDecision),
}

/// What a Chat cell shows. Text fields are sanitized on the way in (an answer's source is
/// sanitized by its collector, which keeps the source as received).
#[derive(Debug, Clone)]
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
        /// Answer markdown, streamed through a newline-gated collector; its source is kept
        /// as received, the collector sanitizes it for display.
        text: StreamCollector,
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
        /// The user's part, when the call needed approval: waiting, then the answer.
        approval: Option<ToolApproval>,
        /// What the call would do, shown while it waits for approval (SPEC §14.1).
        preview: Option<Box<crate::agent::protocol::ApprovalPreview>>,
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
    /// A tool change (or other developer message) shown as a context node (U-1…U-3): one
    /// cell per change, made when the change happens and linked to the developer message
    /// the next request logs. The infos give each tool's source and
    /// description for the expansion.
    Context(ContextKind, Vec<ToolInfo>),
    /// A one-line notice, localized at draw time.
    Notice(Notice),
    /// Command output, localized at draw time.
    Output(Vec<crate::agent::protocol::OutputLine>),
    /// A compaction checkpoint with the summary the model now sees.
    Checkpoint {
        /// The summary.
        summary: String,
    },
    /// A file attached to the user message above through an `@path` mention:
    /// one collapsed line, expanding to the attached text.
    Attachment {
        /// What `source.attachments` says about it.
        info: crate::agent::mentions::Attachment,
        /// The attachment block as the model saw it (sanitized).
        content: String,
        /// The message's last attachment: the blank separator follows it.
        last: bool,
    },
    /// A failed model attempt (`assistant/attempt`): its partial text is never shown.
    Attempt {
        /// 1-based attempt number within the step.
        number: u32,
        /// Whether the loop retried after it.
        retried: bool,
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
            // Every tool-change node expands.
            CellKind::Context(k, _) => k.is_tool_change() || k.expandable(),
            CellKind::Assistant { reasoning, .. } => !reasoning.is_empty(),
            CellKind::Tool { .. } | CellKind::Checkpoint { .. } => true,
            CellKind::User { text } => user_collapsible(text),
            CellKind::Attachment { info, .. } => info.refused.is_none(),
            _ => false,
        }
    }

    /// The cell's rows at `width` (including its trailing blank separator), cached per
    /// (width, generation, revision). An assistant cell's committed markdown rows are
    /// borrowed from its collector's cache, so a stream delta renders only the open tail.
    pub fn rows(&mut self, width: u16, ctx: &RenderCtx) -> CellRows<'_> {
        let key = (width, ctx.generation, self.rev);
        if self.cache.as_ref().is_none_or(|c| c.key != key) {
            let (head, foot) = render_parts(self, width as usize, ctx);
            self.cache = Some(LineCache { key, head, foot });
        }
        let body: &[Line<'static>] = match &mut self.kind {
            CellKind::Assistant { text, .. } if shows_body(text) => {
                text.committed_ref(width as usize)
            }
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

/// Rows of a long user message shown while it is collapsed.
const USER_PREVIEW_ROWS: usize = 3;

/// Whether a user message is long enough to collapse: what the composer would have shown
/// as a paste placeholder.
fn user_collapsible(text: &str) -> bool {
    text.lines().count() > crate::ui::composer::PASTE_LINE_LIMIT
        || text.chars().count() > crate::ui::composer::PASTE_CHAR_LIMIT
}

/// Whether an assistant cell shows its markdown body (not while it is still empty).
fn shows_body(text: &StreamCollector) -> bool {
    !text.is_empty()
}

fn dim_indented(s: &str, indent: &'static str, width: usize) -> Vec<Line<'static>> {
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

/// Renders a cell's rows except an assistant's committed markdown: `(head, foot)`, both
/// wrapped to `width`; `foot` ends with the blank separator.
fn render_parts(
    cell: &Cell,
    width: usize,
    ctx: &RenderCtx,
) -> (Vec<Line<'static>>, Vec<Line<'static>>) {
    let l = ctx.l;
    let wrap_all = |v: Vec<Line<'static>>| -> Vec<Line<'static>> {
        v.iter()
            .flat_map(|line| wrap_line(line, width, 0))
            .collect()
    };
    let mut head: Vec<Line<'static>> = Vec::new();
    let mut foot: Vec<Line<'static>> = Vec::new();
    match &cell.kind {
        CellKind::User { text } => {
            head.push(Line::from(Span::styled(
                l.tr("tui-role-user"),
                theme::role(),
            )));
            let body = if user_collapsible(text) {
                text.trim_end_matches('\n')
            } else {
                text
            };
            head.extend(body.split('\n').map(|s| Line::from(s.to_string())));
            head = wrap_all(head);
            // A long message (a large paste) shows its first rows until expanded, as the
            // composer shows a placeholder.
            let rows = head.len() - 1;
            if user_collapsible(text) && rows > USER_PREVIEW_ROWS {
                let (key, args) = if cell.expanded {
                    ("tui-user-expanded", [("lines", Arg::from(rows))])
                } else {
                    head.truncate(1 + USER_PREVIEW_ROWS);
                    let hidden = rows - USER_PREVIEW_ROWS;
                    ("tui-user-collapsed", [("hidden", Arg::from(hidden))])
                };
                head.extend(wrap_line(
                    &Line::from(Span::styled(l.tra(key, &args), theme::dim())),
                    width,
                    0,
                ));
            }
        }
        CellKind::Assistant {
            reasoning,
            text,
            streaming,
            interrupted,
            ..
        } => {
            if reasoning.is_empty() && text.is_empty() && !streaming {
                return (vec![], vec![]);
            }
            head.push(Line::from(Span::styled(
                l.tr("tui-role-assistant"),
                theme::role(),
            )));
            if !reasoning.is_empty() {
                if cell.expanded {
                    head.push(Line::from(Span::styled(
                        l.tr("tui-thinking-expanded"),
                        theme::dim(),
                    )));
                    head = wrap_all(head);
                    head.extend(dim_indented(reasoning, "  ", width));
                } else {
                    let n = reasoning.lines().count();
                    head.push(Line::from(Span::styled(
                        l.tra("tui-thinking-collapsed", &[("lines", Arg::from(n))]),
                        theme::dim(),
                    )));
                    head = wrap_all(head);
                }
            } else {
                head = wrap_all(head);
            }
            if text.is_empty() && *streaming {
                foot.push(Line::from(Span::styled("…", theme::dim())));
            } else {
                foot.extend(text.tail(width, &l.tr("tui-table-pending")));
            }
            if *interrupted {
                foot.extend(wrap_line(
                    &Line::from(Span::styled(l.tr("tui-interrupted"), theme::warn())),
                    width,
                    0,
                ));
            }
        }
        CellKind::Tool {
            name,
            arguments,
            result,
            error,
            approval,
            preview,
            ..
        } => {
            let waiting = *approval == Some(ToolApproval::Waiting);
            let denied = *approval == Some(ToolApproval::Decided(ApprovalDecision::Deny));
            // A card waiting for the user shows in full whatever the card mode: the tool and
            // its arguments are on screen before the call can be answered.
            let mode = if cell.expanded || waiting {
                ToolCardMode::Expanded
            } else {
                ctx.cards
            };
            if mode == ToolCardMode::Hidden {
                return (vec![], vec![]);
            }
            // The acting tools have cards of their own once they ran (SPEC §14.1).
            let acting = (!waiting && !denied)
                .then(|| {
                    super::acting::acting_card(
                        name,
                        arguments,
                        result.as_deref(),
                        *error,
                        mode == ToolCardMode::Expanded,
                        l,
                        width,
                    )
                })
                .flatten();
            if let Some(rows) = acting {
                head.extend(rows);
            } else {
                let (status, style) = match (result, error) {
                    _ if waiting => (l.tr("tui-tool-waiting"), theme::warn()),
                    (None, _) if *approval == Some(ToolApproval::Queued) => {
                        (l.tr("tui-tool-queued"), theme::dim())
                    }
                    _ if denied => (l.tr("tui-tool-denied"), theme::error()),
                    (None, _) => (l.tr("tui-tool-running"), theme::warn()),
                    (Some(_), true) => (l.tr("tui-tool-failed"), theme::error()),
                    (Some(_), false) => (l.tr("tui-tool-done"), theme::success()),
                };
                head.extend(wrap_line(
                    &Line::from(vec![
                        Span::styled(
                            format!("{} / {name}", l.tr("tui-tool")),
                            style.patch(theme::bold()),
                        ),
                        Span::styled(format!("  {status}"), style),
                    ]),
                    width,
                    0,
                ));
                if let Some(p) = preview.as_deref().filter(|_| waiting) {
                    // Waiting: what the call would do (the diff, or where the command runs).
                    head.extend(super::acting::preview_lines(p, l, width));
                } else if mode == ToolCardMode::Expanded {
                    head.extend(dim_indented(arguments, "  ", width));
                } else {
                    let one: String = arguments.replace('\n', " ");
                    head.push(Line::from(Span::styled(
                        format!("  {}", truncate(&one, width.saturating_sub(2))),
                        theme::dim(),
                    )));
                }
                if let Some(a) = approval.filter(|a| *a != ToolApproval::Queued) {
                    let (key, style) = match a {
                        ToolApproval::Waiting | ToolApproval::Queued => {
                            ("tui-approval-keys", theme::accent())
                        }
                        ToolApproval::Decided(ApprovalDecision::Allow) => {
                            ("tui-approval-allowed", theme::success())
                        }
                        ToolApproval::Decided(ApprovalDecision::AlwaysAllow) => {
                            ("tui-approval-always", theme::success())
                        }
                        ToolApproval::Decided(ApprovalDecision::Deny) => {
                            ("tui-approval-denied", theme::error())
                        }
                    };
                    // A denial with the user's reason says it (the model got it too).
                    let reason = result
                        .as_deref()
                        .filter(|_| denied)
                        .and_then(|r| crate::agent::tool_runner::denial_reason(name, r));
                    let label = match reason {
                        Some(r) => l.tra(
                            "tui-approval-denied-reason",
                            &[("reason", crate::i18n::Arg::from(sanitize(r)))],
                        ),
                        None => l.tr(key),
                    };
                    let indent = [Span::raw("  ")];
                    head.extend(wrap_prefixed(
                        &Line::from(Span::styled(label, style)),
                        width,
                        &indent,
                        &indent,
                    ));
                }
                // A denial's result is the model-facing text; the card says "Denied by you".
                if let Some(r) = result.as_ref().filter(|_| !denied) {
                    let lines: Vec<&str> = r.split('\n').collect();
                    let shown = if mode == ToolCardMode::Expanded {
                        lines.len()
                    } else {
                        PREVIEW_LINES
                    };
                    let gutter = [Span::styled("  │ ", theme::dim())];
                    for s in lines.iter().take(shown) {
                        head.extend(wrap_prefixed(
                            &Line::from(Span::styled(s.to_string(), theme::dim())),
                            width,
                            &gutter,
                            &gutter,
                        ));
                    }
                    if lines.len() > shown {
                        head.extend(wrap_line(
                            &Line::from(Span::styled(
                                format!(
                                    "  {}",
                                    l.tra(
                                        "tui-more-lines",
                                        &[("count", Arg::from(lines.len() - shown))]
                                    )
                                ),
                                theme::dim(),
                            )),
                            width,
                            0,
                        ));
                    }
                }
            }
        }
        CellKind::Approval {
            tool,
            arguments,
            decision,
            ..
        } => {
            head.extend(wrap_line(
                &Line::from(Span::styled(
                    l.tra("tui-approval-title", &[("tool", Arg::from(tool))]),
                    theme::warn().patch(theme::bold()),
                )),
                width,
                0,
            ));
            head.extend(dim_indented(arguments, "  ", width));
            let (key, style) = match decision {
                None => ("tui-approval-keys", theme::accent()),
                Some(ApprovalDecision::Allow) => ("tui-approval-allowed", theme::success()),
                Some(ApprovalDecision::AlwaysAllow) => ("tui-approval-always", theme::success()),
                Some(ApprovalDecision::Deny) => ("tui-approval-denied", theme::error()),
            };
            head.extend(wrap_line(
                &Line::from(Span::styled(l.tr(key), style)),
                width,
                0,
            ));
        }
        CellKind::Context(k, tools) => {
            // `◆` one tool (expands to its source and description), `▸`/`▾` several.
            let marker = if k.is_tool_change() && !k.expandable() {
                "◆ "
            } else if cell.expanded {
                "▾ "
            } else {
                "▸ "
            };
            head.extend(wrap_line(
                &Line::from(vec![
                    Span::styled(marker, theme::accent()),
                    Span::styled(k.one_line(l), theme::accent()),
                ]),
                width,
                0,
            ));
            if cell.expanded {
                match k {
                    ContextKind::Tools { added, removed } => {
                        head.extend(node_detail(added, removed, tools, l, width));
                    }
                    ContextKind::Generic { .. } => {
                        for s in k.detail(l) {
                            head.extend(dim_indented(&s, "    ", width));
                        }
                    }
                }
            }
        }
        CellKind::Notice(n) => {
            let style = match n.level {
                NoticeLevel::Info => theme::dim(),
                NoticeLevel::Warn => theme::warn(),
                NoticeLevel::Error => theme::error(),
            };
            head.extend(wrap_line(
                &Line::from(Span::styled(sanitize(&l.tra_owned(&n.key, &n.args)), style)),
                width,
                0,
            ));
        }
        CellKind::Output(lines) => {
            head = wrap_all(
                lines
                    .iter()
                    .map(|t| Line::from(sanitize(&l.text(t))))
                    .collect(),
            );
        }
        CellKind::Checkpoint { summary } => {
            head.extend(wrap_line(
                &Line::from(Span::styled(
                    format!("┄ {} ┄", l.tr("tui-checkpoint")),
                    theme::dim(),
                )),
                width,
                0,
            ));
            if cell.expanded {
                head.extend(dim_indented(summary, "  ", width));
            }
        }
        CellKind::Attachment {
            info,
            content,
            last,
        } => {
            use crate::agent::mentions::Refusal;
            let path = Arg::from(sanitize(&info.path));
            let (key, args) = match (info.refused, cell.expanded) {
                (Some(Refusal::OutsideWorkspace), _) => {
                    ("tui-attachment-outside", vec![("path", path)])
                }
                (Some(Refusal::Binary), _) => ("tui-attachment-binary", vec![("path", path)]),
                (Some(Refusal::NotRegular), _) => {
                    ("tui-attachment-not-regular", vec![("path", path)])
                }
                (None, true) => ("tui-attachment-expanded", vec![("path", path)]),
                (None, false) if info.truncated => (
                    "tui-attachment-truncated",
                    vec![
                        ("path", path),
                        ("lines", Arg::from(info.lines)),
                        (
                            "kib",
                            Arg::from(crate::agent::mentions::MAX_MENTION_BYTES / 1024),
                        ),
                        ("total", Arg::from(info.bytes.div_ceil(1024))),
                    ],
                ),
                (None, false) => (
                    "tui-attachment",
                    vec![("path", path), ("lines", Arg::from(info.lines))],
                ),
            };
            let pre = [Span::styled("  ", theme::dim())];
            head.extend(wrap_prefixed(
                &Line::from(Span::styled(l.tra(key, &args), theme::dim())),
                width,
                &pre,
                &pre,
            ));
            if cell.expanded {
                head.extend(dim_indented(content, "    ", width));
            }
            if !last {
                return (head, foot);
            }
        }
        CellKind::Attempt { number, retried } => {
            let key = if *retried {
                "tui-attempt-retrying"
            } else {
                "tui-attempt-failed"
            };
            head.extend(wrap_line(
                &Line::from(Span::styled(
                    l.tra(key, &[("attempt", Arg::from(*number))]),
                    theme::dim(),
                )),
                width,
                0,
            ));
        }
    }
    foot.push(Line::default());
    (head, foot)
}

/// The info of `name` among `tools`, else what its name says (source) and no description.
fn tool_info(name: &str, tools: &[ToolInfo]) -> ToolInfo {
    tools
        .iter()
        .find(|t| t.name == name)
        .cloned()
        .unwrap_or_else(|| ToolInfo {
            name: name.to_string(),
            source: ToolSource::of_name(name).label(),
            description: String::new(),
        })
}

/// A tool-change node's expansion: one tool shows its source and
/// description; several are grouped under `Added` / `Removed`, then by source, one tool
/// per line (name and the description's first line, cut to the width), indented.
fn node_detail(
    added: &[String],
    removed: &[String],
    tools: &[ToolInfo],
    l: Localizer,
    width: usize,
) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    if let ([one], []) | ([], [one]) = (added, removed) {
        let t = tool_info(one, tools);
        let source = l.text(&t.source);
        out.extend(dim_indented(
            &sanitize(&l.tra("tui-node-source", &[("source", Arg::from(source))])),
            "    ",
            width,
        ));
        let desc = if t.description.trim().is_empty() {
            l.tr("tui-node-no-description")
        } else {
            sanitize(t.description.trim())
        };
        out.extend(dim_indented(&desc, "    ", width));
        return out;
    }
    for (key, names) in [("tui-node-added", added), ("tui-node-removed", removed)] {
        if names.is_empty() {
            continue;
        }
        out.extend(wrap_line(
            &Line::from(Span::styled(format!("    {}", l.tr(key)), theme::accent())),
            width,
            0,
        ));
        // Groups in order of first appearance; names keep their order within a group.
        let mut groups: Vec<(String, Vec<ToolInfo>)> = Vec::new();
        for n in names {
            let t = tool_info(n, tools);
            let label = sanitize(&l.text(&t.source));
            match groups.iter_mut().find(|(g, _)| *g == label) {
                Some((_, v)) => v.push(t),
                None => groups.push((label, vec![t])),
            }
        }
        for (label, members) in groups {
            out.push(Line::from(Span::styled(
                truncate(&format!("      {label}"), width),
                theme::dim(),
            )));
            for t in members {
                let desc = t
                    .description
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_string();
                let text = if desc.is_empty() {
                    format!("        {}", sanitize(&t.name))
                } else {
                    format!("        {} — {}", sanitize(&t.name), sanitize(&desc))
                };
                out.push(Line::from(Span::styled(
                    truncate(&text, width),
                    theme::dim(),
                )));
            }
        }
    }
    out
}

/// The Fluent id of a logged attempt error's code (as the live notice used it).
fn attempt_error_id(code: &str) -> &'static str {
    crate::llm::types::ErrorCode::parse(code).map_or("llm-error-server", |c| c.message_id())
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

/// Most tools whose source and description the transcript remembers for later nodes.
const MAX_TOOL_INFOS: usize = 4096;

/// The Chat transcript.
#[derive(Debug, Default)]
pub struct Transcript {
    cells: Vec<Cell>,
    by_call: HashMap<String, usize>,
    streaming: HashMap<(u64, u64), usize>,
    attempts: HashMap<(u64, u64), u32>,
    heights: Vec<usize>,
    exact: Vec<bool>,
    estimated: usize,
    dirty: Vec<usize>,
    prefix: Vec<usize>,
    prefix_valid: usize,
    refine_next: usize,
    layout_key: (u16, u64),
    /// Tool-change nodes made live that no logged developer message covers yet.
    pending_nodes: Vec<usize>,
    /// Source and description of every tool seen (changes, request headers).
    tool_infos: HashMap<String, ToolInfo>,
    /// The last failed attempt of each turn (a resumed error turn names it).
    turn_errors: HashMap<u64, AttemptError>,
    /// Replaying a resumed log (outcomes the live loop announced as notices are shown).
    replaying: bool,
    /// A cell the Chat pane should scroll into view on the next frame.
    reveal: Option<usize>,
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
        );
        *self = Transcript::new();
        (self.tool_infos, self.turn_errors, self.replaying) = keep;
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
            .rposition(|c| matches!(&c.kind, CellKind::Context(k, _) if k.is_tool_change()))
    }

    /// Asks the Chat pane to bring cell `i` into view on its next frame (Ctrl+T).
    pub fn reveal(&mut self, i: usize) {
        self.reveal = Some(i);
    }

    /// The cell to bring into view, once.
    pub fn take_reveal(&mut self) -> Option<usize> {
        self.reveal.take()
    }

    /// Marks the events applied until `set_replaying(false)` as a resumed log.
    pub fn set_replaying(&mut self, on: bool) {
        self.replaying = on;
    }

    /// A tool change as it happens: one node, here; the developer
    /// message the next request logs is linked to it instead of adding a second one.
    /// Every change until the next request goes into that one node, netted (a change and
    /// its reversal cancel out, leaving "no net change"): a server that changes its list
    /// in a loop is one node per request, not one per change (decision 0033).
    pub fn tools_changed(&mut self, c: &ToolChange) {
        // A server that invents new names on every change must not grow this without
        // bound; the nodes keep their own copies.
        if self.tool_infos.len() > MAX_TOOL_INFOS {
            self.tool_infos.clear();
        }
        for t in c.added.iter().chain(&c.removed) {
            self.tool_infos.insert(t.name.clone(), t.clone());
        }
        let added: Vec<String> = c.added.iter().map(|t| sanitize(&t.name)).collect();
        let removed: Vec<String> = c.removed.iter().map(|t| sanitize(&t.name)).collect();
        if let Some(&i) = self.pending_nodes.last()
            && let Some(Cell {
                kind: CellKind::Context(kind, infos),
                ..
            }) = self.cells.get_mut(i)
            && kind.merge_tools(&added, &removed)
        {
            let before = std::mem::take(infos);
            *infos = kind
                .tool_names()
                .filter_map(|n| {
                    let earlier = || before.iter().find(|t| sanitize(&t.name) == *n);
                    self.tool_infos.get(n).or_else(earlier).cloned()
                })
                .collect();
            self.touch(i);
            return;
        }
        let kind = ContextKind::Tools { added, removed };
        let infos = c.added.iter().chain(&c.removed).cloned().collect();
        let i = self.push(CellKind::Context(kind, infos));
        self.pending_nodes.push(i);
    }

    /// A logged tool-change developer message: the part that live nodes do not already
    /// show becomes a node. On a resumed log a change logged by a turn's first request
    /// goes before that turn's message, where the live node was made.
    fn developer_tools(&mut self, added: Vec<String>, removed: Vec<String>, first_step: bool) {
        let (mut shown_add, mut shown_rem) = (
            std::collections::BTreeSet::new(),
            std::collections::BTreeSet::new(),
        );
        for &i in &self.pending_nodes {
            if let Some(CellKind::Context(ContextKind::Tools { added, removed }, _)) =
                self.cells.get(i).map(|c| &c.kind)
            {
                for a in added {
                    if !shown_rem.remove(a) {
                        shown_add.insert(a.clone());
                    }
                }
                for r in removed {
                    if !shown_add.remove(r) {
                        shown_rem.insert(r.clone());
                    }
                }
            }
        }
        self.pending_nodes.clear();
        let added: Vec<String> = added
            .into_iter()
            .filter(|n| !shown_add.contains(n))
            .collect();
        let removed: Vec<String> = removed
            .into_iter()
            .filter(|n| !shown_rem.contains(n))
            .collect();
        if added.is_empty() && removed.is_empty() {
            return;
        }
        let infos = added
            .iter()
            .chain(&removed)
            .filter_map(|n| self.tool_infos.get(n).cloned())
            .collect();
        let kind = ContextKind::Tools { added, removed };
        let i = self.push(CellKind::Context(kind, infos));
        // The user message's attachment lines stay with it.
        let user = self.cells[..i]
            .iter()
            .rposition(|c| !matches!(c.kind, CellKind::Attachment { .. }));
        if self.replaying
            && first_step
            && let Some(j) = user
            && matches!(self.cells[j].kind, CellKind::User { .. })
        {
            self.cells[j..=i].rotate_right(1);
        }
    }

    /// Marks call `call`'s tool card as waiting for the user; returns the
    /// card's index. Without a card for the call (none was logged), an approval cell shows
    /// the tool and arguments instead.
    /// Keeps what call `call` would do, for its card while it waits.
    pub fn set_preview(&mut self, call: &str, p: crate::agent::protocol::ApprovalPreview) {
        if let Some(&i) = self.by_call.get(call)
            && let CellKind::Tool { preview, .. } = &mut self.cells[i].kind
        {
            *preview = Some(Box::new(super::acting::sanitized(p)));
            self.touch(i);
        }
    }

    pub fn request_approval(&mut self, call: &str, tool: &str, arguments: &str) -> usize {
        if let Some(&i) = self.by_call.get(call)
            && let CellKind::Tool { approval, .. } = &mut self.cells[i].kind
        {
            *approval = Some(ToolApproval::Waiting);
            self.touch(i);
            // The step's other calls without a result wait too: none runs before every
            // call of the step is decided.
            self.set_queued(Some(i));
            return i;
        }
        self.push(CellKind::Approval {
            call_id: call.to_string(),
            tool: tool.to_string(),
            arguments: arguments.to_string(),
            decision: None,
        })
    }

    /// The tool name and arguments of call `call` (its tool card or approval cell).
    pub fn call_info(&self, call: &str) -> Option<(&str, &str)> {
        let i = self.by_call.get(call).copied().or_else(|| {
            self.cells.iter().rposition(
                |c| matches!(&c.kind, CellKind::Approval { call_id, .. } if call_id == call),
            )
        })?;
        match &self.cells[i].kind {
            CellKind::Tool {
                name, arguments, ..
            } => Some((name, arguments)),
            CellKind::Approval {
                tool, arguments, ..
            } => Some((tool, arguments)),
            _ => None,
        }
    }

    /// Marks every result-less tool card that needs no answer as queued behind the one
    /// waiting (`Some(waiting)`), or clears those marks (`None`).
    fn set_queued(&mut self, waiting: Option<usize>) {
        let open: Vec<usize> = self.by_call.values().copied().collect();
        for j in open {
            if Some(j) == waiting {
                continue;
            }
            if let CellKind::Tool {
                result: None,
                approval,
                ..
            } = &mut self.cells[j].kind
            {
                let next = match (*approval, waiting) {
                    (None, Some(_)) => Some(ToolApproval::Queued),
                    (Some(ToolApproval::Queued), None) => None,
                    _ => continue,
                };
                *approval = next;
                self.touch(j);
            }
        }
    }

    /// Records a decision on call `call`'s tool card (or approval cell).
    pub fn decide(&mut self, call: &str, d: ApprovalDecision) {
        if let Some(&i) = self.by_call.get(call)
            && let CellKind::Tool { approval, .. } = &mut self.cells[i].kind
        {
            *approval = Some(ToolApproval::Decided(d));
            self.touch(i);
            self.set_queued(None);
            return;
        }
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
                let i = self.push(CellKind::Assistant {
                    turn,
                    step,
                    reasoning: String::new(),
                    text: StreamCollector::new(),
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
            // The answer is kept as received (`/copy` copies its source) and sanitized
            // for display by the collector; the reasoning is only ever displayed.
            if is_reasoning {
                reasoning.push_str(&sanitize(delta));
            } else {
                text.push(delta);
            }
        }
        self.touch(i);
    }

    /// Folds one committed session event into the transcript.
    ///
    /// `assistant/attempt` ends the step's current stream: the failed attempt's partial
    /// text (never in the log) becomes one dim "attempt N failed" line, and the next
    /// attempt opens a new cell. Replaying the log therefore yields the same cells.
    pub fn apply(&mut self, ev: &Event) {
        let append = !matches!(ev.surface_op, Some(SurfaceOp::Replace(_)));
        match &ev.kind {
            EventKind::UserMessage(d) => {
                // `@path` attachments show as their own lines under the text.
                let (typed, attachments) = crate::agent::mentions::split(&d.message);
                let text = sanitize(&typed);
                if append && d.message.source.kind == "user" {
                    self.push(CellKind::User { text });
                    let n = attachments.len();
                    for (k, (info, content)) in attachments.into_iter().enumerate() {
                        self.push(CellKind::Attachment {
                            info,
                            content: sanitize(&content),
                            last: k + 1 == n,
                        });
                    }
                } else if !append {
                    self.push(CellKind::Checkpoint { summary: text });
                }
            }
            EventKind::DeveloperMessage(d) if append => {
                // U-1: Chat hides ordinary context rows; tool-change nodes stay visible.
                if let ContextKind::Tools { added, removed } = ContextKind::from_message(&d.message)
                {
                    let added = added.iter().map(|n| sanitize(n)).collect();
                    let removed = removed.iter().map(|n| sanitize(n)).collect();
                    self.developer_tools(added, removed, d.step == 1);
                }
            }
            // A request went out: later changes are the next request's node.
            EventKind::StepEnd(_) => self.pending_nodes.clear(),
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
            EventKind::TurnEnd(t) if self.replaying => match t.outcome {
                // Live, the loop announced these as notices (not logged): show them again.
                Some(TurnOutcome::Cancelled) => {
                    self.push(CellKind::Notice(Notice::new(
                        NoticeLevel::Warn,
                        "agent-turn-cancelled",
                        vec![],
                    )));
                }
                Some(TurnOutcome::Error) => {
                    let n = match self.turn_errors.get(&t.turn) {
                        Some(e) => Notice::new(
                            NoticeLevel::Error,
                            attempt_error_id(&e.code),
                            vec![("message", Arg::from(e.message.as_str()))],
                        ),
                        None => Notice::new(NoticeLevel::Error, "tui-turn-failed", vec![]),
                    };
                    self.push(CellKind::Notice(n));
                }
                _ => {}
            },
            EventKind::AssistantAttempt(a) => {
                self.turn_errors.insert(a.turn, a.error.clone());
                let n = self.attempts.entry((a.turn, a.step)).or_insert(0);
                *n += 1;
                let kind = CellKind::Attempt {
                    number: *n,
                    retried: a.error.retried,
                };
                match self.streaming.remove(&(a.turn, a.step)) {
                    Some(i) => {
                        self.cells[i].kind = kind;
                        self.cells[i].expanded = false;
                        self.touch(i);
                    }
                    None => {
                        self.push(kind);
                    }
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
                    text: StreamCollector::complete(&text),
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
                    approval: None,
                    preview: None,
                });
                self.by_call.insert(d.call_id.clone(), i);
            }
            EventKind::ToolResult(d) => {
                let id = d.message.tool_call_id.clone().unwrap_or_default();
                let out = sanitize(&d.message.joined_text());
                let failed = d.error.is_some() || d.message.is_error == Some(true);
                if let Some(&i) = self.by_call.get(&id) {
                    if let CellKind::Tool {
                        name,
                        result,
                        error,
                        approval,
                        ..
                    } = &mut self.cells[i].kind
                    {
                        // The log keeps the denial as the model-facing result; a resumed
                        // session shows it as the user's denial, like the live one did.
                        if failed && crate::agent::tool_runner::is_denial(name, &out) {
                            *approval = Some(ToolApproval::Decided(ApprovalDecision::Deny));
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

    /// Marks every streaming cell as finished (turn end or cancel).
    pub fn end_streams(&mut self) {
        let open: Vec<usize> = self.streaming.drain().map(|(_, i)| i).collect();
        for i in open {
            if let CellKind::Assistant {
                streaming,
                interrupted,
                text,
                ..
            } = &mut self.cells[i].kind
            {
                *streaming = false;
                *interrupted = true;
                text.finish();
            }
            self.touch(i);
        }
    }

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
mod tests {
    use super::*;
    use crate::i18n::Locale;
    use crate::session::event::{AssistantAttempt, AttemptError};

    fn ctx() -> RenderCtx {
        RenderCtx {
            l: Localizer::new(Locale::EnUs),
            cards: ToolCardMode::Collapsed,
            generation: 0,
        }
    }

    fn attempt(turn: u64, step: u64, retried: bool) -> Event {
        Event {
            kind: EventKind::AssistantAttempt(AssistantAttempt {
                turn,
                step,
                error: AttemptError {
                    code: "server".into(),
                    status: Some(500),
                    message: "boom".into(),
                    retried,
                },
            }),
            seq: 1,
            time: String::new(),
            surface_op: None,
            source_event_seqs: None,
        }
    }

    fn text(t: &mut Transcript, i: usize) -> String {
        let rows = t.rows(i, 80, &ctx());
        rows.iter()
            .map(|l| {
                l.spans
                    .iter()
                    .map(|s| s.content.as_ref())
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn new_attempt_starts_a_new_stream_and_replaces_the_partial_text() {
        let mut t = Transcript::new();
        t.stream(1, 1, &StreamEvent::TextDelta("partial".into()));
        t.apply(&attempt(1, 1, true));
        t.stream(1, 1, &StreamEvent::TextDelta("second".into()));
        assert_eq!(t.len(), 2);
        assert_eq!(text(&mut t, 0).trim(), "attempt 1 failed — retrying");
        let second = text(&mut t, 1);
        assert!(
            second.contains("second") && !second.contains("partial"),
            "{second}"
        );
    }

    #[test]
    fn attempt_without_streamed_text_still_shows_one_line() {
        let mut t = Transcript::new();
        t.apply(&attempt(1, 1, true));
        t.apply(&attempt(1, 1, false));
        assert_eq!(t.len(), 2);
        assert_eq!(text(&mut t, 1).trim(), "attempt 2 failed");
    }

    fn event(kind: EventKind) -> Event {
        Event {
            kind,
            seq: 1,
            time: String::new(),
            surface_op: None,
            source_event_seqs: None,
        }
    }

    fn dev_event(step: u64, blocks: Vec<Block>) -> Event {
        use crate::session::event::{DeveloperMessageData, Message, Role, Source};
        event(EventKind::DeveloperMessage(DeveloperMessageData {
            turn: 2,
            step,
            message: Message::new(Role::Developer, blocks, Source::kind("tool-registry")),
            header_seq: None,
        }))
    }

    fn user_event(text: &str) -> Event {
        use crate::session::event::{Message, Role, Source, UserMessageData};
        event(EventKind::UserMessage(UserMessageData {
            message: Message::text(Role::User, text, Source::kind("user")),
        }))
    }

    fn info(name: &str, source: ToolSource, description: &str) -> ToolInfo {
        ToolInfo {
            name: name.into(),
            source: source.label(),
            description: description.into(),
        }
    }

    fn nodes(t: &Transcript) -> Vec<usize> {
        (0..t.len())
            .filter(|&i| matches!(t.cells()[i].kind, CellKind::Context(..)))
            .collect()
    }

    #[test]
    fn a_tool_change_is_one_node_where_it_happened() {
        let mut t = Transcript::new();
        // `/tool disable grep`: the node appears at once …
        t.tools_changed(&ToolChange {
            added: vec![],
            removed: vec![info("grep", ToolSource::Builtin, "Search files.")],
        });
        assert_eq!(nodes(&t), vec![0]);
        assert_eq!(text(&mut t, 0).trim(), "◆ Tool removed: grep");
        // … and the next message's logged developer message is linked to it.
        t.apply(&user_event("hi"));
        t.apply(&dev_event(1, vec![Block::removal("grep")]));
        assert_eq!(nodes(&t), vec![0], "one node per change");
        // Two changes before a send: one node for both (decision 0033), and the one logged
        // message adds none.
        t.tools_changed(&ToolChange {
            added: vec![info("word_count", ToolSource::Command, "Count.")],
            removed: vec![],
        });
        t.tools_changed(&ToolChange {
            added: vec![],
            removed: vec![info("list_dir", ToolSource::Builtin, "List.")],
        });
        t.apply(&user_event("again"));
        t.apply(&dev_event(
            1,
            vec![Block::addition("word_count"), Block::removal("list_dir")],
        ));
        assert_eq!(nodes(&t).len(), 2);
        let second = nodes(&t)[1];
        assert_eq!(
            text(&mut t, second).trim(),
            "▸ Tools updated · 1 added, 1 removed"
        );
        // A logged change no live node showed (a server's list) still gets its node.
        t.apply(&dev_event(2, vec![Block::addition("fs__read")]));
        assert_eq!(nodes(&t).len(), 3);
    }

    #[test]
    fn a_server_inventing_new_tool_names_does_not_grow_the_transcript() {
        let fx = |n: String| info(&n, ToolSource::Mcp("fx".into()), "A description.");
        let mut t = Transcript::new();
        for i in 0..20_000 {
            t.tools_changed(&ToolChange {
                added: vec![fx(format!("fx__t{}", i + 1))],
                removed: vec![fx(format!("fx__t{i}"))],
            });
        }
        assert_eq!(nodes(&t), vec![0]);
        assert!(
            t.tool_infos.len() <= MAX_TOOL_INFOS + 2,
            "{}",
            t.tool_infos.len()
        );
        let CellKind::Context(ContextKind::Tools { added, removed }, infos) = &t.cells()[0].kind
        else {
            panic!("a tool node");
        };
        assert_eq!((added.len(), removed.len(), infos.len()), (1, 1, 2));
    }

    #[test]
    fn live_tool_changes_between_two_requests_are_one_netted_node() {
        let fx = |n: &str| info(n, ToolSource::Mcp("fx".into()), "");
        let swap = |add: &str, remove: &str| ToolChange {
            added: vec![fx(add)],
            removed: vec![fx(remove)],
        };
        let step_end = || {
            event(EventKind::StepEnd(crate::session::event::StepRef {
                turn: 1,
                step: 1,
            }))
        };
        let mut t = Transcript::new();
        // A server that flips between two lists: one node, however often.
        for _ in 0..1000 {
            t.tools_changed(&swap("fx__b", "fx__a"));
            t.tools_changed(&swap("fx__a", "fx__b"));
        }
        assert_eq!(nodes(&t), vec![0]);
        assert_eq!(
            text(&mut t, 0).trim(),
            "◆ Tools updated · no net change (changed and changed back)"
        );
        t.tools_changed(&swap("fx__b", "fx__a"));
        assert_eq!(
            text(&mut t, 0).trim(),
            "▸ Tools updated · 1 added, 1 removed"
        );
        // The request logs the same change: linked to the node, no second one.
        t.apply(&user_event("hi"));
        t.apply(&dev_event(
            1,
            vec![Block::addition("fx__b"), Block::removal("fx__a")],
        ));
        t.apply(&step_end());
        assert_eq!(nodes(&t), vec![0]);
        // After the request, the next change is a new node …
        t.tools_changed(&swap("fx__a", "fx__b"));
        t.tools_changed(&swap("fx__b", "fx__a"));
        assert_eq!(nodes(&t).len(), 2);
        // … and a request that logs nothing (the changes cancelled out) still closes it.
        t.apply(&user_event("again"));
        t.apply(&step_end());
        t.tools_changed(&swap("fx__a", "fx__b"));
        assert_eq!(nodes(&t).len(), 3);
        let third = nodes(&t)[2];
        assert_eq!(
            text(&mut t, third).trim(),
            "▸ Tools updated · 1 added, 1 removed"
        );
    }

    #[test]
    fn resumed_node_sits_where_the_live_one_did() {
        let mut live = Transcript::new();
        live.tools_changed(&ToolChange {
            added: vec![],
            removed: vec![info("grep", ToolSource::Builtin, "Search files.")],
        });
        live.apply(&user_event("hi"));
        live.apply(&dev_event(1, vec![Block::removal("grep")]));
        let mut resumed = Transcript::new();
        resumed.set_replaying(true);
        resumed.apply(&user_event("hi"));
        resumed.apply(&dev_event(1, vec![Block::removal("grep")]));
        resumed.set_replaying(false);
        assert_eq!(nodes(&live), vec![0]);
        assert_eq!(
            nodes(&resumed),
            vec![0],
            "the node comes before the message"
        );
        assert_eq!(text(&mut live, 0), text(&mut resumed, 0));
    }

    #[test]
    fn every_node_expands_single_to_source_grouped_one_per_line() {
        let mut t = Transcript::new();
        t.tools_changed(&ToolChange {
            added: vec![],
            removed: vec![info("grep", ToolSource::Builtin, "Search file contents.")],
        });
        assert!(t.toggle(0), "a single-tool node expands");
        let one = text(&mut t, 0);
        assert!(one.contains("    Source: built-in"), "{one}");
        assert!(one.contains("    Search file contents."), "{one}");
        // A request in between: the next change is a node of its own.
        t.apply(&event(EventKind::StepEnd(crate::session::event::StepRef {
            turn: 1,
            step: 1,
        })));
        t.tools_changed(&ToolChange {
            added: vec![
                info("fs__read", ToolSource::Mcp("fs".into()), "Read a file."),
                info("fs__write", ToolSource::Mcp("fs".into()), "Write a file."),
                info("word_count", ToolSource::Command, "Count words."),
            ],
            removed: vec![info("list_dir", ToolSource::Builtin, "List.")],
        });
        assert!(t.toggle(1));
        let many = text(&mut t, 1);
        let rows: Vec<&str> = many.lines().collect();
        assert_eq!(
            rows,
            vec![
                "▾ Tools updated · 3 added, 1 removed",
                "    Added",
                "      MCP server fs",
                "        fs__read — Read a file.",
                "        fs__write — Write a file.",
                "      command",
                "        word_count — Count words.",
                "    Removed",
                "      built-in",
                "        list_dir — List.",
            ]
        );
    }

    #[test]
    fn resumed_cancel_and_error_are_shown() {
        use crate::session::event::{TurnEnd, TurnOutcome};
        let mut t = Transcript::new();
        t.set_replaying(true);
        t.apply(&user_event("one"));
        t.apply(&event(EventKind::TurnEnd(TurnEnd {
            turn: 1,
            outcome: Some(TurnOutcome::Cancelled),
        })));
        t.apply(&user_event("two"));
        t.apply(&attempt(2, 1, false));
        t.apply(&event(EventKind::TurnEnd(TurnEnd {
            turn: 2,
            outcome: Some(TurnOutcome::Error),
        })));
        t.set_replaying(false);
        let all: Vec<String> = (0..t.len()).map(|i| text(&mut t, i)).collect();
        assert!(all[1].contains("Turn cancelled."), "{all:?}");
        assert!(all.last().unwrap().contains("boom"), "{all:?}");
        // Live, the loop's own notices show these: a live turn end adds nothing.
        let n = t.len();
        t.apply(&event(EventKind::TurnEnd(TurnEnd {
            turn: 3,
            outcome: Some(TurnOutcome::Cancelled),
        })));
        assert_eq!(t.len(), n);
    }

    fn big(n: usize) -> Transcript {
        let mut t = Transcript::new();
        for k in 0..n {
            t.push(CellKind::User {
                text: format!("message {k} ").repeat(k % 7 + 1),
            });
        }
        t
    }

    #[test]
    fn lazy_heights_converge_to_exact_after_resize() {
        let c = ctx();
        let mut t = big(2000);
        t.layout(120, &c);
        t.layout(30, &c);
        assert_eq!(t.estimated(), 2000);
        let mut frames = 0;
        while t.estimated() > 0 {
            t.refine(REFINE_PER_FRAME, 30, &c);
            frames += 1;
            assert!(frames < 100);
        }
        let mut fresh = big(2000);
        fresh.layout(30, &c);
        for i in 0..2000 {
            assert_eq!(t.cell_height(i), fresh.cell_height(i), "cell {i}");
        }
        assert_eq!(t.total_height(), fresh.total_height());
    }

    #[test]
    fn resize_makes_only_the_viewport_exact_before_the_first_frame() {
        let c = ctx();
        let mut t = big(2000);
        t.layout(120, &c);
        t.layout(60, &c);
        let total = t.total_height();
        t.make_exact(total.saturating_sub(40)..total, 60, &c);
        assert!(t.estimated() > 1900, "{}", t.estimated());
        let last = t.len() - 1;
        let mut fresh = big(2000);
        fresh.layout(60, &c);
        assert_eq!(t.cell_height(last), fresh.cell_height(last));
    }
}
