//! What a `tool/result` of `shell` records when the sandbox seemed to refuse the command
//! and the user was asked to run it again outside (SPEC §15.5): the sandboxed attempt's
//! status and output, and the answer. The card is folded from it, so it reads the same
//! live and after `--resume` (decision 0115). Additive: a result without it loads as
//! before, and nothing of it is sent to the model (the result's message says it in words).

use serde::{Deserialize, Serialize};

/// Most characters of the sandboxed attempt's output kept for the card (its tail: the
/// error that made the sandbox look guilty is usually last).
pub const ATTEMPT_OUTPUT_CHARS: usize = 2000;

/// The sandboxed attempt of a `shell` call: shown with the question, kept in the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxAttempt {
    /// Its status line (`exit status 128`).
    pub status: String,
    /// Its output (without the sandbox note), capped to [`ATTEMPT_OUTPUT_CHARS`].
    pub output: String,
}

/// The sandboxed attempt and what the user answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxRetry {
    /// The sandboxed attempt.
    pub attempt: SandboxAttempt,
    /// What the user answered.
    pub answer: RetryAnswer,
}

/// The user's answer to "run it again outside the sandbox?".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum RetryAnswer {
    /// Allowed: the result's message is the unsandboxed run's.
    RanUnsandboxed,
    /// Denied, with the reason the user typed, if any: the result's message is the
    /// sandboxed attempt's, with the denial and the reason.
    Denied {
        /// The user's reason.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}

impl SandboxAttempt {
    /// The attempt of a `shell` result text (`exit status N`, `duration: …`, `output:`,
    /// the output, then the sandbox's note starting with `note`), its output capped.
    pub fn of(result: &str, note: &str) -> SandboxAttempt {
        let body = result.split(note).next().unwrap_or(result);
        let mut lines = body.lines();
        let status = lines.next().unwrap_or_default().to_string();
        let rest: Vec<&str> = lines.collect();
        let output = match rest.iter().position(|l| *l == "output:") {
            Some(i) => rest[i + 1..].join("\n"),
            None => rest.join("\n"),
        };
        SandboxAttempt {
            status,
            output: tail_chars(&output, ATTEMPT_OUTPUT_CHARS),
        }
    }
}

/// The last `max` characters of `s`, after a `…` line when something was cut.
fn tail_chars(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let tail: String = s.chars().skip(n - max).collect();
    let from_line = tail.find('\n').map_or(tail.as_str(), |i| &tail[i + 1..]);
    format!("…\n{from_line}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_attempt_keeps_the_status_and_the_capped_output_without_the_sandbox_note() {
        let long: String = (0..500).map(|i| format!("line {i}\n")).collect();
        let result = format!(
            "exit status 128\nduration: 0.004 s\noutput:\n{long}fatal: Read-only file system\n\
             [the sandbox (workspace-write, network off) may have refused this]"
        );
        let a = SandboxAttempt::of(&result, "\n[the sandbox (");
        assert_eq!(a.status, "exit status 128");
        assert!(
            a.output.ends_with("fatal: Read-only file system"),
            "{}",
            a.output
        );
        assert!(a.output.starts_with("…\nline "), "{}", &a.output[..20]);
        assert!(a.output.chars().count() <= ATTEMPT_OUTPUT_CHARS + 2);
        assert!(!a.output.contains("may have refused"));
        // The log keeps it with the answer.
        let denied = SandboxRetry {
            attempt: a,
            answer: RetryAnswer::Denied {
                reason: Some("not now".into()),
            },
        };
        let json = serde_json::to_string(&denied).unwrap();
        assert!(json.contains(r#""kind":"denied""#), "{json}");
        assert_eq!(serde_json::from_str::<SandboxRetry>(&json).unwrap(), denied);
    }
}
