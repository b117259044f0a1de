//! One session's approvals: the policy, the rules, the grants, and the operations the tool
//! runner (decide), the approval card (`a`) and `/permissions` (list, revoke) need.

use std::path::{Path, PathBuf};

use super::PolicySetup;
use super::decide::{AlwaysOffer, Ask, Call, Context, Decision, decide, rerun_offer};
use super::error::{RulesError, RulesWarning};
use super::grants::{Grant, GrantId, SessionGrants};
use super::rules::{Rule, RuleOrigin, RuleSet, load_rules};
use super::store::{revoke_rule, save_allow_rule};
use crate::sandbox::SandboxMode;

/// A saved rule as `/permissions` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleEntry {
    /// The rule (its file and index included).
    pub rule: Rule,
    /// Only the user's own rules can be revoked; a project's rules are the project's.
    pub revocable: bool,
}

/// What `/permissions` lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permissions {
    /// The policy in force.
    pub setup: PolicySetup,
    /// The user's rules file (where `a` saves), if there is a config directory.
    pub user_file: Option<PathBuf>,
    /// Saved rules, the user's first, each in file order.
    pub rules: Vec<RuleEntry>,
    /// This session's grants.
    pub grants: Vec<(GrantId, Grant)>,
}

/// What an "always" answer did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AlwaysSaved {
    /// The rule saved: file and index.
    pub saved: Option<(PathBuf, usize)>,
    /// The session grant added.
    pub grant: Option<GrantId>,
    /// Saving failed (the grant then covers this session, so nothing is lost): show it.
    pub save_error: Option<RulesError>,
}

/// One session's approvals.
#[derive(Debug, Clone)]
pub struct Approvals {
    setup: PolicySetup,
    rules: RuleSet,
    grants: SessionGrants,
    user_file: Option<PathBuf>,
    workspace: Option<PathBuf>,
}

impl Approvals {
    /// Loads the user's rules file (`user_file`, normally [`super::user_rules_path`]) and
    /// the workspace's `.deepterm/rules.toml`. An unusable file is an error naming it.
    pub fn load(
        setup: PolicySetup,
        user_file: Option<PathBuf>,
        workspace: Option<PathBuf>,
    ) -> Result<(Approvals, Vec<RulesWarning>), RulesError> {
        let (rules, warnings) = load_rules(user_file.as_deref(), workspace.as_deref())?;
        Ok((
            Approvals {
                setup,
                rules,
                grants: SessionGrants::new(),
                user_file,
                workspace,
            },
            warnings,
        ))
    }

    /// Approvals over rules already loaded (no files: `a` grants for the session only).
    pub fn with_rules(setup: PolicySetup, rules: RuleSet) -> Approvals {
        Approvals {
            setup,
            rules,
            grants: SessionGrants::new(),
            user_file: None,
            workspace: None,
        }
    }

    /// The policy in force.
    pub fn setup(&self) -> PolicySetup {
        self.setup
    }

    /// The rules in force.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// This session's grants.
    pub fn grants(&self) -> &SessionGrants {
        &self.grants
    }

    /// The decision context for `mode`.
    pub fn context(&self, mode: SandboxMode) -> Context<'_> {
        Context {
            policy: self.setup.policy,
            mode,
            rules: &self.rules,
            grants: &self.grants,
            approve_all: self.setup.approve_all,
            can_ask: self.setup.can_ask,
        }
    }

    /// The decision for `call` in `mode` ([`decide`]).
    pub fn decide(&self, mode: SandboxMode, call: &Call<'_>) -> Decision {
        decide(&self.context(mode), call)
    }

    /// The card offering an unsandboxed re-run after a sandbox denial ([`rerun_offer`]).
    pub fn rerun_offer(&self, mode: SandboxMode, call: &Call<'_>) -> Option<Ask> {
        rerun_offer(&self.context(mode), call)
    }

    /// Carries out `a` on a card: saves the prefix to the user's rules file (then reloads
    /// the rules) and adds the grant. When there is no user file, or saving fails, the
    /// prefix is granted for this session instead and the failure is returned to show.
    pub fn always(&mut self, offer: &AlwaysOffer) -> AlwaysSaved {
        let mut out = AlwaysSaved::default();
        if let Some(prefix) = &offer.save_prefix {
            let saved = match self.user_file.clone() {
                Some(file) => {
                    save_allow_rule(&file, prefix).and_then(|i| self.reload().map(|_| (file, i)))
                }
                None => Err(RulesError::Io {
                    file: PathBuf::from(super::rules::RULES_FILE),
                    detail: "there is no user config directory to save it in".into(),
                }),
            };
            match saved {
                Ok(s) => out.saved = Some(s),
                Err(e) => {
                    out.grant = Some(self.grants.add(Grant::Prefix {
                        prefix: prefix.clone(),
                        unsandboxed: false,
                    }));
                    out.save_error = Some(e);
                }
            }
        }
        if let Some(g) = &offer.grant {
            out.grant = Some(self.grants.add(g.clone()));
        }
        out
    }

    /// Re-reads both rules files.
    pub fn reload(&mut self) -> Result<Vec<RulesWarning>, RulesError> {
        let (rules, warnings) = load_rules(self.user_file.as_deref(), self.workspace.as_deref())?;
        self.rules = rules;
        Ok(warnings)
    }

    /// What `/permissions` lists.
    pub fn permissions(&self) -> Permissions {
        Permissions {
            setup: self.setup,
            user_file: self.user_file.clone(),
            rules: self
                .rules
                .rules
                .iter()
                .map(|r| RuleEntry {
                    rule: r.clone(),
                    revocable: r.origin == RuleOrigin::User
                        && self.user_file.as_deref() == Some(r.file.as_path()),
                })
                .collect(),
            grants: self.grants.list().to_vec(),
        }
    }

    /// Revokes a saved rule of the user's file: removes it from the file (keeping the rest)
    /// and reloads. A project's rule cannot be revoked here.
    pub fn revoke_rule(&mut self, entry: &RuleEntry) -> Result<(), RulesError> {
        let rule = &entry.rule;
        if rule.origin != RuleOrigin::User || self.user_file.as_deref() != Some(rule.file.as_path())
        {
            return Err(RulesError::Changed {
                file: rule.file.clone(),
                index: rule.index,
            });
        }
        revoke_rule(&rule.file, rule.index, &rule.prefix, rule.decision)?;
        self.reload().map(|_| ())
    }

    /// Revokes a session grant; `false` when there is none with that id.
    pub fn revoke_grant(&mut self, id: GrantId) -> bool {
        self.grants.revoke(id)
    }

    /// The user's rules file, if any.
    pub fn user_file(&self) -> Option<&Path> {
        self.user_file.as_deref()
    }
}
