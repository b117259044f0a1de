//! The terminal UI (SPEC §10): Chat | Trajectory panes, composer, status line and footer.
//!
//! [`App`] is pure state fed with AgentEvents, keys, pastes and mouse events and rendered
//! into any ratatui backend (snapshot tests use `TestBackend`); [`run`] owns the terminal.

pub mod acting;
pub mod app;
pub mod cache_break;
pub mod cancelled_prompt;
pub mod chat;
pub mod components;
pub mod composer;
pub mod context_node;
pub mod editor;
pub mod event_loop;
pub mod footer;
pub mod help;
pub mod history;
pub mod inspector;
pub mod keymap;
pub mod markdown;
pub mod mention;
pub mod osc;
pub mod panic;
pub mod readline;
#[cfg(any(test, feature = "testing"))]
pub mod sample;
#[cfg(any(test, feature = "testing"))]
pub mod snapshot;
pub mod step_label;
pub mod terminal;
pub mod text;
pub mod theme;
pub mod trajectory;
pub mod view;

pub use app::App;
pub use terminal::{UiError, UiOptions, run};
