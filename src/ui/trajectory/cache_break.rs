//! Cache breaks: a request that read less from the cache than the
//! prefix it shared with the request before it, and why, from the inspector's why-line
//! (see docs/decisions/0020-cache-break-rows.md).

use crate::agent::inspect::DiffReason;
use crate::i18n::{Arg, Localizer};
use crate::session::event::Usage;

/// A provider caches in units of this many tokens (DeepSeek and the simulator: 64), so a
/// request may re-read up to one unit less than the prefix it shares.
pub const CACHE_UNIT_TOKENS: u64 = 64;

/// Why a request missed the cache, localized at draw time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakKind {
    /// The tool declarations changed (`removal_on_addition_only`: a removal on an
    /// addition-only route rewrote the history, P-6).
    Tools {
        /// A removal on an addition-only route.
        removal_on_addition_only: bool,
    },
    /// The system prompt changed.
    Prompt,
    /// The model changed.
    Model,
    /// The provider or an update mode changed.
    Route,
    /// The request header (call configuration) started a new series.
    Header,
    /// The context was compacted.
    Compaction,
    /// Nothing in the request explains it (the provider evicted or expired the cache).
    Unexplained,
}

/// A cache break: a request whose cache read fell short of the prefix it shared with the
/// previous request by more than one cache unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheBreak {
    /// Why.
    pub kind: BreakKind,
    /// Tool additions logged since the previous request.
    pub added: usize,
    /// Tool removals logged since the previous request.
    pub removed: usize,
    /// Input tokens the previous request sent (what could have been read from the cache).
    pub shared: u64,
    /// Input tokens read from the cache.
    pub cached: u64,
}

impl CacheBreak {
    /// Derives the break, if any, from the previous and this request's usage and the
    /// inspector's reasons for the change between them (prefix-breaking ones first).
    pub fn derive(
        prev: &Usage,
        cur: &Usage,
        reasons: &[DiffReason],
        compacted: bool,
        model_changed: bool,
        (added, removed): (usize, usize),
    ) -> Option<CacheBreak> {
        let shared = prev.total_input();
        if cur.cache_read_tokens + CACHE_UNIT_TOKENS >= shared {
            return None;
        }
        // A model switch rebuilds the whole request (its prompt and header too), so it
        // names the break before the reasons it entails.
        let kind = if compacted {
            BreakKind::Compaction
        } else if reasons.contains(&DiffReason::ModelChanged)
            || (model_changed && reasons.contains(&DiffReason::RouteChanged))
        {
            BreakKind::Model
        } else {
            reasons
                .iter()
                .find_map(|r| match r {
                    DiffReason::RemovalOnAdditionOnly => Some(BreakKind::Tools {
                        removal_on_addition_only: true,
                    }),
                    DiffReason::Consolidation | DiffReason::PromptUpdateAppended => {
                        Some(BreakKind::Prompt)
                    }
                    DiffReason::Compacted => Some(BreakKind::Compaction),
                    DiffReason::ModelChanged => Some(BreakKind::Model),
                    DiffReason::RouteChanged if model_changed => Some(BreakKind::Model),
                    DiffReason::RouteChanged | DiffReason::RouteDowngraded => {
                        Some(BreakKind::Route)
                    }
                    DiffReason::NewSeries => Some(BreakKind::Header),
                    DiffReason::ToolAdditionAppended
                    | DiffReason::ToolRemovalAppended
                    | DiffReason::RemovalRetained => Some(BreakKind::Tools {
                        removal_on_addition_only: false,
                    }),
                    _ => None,
                })
                .unwrap_or(BreakKind::Unexplained)
        };
        Some(CacheBreak {
            kind,
            added,
            removed,
            shared,
            cached: cur.cache_read_tokens,
        })
    }

    /// The short localized reason.
    pub fn reason(&self, l: Localizer) -> String {
        let key = match self.kind {
            BreakKind::Tools {
                removal_on_addition_only: true,
            } => "tui-traj-break-tools-removal",
            BreakKind::Tools { .. } => "tui-traj-break-tools",
            BreakKind::Prompt => "tui-traj-break-prompt",
            BreakKind::Model => "tui-traj-break-model",
            BreakKind::Route => "tui-traj-break-route",
            BreakKind::Header => "tui-traj-break-header",
            BreakKind::Compaction => "tui-traj-break-compaction",
            BreakKind::Unexplained => "tui-traj-break-unexplained",
        };
        l.tra(
            key,
            &[
                ("added", Arg::from(self.added)),
                ("removed", Arg::from(self.removed)),
            ],
        )
    }
}
