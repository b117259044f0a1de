//! The Chat pane and what it shows: `cells` (one cell per message, tool call, notice,
//! node; each renders its own rows), `fold` (the one fold of session events and live
//! deltas into cells, live and on replay), `layout` (heights, the per-width cache and the
//! virtualized draw), `pane` (the pane: scroll, selection, keys, mouse) and `acting` (the
//! acting tools' cards).

pub mod acting_card;
pub mod cells;
pub mod fold;
pub mod layout;
pub mod pane;
pub mod retry_card;

pub use cells::{
    ApprovalCell, AssistantCell, AttachmentCell, AttemptCell, Cell, CellKind, CellRows,
    CheckpointCell, CheckpointNode, CompactionCell, ContextCell, HistoryCell, OutputCell,
    ToolApproval, ToolCell, UserCell,
};
pub use fold::Transcript;
pub use pane::ChatPane;
