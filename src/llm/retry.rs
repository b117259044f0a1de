//! Retry policy for failed model attempts (SPEC §8). The agent loop runs the loop and
//! logs `assistant/attempt` events; this module only decides whether and when.

use std::time::Duration;

use crate::llm::types::LlmError;

/// The longest `Retry-After` a response can ask for: anything longer (`1e20`, a number past
/// `u64`, `inf`, an HTTP-date centuries ahead) is clamped to it rather than converted, which
/// would panic. It is far above [`RetryPolicy::max_retry_after`]'s default, so a clamped
/// value is never waited for: the error surfaces at once, as for any `Retry-After` that is
/// too long (SPEC §8).
pub const RETRY_AFTER_CEILING: Duration = Duration::from_secs(24 * 60 * 60);

/// Parses a `Retry-After` value: delay seconds or an HTTP-date, clamped to
/// [`RETRY_AFTER_CEILING`]. `None` for anything else (a negative number, `NaN`, a date in
/// the past, garbage): the policy's own backoff applies then.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<f64>() {
        // NaN and negative values are no delay; `-0` is zero.
        if secs.is_nan() || secs < 0.0 {
            return None;
        }
        // `try_from_secs_f64` fails only past `Duration`'s range (or for infinity), which is
        // past the ceiling as well.
        let d = Duration::try_from_secs_f64(secs.abs()).unwrap_or(RETRY_AFTER_CEILING);
        return Some(d.min(RETRY_AFTER_CEILING));
    }
    let date = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let delta = date.with_timezone(&chrono::Utc) - chrono::Utc::now();
    delta.to_std().ok().map(|d| d.min(RETRY_AFTER_CEILING))
}

/// How often and how long to wait before retrying a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (default 3).
    pub max_retries: u32,
    /// First backoff ceiling (doubled per retry).
    pub base_delay: Duration,
    /// Largest backoff ceiling.
    pub max_delay: Duration,
    /// A provider `Retry-After` longer than this is not waited for (the error surfaces).
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(300),
        }
    }
}

impl RetryPolicy {
    /// A policy that never retries (live tests).
    pub fn none() -> Self {
        RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        }
    }

    /// Delay before retry number `attempt` (1 = the first retry, after the first failure),
    /// or `None` when the error must not be retried or retries are exhausted. Honours
    /// `Retry-After`; otherwise exponential backoff with full jitter.
    pub fn delay(&self, attempt: u32, err: &LlmError) -> Option<Duration> {
        if attempt == 0 || attempt > self.max_retries || !err.code.is_retryable() {
            return None;
        }
        if let Some(after) = err.retry_after {
            return (after <= self.max_retry_after).then_some(after);
        }
        let exp = 2u32.saturating_pow(attempt - 1);
        let ceiling = self.base_delay.saturating_mul(exp).min(self.max_delay);
        let ceiling_ms = u64::try_from(ceiling.as_millis()).unwrap_or(u64::MAX);
        Some(Duration::from_millis(fastrand::u64(0..=ceiling_ms)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::types::ErrorCode;

    fn err(code: ErrorCode, status: Option<u16>) -> LlmError {
        LlmError {
            code,
            status,
            message: "x".into(),
            retry_after: None,
        }
    }

    #[test]
    fn non_retryable_classes_are_not_retried() {
        let p = RetryPolicy::default();
        for (code, status) in [
            (ErrorCode::InvalidRequest, Some(400)),
            (ErrorCode::Auth, Some(401)),
            (ErrorCode::Quota, Some(402)),
            (ErrorCode::InvalidRequest, Some(422)),
            (ErrorCode::ContextOverflow, Some(400)),
            (ErrorCode::UnsupportedContent, None),
            (ErrorCode::InvalidContent, None),
            (ErrorCode::Malformed, None),
            (ErrorCode::Cancelled, None),
            (ErrorCode::MissingKey, None),
        ] {
            assert_eq!(p.delay(1, &err(code, status)), None, "{code:?}");
        }
    }

    #[test]
    fn retryable_classes_back_off_within_ceiling_and_stop_after_max() {
        let p = RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(250),
            max_retry_after: Duration::from_secs(60),
        };
        for code in [
            ErrorCode::RateLimit,
            ErrorCode::Server,
            ErrorCode::Transport,
            ErrorCode::EmptyResponse,
        ] {
            for _ in 0..50 {
                assert!(p.delay(1, &err(code, None)).unwrap() <= Duration::from_millis(100));
                assert!(p.delay(2, &err(code, None)).unwrap() <= Duration::from_millis(200));
                assert!(p.delay(3, &err(code, None)).unwrap() <= Duration::from_millis(250));
            }
            assert_eq!(p.delay(4, &err(code, None)), None);
        }
        // Full jitter actually varies.
        let samples: std::collections::HashSet<_> = (0..50)
            .map(|_| p.delay(3, &err(ErrorCode::Server, None)))
            .collect();
        assert!(samples.len() > 1);
    }

    #[test]
    fn retry_after_seconds_and_http_date() {
        assert_eq!(parse_retry_after("7"), Some(Duration::from_secs(7)));
        assert_eq!(
            parse_retry_after(" 1.5 "),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(parse_retry_after("0"), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("-0"), Some(Duration::ZERO));
        let future = (chrono::Utc::now() + chrono::Duration::seconds(30)).to_rfc2822();
        let d = parse_retry_after(&future).unwrap();
        assert!(
            d > Duration::from_secs(25) && d <= Duration::from_secs(30),
            "{d:?}"
        );
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(parse_retry_after("soon"), None);
    }

    #[test]
    fn retry_after_beyond_the_ceiling_is_clamped_and_never_waited_for() {
        for huge in [
            "1e20",
            "18446744073709551616",
            "184467440737095516160000000000",
            "1e308",
            "inf",
            "+infinity",
            "Fri, 31 Dec 9999 23:59:59 GMT",
        ] {
            let d = parse_retry_after(huge);
            assert_eq!(d, Some(RETRY_AFTER_CEILING), "{huge}");
            // The policy treats it as too long: the error surfaces instead of a wait.
            let mut e = err(ErrorCode::RateLimit, Some(429));
            e.retry_after = d;
            assert_eq!(RetryPolicy::default().delay(1, &e), None, "{huge}");
        }
        assert!(RETRY_AFTER_CEILING > RetryPolicy::default().max_retry_after);
    }

    #[test]
    fn retry_after_that_is_not_a_delay_is_ignored() {
        for bad in [
            "NaN", "-nan", "-1", "-1e20", "-inf", "", "1e", "0x10", "5 s",
        ] {
            assert_eq!(parse_retry_after(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn retry_after_is_honoured_unless_too_long() {
        let p = RetryPolicy::default();
        let mut e = err(ErrorCode::RateLimit, Some(429));
        e.retry_after = Some(Duration::from_secs(7));
        assert_eq!(p.delay(1, &e), Some(Duration::from_secs(7)));
        e.retry_after = Some(Duration::from_secs(3600));
        assert_eq!(p.delay(1, &e), None);
        assert_eq!(RetryPolicy::none().delay(1, &e), None);
    }
}
