//! What removing a tool costs the request prefix on a route: the projection's own rules
//! (P-1, P-5, P-6), asked before the change so the user can be told (§14.5, decision 0091).

use crate::session::event::{ToolRemoval, ToolUpdateMode};

/// What removing an active tool does to the next request's prefix on a route: the same
/// rules the projection applies (P-1, P-5, P-6), asked before the change (§14.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemovalCost {
    /// Appended after the prefix (P-5 `in-history`; P-6 skipped with `retain`; the tool
    /// bridge on a route without `tool_update`, SPEC §15.1).
    Appended,
    /// The route declares every tool up front (P-1): the tool list changes, and with it
    /// everything after it.
    ToolListChanged,
    /// `addition-only` drops the declaration and its addition (P-6): history rewritten.
    HistoryRewritten,
}

/// [`RemovalCost`] of a removal on a route with `mode` and `removal`.
pub fn removal_cost(mode: Option<ToolUpdateMode>, removal: ToolRemoval) -> RemovalCost {
    match (mode, removal) {
        (None, ToolRemoval::Retain) => RemovalCost::Appended,
        (None, ToolRemoval::Omit) => RemovalCost::ToolListChanged,
        (Some(ToolUpdateMode::AdditionOnly), ToolRemoval::Omit) => RemovalCost::HistoryRewritten,
        (Some(_), _) => RemovalCost::Appended,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_rewrite_costs_the_prefix_and_retain_is_appended_on_every_route() {
        use ToolRemoval::{Omit, Retain};
        use ToolUpdateMode::{AdditionOnly, InHistory};
        assert_eq!(removal_cost(None, Omit), RemovalCost::ToolListChanged);
        assert_eq!(removal_cost(None, Retain), RemovalCost::Appended);
        assert_eq!(
            removal_cost(Some(AdditionOnly), Omit),
            RemovalCost::HistoryRewritten
        );
        assert_eq!(
            removal_cost(Some(AdditionOnly), Retain),
            RemovalCost::Appended
        );
        assert_eq!(removal_cost(Some(InHistory), Omit), RemovalCost::Appended);
    }
}
