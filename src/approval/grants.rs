//! This session's "always" answers that are not saved to `rules.toml` (§14.2): edits for
//! the rest of the session, and `shell` commands that have no prefix worth saving or that
//! run outside the sandbox. Listed and revoked by `/permissions`; gone when the session ends.

/// What one grant lets run without asking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grant {
    /// Edits. `unconfined`: granted in `full-access`, so it also covers edits there;
    /// a grant given while edits were confined to the writable roots does not.
    Edits {
        /// Covers `full-access` edits too.
        unconfined: bool,
    },
    /// Commands every simple command of which starts with `prefix` (all words known).
    Prefix {
        /// The words.
        prefix: Vec<String>,
        /// Covers runs outside the sandbox (an escalation, `full-access`) too.
        unsandboxed: bool,
    },
    /// Exactly this command (the string, or the argv words joined by spaces).
    Exact {
        /// The command as the call gave it.
        command: String,
        /// Covers runs outside the sandbox too.
        unsandboxed: bool,
    },
}

/// A grant's id, stable for the session (indices shift when one is revoked; ids do not).
pub type GrantId = u64;

/// This session's grants.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionGrants {
    next: GrantId,
    grants: Vec<(GrantId, Grant)>,
}

impl SessionGrants {
    /// No grants.
    pub fn new() -> SessionGrants {
        SessionGrants::default()
    }

    /// Adds a grant (an identical one is not added twice) and returns its id.
    pub fn add(&mut self, grant: Grant) -> GrantId {
        if let Some((id, _)) = self.grants.iter().find(|(_, g)| *g == grant) {
            return *id;
        }
        let id = self.next;
        self.next += 1;
        self.grants.push((id, grant));
        id
    }

    /// The grants in the order they were given.
    pub fn list(&self) -> &[(GrantId, Grant)] {
        &self.grants
    }

    /// Removes a grant; `false` when there is none with that id.
    pub fn revoke(&mut self, id: GrantId) -> bool {
        let before = self.grants.len();
        self.grants.retain(|(g, _)| *g != id);
        self.grants.len() != before
    }

    /// Whether edits are granted; `unconfined`: edits that may go anywhere (`full-access`).
    pub fn edits(&self, unconfined: bool) -> bool {
        self.grants.iter().any(|(_, g)| match g {
            Grant::Edits { unconfined: u } => *u || !unconfined,
            _ => false,
        })
    }

    /// The prefixes granted for runs sandboxed (`unsandboxed = false`) or not.
    pub fn prefixes(&self, unsandboxed: bool) -> Vec<&[String]> {
        self.grants
            .iter()
            .filter_map(|(_, g)| match g {
                Grant::Prefix {
                    prefix,
                    unsandboxed: u,
                } if *u || !unsandboxed => Some(prefix.as_slice()),
                _ => None,
            })
            .collect()
    }

    /// Whether exactly `command` is granted.
    pub fn exact(&self, command: &str, unsandboxed: bool) -> bool {
        self.grants.iter().any(|(_, g)| match g {
            Grant::Exact {
                command: c,
                unsandboxed: u,
            } => c == command && (*u || !unsandboxed),
            _ => false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_revoked_grant_no_longer_applies_and_ids_stay_stable() {
        let mut g = SessionGrants::new();
        let a = g.add(Grant::Edits { unconfined: false });
        let b = g.add(Grant::Exact {
            command: "make".into(),
            unsandboxed: false,
        });
        assert_eq!(g.add(Grant::Edits { unconfined: false }), a);
        assert!(g.edits(false));
        assert!(
            !g.edits(true),
            "a confined grant does not cover full-access"
        );
        assert!(g.revoke(a));
        assert!(!g.revoke(a));
        assert!(!g.edits(false));
        assert_eq!(g.list().len(), 1);
        assert_eq!(g.list()[0].0, b);
        assert!(g.exact("make", false));
        assert!(
            !g.exact("make", true),
            "a sandboxed grant does not cover escalation"
        );
    }
}
