//! System prompt reconciliation (L-10…L-12, S-1…S-4) and the per-loop-instance request
//! series state (L-1).
//!
//! The prompt lives in `system/message` surface nodes. On a capable route in a
//! continuing series a changed prompt is appended after the cached history; otherwise
//! the prompt is consolidated at the head with per-node surface replacements, which
//! bump `content_generation` so the same attempt's header starts a series (L-12).

use std::sync::Arc;

use crate::agent::header::tools_equal;
use crate::session::event::{
    Block, Event, EventKind, Message, Role, Source, StepMessage, SystemPromptUpdate, ToolSchema,
    ToolUpdateMode,
};
use crate::session::surface::{Surface, SurfaceNode};
use crate::session::{Session, SessionError};

/// Source kind of system prompt messages.
pub const SYSTEM_PROMPT_SOURCE: &str = "system-prompt";

/// Request-series state of one loop instance (L-1): whether it has logged a header,
/// and the surface generation at attach / at its previous request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestSeries {
    header_logged: bool,
    request_generation: u64,
}

impl RequestSeries {
    /// State of a loop instance attaching to `session` (new or resumed).
    pub fn attach(session: &Session) -> Self {
        RequestSeries {
            header_logged: false,
            request_generation: session.content_generation(),
        }
    }

    /// L-1: an explicit series start (first attempt of a step that declared one), or the
    /// surface changed since attach / since this instance's previous request.
    pub fn starts_series(&self, session: &Session, explicit: bool) -> bool {
        explicit || session.content_generation() != self.request_generation
    }

    /// Whether this instance has not logged a header yet (its first request).
    pub fn is_first_request(&self) -> bool {
        !self.header_logged
    }

    /// Records a request made at surface generation `generation`.
    pub fn record_request(&mut self, generation: u64) {
        self.header_logged = true;
        self.request_generation = generation;
    }
}

/// One system-prompt surface operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptCommit {
    /// Append a new system node with this text.
    Append(String),
    /// Replace the system node at `seq` with this text (`""` = empty node).
    Replace {
        /// Seq of the node to replace.
        seq: u64,
        /// New text.
        text: String,
    },
}

/// A system message holding `text`; an empty prompt gives empty content (a node that
/// derives no request message).
pub fn system_message(text: &str) -> Message {
    let content = if text.is_empty() {
        Vec::new()
    } else {
        vec![Block::text(text)]
    };
    Message::new(Role::System, content, Source::kind(SYSTEM_PROMPT_SOURCE))
}

/// Text of a system node: `""` for empty content, the text of a single text block,
/// else `None` (never equal to a rendered prompt).
fn node_text(n: &SurfaceNode) -> Option<&str> {
    match n.message.content.as_slice() {
        [] => Some(""),
        [Block::Text { text }] => Some(text),
        _ => None,
    }
}

/// L-11: the operations that bring the surface's system nodes in line with `rendered`.
pub fn plan_system_prompt(
    surface: &Surface,
    rendered: &str,
    in_history: bool,
    consolidate: bool,
) -> Vec<PromptCommit> {
    let nodes: Vec<&SurfaceNode> = surface
        .nodes()
        .iter()
        .filter(|n| n.event_type == "system/message")
        .collect();
    let Some(head) = nodes.first() else {
        return vec![PromptCommit::Append(rendered.to_string())];
    };
    if !in_history || consolidate || rendered.is_empty() {
        let mut out: Vec<PromptCommit> = nodes[1..]
            .iter()
            .filter(|n| node_text(n) != Some(""))
            .map(|n| PromptCommit::Replace {
                seq: n.seq,
                text: String::new(),
            })
            .collect();
        if node_text(head) != Some(rendered) {
            out.push(PromptCommit::Replace {
                seq: head.seq,
                text: rendered.to_string(),
            });
        }
        return out;
    }
    let latest = nodes
        .iter()
        .rev()
        .find(|n| node_text(n) != Some(""))
        .unwrap_or(head);
    if node_text(latest) == Some(rendered) {
        Vec::new()
    } else {
        vec![PromptCommit::Append(rendered.to_string())]
    }
}

/// L-10: the prompt's "starts series" flag — L-1, or a route without `toolUpdate`
/// whose assembled tools differ (names, order or definitions) from the latest header.
pub fn consolidation_flag(
    starts_series: bool,
    tool_update: Option<ToolUpdateMode>,
    assembled_tools: &[ToolSchema],
    latest_header_tools: Option<&[ToolSchema]>,
) -> bool {
    starts_series
        || (tool_update.is_none()
            && !tools_equal(assembled_tools, latest_header_tools.unwrap_or(&[])))
}

/// Appends the planned system-prompt events (appends, and replacements citing the
/// replaced node).
pub fn apply_system_prompt(
    session: &mut Session,
    commits: &[PromptCommit],
    turn: u64,
    step: u64,
) -> Result<Vec<Arc<Event>>, SessionError> {
    let mut out = Vec::with_capacity(commits.len());
    for c in commits {
        let ev = match c {
            PromptCommit::Append(text) => session.push(EventKind::SystemMessage(StepMessage {
                turn,
                step,
                message: system_message(text),
            }))?,
            PromptCommit::Replace { seq, text } => session.replace(
                EventKind::SystemMessage(StepMessage {
                    turn,
                    step,
                    message: system_message(text),
                }),
                *seq,
                *seq,
            )?,
        };
        out.push(ev);
    }
    Ok(out)
}

/// The loop's per-attempt prompt step (first in E-16): computes the L-10 flag from
/// `series`, the route's modes and the assembled tools, plans (L-11) and appends.
#[allow(clippy::too_many_arguments)]
pub fn reconcile_system_prompt(
    session: &mut Session,
    series: &RequestSeries,
    rendered: &str,
    system_prompt_update: Option<SystemPromptUpdate>,
    tool_update: Option<ToolUpdateMode>,
    assembled_tools: &[ToolSchema],
    explicit_series_start: bool,
    turn: u64,
    step: u64,
) -> Result<Vec<Arc<Event>>, SessionError> {
    let l1 = series.starts_series(session, explicit_series_start);
    let flag = consolidation_flag(
        l1,
        tool_update,
        assembled_tools,
        session
            .latest_header()
            .and_then(|(_, h)| h.header.tools.as_deref()),
    );
    let commits = plan_system_prompt(
        session.surface(),
        rendered,
        system_prompt_update == Some(SystemPromptUpdate::InHistory),
        flag,
    );
    apply_system_prompt(session, &commits, turn, step)
}
