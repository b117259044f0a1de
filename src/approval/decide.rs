//! The decision for one `shell` call or edit (§14.2): run without asking, ask the user, or
//! refuse with a reason the model reads. A pure function of the policy, the sandbox mode,
//! the rules, this session's grants and the call, so every combination is testable.

use super::ApprovalPolicy;
use super::grants::{Grant, SessionGrants};
use super::prefix::{suggested_prefix, suggested_prefix_argv};
use super::rules::{PromptCause, Rule, RuleOrigin, RuleSet, Verdict};
use super::split::{Split, split_argv, split_command};
use crate::sandbox::SandboxMode;

/// Everything a decision depends on besides the call.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The approval policy in force.
    pub policy: ApprovalPolicy,
    /// The current sandbox mode.
    pub mode: SandboxMode,
    /// The rules in force.
    pub rules: &'a RuleSet,
    /// This session's grants.
    pub grants: &'a SessionGrants,
    /// `exec --approve all`: every ask is answered yes (a `forbidden` rule still refuses).
    pub approve_all: bool,
    /// Someone can answer an ask (the TUI); `false` in `exec`, where an ask that
    /// `approve_all` does not answer becomes a refusal.
    pub can_ask: bool,
}

/// A `shell` call's command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellCommand<'a> {
    /// A string run by `bash -c`.
    Script(&'a str),
    /// An argv array, run without a shell.
    Argv(&'a [String]),
}

impl ShellCommand<'_> {
    /// Split into simple commands.
    pub fn split(&self) -> Split {
        match self {
            ShellCommand::Script(s) => split_command(s),
            ShellCommand::Argv(a) => split_argv(a),
        }
    }

    /// The text shown on a card and kept by an exact grant: argv words are quoted as a
    /// shell would need them, so `["ls", "a b"]` reads (and is granted) as `ls 'a b'`,
    /// never as the two-argument `ls a b`.
    pub fn display(&self) -> String {
        match self {
            ShellCommand::Script(s) => s.to_string(),
            ShellCommand::Argv(a) => {
                shlex::try_join(a.iter().map(String::as_str)).unwrap_or_else(|_| format!("{a:?}"))
            }
        }
    }

    /// The prefix `a` would save ([`suggested_prefix`]).
    pub fn suggested_prefix(&self) -> Option<Vec<String>> {
        match self {
            ShellCommand::Script(s) => suggested_prefix(s),
            ShellCommand::Argv(a) => suggested_prefix_argv(a),
        }
    }
}

/// A call that needs a decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call<'a> {
    /// The `shell` tool.
    Shell {
        /// The command.
        command: ShellCommand<'a>,
        /// `escalate = true`: asks to run outside the sandbox.
        escalate: bool,
        /// Why, as the model put it (shown on the card).
        justification: Option<&'a str>,
    },
    /// `apply_patch`, `edit_file` or `write_file`.
    Edit {
        /// The tool's name.
        tool: &'a str,
        /// Every target (symlinks resolved) lies inside a writable root and outside the
        /// protected paths, as [`crate::sandbox::WriteScope::check`] says.
        inside_writable_roots: bool,
    },
}

/// Why a card asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskReason {
    /// The policy is `untrusted` and no rule allows the call.
    Untrusted,
    /// `escalate = true`: it would run outside the sandbox.
    Escalation,
    /// `escalate = true` for a command an allow rule lets run without asking, but only
    /// inside the sandbox (§15.5): running it outside asks each time.
    EscalationPastAllowRule,
    /// The sandbox mode is `full-access`: every call asks.
    FullAccess,
    /// A `prompt` rule matches.
    PromptRule(Rule),
    /// A `forbidden` rule might match once a word known only at run time is expanded.
    MaybeForbidden(Rule),
    /// The command string could not be parsed.
    Unparseable,
    /// The sandboxed run failed because the sandbox denied something; asks to run it
    /// again outside ([`rerun_offer`]).
    SandboxDenied,
}

