//! The agent loop on a tokio task.

pub mod header;
pub mod prompt;
pub mod protocol;
