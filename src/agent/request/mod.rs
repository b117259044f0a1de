//! One request path (SPEC §10 "Inspector", §12.1): the outgoing request is built from
//! what was just logged, by one function, for the loop and the inspector alike.
//!
//! The loop logs an attempt's prompt, user input, header, developer message and
//! `request/context` ([`plan_attempt`]), then calls [`options_from_log`] over the session
//! it just wrote. The inspector replays a log prefix and calls the same function, so a
//! rebuilt request equals the sent one by construction. Every route fact the wire body
//! depends on is read from the logged `request/context` ([`Route::from_context`], the
//! one place where context fields feed the builder) and every call setting from the
//! logged header; the thinking setting and effort from the logged context (SPEC §14.4),
//! or the loop's constant ([`THINKING`]) when the context records no effort.

use std::sync::Arc;

use crate::agent::header::{HeaderOutcome, log_request_header};
use crate::agent::prompt::{RequestSeries, reconcile_system_prompt};
use crate::llm::types::{GenerateOptions, ProviderKind, Purpose, Route, Thinking};
use crate::session::effort::Effort;
use crate::session::event::{
    CallConfig, Event, EventKind, Message, RequestHeader, Role, Source, ToolSchema, UserMessageData,
};
use crate::session::{Session, SessionError};

/// Default `max_tokens` for a request (logged in every header the loop writes).
pub const DEFAULT_MAX_TOKENS: u32 = 8192;

/// The thinking setting of a request whose context records no effort (none configured,
/// or a log written before the effort was recorded): the provider's default.
pub const THINKING: Thinking = Thinking::Default;

/// Instruction appended (not logged) to the summarizer request.
pub const COMPACTION_INSTRUCTION: &str = "Summarize the conversation above so that it can \
continue from your summary alone. Keep every fact, decision, file path, tool result and open \
task that later turns may need; drop pleasantries. Write the summary in the language the user \
writes in. Reply with the summary only.";

/// Errors of building a request from a log.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// Reading the session (tool-history fold) failed.
    #[error("{0}")]
    Session(#[from] SessionError),
    /// The log has no `request/context` yet.
    #[error("the log has no request/context")]
    NoContext,
    /// The context names no protocol and the provider is unknown.
    #[error("unknown provider \"{0}\"")]
    UnknownProvider(String),
}

/// Maps a provider name to its protocol (from config); used only for logs written before
/// `request/context` recorded the protocol.
pub type KindOf<'a> = &'a dyn Fn(&str) -> Option<ProviderKind>;

/// Which request to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestTarget {
    /// A loop step over the whole derived history.
    Step,
    /// The compaction summarizer over the shadowed region `start_seq..=end_seq`.
    Compaction {
        /// First shadowed node.
        start_seq: u64,
        /// Last shadowed node.
        end_seq: u64,
    },
}

/// THE request builder: the options of a request over `session` as logged, on the
/// `route` read from the logged `request/context` ([`Route::from_context`]). Call settings come from the latest
/// header, tools from its declarations, the fold snapshot from the session. Both the
/// loop (every attempt and compaction request) and the inspector (past and next
/// requests) build through here; [`crate::llm::client::build_request`] turns the result
/// into the wire body.
pub fn options_from_log(
    session: &mut Session,
    route: &Route,
    target: RequestTarget,
) -> Result<GenerateOptions, SessionError> {
    let header = session.latest_header().map(|(_, h)| h.header.clone());
    let (config, tools) = match header {
        Some(h) => (Some(h.config), h.tools),
        None => (None, None),
    };
    let (messages, purpose) = match target {
        RequestTarget::Step => (session.derive_messages(), Purpose::Step),
        RequestTarget::Compaction { start_seq, end_seq } => (
            compaction_messages(session, start_seq, end_seq).into(),
            Purpose::Compaction,
        ),
    };
    let history = session.tool_history()?;
    let bridge_history = session.bridge_history()?;
    let config = config.as_ref();
    // The logged effort decides thinking and the effort field (SPEC §14.4); without one
    // the request is what it was before the effort was configurable.
    let effort = session.latest_context().and_then(|c| c.effort);
    Ok(GenerateOptions {
        route: route.clone(),
        messages,
        tools,
        tool_history: Some(history),
        bridge_history: Some(bridge_history),
        system: None,
        max_tokens: config
            .and_then(|c| c.max_tokens)
            .unwrap_or(DEFAULT_MAX_TOKENS),
        thinking: match effort {
            None => THINKING,
            Some(Effort::Off) => Thinking::Disabled,
            Some(_) => Thinking::Enabled,
        },
        effort: match effort {
            None => config.and_then(|c| c.reasoning_effort.clone()),
            Some(e) => e.wire_effort().map(str::to_string),
        },
        temperature: config.and_then(|c| c.temperature),
        stop: config.and_then(|c| c.stop.clone()),
        purpose,
    })
}