/// What `a` ("always") does on a card.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AlwaysOffer {
    /// Save an allow rule with this prefix to the user's `rules.toml` (shown on the card).
    pub save_prefix: Option<Vec<String>>,
    /// Add this grant for the rest of the session.
    pub grant: Option<Grant>,
}

impl AlwaysOffer {
    /// Whether `a` does anything (a card for a `prompt` rule has no "always").
    pub fn is_available(&self) -> bool {
        self.save_prefix.is_some() || self.grant.is_some()
    }
}

/// An approval card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ask {
    /// Why it asks.
    pub reason: AskReason,
    /// The model's justification of an escalation.
    pub justification: Option<String>,
    /// Whether the call, once allowed, runs inside the sandbox (`false`: escalation,
    /// re-run after a denial, `full-access`). For an edit: confined to the writable roots.
    pub sandboxed: bool,
    /// What `a` does.
    pub always: AlwaysOffer,
}

/// Why a call is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalKind {
    /// A `forbidden` rule matched.
    Forbidden,
    /// `escalate = true` under the `never` policy.
    EscalationUnderNever,
    /// It needs an answer and nobody can give one (`never`, or `exec` without
    /// `--approve all`).
    NeedsApproval,
}

/// A refusal: the call does not run and `reason` is its tool error (English, §5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Which case.
    pub kind: RefusalKind,
    /// The model-facing text.
    pub reason: String,
}

/// The decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run without asking; `sandboxed: false` only in `full-access` or when `--approve
    /// all` answered an escalation. For an edit, `sandboxed` means confined to the write
    /// scope, whose own check still refuses a target outside it.
    Run {
        /// Inside the sandbox.
        sandboxed: bool,
    },
    /// Show a card.
    Ask(Ask),
    /// Do not run.
    Refuse(Refusal),
}

fn origin_text(rule: &Rule) -> &'static str {
    match rule.origin {
        RuleOrigin::User => "the user's rules.toml",
        RuleOrigin::Project => "the project's .deepterm/rules.toml",
    }
}

/// English, for a refusal: why the call needed an answer.
fn why(reason: &AskReason) -> String {
    match reason {
        AskReason::Untrusted => "the approval policy is \"untrusted\"".into(),
        AskReason::Escalation | AskReason::EscalationPastAllowRule | AskReason::SandboxDenied => {
            "it would run outside the sandbox".into()
        }
        AskReason::FullAccess => "the sandbox mode is full-access".into(),
        AskReason::PromptRule(r) => format!(
            "a rule in {} asks before running \"{}\"",
            origin_text(r),
            r.prefix.join(" ")
        ),
        AskReason::MaybeForbidden(r) => format!(
            "a rule in {} forbids \"{}\" and a word of the command is only known when it runs",
            origin_text(r),
            r.prefix.join(" ")
        ),
        AskReason::Unparseable => "the command could not be parsed into simple commands".into(),
    }
}

/// An ask, unless nobody can answer it or `--approve all` already has.
fn ask(ctx: &Context<'_>, card: Ask) -> Decision {
    if ctx.policy == ApprovalPolicy::Never {
        return Decision::Refuse(Refusal {
            kind: RefusalKind::NeedsApproval,
            reason: format!(
                "refused: this call needs the user's approval ({}), and the approval policy is \
                 \"never\", which never asks",
                why(&card.reason)
            ),
        });
    }
    if ctx.approve_all {
        return Decision::Run {
            sandboxed: card.sandboxed,
        };
    }
    if !ctx.can_ask {
        return Decision::Refuse(Refusal {
            kind: RefusalKind::NeedsApproval,
            reason: format!(
                "refused: this call needs the user's approval ({}), and this run cannot ask \
                 (it was started without --approve all)",
                why(&card.reason)
            ),
        });
    }
    Decision::Ask(card)
}

