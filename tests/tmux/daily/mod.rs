//! Daily-use scenarios of the real terminal UI in tmux: each module covers one area
//! at 80 and 120 columns and in both locales. Skipped (with a message) when `tmux` is not
//! installed, or failed under `DEEPTERM_REQUIRE_EXTERNAL=1`.

mod acting;
mod approvals;
mod cache;
mod checkpoints;
mod commands_lang;
mod custom_commands;
mod nodes_resume;
mod popup_help;