/// The request over `session` as logged, on the route of its latest `request/context`
/// (the inspector's entry point).
pub fn logged_request(
    session: &mut Session,
    kind_of: KindOf<'_>,
    target: RequestTarget,
) -> Result<GenerateOptions, RequestError> {
    let ctx = session.latest_context().ok_or(RequestError::NoContext)?;
    let route = Route::from_context(ctx, kind_of)
        .ok_or_else(|| RequestError::UnknownProvider(ctx.provider.clone()))?;
    Ok(options_from_log(session, &route, target)?)
}

/// Appends `request/context` for `route` and `effort` unless the latest one already says
/// the same; returns the route as logged. The effort lives here, not in the header, so
/// changing it never starts a series or touches the messages (SPEC §14.4).
fn log_context(
    session: &mut Session,
    route: &Route,
    effort: Option<Effort>,
    on_commit: &mut dyn FnMut(Arc<Event>),
) -> Result<Route, SessionError> {
    let mut ctx = route.context();
    ctx.effort = effort;
    if session.latest_context() != Some(&ctx) {
        on_commit(session.push(EventKind::RequestContext(ctx.clone()))?);
    }
    // Read back what the log says, so the request depends on the log alone.
    let logged = session.latest_context().unwrap_or(&ctx);
    let kind = route.kind;
    // `kind_of` always answers, so this is the logged route.
    Ok(
        Route::from_context(logged, &|_| Some(kind)).unwrap_or_else(|| Route {
            base_url: String::new(),
            api_key_env: String::new(),
            caps: route.caps.logged(),
            ..route.clone()
        }),
    )
}

/// What one attempt adds on top of the session (see [`plan_attempt`]).
#[derive(Debug, Clone)]
pub struct AttemptInput<'a> {
    /// The rendered system prompt.
    pub rendered: &'a str,
    /// The declared tools (registry order, D-2).
    pub tools: Vec<ToolSchema>,
    /// The deferred tools, announced by name (SPEC §15.1; name order, empty when none).
    pub deferred: Vec<ToolSchema>,
    /// User messages queued for this attempt.
    pub pending_user: Vec<Message>,
    /// Turn number.
    pub turn: u64,
    /// Step number.
    pub step: u64,
    /// An explicit series start (L-1, S-4).
    pub explicit_series_start: bool,
    /// The reasoning effort of the request (SPEC §14.4; `None` = the provider's default).
    pub effort: Option<Effort>,
}

/// A planned attempt: the request and the header decision behind it.
#[derive(Debug, Clone)]
pub struct PlannedAttempt {
    /// The request, built from the log by [`options_from_log`].
    pub opts: GenerateOptions,
    /// What the header step decided and wrote.
    pub header: HeaderOutcome,
}

