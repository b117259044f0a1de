//! Localized text for approval cards and `/permissions`: why a card asks, what `a` does on
//! it, and how a grant or a rule reads in a list. The UI renders these; the model never
//! sees them (its refusals are the English [`super::Refusal::reason`]).

use super::decide::{AlwaysOffer, AskReason};
use super::grants::Grant;
use super::rules::{Rule, RuleDecision, RuleOrigin};
use crate::i18n::{Localizer, Text};

impl AskReason {
    /// Why the card asks, as a message the UI renders in its language.
    pub fn text(&self) -> Text {
        let rule_args = |r: &Rule| {
            vec![
                ("prefix", r.prefix.join(" ").into()),
                ("file", r.file.display().to_string().into()),
            ]
        };
        match self {
            AskReason::Untrusted => Text::new("approval-reason-untrusted", vec![]),
            AskReason::Escalation => Text::new("approval-reason-escalation", vec![]),
            AskReason::EscalationPastAllowRule => {
                Text::new("approval-why-escalation-past-rule", vec![])
            }
            AskReason::FullAccess => Text::new("approval-reason-full-access", vec![]),
            AskReason::PromptRule(r) => Text::new("approval-reason-prompt-rule", rule_args(r)),
            AskReason::MaybeForbidden(r) => {
                Text::new("approval-reason-maybe-forbidden", rule_args(r))
            }
            AskReason::Unparseable => Text::new("approval-reason-unparseable", vec![]),
            AskReason::SandboxDenied => Text::new("approval-reason-sandbox-denied", vec![]),
        }
    }

    /// One line saying why the card asks.
    pub fn localized(&self, l: Localizer) -> String {
        l.text(&self.text())
    }
}

impl AlwaysOffer {
    /// What `a` does, exactly (the card and the key bar both say it); `None` when the
    /// card offers no `a`.
    pub fn text(&self) -> Option<Text> {
        if let Some(prefix) = &self.save_prefix {
            return Some(Text::new(
                "approval-always-save",
                vec![("prefix", prefix.join(" ").into())],
            ));
        }
        self.grant.as_ref().map(grant_message)
    }

    /// What `a` does, for the card's key help; `None` when it does nothing.
    pub fn localized(&self, l: Localizer) -> Option<String> {
        self.text().map(|t| l.text(&t))
    }
}

/// A session grant as a message ([`grant_text`]).
fn grant_message(grant: &Grant) -> Text {
    match grant {
        Grant::Edits { unconfined: false } => Text::new("approval-grant-edits", vec![]),
        Grant::Edits { unconfined: true } => Text::new("approval-grant-edits-anywhere", vec![]),
        Grant::Prefix {
            prefix,
            unsandboxed,
        } => Text::new(
            if *unsandboxed {
                "approval-grant-prefix-unsandboxed"
            } else {
                "approval-grant-prefix"
            },
            vec![("prefix", prefix.join(" ").into())],
        ),
        Grant::Exact {
            command,
            unsandboxed,
        } => Text::new(
            if *unsandboxed {
                "approval-grant-exact-unsandboxed"
            } else {
                "approval-grant-exact"
            },
            vec![("command", command.into())],
        ),
    }
}

/// A session grant as `/permissions` lists it (and as `a` describes it).
pub fn grant_text(grant: &Grant, l: Localizer) -> String {
    l.text(&grant_message(grant))
}

/// A saved rule as `/permissions` lists it: decision, prefix and where it comes from.
pub fn rule_text(rule: &Rule, l: Localizer) -> String {
    let decision = match rule.decision {
        RuleDecision::Allow => l.tr("approval-rule-allow"),
        RuleDecision::Prompt => l.tr("approval-rule-prompt"),
        RuleDecision::Forbidden => l.tr("approval-rule-forbidden"),
    };
    let origin = match rule.origin {
        RuleOrigin::User => "approval-rule-user",
        RuleOrigin::Project => "approval-rule-project",
    };
    l.tra(
        origin,
        &[
            ("decision", decision.into()),
            ("prefix", rule.prefix.join(" ").into()),
            ("file", rule.file.display().to_string().into()),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Locale;
    use std::path::PathBuf;

    #[test]
    fn card_and_permission_texts_exist_in_both_locales() {
        let rule = Rule {
            prefix: vec!["git".into(), "push".into()],
            decision: RuleDecision::Prompt,
            origin: RuleOrigin::Project,
            file: PathBuf::from("/ws/.deepterm/rules.toml"),
            index: 0,
        };
        for locale in Locale::ALL {
            let l = Localizer::new(locale);
            let reasons = [
                AskReason::Untrusted,
                AskReason::Escalation,
                AskReason::EscalationPastAllowRule,
                AskReason::FullAccess,
                AskReason::PromptRule(rule.clone()),
                AskReason::MaybeForbidden(rule.clone()),
                AskReason::Unparseable,
                AskReason::SandboxDenied,
            ];
            for r in reasons {
                let t = r.localized(l);
                assert!(!t.starts_with("approval-"), "{locale:?}: {t}");
            }
            assert!(rule_text(&rule, l).contains("git push"));
            let grants = [
                Grant::Edits { unconfined: false },
                Grant::Edits { unconfined: true },
                Grant::Prefix {
                    prefix: vec!["make".into()],
                    unsandboxed: true,
                },
                Grant::Prefix {
                    prefix: vec!["make".into()],
                    unsandboxed: false,
                },
                Grant::Exact {
                    command: "a && b".into(),
                    unsandboxed: false,
                },
                Grant::Exact {
                    command: "a && b".into(),
                    unsandboxed: true,
                },
            ];
            for g in grants {
                assert!(!grant_text(&g, l).starts_with("approval-"));
            }
            let save = AlwaysOffer {
                save_prefix: Some(vec!["cargo".into(), "test".into()]),
                grant: None,
            };
            assert!(save.localized(l).unwrap().contains("cargo test"));
            assert_eq!(AlwaysOffer::default().localized(l), None);
            for d in [RuleDecision::Allow, RuleDecision::Forbidden] {
                let user = Rule {
                    decision: d,
                    origin: RuleOrigin::User,
                    ..rule.clone()
                };
                assert!(!rule_text(&user, l).starts_with("approval-"));
            }
        }
    }
}
