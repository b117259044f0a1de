//! Token usage as a provider reports it, checked in one place before anything acts on it
//! (decision 0028). Each route's assembler maps its own field names to a
//! [`ReportedUsage`]; [`check`] turns that into a [`Usage`] or says why it is impossible. An
//! impossible usage is logged as a warning and becomes unknown: no session totals, no cost,
//! no automatic compaction, and the UI shows it as unknown.

use serde_json::Value;

use crate::session::event::Usage;

/// One token count as the provider wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireCount {
    /// A non-negative integer that fits `u64`.
    Count(u64),
    /// Anything else: a negative or fractional number, a number past `u64`, a string, an
    /// array, an object, a boolean.
    Invalid,
}

impl Default for WireCount {
    fn default() -> Self {
        WireCount::Count(0)
    }
}

impl WireCount {
    /// The count in `v`; `None` for `null` (the field is absent).
    pub fn from_value(v: &Value) -> Option<WireCount> {
        match v {
            Value::Null => None,
            v => Some(v.as_u64().map_or(WireCount::Invalid, WireCount::Count)),
        }
    }

    /// The sum, `Invalid` when either is or the sum overflows.
    pub fn plus(self, other: WireCount) -> WireCount {
        match (self, other) {
            (WireCount::Count(a), WireCount::Count(b)) => a
                .checked_add(b)
                .map_or(WireCount::Invalid, WireCount::Count),
            _ => WireCount::Invalid,
        }
    }
}

/// The counts named `names` in the usage object `usage`, each `None` when absent or `null`.
/// A usage that is not an object reports every field as [`WireCount::Invalid`].
pub fn fields<const N: usize>(usage: &Value, names: [&str; N]) -> [Option<WireCount>; N] {
    match usage {
        Value::Object(map) => names.map(|n| map.get(n).and_then(WireCount::from_value)),
        _ => [Some(WireCount::Invalid); N],
    }
}

/// A request's usage before it is checked, in route-neutral terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReportedUsage {
    /// Every prompt token, cache reads included.
    pub prompt: WireCount,
    /// Prompt tokens read from the provider's prefix cache.
    pub cache_read: WireCount,
    /// Output tokens (reasoning included).
    pub output: WireCount,
}

/// Why a reported usage cannot be true.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ImpossibleUsage {
    /// A field is not a non-negative integer (or a sum of fields overflows).
    #[error("the {0} token count is not a non-negative integer")]
    NotACount(&'static str),
    /// More tokens were read from the cache than the prompt has.
    #[error("{cached} cached tokens exceed the {prompt} prompt tokens")]
    CachedExceedsPrompt {
        /// Cache-read tokens.
        cached: u64,
        /// Prompt tokens.
        prompt: u64,
    },
    /// Prompt and output together do not fit the route's context window.
    #[error("{total} prompt and output tokens exceed the context window of {window} tokens")]
    BeyondContextWindow {
        /// Prompt plus output tokens.
        total: u64,
        /// The route's context window.
        window: u64,
    },
}

/// Checks `r` against what a request on a route with `context_window` tokens (`None`: not
/// known to the caller) can have used.
pub fn check(r: ReportedUsage, context_window: Option<u64>) -> Result<Usage, ImpossibleUsage> {
    let count = |c: WireCount, name| match c {
        WireCount::Count(n) => Ok(n),
        WireCount::Invalid => Err(ImpossibleUsage::NotACount(name)),
    };
    let prompt = count(r.prompt, "prompt")?;
    let cached = count(r.cache_read, "cached")?;
    let output = count(r.output, "output")?;
    if cached > prompt {
        return Err(ImpossibleUsage::CachedExceedsPrompt { cached, prompt });
    }
    if let Some(window) = context_window
        && prompt
            .checked_add(output)
            .is_none_or(|total| total > window)
    {
        let total = prompt.saturating_add(output);
        return Err(ImpossibleUsage::BeyondContextWindow { total, window });
    }
    Ok(Usage {
        input_tokens: prompt - cached,
        cache_read_tokens: cached,
        output_tokens: output,
    })
}

/// What an assembler keeps of a stream's usage: the checked value, and whether the warning
/// for an impossible one was already written (once per stream, however often a hostile
/// provider repeats it).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct UsageTracker {
    /// The route's context window, when the client gave it.
    pub(crate) context_window: Option<u64>,
    /// The last checked usage; `None` while the last report is impossible.
    usage: Option<Usage>,
    rejected: bool,
    warned: bool,
}

impl UsageTracker {
    /// A tracker for a route with `context_window` tokens.
    pub(crate) fn new(context_window: Option<u64>) -> Self {
        UsageTracker {
            context_window,
            ..UsageTracker::default()
        }
    }

