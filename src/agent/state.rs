//! The per-session state of the loop. It is rebuilt as a whole when another session is
//! opened (`/new`, `/resume`), so nothing of the old session (its turn counter, usage,
//! `/system` text, unsent input, "always allow" answers) carries over.

use std::collections::{BTreeSet, HashSet};

use crate::agent::prompt::RequestSeries;
use crate::session::Session;
use crate::session::event::{EventKind, Message, Usage};

/// One open session and what the loop keeps about it.
pub struct SessionState {
    /// The log.
    pub session: Session,
    /// The header series (L-rules).
    pub series: RequestSeries,
    /// The latest turn number.
    pub turn: u64,
    /// Usage of every logged request.
    pub usage: Usage,
    /// `/system` text of this session.
    pub extra_instructions: Option<String>,
    /// This session's `/effort` (SPEC §14.4); on resume, the effort its log last sent.
    pub effort: Option<crate::session::effort::Effort>,
    /// User messages not yet logged (the turn's input and steering).
    pub pending_user: Vec<Message>,
    /// Tools the user answered "always allow" for, in this session.
    pub always_allowed: HashSet<String>,
    /// Active tool names as last reported to the UI by a tool change; `None` = as the log
    /// says (reset by every request, which logs the registry's set).
    pub tools_shown: Option<BTreeSet<String>>,
    /// The route's tool-change capabilities as narrowed by a provider's refusal this
    /// session (`route/downgrade`, SPEC §15.1), with the route it is for; `None` while the provider took them all.
    pub downgrade: Option<(String, crate::session::event::downgrade::Narrowed)>,
}

impl SessionState {
    /// The state of `session` as loaded: counters and usage from its log, nothing else.
    pub fn open(session: Session) -> SessionState {
        SessionState {
            series: RequestSeries::attach(&session),
            turn: last_turn(&session),
            usage: session_usage(&session),
            extra_instructions: None,
            effort: session.latest_context().and_then(|c| c.effort),
            pending_user: Vec::new(),
            always_allowed: HashSet::new(),
            tools_shown: None,
            // A refusal outlives a resume: the same provider would refuse again (§15.1).
            downgrade: session.events().iter().rev().find_map(|e| match &e.kind {
                crate::session::event::EventKind::RouteDowngrade(d) => {
                    Some((d.route.clone(), d.to))
                }
                _ => None,
            }),
            session,
        }
    }
}

fn last_turn(session: &Session) -> u64 {
    session
        .events()
        .iter()
        .rev()
        .find_map(|e| match &e.kind {
            EventKind::TurnStart(t) => Some(t.turn),
            _ => None,
        })
        .unwrap_or(0)
}

/// Usage of every logged request (steps and compaction summaries), as the live total.
fn session_usage(session: &Session) -> Usage {
    let mut u = Usage::default();
    for e in session.events() {
        let usage = match &e.kind {
            EventKind::AssistantMessage(m) => m.usage.as_ref(),
            EventKind::CompactionSummary(c) => c.usage.as_ref(),
            _ => None,
        };
        if let Some(x) = usage {
            u.add(x);
        }
    }
    u
}
