//! The sandbox (SPEC §14.2) through the `shell` tool (§14.1): escape attempts against both
//! backends, each also shown succeeding without the sandbox, and failing closed.

mod config;
mod escape;
mod fail_closed;
mod hardening;
mod harness;
mod key;
mod network;
mod probe;
mod timeout;
