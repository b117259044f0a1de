//! What a hook run says, made from its logged `hook/run` event (decision 0105): the
//! notice of a prompt, stop or session-start hook, and `exec`'s line for a tool hook,
//! whose run the TUI shows inside the call's tool card instead.

use crate::agent::protocol::{Notice, NoticeLevel};
use crate::i18n::{Arg, Text};
use crate::session::hook_event::{HookRunData, HookRunOutcome};

use super::{cut, shown};

/// Stderr shown in one notice at most (the log keeps what was read).
const NOTICE_STDERR_CHARS: usize = 1000;

/// A hook's stderr or reason as a notice argument ("no reason given" when empty).
pub(crate) fn reason_arg(r: &str) -> Arg {
    match r.trim() {
        "" => Arg::from(Text::new("hook-no-reason", vec![])),
        r => Arg::from(cut(r, NOTICE_STDERR_CHARS)),
    }
}

/// The notice of one logged hook run.
pub fn run_notice(d: &HookRunData) -> Notice {
    let event = Arg::from(d.event.clone());
    let command = Arg::from(shown(&d.command));
    let (level, key, args) = match d.outcome {
        HookRunOutcome::Blocked => {
            let key = match d.event.as_str() {
                "pre_tool_use" => "hook-blocked-tool",
                "user_prompt_submit" => "hook-blocked-prompt",
                "post_tool_use" => "hook-feedback",
                _ => "hook-said",
            };
            let reason = d.reason.as_deref().unwrap_or(&d.stderr);
            (
                NoticeLevel::Warn,
                key,
                vec![
                    ("event", event),
                    ("command", command),
                    ("tool", Arg::from(d.tool_name.clone().unwrap_or_default())),
                    ("reason", reason_arg(reason)),
                ],
            )
        }
        HookRunOutcome::Continued => (
            NoticeLevel::Info,
            "hook-ran",
            vec![
                ("event", event),
                ("command", command),
                ("ms", Arg::from(d.duration_ms)),
            ],
        ),
        HookRunOutcome::Failed => match d.exit_code {
            Some(code) => (
                NoticeLevel::Warn,
                "hook-failed",
                vec![
                    ("event", event),
                    ("command", command),
                    ("code", Arg::from(i64::from(code))),
                    ("stderr", reason_arg(&d.stderr)),
                ],
            ),
            None => (
                NoticeLevel::Warn,
                "hook-signal",
                vec![("event", event), ("command", command)],
            ),
        },
        HookRunOutcome::TimedOut => (
            NoticeLevel::Warn,
            "hook-timed-out",
            vec![
                ("event", event),
                ("command", command),
                ("secs", Arg::from(timeout_secs(d))),
            ],
        ),
        HookRunOutcome::Cancelled => (
            NoticeLevel::Warn,
            "hook-cancelled",
            vec![("event", event), ("command", command)],
        ),
        HookRunOutcome::NotStarted => (
            NoticeLevel::Warn,
            "hook-not-started",
            vec![
                ("event", event),
                ("command", command),
                ("error", Arg::from(d.stderr.clone())),
            ],
        ),
    };
    Notice::new(level, key, args)
}

/// The timeout a run was cut at: logged, or (a log from before it was) how long it ran.
pub fn timeout_secs(d: &HookRunData) -> u64 {
    d.timeout_secs.unwrap_or(d.duration_ms / 1000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Locale, Localizer};

    fn run(event: &str, outcome: HookRunOutcome) -> HookRunData {
        HookRunData {
            event: event.into(),
            command: vec!["./check.sh".into(), "--strict".into()],
            turn: Some(1),
            tool_call_id: Some("c1".into()),
            tool_name: Some("shell".into()),
            outcome,
            exit_code: Some(2),
            duration_ms: 1042,
            stderr: "stderr text".into(),
            reason: None,
            timeout_secs: None,
        }
    }

    fn said(d: &HookRunData) -> String {
        let n = run_notice(d);
        Localizer::new(Locale::EnUs).tra_owned(&n.key, &n.args)
    }

    #[test]
    fn a_logged_block_says_its_reason_and_the_tool() {
        let mut d = run("pre_tool_use", HookRunOutcome::Blocked);
        assert_eq!(
            said(&d),
            "Hook pre_tool_use (./check.sh --strict) blocked shell: stderr text"
        );
        // A JSON decision's reason wins over whatever stderr held.
        d.reason = Some("no rm".into());
        assert!(said(&d).ends_with("blocked shell: no rm"), "{}", said(&d));
    }

    #[test]
    fn a_logged_timeout_names_the_timeout_or_else_how_long_it_ran() {
        let mut d = run("stop", HookRunOutcome::TimedOut);
        d.exit_code = None;
        assert!(said(&d).contains("within 1 s"), "{}", said(&d));
        d.timeout_secs = Some(30);
        assert!(said(&d).contains("within 30 s"), "{}", said(&d));
    }

    #[test]
    fn a_failure_without_an_exit_code_was_a_signal() {
        let mut d = run("stop", HookRunOutcome::Failed);
        d.exit_code = None;
        assert!(said(&d).contains("killed by a signal"), "{}", said(&d));
        d.exit_code = Some(7);
        assert!(said(&d).contains("status 7"), "{}", said(&d));
    }
}
