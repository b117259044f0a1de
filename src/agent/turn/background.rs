//! Background changes (tool sources, MCP status) applied at attempt boundaries or at once
//! while idle, and the tool changes and warnings they cause.

use std::collections::BTreeSet;

use super::{AgentError, TurnRunner};
use crate::agent::protocol::{AgentEvent, Notice, NoticeLevel};
use crate::i18n::Arg;
use crate::session::event::EventKind;
use crate::session::tools_event::{ChangedTool, ToolsChangedData};
use crate::tools::registry::ToolSource;
use crate::tools::source::Background;

impl TurnRunner<'_> {
    /// Applies queued background changes: tool sources change the registry (the next
    /// request logs the difference as usual), MCP status changes are logged.
    pub fn drain_background(&mut self) -> Result<(), AgentError> {
        while let Ok(bg) = self.background.rx.try_recv() {
            self.apply_background(bg)?;
        }
        self.warn_dropped_tools();
        Ok(())
    }

    /// Warns when the route's tool limit leaves enabled tools undeclared, naming their
    /// sources and the first few names; once per change of the dropped set.
    pub(crate) fn warn_dropped_tools(&mut self) {
        let dropped = self.tools.registry().dropped();
        let names: Vec<String> = dropped.iter().map(|d| d.name.clone()).collect();
        if names == self.background.dropped_tools {
            return;
        }
        self.background.dropped_tools = names;
        if dropped.is_empty() {
            return;
        }
        let mut sources: Vec<&ToolSource> = dropped.iter().map(|d| &d.source).collect();
        sources.sort();
        sources.dedup();
        let sources: Vec<String> = sources.iter().map(|s| s.localized(self.l)).collect();
        const SHOWN: usize = 5;
        let mut shown: Vec<&str> = dropped
            .iter()
            .take(SHOWN)
            .map(|d| d.name.as_str())
            .collect();
        if dropped.len() > SHOWN {
            shown.push("…");
        }
        self.events.emit(Notice::new(
            NoticeLevel::Warn,
            "tools-limit-dropped",
            vec![
                ("count", Arg::from(dropped.len())),
                ("limit", Arg::from(self.tools.registry().max_tools())),
                (
                    "sources",
                    Arg::List(sources.iter().map(|s| s.to_string()).collect()),
                ),
                (
                    "names",
                    Arg::List(shown.iter().map(|s| s.to_string()).collect()),
                ),
            ],
        ));
    }

    pub(crate) fn apply_background(&mut self, bg: Background) -> Result<(), AgentError> {
        match bg {
            Background::Tools { source, tools } => {
                self.tools.registry_mut().set_source_tools(source, tools);
                self.warn_name_clashes();
                self.report_tool_change();
                Ok(())
            }
            Background::LatestTools { source, slot } => {
                if let Some(tools) = slot.take() {
                    self.tools.registry_mut().set_source_tools(source, tools);
                    self.warn_name_clashes();
                    self.report_tool_change();
                }
                Ok(())
            }
            Background::Warning(t) => {
                // Like a status error, it may quote what a server sent.
                let args = t
                    .args
                    .into_iter()
                    .map(|(k, v)| match v {
                        Arg::Str(s) => (k, Arg::Str(self.tools.redact(&s))),
                        other => (k, other),
                    })
                    .collect();
                self.events.emit(AgentEvent::Notice(Notice {
                    level: NoticeLevel::Warn,
                    key: t.key,
                    args,
                }));
                Ok(())
            }
            Background::McpCatalog => {
                if let Some(m) = &self.background.mcp {
                    self.events.emit(crate::agent::commands::mcp_offers(m));
                }
                Ok(())
            }
            Background::Mcp(mut status) => {
                // A server's stderr line may quote a key it was given explicitly.
                status.error = status.error.map(|e| self.tools.redact(&e));
                status.detail = status.detail.map(|t| {
                    Box::new(crate::tools::mcp::failure::redact_text(*t, &|s| {
                        self.tools.redact(s)
                    }))
                });
                self.push(EventKind::McpStatus(status))
            }
        }
    }

    /// Logs a change of the active tool set as one `tools/changed` event,
    /// relative to the previous change or to what the log says the model was last offered;
    /// the UI folds that committed event, live and on resume, into one node. Returns
    /// whether one was logged; nothing is logged outside the interactive loop or before
    /// the session's first request (those tools are not a change).
    pub(crate) fn report_tool_change(&mut self) -> bool {
        if !self.is_interactive() {
            return false;
        }
        let base: BTreeSet<String> = match self.state.tools_shown.take() {
            Some(s) => s,
            None => match self.reachable_logged() {
                Some(v) => v,
                None => return false,
            },
        };
        let listing = self.tools.registry_mut().listing();
        let current = self.reachable_now();
        let changed = |name: &String| -> ChangedTool {
            let (source, description) = match listing.iter().find(|t| &t.name == name) {
                Some(t) => (t.source.clone(), t.description.clone()),
                None => (ToolSource::of_name(name), String::new()),
            };
            ChangedTool {
                name: name.clone(),
                source: source.logged(),
                description,
            }
        };
        let data = ToolsChangedData {
            added: current.difference(&base).map(changed).collect(),
            removed: base.difference(&current).map(changed).collect(),
        };
        self.state.tools_shown = Some(current);
        if data.added.is_empty() && data.removed.is_empty() {
            return false;
        }
        match self.state.session.push(EventKind::ToolsChanged(data)) {
            Ok(ev) => self.events.emit(AgentEvent::Committed(ev)),
            Err(e) => self.events.emit(Notice::new(
                NoticeLevel::Error,
                "agent-session-error",
                vec![("error", Arg::from(e.text()))],
            )),
        }
        true
    }

    /// Warns about each new name clash between tool sources, naming the name and both
    /// sources, and forgets an "always allow" given for a name that now
    /// clashes: it was given for one tool, and the name may now run another.
    pub(crate) fn warn_name_clashes(&mut self) {
        let clashes = self.tools.registry_mut().clashes();
        let fresh: Vec<_> = clashes
            .iter()
            .filter(|c| !self.background.name_clashes.contains(c))
            .cloned()
            .collect();
        self.background.name_clashes = clashes;
        let l = self.l;
        for c in fresh {
            self.state.always_allowed.remove(&c.name);
            tracing::warn!(
                "tool name {} clashes: {:?} kept, {:?} hidden",
                c.name,
                c.kept,
                c.hidden
            );
            self.events.emit(AgentEvent::Notice(Notice::new(
                NoticeLevel::Warn,
                "tools-name-clash",
                vec![
                    ("name", Arg::from(c.name.as_str())),
                    ("kept", Arg::from(c.kept.localized(l))),
                    (
                        "hidden",
                        Arg::List(c.hidden.iter().map(|s| s.localized(l)).collect()),
                    ),
                ],
            )));
        }
    }
}
