//! The session log and everything derived from it.

pub mod event;
pub mod store;
pub mod surface;
pub mod tool_history;
pub mod validate;
