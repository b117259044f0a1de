//! Provider-neutral request/stream vocabulary, routes, projection and adapters.

pub mod adapter;
pub mod catalog;
pub mod cause;
pub mod client;
pub mod deepseek;
pub mod openai;
pub mod projection;
pub mod retry;
pub mod sse;
pub mod tool_ids;
pub mod types;
pub mod usage;

/// Proptest case count: `DEEPTERM_PROPTEST_CASES` when set, else 10,000 (CI).
#[cfg(test)]
pub(crate) fn proptest_cases() -> u32 {
    std::env::var("DEEPTERM_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

#[cfg(test)]
mod assembly_proptests;
#[cfg(test)]
mod untrusted_proptests;
