//! The question to run a sandboxed `shell` call again outside the sandbox when its result
//! looks like a sandbox denial (SPEC §14.2, §15.5), and what happened, for the result's
//! `sandboxRetry`.

use tokio_util::sync::CancellationToken;

use crate::agent::emitter::Emitter;
use crate::agent::inbox::Inbox;
use crate::agent::protocol::{AgentEvent, ApprovalDecision, Notice, NoticeLevel};
use crate::i18n::Arg;
use crate::session::retry_event::{RetryAnswer, SandboxAttempt, SandboxRetry};

use super::{ApprovalMode, CallResult, RERUN_NOTE, SANDBOX_DENIAL_NOTE, ToolCall, ToolRunner};

impl ToolRunner {
    /// A sandboxed `shell` call whose result looks like a sandbox denial: asks the user,
    /// showing the sandboxed attempt's status and output, whether to run it again outside
    /// the sandbox (SPEC §14.2, §15.5; `on-request` and `untrusted`). Returns the result
    /// to log and what happened, for the card: the re-run's result when allowed, else the
    /// sandboxed attempt's with the denial and the user's reason, which the model reads.
    pub async fn offer_rerun(
        &self,
        call: &ToolCall,
        result: &CallResult,
        inbox: &mut Inbox,
        events: &Emitter,
        cancel: &CancellationToken,
    ) -> Option<(CallResult, SandboxRetry)> {
        if call.name != "shell" || self.mode != ApprovalMode::Interactive {
            return None;
        }
        let acting = self.acting.as_ref()?;
        if !result.content.contains(SANDBOX_DENIAL_NOTE) {
            return None;
        }
        let attempt = SandboxAttempt::of(&result.content, SANDBOX_DENIAL_NOTE);
        let (ask, preview) = acting.rerun_offer(&call.arguments, attempt.clone())?;
        let sh = acting.shell.clone()?;
        let args = serde_json::from_str(&call.arguments).ok()?;
        let req = sh.parse(&args).ok()?;
        events.emit(AgentEvent::ApprovalWhy {
            call_id: call.id.clone(),
            why: ask.reason.text(),
            always: ask.always.text(),
        });
        events.emit(AgentEvent::ApprovalPreview {
            call_id: call.id.clone(),
            preview,
        });
        let decision = self.ask(call, inbox, events).await;
        if decision == ApprovalDecision::AlwaysAllow
            && let Some(e) = acting.always(&ask)
        {
            events.emit(AgentEvent::Notice(Notice::new(
                NoticeLevel::Warn,
                "approval-always-not-saved",
                vec![("error", Arg::from(format!("{e:?}")))],
            )));
        }
        match decision {
            ApprovalDecision::Allow | ApprovalDecision::AlwaysAllow => {
                let out = sh
                    .run(&req, crate::tools::shell::RunAs::Unsandboxed, cancel)
                    .await
                    .outcome;
                let content = format!(
                    "{}{RERUN_NOTE} after the sandboxed attempt failed ({}); the user allowed \
                     it, and this is that run's result]",
                    out.content, attempt.status
                );
                let retry = SandboxRetry {
                    attempt,
                    answer: RetryAnswer::RanUnsandboxed,
                };
                Some((
                    CallResult {
                        content: self.redact(&content),
                        is_error: out.is_error,
                    },
                    retry,
                ))
            }
            ApprovalDecision::Deny => {
                let reason = inbox
                    .take_reason(&call.id)
                    .map(|r| r.trim().to_string())
                    .filter(|r| !r.is_empty());
                let sandboxed = result
                    .content
                    .split(SANDBOX_DENIAL_NOTE)
                    .next()
                    .unwrap_or_default();
                let mut content = format!(
                    "{sandboxed}\n[the sandbox seems to have refused this command; the user was \
                     asked to run it again outside the sandbox and declined: do not retry it \
                     unless asked"
                );
                if let Some(r) = &reason {
                    content.push_str(&format!(". The user's reason: {r}"));
                }
                content.push(']');
                let retry = SandboxRetry {
                    attempt,
                    answer: RetryAnswer::Denied { reason },
                };
                Some((
                    CallResult {
                        content,
                        is_error: true,
                    },
                    retry,
                ))
            }
        }
    }
}
