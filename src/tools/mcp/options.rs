//! Connection and reconnection timings of MCP servers, and their test overrides.

use std::time::Duration;

/// Default per-call timeout when `timeout_secs` is not configured.
pub const DEFAULT_CALL_TIMEOUT_SECS: u64 = 120;

/// Environment variable overriding the reconnect backoff, `INITIAL_MS,MAX_MS,TRIES`
/// (for tests; e.g. `20,40,3`).
pub const BACKOFF_ENV: &str = "DEEPTERM_MCP_BACKOFF_MS";

/// Environment variable overriding [`HEALTHY_AFTER`] in milliseconds (for tests).
pub const HEALTHY_ENV: &str = "DEEPTERM_MCP_HEALTHY_MS";

/// How long a connection must stay up before a crash no longer counts as a failed try.
pub const HEALTHY_AFTER: Duration = Duration::from_secs(30);

/// Least time between two `tools/list` refreshes of one server.
pub const REFRESH_INTERVAL: Duration = Duration::from_millis(250);

/// Connection and reconnection timings.
#[derive(Debug, Clone)]
pub struct McpOptions {
    /// Delay before the first reconnect attempt after a crash (doubles each try).
    pub backoff_initial: Duration,
    /// Upper bound of the reconnect delay.
    pub backoff_max: Duration,
    /// Failed tries (failed reconnects, and crashes within `healthy_after` of connecting)
    /// before the server is marked failed.
    pub max_retries: u32,
    /// A connection that stayed up this long was healthy: a later crash starts the count
    /// of failed tries afresh.
    pub healthy_after: Duration,
    /// Least time between two tool-list refreshes (`list_changed` bursts coalesce).
    pub refresh_interval: Duration,
    /// Limit for starting the process, the MCP handshake and the first tool listing.
    pub connect_timeout: Duration,
    /// The config's `api_key_env` variables, removed from every server's environment
    /// unless its `env_passthrough` names them.
    pub key_env_vars: Vec<String>,
    /// Where remote servers' OAuth tokens are kept (`NAME.json`, SPEC §15.2).
    pub auth_dir: std::path::PathBuf,
    /// The session's redaction set: every OAuth token read or written joins it.
    pub secrets: crate::secret::Secrets,
    /// Who answers a server's elicitations (SPEC §15.2): the TUI asks, `exec` declines.
    pub elicitations: super::elicit::Elicitations,
}

impl Default for McpOptions {
    fn default() -> Self {
        McpOptions {
            backoff_initial: Duration::from_millis(500),
            backoff_max: Duration::from_secs(30),
            max_retries: 10,
            healthy_after: HEALTHY_AFTER,
            refresh_interval: REFRESH_INTERVAL,
            connect_timeout: Duration::from_secs(60),
            key_env_vars: Vec::new(),
            auth_dir: super::token_store::default_auth_dir(),
            secrets: crate::secret::Secrets::new(),
            elicitations: super::elicit::Elicitations::default(),
        }
    }
}

impl McpOptions {
    /// Defaults, with the backoff overridden by `DEEPTERM_MCP_BACKOFF_MS` and the healthy
    /// time by `DEEPTERM_MCP_HEALTHY_MS` when they parse.
    pub fn from_env() -> Self {
        let mut o = McpOptions::default();
        if let Some(ms) = std::env::var(HEALTHY_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
        {
            o.healthy_after = Duration::from_millis(ms);
        }
        if let Ok(v) = std::env::var(BACKOFF_ENV) {
            let n: Vec<u64> = v.split(',').filter_map(|p| p.trim().parse().ok()).collect();
            if let [initial, max, tries] = n[..] {
                o.backoff_initial = Duration::from_millis(initial);
                o.backoff_max = Duration::from_millis(max.max(initial));
                o.max_retries = u32::try_from(tries).unwrap_or(u32::MAX).max(1);
            }
        }
        o
    }

    /// The delay before reconnect attempt `n` (0-based): initial × 2ⁿ, capped.
    pub fn backoff(&self, n: u32) -> Duration {
        let factor = 1u32.checked_shl(n.min(31)).unwrap_or(u32::MAX);
        self.backoff_initial
            .saturating_mul(factor)
            .min(self.backoff_max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_half_a_second_to_thirty() {
        let o = McpOptions::default();
        let d: Vec<u64> = (0..10).map(|n| o.backoff(n).as_millis() as u64).collect();
        assert_eq!(
            d,
            vec![
                500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000
            ]
        );
        assert_eq!(o.max_retries, 10);
    }
}
