//! The agent loop on a tokio task.

pub mod commands;
pub mod exec;
pub mod header;
pub mod inspect;
pub mod prompt;
pub mod protocol;
pub mod request;
pub mod run;
