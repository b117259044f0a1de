//! The agent loop on a tokio task.

pub mod acting_policy;
pub mod checkpoint;
pub mod command_spec;
pub mod commands;
pub mod custom_commands;
pub mod emitter;
pub mod env_error;
pub mod environment;
pub mod exec;
pub mod header;
pub mod hooks;
pub mod inbox;
pub mod inspect;
pub mod mentions;
pub mod mode;
pub mod plan;
pub mod prompt;
pub mod protocol;
pub mod request;
pub mod review;
pub mod run;
pub mod state;
pub mod subagent;
pub mod tool_runner;
pub mod tool_state_restore;
pub mod turn;
