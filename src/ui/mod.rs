//! The terminal UI (SPEC §10): Chat | Trajectory panes, composer, status line and footer.
//!
//! [`App`] is pure state fed with AgentEvents, keys, pastes and mouse events and rendered
//! into any ratatui backend (snapshot tests use `TestBackend`); [`run`] owns the terminal.
//! The folders show the parts: `chat/`, `trajectory/`, `bottom/` (composer, popups,
//! approval prompt) and `overlays/` (help, inspector, resume picker); `model.rs` is the
//! read-only model the panes render from and `app_event.rs` what they ask `App` for.

pub mod app;
pub mod app_event;
pub mod approval_keys;
pub mod bottom;
pub mod cancelled_prompt;
pub mod chat;
pub mod component;
pub mod context_node;
pub mod footer;
pub mod history;
pub mod keymap;
pub mod markdown;
pub mod mention;
pub mod model;
pub mod overlays;
pub mod request_viewer;
#[cfg(any(test, feature = "testing"))]
pub mod sample;
pub mod scroll;
#[cfg(any(test, feature = "testing"))]
pub mod snapshot;
pub mod step_label;
pub mod terminal;
pub mod text;
pub mod theme;
pub mod trajectory;

pub use app::App;
pub use bottom::composer;
pub use overlays::{help, inspector};
pub use terminal::{UiError, UiOptions, run};
