//! The integration suite, in one test binary: one link unit instead of one per file, and
//! its tests run in parallel with each other. Each area of the product has a folder under
//! `suite/`; the tmux scenarios are the other binary (`tests/tmux/`), and the harness-less
//! exec memory measurement a third (`tests/exec_memory.rs`).

mod common;
mod suite;