/// E-16 over any session and series (the loop's real ones, or replayed copies for
/// `/inspect`): reconcile the prompt, append the user batch, the header and developer
/// message if owed, the request context if changed; fsync; build the request from the
/// log. `on_commit` sees every appended event in order.
pub fn plan_attempt(
    session: &mut Session,
    series: &mut RequestSeries,
    route: &Route,
    input: AttemptInput<'_>,
    on_commit: &mut dyn FnMut(Arc<Event>),
) -> Result<PlannedAttempt, SessionError> {
    let AttemptInput {
        rendered,
        tools,
        deferred,
        pending_user,
        turn,
        step,
        explicit_series_start,
        effort,
    } = input;
    // The log redacts key values from whatever it is given; the prompt and
    // tools are compared with what it holds, so they are redacted the same way first, or
    // a key in them would look like a change on every request.
    let secrets = session.secrets().clone();
    let rendered = secrets.redact(rendered);
    let rendered: &str = &rendered;
    let tools = match secrets.redact_serde(&tools) {
        Ok(Some(redacted)) => redacted,
        Ok(None) => tools,
        Err(e) => return Err(SessionError::Redaction(e.to_string())),
    };
    let (tools, changed) =
        keep_logged_definitions(session, series, route, explicit_series_start, tools);
    for ev in reconcile_system_prompt(
        session,
        series,
        rendered,
        route.caps.system_prompt_update,
        crate::agent::prompt::effective_tool_update(
            route.caps.tool_update,
            route.caps.tool_removal,
        ),
        &tools,
        explicit_series_start,
        turn,
        step,
    )? {
        on_commit(ev);
    }
    if let Some(ev) = log_catalogue_note(session, &tools, &deferred, turn, step)? {
        on_commit(ev);
    }
    if let Some(ev) = log_definition_note(session, changed, turn, step)? {
        on_commit(ev);
    }
    for m in pending_user {
        on_commit(session.push(EventKind::UserMessage(UserMessageData { message: m }))?);
    }
    let candidate = RequestHeader {
        config: CallConfig {
            provider: route.provider.clone(),
            model: route.model.clone(),
            reasoning_effort: None,
            temperature: None,
            max_tokens: Some(DEFAULT_MAX_TOKENS),
            stop: None,
        },
        adapter_defaults: None,
        tools: (!tools.is_empty()).then_some(tools),
    };
    let header = log_request_header(
        session,
        series,
        candidate,
        explicit_series_start,
        turn,
        step,
    )?;
    if let Some(ev) = &header.applied.header {
        on_commit(ev.clone());
    }
    if let Some(ev) = &header.applied.developer {
        on_commit(ev.clone());
    }
    let logged = log_context(session, route, effort, on_commit)?;
    session.sync()?;
    let opts = options_from_log(session, &logged, RequestTarget::Step)?;
    Ok(PlannedAttempt { opts, header })
}

/// `tools` with each declared tool whose definition changed under the same name replaced
/// by the definition the latest header logged, and the changed ones (SPEC §15.1):
/// with `tool_removal = "retain"` (the default) a redeclaration no longer
/// restarts the declaration series, so a schema change costs no cached token on any route;
/// the model is told by a definition note and reads the schema through `tool_search`, and
/// the call runs the current tool. A request that starts a series anyway declares the
/// current definitions; `rewrite` always does. The history's definitions carry no
/// `deferLoading` (additions are marked deferred only by the projection).
fn keep_logged_definitions(
    session: &mut Session,
    series: &RequestSeries,
    route: &Route,
    explicit_series_start: bool,
    tools: Vec<ToolSchema>,
) -> (Vec<ToolSchema>, Vec<ToolSchema>) {
    use crate::session::tool_history::schemas_json_equal;
    if route.caps.tool_removal != crate::session::event::ToolRemoval::Retain
        || series.starts_series(session, explicit_series_start)
    {
        return (tools, Vec::new());
    }
    // Fast path, the usual attempt: the tools are the latest header's (structural
    // equality, no serialization; a change of key order alone goes the old way).
    if session
        .latest_header()
        .is_some_and(|(_, h)| h.header.tools.as_deref().unwrap_or(&[]) == tools.as_slice())
    {
        return (tools, Vec::new());
    }
    // Every definition the series declared (a removed tool stays declared with retain, so
    // its re-addition is one too).
    let Ok(history) = session.tool_history() else {
        return (tools, Vec::new());
    };
    let logged: Vec<&ToolSchema> = history
        .tools
        .iter()
        .chain(history.updates.iter().flat_map(|u| &u.additions))
        .collect();
    let mut changed = Vec::new();
    let tools = tools
        .into_iter()
        .map(|t| match logged.iter().rev().find(|l| l.name == t.name) {
            Some(l) if !schemas_json_equal(l, &t) => {
                let kept = ToolSchema::clone(l);
                changed.push(t);
                kept
            }
            _ => t,
        })
        .collect();
    (tools, changed)
}