/// What `a` on a shell card does, one thing, said exactly on the card and in the key bar
/// (§15.5): on a card for a sandboxed run, save an allow rule for the
/// card's prefix to `rules.toml` (it covers sandboxed runs, in later sessions too); on a
/// card for a run outside the sandbox, which no saved rule covers, grant the prefix
/// outside the sandbox for this session only. Without a prefix, the exact command is
/// granted for the session.
fn shell_always(command: &ShellCommand<'_>, unsandboxed: bool) -> AlwaysOffer {
    match command.suggested_prefix() {
        Some(prefix) if unsandboxed => AlwaysOffer {
            save_prefix: None,
            grant: Some(Grant::Prefix {
                prefix,
                unsandboxed: true,
            }),
        },
        Some(prefix) => AlwaysOffer {
            save_prefix: Some(prefix),
            grant: None,
        },
        None => AlwaysOffer {
            save_prefix: None,
            grant: Some(Grant::Exact {
                command: command.display(),
                unsandboxed,
            }),
        },
    }
}

/// Decides one call (§14.2):
/// - a `forbidden` rule refuses under every policy, `--approve all` included;
/// - a `prompt` rule, a possible `forbidden` match and an unparseable string ask under
///   every policy (`never` refuses instead), and no allow rule or grant outweighs them;
/// - `full-access` asks for every call except under `never` (a grant given for runs outside
///   the sandbox still counts; an allow rule does not);
/// - `untrusted` asks for every call no rule or grant allows; `on-request` runs sandboxed
///   calls and in-root edits and asks for an escalation; `never` runs them and refuses an
///   escalation.
///
/// Allow rules cover sandboxed runs only: an escalation asks even for an allowed command.
pub fn decide(ctx: &Context<'_>, call: &Call<'_>) -> Decision {
    match *call {
        Call::Shell {
            command,
            escalate,
            justification,
        } => decide_shell(ctx, command, escalate, justification),
        Call::Edit {
            inside_writable_roots,
            ..
        } => decide_edit(ctx, inside_writable_roots),
    }
}

fn decide_shell(
    ctx: &Context<'_>,
    command: ShellCommand<'_>,
    escalate: bool,
    justification: Option<&str>,
) -> Decision {
    let full_access = ctx.mode == SandboxMode::FullAccess;
    let unsandboxed = escalate || full_access;
    let split = command.split();
    let granted = ctx.grants.prefixes(unsandboxed);
    let verdict = if unsandboxed {
        // Allow rules say "without asking, in the sandbox"; only a grant for unsandboxed
        // runs lets one run outside without asking.
        let no_allow = RuleSet {
            rules: ctx
                .rules
                .rules
                .iter()
                .filter(|r| r.decision != super::rules::RuleDecision::Allow)
                .cloned()
                .collect(),
        };
        no_allow.evaluate(&split, &granted)
    } else {
        ctx.rules.evaluate(&split, &granted)
    };
    let exact = ctx.grants.exact(&command.display(), unsandboxed);
    let card = |reason: AskReason, always: AlwaysOffer| Ask {
        reason,
        justification: justification.map(str::to_string),
        sandboxed: !unsandboxed,
        always,
    };
    match verdict {
        Verdict::Forbidden { rule, command } => Decision::Refuse(Refusal {
            kind: RefusalKind::Forbidden,
            reason: format!(
                "refused: \"{}\" is forbidden by a rule in {} (prefix \"{}\"); do not retry it \
                 or try to reach the same effect another way",
                command.join(" "),
                origin_text(&rule),
                rule.prefix.join(" ")
            ),
        }),
        Verdict::Prompt(cause) => {
            let reason = match cause {
                PromptCause::Rule(r) => AskReason::PromptRule(r),
                PromptCause::MaybeForbidden(r) => AskReason::MaybeForbidden(r),
                PromptCause::Unparseable => AskReason::Unparseable,
            };
            ask(ctx, card(reason, AlwaysOffer::default()))
        }
        Verdict::Allowed => Decision::Run {
            sandboxed: !unsandboxed,
        },
        Verdict::Unmatched if exact => Decision::Run {
            sandboxed: !unsandboxed,
        },
        Verdict::Unmatched => match ctx.policy {
            ApprovalPolicy::Never if escalate && !full_access => Decision::Refuse(Refusal {
                kind: RefusalKind::EscalationUnderNever,
                reason: "refused: the approval policy is \"never\", so a command cannot run \
                         outside the sandbox; run it without escalate, or tell the user what \
                         it needs and why"
                    .into(),
            }),
            ApprovalPolicy::Never => Decision::Run {
                sandboxed: !full_access,
            },
            _ if full_access => ask(
                ctx,
                card(AskReason::FullAccess, shell_always(&command, true)),
            ),
            _ if escalate => {
                // Said on the card: the user's allow rule covers this command in the
                // sandbox only, which is why it asks although the rule matches.
                let allowed_inside = ctx.rules.evaluate(&split, &[]) == Verdict::Allowed;
                let reason = if allowed_inside {
                    AskReason::EscalationPastAllowRule
                } else {
                    AskReason::Escalation
                };
                ask(ctx, card(reason, shell_always(&command, true)))
            }
            ApprovalPolicy::Untrusted => ask(
                ctx,
                card(AskReason::Untrusted, shell_always(&command, false)),
            ),
            ApprovalPolicy::OnRequest => Decision::Run { sandboxed: true },
        },
    }
}

