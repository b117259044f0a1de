//! The tool registry: which tools exist, which are active, approval policy, dispatch.
//!
//! Sources (built-in, command, each MCP server) register whole batches under their
//! [`ToolSource`]; re-registering a batch replaces it, and same-name schema changes are
//! accepted without checks. The active set is every registered, enabled tool in
//! lexicographic name order (D-2). When two sources offer the same name, the first source
//! in [`ToolSource`] order wins (built-in, then command, then MCP servers by name); the
//! clash is reported ([`ToolRegistry::clashes`]), and a call of that name needs approval
//! when any of the clashing registrations does, so a tool that shadows another never
//! escapes the approval of the one it hides (decision 0032).
//!
//! What a request declares is [`ToolRegistry::plan`] (SPEC §15.1, decision 0140): past
//! `defer_tools_over` enabled command and MCP tools they are *deferred*, announced by name
//! and loaded by `tool_search`, and `tool_search` and `call_tool` are declared instead. A
//! declaration once made stays while its tool is enabled (the caller passes the names the
//! latest logged header declares), so deferral never takes back a declared tool. A request
//! may declare at most the route's `max_tools` (the catalog, default 128), the two bridge
//! tools included: past it the declared set keeps built-ins first, then command tools,
//! then MCP tools in name order, and the rest is deferred too ([`ToolRegistry::dropped`]),
//! still searchable and callable. The plan depends only on the registered set and the
//! names passed in, so every request sees the same declarations until one of them changes.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::{Approval, ToolExecutor, ToolOutcome};
use crate::i18n::{Arg, Localizer, Text};
use crate::llm::catalog::DEFAULT_MAX_TOOLS;
use crate::session::event::{RequestHeader, ToolSchema};
use crate::tools::bridge::{
    CALL_TOOL, DEFAULT_DEFER_TOOLS_OVER, TOOL_SEARCH, bridge_schemas, defers,
};

/// Where a tool comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ToolSource {
    /// Built-in read-only tools.
    Builtin,
    /// `[tools.command.*]` from config.
    Command,
    /// An MCP server, by configured name.
    Mcp(String),
}

impl ToolSource {
    /// The localized source label (`built-in`, `command`, `MCP server fs`).
    pub fn localized(&self, l: Localizer) -> String {
        l.text(&self.label())
    }

    /// The source a tool name suggests when no source has it registered (a removed tool,
    /// a resumed log): `server__tool` is an MCP server's, a built-in name is built-in, any
    /// other a command tool's.
    pub fn of_name(name: &str) -> ToolSource {
        if crate::session::vocab::BUILTIN_TOOL_NAMES.contains(&name) {
            ToolSource::Builtin
        } else if let Some((server, _)) = name.split_once("__") {
            ToolSource::Mcp(server.to_string())
        } else {
            ToolSource::Command
        }
    }

    /// The source as the log names it (`tools/changed`).
    pub fn logged(&self) -> crate::session::tools_event::ChangedToolSource {
        use crate::session::tools_event::ChangedToolSource;
        match self {
            ToolSource::Builtin => ChangedToolSource::Builtin,
            ToolSource::Command => ChangedToolSource::Command,
            ToolSource::Mcp(s) => ChangedToolSource::Mcp { server: s.clone() },
        }
    }

    /// The source a logged change names.
    pub fn from_logged(s: &crate::session::tools_event::ChangedToolSource) -> ToolSource {
        use crate::session::tools_event::ChangedToolSource;
        match s {
            ChangedToolSource::Builtin => ToolSource::Builtin,
            ChangedToolSource::Command => ToolSource::Command,
            ChangedToolSource::Mcp { server } => ToolSource::Mcp(server.clone()),
        }
    }

    /// The source label as a message, rendered when shown.
    pub fn label(&self) -> Text {
        match self {
            ToolSource::Builtin => Text::new("tools-source-builtin", vec![]),
            ToolSource::Command => Text::new("tools-source-command", vec![]),
            ToolSource::Mcp(s) => Text::new("tools-source-mcp", vec![("server", s.into())]),
        }
    }
}

