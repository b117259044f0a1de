//! What the TUI keeps of the model's plan (SPEC §15.3): apart from `plan.rs`, which
//! implements it on `App`, so that `App` can hold it without a file cycle.

use crate::tools::plan::PlanFold;

/// What the TUI keeps of the plan.
#[derive(Debug, Default)]
pub(super) struct PlanState {
    pub(super) fold: PlanFold,
    /// The running turn set a plan (live, not replayed).
    pub(super) this_turn: bool,
    /// `Execute this plan?` waits for its key.
    pub(super) confirm: bool,
}
