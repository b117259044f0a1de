//! What the client sends: the request of a `GenerateOptions` projected for its route
//! and written as the protocol's body bytes, the same bytes `/inspect` shows, and the
//! route's endpoint URLs. The one place the route kind picks its wire adapter.

use std::borrow::Cow;

use crate::llm::adapter::{RequestParts, SerializedBody, WireAdapter, WireBytes};
use crate::llm::projection::project_tool_updates_indexed;
use crate::llm::tool_ids::repair_history;
use crate::llm::types::{GenerateOptions, LlmError, ProviderKind, Route};
use crate::llm::{deepseek, openai};

/// The wire adapter of a protocol: the one place the route kind is matched.
pub fn wire(kind: ProviderKind) -> &'static dyn WireAdapter {
    match kind {
        ProviderKind::DeepseekMessages => &deepseek::Messages,
        ProviderKind::OpenaiChat => &openai::Chat,
    }
}

/// Projects `opts` for its route and writes the wire body bytes: what the client
/// sends. The history is borrowed and written straight into the buffer.
pub fn build_wire(opts: &GenerateOptions) -> Result<WireBytes, LlmError> {
    with_request_parts(opts, |parts| write_wire(opts.route.kind, parts))
}

/// Everything of [`build_wire`] except writing the bytes: repairs tool-call ids,
/// projects for the route and hands the borrowed [`RequestParts`] to `f`.
pub fn with_request_parts<T>(opts: &GenerateOptions, f: impl FnOnce(&RequestParts<'_>) -> T) -> T {
    // Logs written before arrival repair may hold missing or duplicate call ids.
    // The session scans each message once as it arrives; a list it vouches for needs
    // no walk here. The repair replaces messages in place, so positions still hold.
    let messages = if opts.messages.ids_clean() {
        Cow::Borrowed(&opts.messages[..])
    } else {
        repair_history(&opts.messages)
    };
    // The tool bridge reads its own series, which a redeclaration does not restart.
    let bridged = opts.route.caps.tool_update.is_none()
        && opts.route.caps.tool_removal == crate::session::event::ToolRemoval::Retain;
    let history = match (&opts.bridge_history, bridged) {
        (Some(b), true) => Some(b.as_ref()),
        _ => opts.tool_history.as_deref(),
    };
    let projection = project_tool_updates_indexed(
        &messages,
        opts.messages.developer_positions(),
        opts.tools.as_deref(),
        opts.route.caps.tool_update,
        opts.route.caps.tool_removal,
        history,
    );
    let parts = RequestParts::new(opts, &projection.messages, projection.tools.as_deref());
    f(&parts)
}

/// Writes the body bytes of prepared `parts` for protocol `kind` (the serialization half
/// of [`build_wire`]).
pub fn write_wire(kind: ProviderKind, parts: &RequestParts<'_>) -> Result<WireBytes, LlmError> {
    let mut bytes = Vec::new();
    let beta = wire(kind).write_body(parts, &mut bytes)?;
    Ok(WireBytes { bytes, beta })
}

/// [`build_wire`] as a JSON tree (used by `/inspect`, whose text is these same bytes).
pub fn build_request(opts: &GenerateOptions) -> Result<SerializedBody, LlmError> {
    let w = build_wire(opts)?;
    SerializedBody::from_bytes(&w.bytes, w.beta)
}

/// The endpoint URL of a route.
pub fn endpoint_url(route: &Route) -> String {
    wire(route.kind).endpoint(route.base_url.trim_end_matches('/'))
}

/// Where a route's provider lists its models (`GET /models`, deepseek-wire §1.2): the
/// OpenAI-format base plus `/models`; for the Anthropic-format base `…/anthropic` the
/// provider's root `…/models`, else `{base}/v1/models`.
pub fn models_url(route: &Route) -> String {
    let base = route.base_url.trim_end_matches('/');
    match route.kind {
        ProviderKind::OpenaiChat => format!("{base}/models"),
        ProviderKind::DeepseekMessages => {
            if let Some(root) = base.strip_suffix("/anthropic") {
                format!("{root}/models")
            } else if base.ends_with("/v1") {
                format!("{base}/models")
            } else {
                format!("{base}/v1/models")
            }
        }
    }
}