/// A tool as a source registers it.
#[derive(Clone)]
pub struct RegisteredTool {
    /// The model-facing declaration.
    pub schema: ToolSchema,
    /// Approval policy.
    pub approval: Approval,
    /// Active unless the user toggles it (`enabled = false` in config keeps it off).
    pub enabled: bool,
    /// Runs calls.
    pub executor: Arc<dyn ToolExecutor>,
    /// Calls may overlap other calls: built-in read-only tools, and command or MCP tools
    /// whose config says `parallel = true`. Others run one at a time, in call order.
    pub parallel_safe: bool,
}

impl std::fmt::Debug for RegisteredTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredTool")
            .field("schema", &self.schema)
            .field("approval", &self.approval)
            .field("enabled", &self.enabled)
            .field("parallel_safe", &self.parallel_safe)
            .finish_non_exhaustive()
    }
}

/// One row of the `/tools` listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolListing {
    /// Tool name.
    pub name: String,
    /// Where it comes from.
    pub source: ToolSource,
    /// In the active set.
    pub active: bool,
    /// Approval policy.
    pub approval: Approval,
    /// Description (first line is enough for a listing).
    pub description: String,
}

/// A user-facing registry error (`/tool enable|disable`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// No registered tool has this name.
    #[error("no tool named \"{0}\"")]
    UnknownName(String),
}

impl ToolError {
    /// The localized message.
    pub fn localized(&self, l: Localizer) -> String {
        match self {
            ToolError::UnknownName(n) => l.tra("tools-error-unknown-name", &[("name", n.into())]),
        }
    }
}

/// A call resolved against the registry, runnable without borrowing it (so a caller that
/// keeps the registry behind a lock can release the lock before awaiting).
pub struct PreparedCall {
    executor: Arc<dyn ToolExecutor>,
    arguments: serde_json::Value,
}

impl PreparedCall {
    /// Runs the call.
    pub async fn run(self, cancel: &CancellationToken) -> ToolOutcome {
        if cancel.is_cancelled() {
            return ToolOutcome::error("tool call cancelled");
        }
        self.executor.call(self.arguments, cancel).await
    }
}

/// The registry of tools from every source.
#[derive(Default)]
pub struct ToolRegistry {
    sources: BTreeMap<ToolSource, Vec<RegisteredTool>>,
    /// `/tool enable|disable` choices, by name; they outlive re-registration.
    overrides: HashMap<String, bool>,
    version: u64,
    /// Most tools one request may declare; `None` = [`DEFAULT_MAX_TOOLS`].
    max_tools: Option<usize>,
    /// Names the requests still declare (`tool_removal = "retain"`); a call to one that is
    /// not active says it was removed from this session.
    retained: HashMap<String, Option<u64>>,
    /// `defer_tools_over`; `None` = [`DEFAULT_DEFER_TOOLS_OVER`].
    defer_over: Option<usize>,
    /// Deferred tools a `tool_search` found on a route with `tool_update`, declared by the
    /// next request; from then on the logged header keeps them declared.
    loaded: BTreeSet<String>,
}

/// What one request declares and what it only announces (SPEC §15.1).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolPlan {
    /// The declarations, in name order (D-2); `tool_search` and `call_tool` among them
    /// whenever a tool is deferred.
    pub declared: Vec<ToolSchema>,
    /// Enabled tools not declared: announced by name, found by `tool_search`, run through
    /// `call_tool` (or natively once loaded). In name order.
    pub deferred: Vec<ToolSchema>,
}

/// An enabled tool left out of the declarations because of the route's tool limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedTool {
    /// Where it comes from.
    pub source: ToolSource,
    /// Its model-facing name.
    pub name: String,
}

/// A model-facing name that more than one source registers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameClash {
    /// The name.
    pub name: String,
    /// The source whose tool has the name (the first in [`ToolSource`] order).
    pub kept: ToolSource,
    /// The sources whose tools of that name are hidden.
    pub hidden: Vec<ToolSource>,
}

