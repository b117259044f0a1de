//! `[limits]`: size and progress caps of one streamed reply.

use std::time::Duration;

use crate::llm::client::StreamLimits;

/// The `[limits]` table; `None` keeps the built-in default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limits {
    /// `max_event_bytes`: cap on one stream event (default 16 MiB).
    pub max_event_bytes: Option<u64>,
    /// `max_reply_bytes`: cap on one reply's text, reasoning and tool arguments (default 64 MiB).
    pub max_reply_bytes: Option<u64>,
    /// `no_progress_timeout_secs`: longest time without content (default 300 s).
    pub no_progress_timeout_secs: Option<u64>,
}

impl Limits {
    /// The keys of the table (for unknown-key detection and documentation).
    pub const KEYS: [&'static str; 3] = [
        "max_event_bytes",
        "max_reply_bytes",
        "no_progress_timeout_secs",
    ];

    /// The limits the provider client applies.
    pub fn stream_limits(&self) -> StreamLimits {
        let d = StreamLimits::default();
        let size = |v: Option<u64>, default: usize| {
            v.map_or(default, |n| usize::try_from(n).unwrap_or(usize::MAX))
        };
        StreamLimits {
            max_event_bytes: size(self.max_event_bytes, d.max_event_bytes),
            max_reply_bytes: size(self.max_reply_bytes, d.max_reply_bytes),
            no_progress_timeout: self
                .no_progress_timeout_secs
                .map_or(d.no_progress_timeout, Duration::from_secs),
        }
    }
}
