//! The TUI side of checkpoints (SPEC §14.3), as self-contained widgets that render from
//! plain data: the `/diff` overlay (coloured, per file, scrollable) and the rewind picker
//! (Esc Esc on an empty composer). They are not wired into the overlay stack yet: `/diff`
//! and `/rewind` reach Chat as output lines today.

pub mod diff_overlay;
pub mod rewind_picker;
