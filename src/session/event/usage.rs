//! Token usage and timing of one request, as the log records them.

use serde::{Deserialize, Serialize};

/// Token usage of one request. `input_tokens` excludes cache reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Uncached input tokens.
    pub input_tokens: u64,
    /// Input tokens read from the provider's prefix cache.
    pub cache_read_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
}

impl Usage {
    /// Cache-hit percentage, rounded: cache-read ÷ (uncached + cache-read); `None` with no
    /// input. The one definition the Trajectory, the footer and `/status` show.
    pub fn hit_percent(&self) -> Option<u64> {
        // In u128: a log may hold any count, and the products must not overflow.
        let total = u128::from(self.input_tokens) + u128::from(self.cache_read_tokens);
        let pct = (u128::from(self.cache_read_tokens) * 100 + total / 2).checked_div(total)?;
        Some(pct as u64)
    }

    /// Total prompt tokens (uncached + cache read). Saturating, as every sum of usage is:
    /// a log may hold any number.
    pub fn total_input(&self) -> u64 {
        self.input_tokens.saturating_add(self.cache_read_tokens)
    }
    /// Adds another usage field by field.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.cache_read_tokens = self
            .cache_read_tokens
            .saturating_add(other.cache_read_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
    }
}

/// Timing of one request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Timing {
    /// Time to first streamed event, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<u64>,
    /// Whole request duration, milliseconds.
    pub duration_ms: u64,
    /// How long the model reasoned: from its first reasoning delta to the first text or
    /// tool call after it (or the stream's end), milliseconds. Chat's `Thought for N s`
    /// reads it, so the label is the same live, after a rewind and on resume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_ms: Option<u64>,
}
