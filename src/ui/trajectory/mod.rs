//! The Trajectory pane: `rows` (the ledger folded from the session's events: turns,
//! requests with usage and cost, context cells, MCP rows), `cache_break` (why a request
//! read less from the cache than it shared), `columns` (which columns show, their header
//! and figures), `render` (the drawn rows) and `pane` (the pane: selection, scroll, `Enter`
//! inspects).

pub mod cache_break;
pub mod columns;
pub mod pane;
pub mod render;
pub mod rows;

pub use cache_break::{BreakKind, CACHE_UNIT_TOKENS, CacheBreak};
pub use columns::{
    Column, GUTTER, LEGEND, columns_for, columns_priced, header_line, hit_percent, hit_style,
    mode_label, tokens,
};
pub use pane::TrajectoryPane;
pub use rows::{Row, Trajectory};

#[cfg(test)]
mod rows_tests;

#[cfg(test)]
mod wrap_tests;