fn decide_edit(ctx: &Context<'_>, inside_writable_roots: bool) -> Decision {
    let full_access = ctx.mode == SandboxMode::FullAccess;
    if ctx.policy == ApprovalPolicy::Never {
        return Decision::Run {
            sandboxed: !full_access,
        };
    }
    if full_access {
        if ctx.grants.edits(true) {
            return Decision::Run { sandboxed: false };
        }
        return ask(
            ctx,
            Ask {
                reason: AskReason::FullAccess,
                justification: None,
                sandboxed: false,
                always: AlwaysOffer {
                    save_prefix: None,
                    grant: Some(Grant::Edits { unconfined: true }),
                },
            },
        );
    }
    // In read-only, or for a target outside the roots, the edit tool's own scope check
    // refuses with the mode or the path: asking first would only ask about a refusal.
    if ctx.mode == SandboxMode::ReadOnly || !inside_writable_roots {
        return Decision::Run { sandboxed: true };
    }
    match ctx.policy {
        ApprovalPolicy::Untrusted if !ctx.grants.edits(false) => ask(
            ctx,
            Ask {
                reason: AskReason::Untrusted,
                justification: None,
                sandboxed: true,
                always: AlwaysOffer {
                    save_prefix: None,
                    grant: Some(Grant::Edits { unconfined: false }),
                },
            },
        ),
        _ => Decision::Run { sandboxed: true },
    }
}

/// Whether a sandboxed call that failed because the sandbox denied it may be offered a
/// re-run outside the sandbox (§14.2, `on-request`): not under `never`, not in
/// `full-access` (it was not sandboxed), not when nobody can answer, and not under
/// `--approve all`, where the sandbox is the only check left.
pub fn may_offer_unsandboxed_rerun(ctx: &Context<'_>) -> bool {
    ctx.policy != ApprovalPolicy::Never
        && ctx.mode != SandboxMode::FullAccess
        && ctx.can_ask
        && !ctx.approve_all
}

/// The card offering that re-run, or `None` when [`may_offer_unsandboxed_rerun`] says no
/// or the call is not a `shell` call. A `forbidden` rule never reaches here: the first
/// decision refused the call.
pub fn rerun_offer(ctx: &Context<'_>, call: &Call<'_>) -> Option<Ask> {
    let Call::Shell {
        command,
        justification,
        ..
    } = *call
    else {
        return None;
    };
    may_offer_unsandboxed_rerun(ctx).then(|| Ask {
        reason: AskReason::SandboxDenied,
        justification: justification.map(str::to_string),
        sandboxed: false,
        always: shell_always(&command, true),
    })
}
