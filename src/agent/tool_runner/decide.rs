//! Deciding a step's calls in call order before any runs: cut-off arguments, a cancel,
//! the approval policy (the acting tools through `ActingPolicy`, every ask preceded by
//! `ApprovalWhy`), and the question put to the user.

use std::collections::HashSet;

use tokio_util::sync::CancellationToken;

use crate::agent::acting_policy::{ActingPolicy, Verdict};
use crate::agent::emitter::Emitter;
use crate::agent::inbox::Inbox;
use crate::agent::protocol::{AgentEvent, ApprovalDecision, Notice, NoticeLevel, TurnPhase};
use crate::i18n::{Arg, Text};
use crate::tools::mcp::annotations::ToolHints;

use super::{ApprovalMode, ToolCall, ToolRunner, denial_text_with_reason};

impl ToolRunner {
    /// Decides each call in order: `Some(error)` is the result of a call that will not
    /// run (arguments cut off by `max_tokens`, cancelled, denied), `None` runs it.
    /// `allowed` holds the session's "always allow" answers and gains new ones.
    pub async fn decide(
        &self,
        calls: &[ToolCall],
        truncated: bool,
        cancel: &CancellationToken,
        allowed: &mut HashSet<String>,
        inbox: &mut Inbox,
        events: &Emitter,
    ) -> Vec<Option<String>> {
        let mut decided = Vec::with_capacity(calls.len());
        for call in calls {
            let name = call.name.as_str();
            let pre_error = if truncated
                && serde_json::from_str::<serde_json::Value>(&call.arguments).is_err()
            {
                Some(
                    "the tool call's arguments were cut off because the reply reached max_tokens; \
                     call the tool again with shorter arguments"
                        .to_string(),
                )
            } else if cancel.is_cancelled() {
                Some("cancelled by the user".to_string())
            } else if let Some(acting) = self
                .acting
                .as_ref()
                .filter(|_| self.registry.is_active(name) && ActingPolicy::is_acting(name))
            {
                self.decide_acting(acting, call, inbox, events).await
            } else if self.registry.is_active(name)
                && self.registry.needs_approval(name)
                && !allowed.contains(name)
            {
                events.emit(self.generic_why(call));
                match self.ask(call, inbox, events).await {
                    ApprovalDecision::Allow => None,
                    ApprovalDecision::AlwaysAllow => {
                        allowed.insert(name.to_string());
                        None
                    }
                    ApprovalDecision::Deny => Some(denial_text_with_reason(
                        name,
                        inbox.take_reason(&call.id).as_deref(),
                    )),
                }
            } else {
                None
            };
            decided.push(pre_error);
        }
        decided
    }

    /// An acting tool's call: the policy runs it, refuses it (saying why, also on
    /// `exec`'s stderr) or asks with a preview of what it would do.
    pub(super) async fn decide_acting(
        &self,
        acting: &ActingPolicy,
        call: &ToolCall,
        inbox: &mut Inbox,
        events: &Emitter,
    ) -> Option<String> {
        match acting.verdict(&call.name, &call.arguments) {
            Verdict::NotActing | Verdict::Run => None,
            // An escalation that needs no card (`--approve all`, or a grant for runs
            // outside the sandbox) runs outside it, like one the user allowed (§14.2).
            Verdict::RunUnsandboxed => {
                acting.allow_unsandboxed(&call.id);
                None
            }
            Verdict::Refuse(reason) => {
                events.emit(call_notice(
                    events,
                    ["approval-refused-call", "approval-refused-call-subagent"],
                    vec![
                        ("tool", Arg::from(call.name.clone())),
                        ("reason", Arg::from(reason.clone())),
                    ],
                ));
                Some(reason)
            }
            Verdict::Ask(boxed) => {
                let (ask, preview) = *boxed;
                events.emit(AgentEvent::ApprovalWhy {
                    call_id: call.id.clone(),
                    why: ask.reason.text(),
                    always: ask.always.text(),
                });
                if let Some(preview) = preview {
                    events.emit(AgentEvent::ApprovalPreview {
                        call_id: call.id.clone(),
                        preview,
                    });
                }
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
                        if call.name == "shell" && !ask.sandboxed {
                            acting.allow_unsandboxed(&call.id);
                        }
                        None
                    }
                    ApprovalDecision::Deny => Some(denial_text_with_reason(
                        &call.name,
                        inbox.take_reason(&call.id).as_deref(),
                    )),
                }
            }
        }
    }

    /// Why a call of a tool with its own approval policy asks: the tool asks, or it hides
    /// a tool of the same name that asks; `a` allows the tool for the
    /// session.
    pub(super) fn generic_why(&self, call: &ToolCall) -> AgentEvent {
        let tool = Arg::from(call.name.clone());
        let why = match self.registry.shadowed_asking(&call.name) {
            Some((kept, hidden)) => Text::new(
                "approval-why-shadowed",
                vec![
                    ("tool", tool.clone()),
                    ("kept", Arg::from(kept.label())),
                    ("hidden", Arg::from(hidden.label())),
                ],
            ),
            None => ToolHints::approval_why(&call.name, self.registry.hints_of(&call.name)),
        };
        AgentEvent::ApprovalWhy {
            call_id: call.id.clone(),
            why,
            always: Some(Text::new("approval-always-tool", vec![("tool", tool)])),
        }
    }

    pub(super) async fn ask(
        &self,
        call: &ToolCall,
        inbox: &mut Inbox,
        events: &Emitter,
    ) -> ApprovalDecision {
        match self.mode {
            ApprovalMode::AllowAll => ApprovalDecision::Allow,
            ApprovalMode::DenyAll => {
                // Headless without `--approve all`: say which call was refused, or the
                // user only sees the model's reaction to a denial it never asked for.
                events.emit(call_notice(
                    events,
                    ["exec-tool-denied", "exec-tool-denied-subagent"],
                    vec![("tool", Arg::from(call.name.clone()))],
                ));
                ApprovalDecision::Deny
            }
            ApprovalMode::Interactive => {
                // Waiting for the user is its own phase: the status line pauses the clock.
                events.emit(AgentEvent::Phase(TurnPhase::AwaitingApproval));
                events.emit(AgentEvent::ApprovalRequest {
                    call_id: call.id.clone(),
                    tool: call.name.clone(),
                    arguments: call.arguments.clone(),
                });
                let d = inbox.approval(&call.id).await;
                events.emit(AgentEvent::Phase(TurnPhase::RunningTools));
                d
            }
        }
    }
}

/// A warning that a call will not run: `keys[0]` for the parent's call; a subagent's call
/// (`inherit`, SPEC §15.3) is named like its question would be, `keys[1]` with the
/// subagent's `agent` id and `task` `description`, so `exec`'s stderr and its `--json`
/// notice say whose call it was.
fn call_notice(events: &Emitter, keys: [&str; 2], mut args: Vec<(&str, Arg)>) -> Notice {
    match events.asker() {
        Some((agent, description)) => {
            args.push(("agent", Arg::from(agent.to_string())));
            args.push(("description", Arg::from(description.to_string())));
            Notice::new(NoticeLevel::Warn, keys[1], args)
        }
        None => Notice::new(NoticeLevel::Warn, keys[0], args),
    }
}