/// Appends the definition note owed for `changed` (those not told yet), with the catalogue
/// note, before the user batch.
fn log_definition_note(
    session: &mut Session,
    changed: Vec<ToolSchema>,
    turn: u64,
    step: u64,
) -> Result<Option<Arc<Event>>, SessionError> {
    use crate::llm::bridge_catalogue::{definition_note, definition_told};
    if changed.is_empty() {
        return Ok(None);
    }
    let messages = session.derive_messages();
    let untold: Vec<ToolSchema> = changed
        .into_iter()
        .filter(|t| !definition_told(&messages, messages.developer_positions(), t))
        .collect();
    let Some(message) = definition_note(&untold) else {
        return Ok(None);
    };
    Ok(Some(session.push(EventKind::DeveloperMessage(
        crate::session::event::DeveloperMessageData {
            turn,
            step,
            message,
            header_seq: None,
        },
    ))?))
}

/// Appends the catalogue note owed for `deferred` (SPEC §15.1; see
/// [`crate::llm::bridge_catalogue`]), before the user batch so the model reads what it can
/// reach first. A name `tools` declares, or the series declared, is not announced as gone:
/// its removal is the tool-change message's.
fn log_catalogue_note(
    session: &mut Session,
    tools: &[ToolSchema],
    deferred: &[ToolSchema],
    turn: u64,
    step: u64,
) -> Result<Option<Arc<Event>>, SessionError> {
    use crate::llm::bridge_catalogue::{announced, catalogue_note};
    let messages = session.derive_messages();
    let before = announced(&messages, messages.developer_positions());
    if before.is_none() && deferred.is_empty() {
        return Ok(None);
    }
    let history = session.tool_history()?;
    let declared = |name: &str| {
        tools.iter().any(|t| t.name == name)
            || history.tools.iter().any(|t| t.name == name)
            || history
                .updates
                .iter()
                .any(|u| u.additions.iter().any(|t| t.name == name))
    };
    let Some(message) = catalogue_note(before.as_ref(), deferred, &declared) else {
        return Ok(None);
    };
    Ok(Some(session.push(EventKind::DeveloperMessage(
        crate::session::event::DeveloperMessageData {
            turn,
            step,
            message,
            header_seq: None,
        },
    ))?))
}

/// The compaction summarizer request on `route` over the region
/// `start_seq..=end_seq`: appends `request/context` if the route or effort changed since
/// the last request, then builds from the log like a step.
pub fn compaction_request(
    session: &mut Session,
    route: &Route,
    effort: Option<Effort>,
    start_seq: u64,
    end_seq: u64,
    on_commit: &mut dyn FnMut(Arc<Event>),
) -> Result<GenerateOptions, SessionError> {
    let logged = log_context(session, route, effort, on_commit)?;
    options_from_log(
        session,
        &logged,
        RequestTarget::Compaction { start_seq, end_seq },
    )
}

/// The summarizer's messages: the system head (when it derives a message), the
/// shadowed region `start_seq..=end_seq`, then the (unlogged) instruction.
pub fn compaction_messages(session: &Session, start_seq: u64, end_seq: u64) -> Vec<Arc<Message>> {
    let nodes = session.surface().nodes();
    let mut messages: Vec<Arc<Message>> = Vec::new();
    if let Some(head) = nodes.first()
        && head.event_type == "system/message"
        && head.derives_message()
    {
        messages.push(head.message.clone());
    }
    messages.extend(
        nodes
            .iter()
            .filter(|n| n.seq >= start_seq && n.seq <= end_seq && n.derives_message())
            .map(|n| n.message.clone()),
    );
    messages.push(Arc::new(Message {
        // Not logged, so nothing refers to it; a fixed id keeps rebuilt requests equal.
        id: "compaction-instruction".into(),
        ..Message::text(
            Role::User,
            COMPACTION_INSTRUCTION,
            Source::kind("compaction-instruction"),
        )
    }));
    messages
}

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod redaction_tests;
/// The request path's sample session, for its bench and profiling example (and tests).
#[cfg(any(test, feature = "testing"))]
pub mod sample_session;
