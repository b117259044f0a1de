//! Scenarios for the keys users expect, in the real terminal UI in tmux, at 80
//! and 120 columns and in both locales. Skipped (with a message) when `tmux` is not
//! installed, or failed under `DEEPTERM_REQUIRE_EXTERNAL=1`.

mod copy_mouse_notify;
mod cost;
mod footer_mouse;
mod history_editor;
mod mentions;
mod picker;
mod readline;
