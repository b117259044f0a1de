//! What a hook run says, made from its logged `hook/run` event (decision 0105): the
//! notice of a prompt, stop or session-start hook, and `exec`'s line for a tool hook,
//! whose run the TUI shows inside the call's tool card instead.

use crate::agent::protocol::{Notice, NoticeLevel};
use crate::i18n::{Arg, Text};
use crate::session::hook_event::{HookRunData, HookRunSaid};

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
    let event = ("event", Arg::from(d.event.clone()));
    let command = ("command", Arg::from(shown(&d.command)));
    let tool = || ("tool", Arg::from(d.tool_name.clone().unwrap_or_default()));
    let (level, key, args) = match d.said() {
        HookRunSaid::Ok { ms } => (
            NoticeLevel::Info,
            "hook-ran",
            vec![event, command, ("ms", Arg::from(ms))],
        ),
        HookRunSaid::BlockedTool { reason } => (
            NoticeLevel::Warn,
            "hook-blocked-tool",
            vec![event, command, tool(), ("reason", reason_arg(reason))],
        ),
        HookRunSaid::BlockedPrompt { reason } => (
            NoticeLevel::Warn,
            "hook-blocked-prompt",
            vec![event, command, ("reason", reason_arg(reason))],
        ),
        HookRunSaid::ToldModel { reason } => (
            NoticeLevel::Warn,
            "hook-feedback",
            vec![event, command, tool(), ("reason", reason_arg(reason))],
        ),
        HookRunSaid::Said { reason } => (
            NoticeLevel::Warn,
            "hook-said",
            vec![event, command, ("reason", reason_arg(reason))],
        ),
        HookRunSaid::Warning { code } => (
            NoticeLevel::Warn,
            "hook-failed",
            vec![
                event,
                command,
                ("code", Arg::from(i64::from(code))),
                ("stderr", reason_arg(&d.stderr)),
            ],
        ),
        HookRunSaid::Signal => (NoticeLevel::Warn, "hook-signal", vec![event, command]),
        HookRunSaid::TimedOut { secs } => (
            NoticeLevel::Warn,
            "hook-timed-out",
            vec![event, command, ("secs", Arg::from(secs))],
        ),
        HookRunSaid::Cancelled => (NoticeLevel::Warn, "hook-cancelled", vec![event, command]),
        HookRunSaid::NotStarted { error } => (
            NoticeLevel::Warn,
            "hook-not-started",
            vec![event, command, ("error", Arg::from(error))],
        ),
    };
    Notice::new(level, key, args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Locale, Localizer};
    use crate::session::hook_event::HookRunOutcome;

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
