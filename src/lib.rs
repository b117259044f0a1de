//! deepterm: a terminal chat client for DeepSeek models that keeps the provider's prefix
//! cache warm while tools come and go mid-conversation.

pub mod agent;
pub mod approval;
pub mod checkpoint;
pub mod cli;
pub mod config;
pub mod fs_guard;
pub mod i18n;
pub mod llm;
pub mod safe_text;
pub mod sandbox;
pub mod secret;
pub mod session;
pub mod sim;
pub mod startup;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod tools;
pub mod ui;
