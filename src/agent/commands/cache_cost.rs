//! Before a change that costs the cached prefix (§14.5, decision 0091): one notice saying
//! what it will cost and how to avoid it. The change still happens. Whether it costs is
//! the projection's own rule for the route ([`removal_cost`]); a route where the change is
//! appended gets no notice, and neither does a session with nothing cached yet.

use crate::agent::commands::CommandContext;
use crate::agent::protocol::{Notice, NoticeLevel};
use crate::i18n::Arg;
use crate::llm::projection::{RemovalCost, removal_cost};
use crate::session::event::EventKind;

impl CommandContext<'_> {
    /// Input tokens of the latest answered request: what the cache can hold for the next
    /// one. `None` before any answer (nothing to lose).
    fn cached_prefix_tokens(&self) -> Option<u64> {
        self.session()
            .events()
            .iter()
            .rev()
            .find_map(|e| match &e.kind {
                EventKind::AssistantMessage(d) => Some(d.usage.map(|u| u.total_input())),
                _ => None,
            })
            .map(Option::unwrap_or_default)
    }

    /// Warns before removing the active tools `names` (`/tool disable`, `/mcp disconnect`)
    /// when that costs the prefix on the current route.
    pub(crate) fn warn_removal_cost(&self, names: &[String]) {
        if names.is_empty() {
            return;
        }
        let Some(tokens) = self.cached_prefix_tokens() else {
            return;
        };
        let route = self.route();
        // With the default (`retain`) a removal is appended on every route: the notice says
        // it costs nothing, so a user who has learned to fear removals can stop (§15.1).
        let (level, key) = match removal_cost(route.caps.tool_update, route.caps.tool_removal) {
            RemovalCost::Appended => (NoticeLevel::Info, "cache-first-removal-free"),
            RemovalCost::ToolListChanged => (NoticeLevel::Warn, "cache-cost-removal-tool-list"),
            RemovalCost::HistoryRewritten => (NoticeLevel::Warn, "cache-cost-removal-rewrites"),
        };
        self.events.emit(Notice::new(
            level,
            key,
            vec![
                ("tools", Arg::List(names.to_vec())),
                ("count", Arg::from(names.len())),
                ("route", Arg::from(route.id())),
                ("tokens", Arg::from(tokens)),
            ],
        ));
    }

    /// Warns about a switch from the route `from` to `to` (said with the switch, before
    /// the next request): a model's cache is its own.
    pub(crate) fn warn_switch_cost(&self, from: &str, to: &str) {
        if to == from {
            return;
        }
        let Some(tokens) = self.cached_prefix_tokens() else {
            return;
        };
        self.events.emit(Notice::new(
            NoticeLevel::Warn,
            "cache-cost-model-switch",
            vec![("route", Arg::from(to)), ("tokens", Arg::from(tokens))],
        ));
    }
}
