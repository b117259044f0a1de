//! System prompt reconciliation (L-10…L-12, S-1…S-4) and the per-loop-instance request
//! series state (L-1).
//!
//! The prompt lives in `system/message` surface nodes. On a capable route in a
//! continuing series a changed prompt is appended after the cached history; otherwise
//! the prompt is consolidated at the head with per-node surface replacements, which
//! bump `content_generation` so the same attempt's header starts a series (L-12).

use std::sync::Arc;

use crate::session::event::{
    Block, Event, EventKind, Message, Role, Source, StepMessage, SystemPromptUpdate, ToolSchema,
    ToolUpdateMode,
};
use crate::session::surface::{Surface, SurfaceNode};
use crate::session::tool_history::tools_equal;
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
    let nodes: Vec<&SurfaceNode> = surface.system_nodes().collect();
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
/// The tool bridge (SPEC §15.1) counts as a `toolUpdate`: its changes are appended text,
/// so the caller passes its mode through [`effective_tool_update`].
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

/// The route's tool-update mode as L-10 sees it: a route without one that keeps its prefix
/// (`tool_removal = "retain"`) appends its changes through the tool bridge like an
/// `in-history` route, so a change there never starts a series.
pub fn effective_tool_update(
    tool_update: Option<ToolUpdateMode>,
    removal: crate::session::event::ToolRemoval,
) -> Option<ToolUpdateMode> {
    match (tool_update, removal) {
        (None, crate::session::event::ToolRemoval::Retain) => Some(ToolUpdateMode::InHistory),
        (mode, _) => mode,
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::event::UserMessageData;

    fn sys(s: &mut Session, text: &str) -> u64 {
        s.push(EventKind::SystemMessage(StepMessage {
            turn: 1,
            step: 1,
            message: system_message(text),
        }))
        .unwrap()
        .seq
    }
    fn user(s: &mut Session) {
        s.push(EventKind::UserMessage(UserMessageData {
            message: Message::text(Role::User, "u", Source::kind("user")),
        }))
        .unwrap();
    }

    #[test]
    fn the_first_prompt_is_appended_even_when_empty() {
        let s = Session::new("s", "/");
        assert_eq!(
            plan_system_prompt(s.surface(), "", true, false),
            [PromptCommit::Append(String::new())]
        );
        assert_eq!(
            plan_system_prompt(s.surface(), "P", false, true),
            [PromptCommit::Append("P".into())]
        );
    }

    #[test]
    fn a_continuing_series_on_a_capable_route_appends_only_prompt_changes() {
        let mut s = Session::new("s", "/");
        sys(&mut s, "P1");
        user(&mut s);
        assert!(plan_system_prompt(s.surface(), "P1", true, false).is_empty());
        assert_eq!(
            plan_system_prompt(s.surface(), "P2", true, false),
            [PromptCommit::Append("P2".into())]
        );
        sys(&mut s, "P2");
        assert!(plan_system_prompt(s.surface(), "P2", true, false).is_empty());
        // Reverting to the head text is still a change against the latest node.
        assert_eq!(
            plan_system_prompt(s.surface(), "P1", true, false),
            [PromptCommit::Append("P1".into())]
        );
    }

    #[test]
    fn consolidation_empties_later_prompt_nodes_and_rewrites_the_head() {
        let mut s = Session::new("s", "/");
        let head = sys(&mut s, "P1");
        user(&mut s);
        let later = sys(&mut s, "P2");
        let expected = [
            PromptCommit::Replace {
                seq: later,
                text: String::new(),
            },
            PromptCommit::Replace {
                seq: head,
                text: "P3".into(),
            },
        ];
        // Incapable route, explicit series start, and a cleared prompt all consolidate.
        assert_eq!(
            plan_system_prompt(s.surface(), "P3", false, false),
            expected
        );
        assert_eq!(plan_system_prompt(s.surface(), "P3", true, true), expected);
        assert_eq!(
            plan_system_prompt(s.surface(), "", true, false),
            [
                PromptCommit::Replace {
                    seq: later,
                    text: String::new()
                },
                PromptCommit::Replace {
                    seq: head,
                    text: String::new()
                }
            ]
        );
        let commits = plan_system_prompt(s.surface(), "P3", false, false);
        apply_system_prompt(&mut s, &commits, 1, 2).unwrap();
        assert_eq!(s.content_generation(), 2);
        let texts: Vec<String> = s
            .derive_messages()
            .iter()
            .map(|m| m.joined_text())
            .collect();
        assert_eq!(texts, ["P3", "u"]);
        // Dormant empty tails and a matching head need nothing more.
        assert!(plan_system_prompt(s.surface(), "P3", false, true).is_empty());
        // Head only differs: just the head.
        let nodes: Vec<u64> = s.surface().nodes().iter().map(|n| n.seq).collect();
        assert_eq!(
            plan_system_prompt(s.surface(), "P4", false, false),
            [PromptCommit::Replace {
                seq: nodes[0],
                text: "P4".into()
            }]
        );
    }

    #[test]
    fn consolidation_is_flagged_on_a_series_start_or_when_a_route_without_tool_updates_sees_changed_tools()
     {
        let a = crate::session::event::ToolSchema {
            name: "a".into(),
            description: "A".into(),
            parameters: serde_json::json!({}),
            defer_loading: None,
        };
        let tools = [a.clone()];
        assert!(consolidation_flag(
            true,
            Some(ToolUpdateMode::InHistory),
            &tools,
            Some(&tools)
        ));
        assert!(!consolidation_flag(
            false,
            Some(ToolUpdateMode::InHistory),
            &tools,
            None
        ));
        assert!(consolidation_flag(false, None, &tools, None));
        assert!(!consolidation_flag(false, None, &tools, Some(&tools)));
        let mut b = a;
        b.description = "changed".into();
        assert!(consolidation_flag(false, None, &tools, Some(&[b])));
    }

    #[test]
    fn the_request_series_tracks_the_log_generation_since_attach_and_the_previous_request() {
        let mut s = Session::new("s", "/");
        let head = sys(&mut s, "P");
        let mut series = RequestSeries::attach(&s);
        assert!(series.is_first_request());
        assert!(!series.starts_series(&s, false));
        assert!(series.starts_series(&s, true));
        s.replace(
            EventKind::SystemMessage(StepMessage {
                turn: 1,
                step: 1,
                message: system_message("Q"),
            }),
            head,
            head,
        )
        .unwrap();
        assert!(series.starts_series(&s, false));
        series.record_request(s.content_generation());
        assert!(!series.is_first_request());
        assert!(!series.starts_series(&s, false));
    }
}
