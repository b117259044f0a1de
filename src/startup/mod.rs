//! Wiring: configuration, locale, route, session, tools and (in demo mode) the built-in
//! simulator, for the TUI and `exec`. `main.rs` only parses arguments and calls in here:
//! `setup.rs` resolves the start, `sessions.rs` opens (or forks) the session,
//! `demo_sim.rs` starts the demo's simulator, `build.rs` assembles the agent and
//! `environment.rs` is the loop's view of its surroundings; `trust.rs` asks the folder
//! question before the TUI, `demo_workspace.rs` copies the guided demo's sample.

mod build;
mod demo_sim;
pub mod demo_workspace;
mod environment;
mod sessions;
mod setup;
pub mod trust;

pub use build::build_agent;
pub use demo_sim::{demo_route, start_demo_sim};
pub use environment::{AppEnvironment, BASE_PROMPT};
pub use sessions::{fork_at_start, open_session, open_start_session, remove_if_empty};
pub use setup::{
    Setup, StartupError, announce_config_warnings, announce_demo_notice, config_warning_lines,
    config_warning_notices, resume_args, setup,
};