/// Declaration priority under the tool limit: built-ins, then command tools, then MCP tools
/// (all servers) by name.
fn priority_rank(source: &ToolSource) -> u8 {
    match source {
        ToolSource::Builtin => 0,
        ToolSource::Command => 1,
        ToolSource::Mcp(_) => 2,
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        ToolRegistry::default()
    }

    /// Replaces the batch registered under `source` (an empty batch unregisters it).
    pub fn set_source_tools(&mut self, source: ToolSource, tools: Vec<RegisteredTool>) {
        if tools.is_empty() {
            self.sources.remove(&source);
        } else {
            self.sources.insert(source, tools);
        }
        self.version += 1;
    }

    /// Increases on every change; compare to notice that the active set may have changed.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The winning registration of each name, with its source, in name order.
    fn effective(&self) -> BTreeMap<&str, (&ToolSource, &RegisteredTool)> {
        let mut out: BTreeMap<&str, (&ToolSource, &RegisteredTool)> = BTreeMap::new();
        for (source, tools) in &self.sources {
            for t in tools {
                out.entry(t.schema.name.as_str()).or_insert((source, t));
            }
        }
        out
    }

    /// Every name registered by more than one source, in name order.
    pub fn clashes(&self) -> Vec<NameClash> {
        let mut by_name: BTreeMap<&str, Vec<&ToolSource>> = BTreeMap::new();
        for (source, tools) in &self.sources {
            for t in tools {
                let sources = by_name.entry(t.schema.name.as_str()).or_default();
                if sources.last() != Some(&source) {
                    sources.push(source);
                }
            }
        }
        by_name
            .into_iter()
            .filter(|(_, sources)| sources.len() > 1)
            .map(|(name, sources)| NameClash {
                name: name.to_string(),
                kept: sources[0].clone(),
                hidden: sources[1..].iter().map(|s| (*s).clone()).collect(),
            })
            .collect()
    }

    /// The approval policy calls of `name` follow: `ask` if any registration of the name
    /// asks, hidden ones included.
    fn approval_of(&self, name: &str) -> Approval {
        let asks = self
            .sources
            .values()
            .flatten()
            .any(|t| t.schema.name == name && t.approval == Approval::Ask);
        if asks { Approval::Ask } else { Approval::Never }
    }

    fn is_enabled(&self, t: &RegisteredTool) -> bool {
        self.overrides
            .get(&t.schema.name)
            .copied()
            .unwrap_or(t.enabled)
    }

    /// Sets the most tools one request may declare (the route's `max_tools`).
    pub fn set_max_tools(&mut self, max: usize) {
        if self.max_tools != Some(max) {
            self.max_tools = Some(max);
            self.version += 1;
        }
    }

    /// The limit in force.
    pub fn max_tools(&self) -> usize {
        self.max_tools.unwrap_or(DEFAULT_MAX_TOOLS)
    }

    /// Sets `defer_tools_over` (config; `0` = never defer).
    pub fn set_defer_over(&mut self, threshold: usize) {
        if self.defer_over != Some(threshold) {
            self.defer_over = Some(threshold);
            self.version += 1;
        }
    }

    /// The deferral threshold in force.
    pub fn defer_over(&self) -> usize {
        self.defer_over.unwrap_or(DEFAULT_DEFER_TOOLS_OVER)
    }

    /// Marks deferred tools that `tool_search` found as declared from the next request (a
    /// route with `tool_update`, where the model then calls them natively). Returns
    /// whether any was new.
    pub fn load(&mut self, names: impl IntoIterator<Item = String>) -> bool {
        let mut new = false;
        for n in names {
            new |= self.loaded.insert(n);
        }
        if new {
            self.version += 1;
        }
        new
    }

    /// Forgets the loaded names once a logged header declares them (it keeps them
    /// declared from then on), or for another session.
    pub fn clear_loaded(&mut self) {
        self.loaded.clear();
    }

    /// Every enabled tool in priority order (built-ins, command tools, MCP tools; by name
    /// within each).
    fn enabled_by_priority(&self) -> Vec<(&str, &ToolSource, &RegisteredTool)> {
        let mut enabled: Vec<(&str, &ToolSource, &RegisteredTool)> = self
            .effective()
            .into_iter()
            .filter(|(_, (_, t))| self.is_enabled(t))
            .map(|(name, (source, t))| (name, source, t))
            .collect();
        // `effective` is in name order; a stable sort by rank keeps names ordered within.
        enabled.sort_by_key(|(_, source, _)| priority_rank(source));
        enabled
    }

    /// The plan's parts in priority order: `(declared, deferred, cut)` where `cut` counts
    /// the deferred tools the tool limit left out (the first of `deferred`), and whether
    /// the bridge tools are declared. `kept` names declarations a logged header made.
    #[allow(clippy::type_complexity)]
    fn split(
        &self,
        kept: &HashSet<String>,
    ) -> (
        Vec<(&str, &ToolSource, &RegisteredTool)>,
        Vec<(&str, &ToolSource, &RegisteredTool)>,
        usize,
        bool,
    ) {
        let enabled = self.enabled_by_priority();
        let extensions = enabled
            .iter()
            .filter(|(_, s, _)| **s != ToolSource::Builtin)
            .count();
        let threshold = self.defer_over();
        // Once the bridge is declared the session keeps deferring new tools: declaring them
        // again when the count falls would only add bytes.
        let bridge_kept = kept.contains(TOOL_SEARCH) || kept.contains(CALL_TOOL);
        let deferring = defers(extensions, threshold) || (threshold != 0 && bridge_kept);
        let (mut declared, mut deferred): (Vec<_>, Vec<_>) =
            enabled.into_iter().partition(|(name, source, _)| {
                **source == ToolSource::Builtin
                    || !deferring
                    || kept.contains(*name)
                    || self.loaded.contains(*name)
            });
        let max = self.max_tools();
        let bridge = !deferred.is_empty() || declared.len() > max || bridge_kept;
        let room = if bridge { max.saturating_sub(2) } else { max };
        let mut cut = 0;
        if declared.len() > room {
            let mut over = declared.split_off(room);
            cut = over.len();
            over.append(&mut deferred);
            deferred = over;
        }
        (declared, deferred, cut, bridge)
    }

    /// What a request declares and what it announces (see the module doc), given the
    /// names the latest logged header declares (`kept`; empty before the first request).
    pub fn plan(&self, kept: &HashSet<String>) -> ToolPlan {
        let (declared, deferred, _, bridge) = self.split(kept);
        let mut declared: Vec<ToolSchema> = declared
            .into_iter()
            .map(|(_, _, t)| t.schema.clone())
            .collect();
        if bridge {
            declared.extend(bridge_schemas());
        }
        declared.sort_by(|a, b| a.name.cmp(&b.name));
        let mut deferred: Vec<ToolSchema> = deferred
            .into_iter()
            .map(|(_, _, t)| t.schema.clone())
            .collect();
        deferred.sort_by(|a, b| a.name.cmp(&b.name));
        ToolPlan { declared, deferred }
    }

    /// [`ToolRegistry::plan`] after the latest logged request header (`None` before the
    /// first request): its declarations stay declared.
    pub fn plan_after(&self, header: Option<&RequestHeader>) -> ToolPlan {
        let kept: HashSet<String> = header
            .and_then(|h| h.tools.as_ref())
            .map(|t| t.iter().map(|t| t.name.clone()).collect())
            .unwrap_or_default();
        self.plan(&kept)
    }

    /// An enabled tool by name, declared or not: a deferred tool, or one past the
    /// `max_tools` cut, stays callable (through the bridge, SPEC §15.1).
    fn active(&self, name: &str) -> Option<&RegisteredTool> {
        self.effective()
            .get(name)
            .filter(|(_, t)| self.is_enabled(t))
            .map(|(_, t)| *t)
    }

    /// Every enabled tool's declaration, deferred ones too, in name order (what
    /// `tool_search` searches).
    pub fn enabled_tools(&self) -> Vec<ToolSchema> {
        self.effective()
            .into_values()
            .filter(|(_, t)| self.is_enabled(t))
            .map(|(_, t)| t.schema.clone())
            .collect()
    }

    /// The declarations of a first request ([`ToolRegistry::plan`] with nothing kept).
    pub fn active_tools(&self) -> Vec<ToolSchema> {
        self.plan(&HashSet::new()).declared
    }

    /// Enabled tools the tool limit leaves undeclared, in priority order (empty when all
    /// fit). They are deferred like the rest: announced, searchable and callable.
    pub fn dropped(&self) -> Vec<DroppedTool> {
        let (_, deferred, cut, _) = self.split(&HashSet::new());
        deferred
            .into_iter()
            .take(cut)
            .map(|(name, source, _)| DroppedTool {
                source: source.clone(),
                name: name.to_string(),
            })
            .collect()
    }

    /// Whether `name` is in the active set.
    pub fn is_active(&self, name: &str) -> bool {
        self.active(name).is_some()
    }

    /// `/tool enable NAME` / `/tool disable NAME`. Returns whether the state changed.
    pub fn set_enabled(&mut self, name: &str, enabled: bool) -> Result<bool, ToolError> {
        let was = match self.effective().get(name) {
            Some((_, t)) => self.is_enabled(t),
            None => return Err(ToolError::UnknownName(name.to_string())),
        };
        self.overrides.insert(name.to_string(), enabled);
        if was != enabled {
            self.version += 1;
        }
        Ok(was != enabled)
    }

    /// Re-applies a resumed session's `/tool` choice: like
    /// [`ToolRegistry::set_enabled`], but also for a name no source has registered yet (an
    /// MCP server still connecting), so the choice holds when its tools arrive.
    pub fn restore_enabled(&mut self, name: &str, enabled: bool) {
        if self.overrides.insert(name.to_string(), enabled) != Some(enabled) {
            self.version += 1;
        }
    }

    /// Every registered tool, active or not, in name order (for `/tools`). A deferred tool,
    /// or one past the tool limit, is active: the model reaches it through the bridge.
    pub fn listing(&self) -> Vec<ToolListing> {
        self.effective()
            .into_iter()
            .map(|(name, (source, t))| ToolListing {
                name: name.to_string(),
                source: source.clone(),
                active: self.is_enabled(t),
                approval: self.approval_of(name),
                description: t.schema.description.clone(),
            })
            .collect()
    }

    /// The `/tools` output, localized: active tools, then available-but-disabled ones.
    pub fn listing_lines(&self, l: Localizer) -> Vec<String> {
        self.listing_text().iter().map(|t| l.text(t)).collect()
    }

    /// [`ToolRegistry::listing_lines`] as messages, rendered when shown (`/tools` output
    /// follows a language switch).
    pub fn listing_text(&self) -> Vec<Text> {
        let rows = self.listing();
        if rows.is_empty() {
            return vec![Text::new("tools-list-empty", vec![])];
        }
        let (active, disabled): (Vec<_>, Vec<_>) = rows.into_iter().partition(|r| r.active);
        let mut out = vec![];
        for (group, header, line) in [
            (&active, "tools-list-header-active", "tools-list-active"),
            (
                &disabled,
                "tools-list-header-disabled",
                "tools-list-disabled",
            ),
        ] {
            if group.is_empty() {
                continue;
            }
            out.push(Text::new(header, vec![("count", Arg::from(group.len()))]));
            for r in group {
                let key = if r.active && r.approval == Approval::Ask {
                    "tools-list-active-ask"
                } else {
                    line
                };
                out.push(Text::new(
                    key,
                    vec![
                        ("name", r.name.as_str().into()),
                        ("source", r.source.label().into()),
                    ],
                ));
                if let Some(hints) = self.hints_of(&r.name).and_then(|h| h.text()) {
                    out.push(Text::new("tools-list-hints", vec![("hints", hints.into())]));
                }
            }
        }
        out
    }

    /// What the MCP server of the tool a call of `name` runs says about it.
    pub fn hints_of(&self, name: &str) -> Option<crate::tools::mcp::annotations::ToolHints> {
        self.effective().get(name)?.1.executor.hints()
    }

    /// Whether a call of `name` must be approved first (policy `ask`, of the tool or of
    /// any tool it shadows). "Always allow" answers belong to the session, not the registry
    /// (the agent's session state).
    pub fn needs_approval(&self, name: &str) -> bool {
        self.approval_of(name) == Approval::Ask
    }

    /// The sources of a call of `name` that asks only because its tool hides, under the
    /// same name, another source's tool that asks: `(kept, hidden)`, or
    /// `None` when the tool itself asks (or nothing asks). The approval card says which.
    pub fn shadowed_asking(&self, name: &str) -> Option<(ToolSource, ToolSource)> {
        let (kept, tool) = *self.effective().get(name)?;
        if tool.approval == Approval::Ask {
            return None;
        }
        self.sources.iter().find_map(|(source, tools)| {
            tools
                .iter()
                .any(|t| t.schema.name == name && t.approval == Approval::Ask)
                .then(|| (kept.clone(), source.clone()))
        })
    }

    /// Whether calls of `name` may overlap other calls (see
    /// [`RegisteredTool::parallel_safe`]). An unknown name fails at once, so it may.
    pub fn is_parallel_safe(&self, name: &str) -> bool {
        self.effective()
            .get(name)
            .is_none_or(|(_, t)| t.parallel_safe)
    }

    /// Sets the names the requests keep declaring after a removal (the route's
    /// `tool_removal = "retain"`, see `llm::projection::retained_declarations`).
    /// Each name comes with the turn that removed it, when the log says (the error names
    /// it).
    pub fn set_retained(&mut self, names: Vec<(String, Option<u64>)>) {
        self.retained = names.into_iter().collect();
    }

    /// Resolves a call: the tool must be active (else exactly `unknown tool "NAME"`, R-5,
    /// with the reason when the name is a retained declaration of a removed tool) and the
    /// arguments a JSON object (an empty string counts as `{}`).
    pub fn prepare_call(&self, name: &str, arguments: &str) -> Result<PreparedCall, ToolOutcome> {
        let Some(tool) = self.active(name) else {
            // UNKNOWN_TOOL for a removed, still declared tool (SPEC §15.1): stable text.
            if let Some(turn) = self.retained.get(name) {
                return Err(ToolOutcome::error(match turn {
                    Some(n) => format!("tool {name} is no longer available (removed at turn {n})"),
                    None => format!("tool {name} is no longer available"),
                }));
            }
            return Err(ToolOutcome::error(format!("unknown tool \"{name}\"")));
        };
        let arguments = if arguments.trim().is_empty() {
            serde_json::Value::Object(Default::default())
        } else {
            match serde_json::from_str::<serde_json::Value>(arguments) {
                Ok(v @ serde_json::Value::Object(_)) => v,
                Ok(_) => {
                    return Err(ToolOutcome::error(format!(
                        "invalid arguments for tool \"{name}\": expected a JSON object"
                    )));
                }
                Err(e) => {
                    return Err(ToolOutcome::error(format!(
                        "invalid arguments for tool \"{name}\": not valid JSON ({e}); \
                         expected a JSON object"
                    )));
                }
            }
        };
        Ok(PreparedCall {
            executor: tool.executor.clone(),
            arguments,
        })
    }

    /// Runs a call (see [`ToolRegistry::prepare_call`]). Approval is the caller's job.
    pub async fn call(
        &self,
        name: &str,
        arguments: &str,
        cancel: &CancellationToken,
    ) -> ToolOutcome {
        if !self.is_active(name)
            && let Some(out) =
                crate::tools::bridge::answer(|| self.enabled_tools(), name, arguments)
        {
            return out;
        }
        match self.prepare_call(name, arguments) {
            Ok(call) => call.run(cancel).await,
            Err(outcome) => outcome,
        }
    }
}

#[cfg(test)]
#[path = "registry_tests.rs"]
mod tests;
