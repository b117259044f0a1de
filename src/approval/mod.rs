//! Approval policies, rules and the decision whether a `shell` call or an edit runs,
//! asks or is refused (SPEC §14.2, decision 0050).
//!
//! - [`split`]: a command string → its simple commands (tree-sitter-bash).
//! - [`rules`]: `rules.toml` (user and project), matching.
//! - [`decide()`]: the decision for one call; [`rerun_offer`] after a sandbox denial.
//! - [`prefix`]: the prefix `a` saves; [`store`]: saving and revoking rules.
//! - [`grants`]: this session's grants; [`Approvals`]: all of it for one session, with
//!   the `/permissions` listing.

pub mod decide;
pub mod error;
pub mod grants;
pub mod prefix;
pub mod rules;
pub mod split;
mod state;
pub mod store;
pub mod text;

#[cfg(test)]
mod rules_tests;

/// `[approval] policy` lives in the bottom vocabulary, so `config` can hold it without
/// depending on this module.
pub use crate::session::vocab::ApprovalPolicy;
pub use decide::{
    AlwaysOffer, Ask, AskReason, Call, Context, Decision, Refusal, RefusalKind, ShellCommand,
    decide, may_offer_unsandboxed_rerun, rerun_offer,
};
pub use error::{Expected, RulesError, RulesWarning};
pub use grants::{Grant, GrantId, SessionGrants};
pub use prefix::{suggested_prefix, suggested_prefix_argv};
pub use rules::{
    Rule, RuleDecision, RuleOrigin, RuleSet, load_rules, project_rules_path, user_rules_path,
};
pub use state::{AlwaysSaved, Approvals, Permissions, RuleEntry};
pub use text::{grant_text, rule_text};

/// How deepterm runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunKind {
    /// The TUI: a person answers cards.
    Tui,
    /// `deepterm exec`; `approve_all` is `--approve all`.
    Exec {
        /// `--approve all`.
        approve_all: bool,
    },
}

/// The policy in force and who answers asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PolicySetup {
    /// The policy.
    pub policy: ApprovalPolicy,
    /// Every ask is answered yes (`exec --approve all`).
    pub approve_all: bool,
    /// A person can answer an ask.
    pub can_ask: bool,
}

/// The policy in force (§14.2): `[approval] policy` when the config sets it, else
/// `on-request` in the TUI and in `exec --approve all`, and `never` in `exec` without it.
/// In `exec` nobody can answer a card: with `--approve all` every ask is answered yes (a
/// `forbidden` rule still refuses); without it an ask becomes a refusal the model reads.
pub fn effective_policy(configured: Option<ApprovalPolicy>, run: RunKind) -> PolicySetup {
    match run {
        RunKind::Tui => PolicySetup {
            policy: configured.unwrap_or(ApprovalPolicy::OnRequest),
            approve_all: false,
            can_ask: true,
        },
        RunKind::Exec { approve_all: true } => PolicySetup {
            policy: configured.unwrap_or(ApprovalPolicy::OnRequest),
            approve_all: true,
            can_ask: false,
        },
        RunKind::Exec { approve_all: false } => PolicySetup {
            policy: configured.unwrap_or(ApprovalPolicy::Never),
            approve_all: false,
            can_ask: false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tui_defaults_to_on_request_and_exec_to_never_unless_approve_all() {
        let tui = effective_policy(None, RunKind::Tui);
        assert_eq!(tui.policy, ApprovalPolicy::OnRequest);
        assert!(tui.can_ask && !tui.approve_all);
        let exec = effective_policy(None, RunKind::Exec { approve_all: false });
        assert_eq!(exec.policy, ApprovalPolicy::Never);
        assert!(!exec.can_ask);
        let all = effective_policy(None, RunKind::Exec { approve_all: true });
        assert_eq!(all.policy, ApprovalPolicy::OnRequest);
        assert!(all.approve_all);
        let configured = effective_policy(Some(ApprovalPolicy::Untrusted), RunKind::Tui);
        assert_eq!(configured.policy, ApprovalPolicy::Untrusted);
    }

    #[test]
    fn the_config_sets_the_policy_and_a_bad_value_names_the_key() {
        use crate::config::Config;
        let c = Config::parse("[approval]\npolicy = \"untrusted\"\n", None).unwrap();
        assert_eq!(c.approval_policy, Some(ApprovalPolicy::Untrusted));
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        assert_eq!(Config::parse("", None).unwrap().approval_policy, None);
        let e = Config::parse("[approval]\npolicy = \"sometimes\"\n", None).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("`approval.policy`") && msg.contains("sometimes"),
            "{msg}"
        );
        assert!(msg.contains("on-request"), "{msg}");
        let e = Config::parse("[approval]\npolicy = 1\n", None).unwrap_err();
        assert!(e.to_string().contains("`approval.policy`"), "{e}");
        let c = Config::parse("[approval]\npolicyy = \"never\"\n", None).unwrap();
        assert_eq!(c.warnings.len(), 1, "an unknown key is a warning");
        let zh = e.localized(crate::i18n::Localizer::new(crate::i18n::Locale::ZhCn));
        assert!(zh.contains("`approval.policy`"), "{zh}");
    }

    #[test]
    fn policy_spellings_round_trip() {
        for p in [
            ApprovalPolicy::Untrusted,
            ApprovalPolicy::OnRequest,
            ApprovalPolicy::Never,
        ] {
            assert_eq!(ApprovalPolicy::parse(p.as_str()), Some(p));
        }
        assert_eq!(ApprovalPolicy::parse("on_request"), None);
    }
}
