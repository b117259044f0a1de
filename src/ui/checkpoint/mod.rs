//! The TUI side of checkpoints (SPEC §14.3): the `/diff` overlay (coloured, per file,
//! scrollable), the rewind picker (Esc Esc on an empty composer, or `/rewind`), what they
//! ask of the agent (`agent.rs`). What rewinds took back is the session's own
//! `session::rewound::Rewound`, folded by Chat and the Trajectory. Both overlays live in the
//! overlay stack (`ui::overlays`).

pub mod agent;
pub mod diff_overlay;
pub mod rewind_picker;