    /// Records the latest report; returns the usage when it is possible.
    pub(crate) fn update(&mut self, reported: ReportedUsage) -> Option<Usage> {
        match check(reported, self.context_window) {
            Ok(u) => {
                self.usage = Some(u);
                self.rejected = false;
                Some(u)
            }
            Err(why) => {
                if !self.warned {
                    self.warned = true;
                    tracing::warn!(
                        reason = %why,
                        reported = ?reported,
                        "provider reported impossible token usage; it is treated as unknown"
                    );
                }
                self.usage = None;
                self.rejected = true;
                None
            }
        }
    }

    /// The usage of the stream so far: zero before any report, `None` when the last report
    /// was impossible.
    pub(crate) fn usage(&self) -> Option<Usage> {
        if self.rejected {
            None
        } else {
            Some(self.usage.unwrap_or_default())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reported(prompt: u64, cached: u64, output: u64) -> ReportedUsage {
        ReportedUsage {
            prompt: WireCount::Count(prompt),
            cache_read: WireCount::Count(cached),
            output: WireCount::Count(output),
        }
    }

    #[test]
    fn possible_usage_keeps_cache_reads_apart_from_input() {
        assert_eq!(
            check(reported(2132, 1920, 57), Some(1_048_576)),
            Ok(Usage {
                input_tokens: 212,
                cache_read_tokens: 1920,
                output_tokens: 57,
            })
        );
        // Exactly the window is still possible.
        assert!(check(reported(1000, 0, 24), Some(1024)).is_ok());
    }

    #[test]
    fn usage_beyond_the_context_window_is_impossible() {
        assert_eq!(
            check(reported(u64::MAX, 0, 0), Some(1_048_576)),
            Err(ImpossibleUsage::BeyondContextWindow {
                total: u64::MAX,
                window: 1_048_576
            })
        );
        // Prompt and output add up past the window (and past u64 without saturation).
        assert!(check(reported(1000, 0, 25), Some(1024)).is_err());
        assert!(check(reported(u64::MAX, 0, u64::MAX), Some(u64::MAX)).is_err());
        // Without a known window only the window check is skipped.
        assert!(check(reported(u64::MAX, 0, 0), None).is_ok());
    }

    #[test]
    fn more_cached_than_prompt_tokens_is_impossible() {
        assert_eq!(
            check(reported(10, 11, 0), None),
            Err(ImpossibleUsage::CachedExceedsPrompt {
                cached: 11,
                prompt: 10
            })
        );
    }

    #[test]
    fn counts_that_are_not_non_negative_integers_are_invalid() {
        for v in [
            json!(-1),
            json!(1.5),
            json!(1e20),
            json!("12"),
            json!(true),
            json!([1]),
            json!({"n": 1}),
        ] {
            assert_eq!(WireCount::from_value(&v), Some(WireCount::Invalid), "{v}");
        }
        // Past u64: serde_json reads it as a float.
        let past: Value = serde_json::from_str("18446744073709551616").unwrap();
        assert_eq!(WireCount::from_value(&past), Some(WireCount::Invalid));
        assert_eq!(WireCount::from_value(&json!(null)), None);
        assert_eq!(
            WireCount::from_value(&json!(u64::MAX)),
            Some(WireCount::Count(u64::MAX))
        );
        assert_eq!(
            WireCount::Count(u64::MAX).plus(WireCount::Count(1)),
            WireCount::Invalid
        );
        assert_eq!(
            fields(&json!("usage"), ["a", "b"]),
            [Some(WireCount::Invalid); 2]
        );
        assert_eq!(
            fields(&json!({"a": 3, "b": null}), ["a", "b", "c"]),
            [Some(WireCount::Count(3)), None, None]
        );
        let bad = ReportedUsage {
            output: WireCount::Invalid,
            ..reported(1, 0, 0)
        };
        assert_eq!(check(bad, None), Err(ImpossibleUsage::NotACount("output")));
    }

    #[test]
    fn tracker_forgets_a_rejected_report_and_recovers_with_a_possible_one() {
        let mut t = UsageTracker::new(Some(100));
        assert_eq!(t.usage(), Some(Usage::default()));
        assert!(t.update(reported(10, 0, 1)).is_some());
        assert_eq!(t.update(reported(1000, 0, 1)), None);
        assert_eq!(t.usage(), None, "the last report is impossible");
        assert!(t.update(reported(20, 5, 2)).is_some());
        assert_eq!(t.usage().unwrap().input_tokens, 15);
    }
}
