//! Provider-neutral request/stream vocabulary, routes, projection and adapters.

pub mod adapter;
pub mod bridge;
pub mod bridge_catalogue;
pub mod catalog;
pub mod cause;
pub mod client;
pub mod deepseek;
pub mod downgrade;
mod lookahead;
pub mod openai;
pub mod projection;
pub mod removal_cost;
pub mod retry;
pub mod sse;
pub mod tool_ids;
pub mod types;
pub mod usage;
mod wire_json;

#[cfg(test)]
mod assembly_proptests;
#[cfg(test)]
mod untrusted_proptests;
#[cfg(test)]
mod wire_equivalence_proptests;
#[cfg(test)]
mod wire_reference;
