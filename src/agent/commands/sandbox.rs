//! `/sandbox` and `/permissions` (SPEC §14.2): what the sandbox enforces and why, and the
//! saved rules and this session's grants, each of which can be revoked.

use crate::agent::commands::CommandContext;
use crate::agent::turn::LineOutcome;
use crate::approval::{grant_text, rule_text};
use crate::i18n::{Arg, Text};

impl CommandContext<'_> {
    /// `/sandbox`: the mode, the network setting, the backend in use and why, the
    /// writable roots, the protected paths and what the backend cannot cover.
    pub(crate) fn sandbox_command(&mut self) -> LineOutcome {
        let mode = self.services.sandbox.mode();
        let mut lines = vec![Text::new(
            "sandbox-mode-line",
            vec![
                ("mode", Arg::from(mode.as_str())),
                (
                    "network",
                    Arg::from(crate::agent::mode::network_arg(
                        self.services.sandbox.network,
                    )),
                ),
            ],
        )];
        match &self.sandbox_status {
            Some(st) => {
                let backend = match &st.backend {
                    Some(crate::sandbox::probe::Backend::Bwrap { program }) => {
                        format!("bubblewrap ({})", program.display())
                    }
                    Some(crate::sandbox::probe::Backend::Landlock { abi, .. }) => {
                        format!("Landlock ABI {abi} + seccomp")
                    }
                    None => "-".to_string(),
                };
                // In use, the backend says enough; when none works, the reason (the
                // probe's own diagnostic, with the system's error text) is what to fix.
                let key = if st.backend.is_some() {
                    "sandbox-backend-line"
                } else {
                    "sandbox-backend-none"
                };
                lines.push(Text::new(
                    key,
                    vec![
                        ("backend", Arg::from(backend)),
                        (
                            "choice",
                            Arg::from(format!("{:?}", st.choice).to_lowercase()),
                        ),
                        ("why", Arg::from(st.reason.clone())),
                    ],
                ));
                // The live scope: what the tools check now.
                let scope = self
                    .services
                    .sandbox
                    .scope
                    .read()
                    .unwrap_or_else(|e| e.into_inner())
                    .clone();
                lines.push(Text::new("sandbox-writable-title", vec![]));
                for r in &scope.writable_roots {
                    lines.push(path_line(r));
                }
                lines.push(Text::new("sandbox-protected-title", vec![]));
                for p in &scope.protected {
                    lines.push(path_line(p));
                }
                if let Some(b) = &st.backend {
                    // The session's private temporary directory and the process limit
                    // (SPEC §15.5).
                    let tmp = self
                        .tools_acting()
                        .and_then(|a| a.shell.clone())
                        .and_then(|s| s.session_tmp().ok().map(|p| p.display().to_string()))
                        .unwrap_or_else(|| "-".to_string());
                    let mounted = matches!(b, crate::sandbox::probe::Backend::Bwrap { .. });
                    lines.push(Text::new(
                        "sandbox-tmp-line",
                        vec![
                            ("dir", Arg::from(tmp)),
                            ("mounted", Arg::from(if mounted { "yes" } else { "no" })),
                        ],
                    ));
                    lines.push(Text::new(
                        "sandbox-processes-line",
                        vec![
                            ("max", Arg::from(st.max_processes as i64)),
                            ("how", Arg::from(st.process_limit_kind())),
                        ],
                    ));
                    let abi = match b {
                        crate::sandbox::probe::Backend::Landlock { abi, .. } => *abi,
                        _ => 0,
                    };
                    lines.push(Text::new("sandbox-limits-title", vec![]));
                    let mut keys = b.limit_keys();
                    if st.unix_sockets_refused() {
                        keys.push("sandbox-limit-unix-sockets-refused");
                    }
                    if st.process_limit_kind() == "none" {
                        keys.push("sandbox-limit-processes-unenforced");
                    }
                    for key in keys {
                        lines.push(Text::new(key, vec![("abi", Arg::from(abi as i64))]));
                    }
                }
            }
            None => lines.push(Text::new("sandbox-not-set-up", vec![])),
        }
        self.output(lines)
    }

    /// `/permissions`: the saved rules and this session's grants, numbered;
    /// `/permissions revoke N` revokes entry N.
    pub(crate) fn permissions_command(&mut self, revoke: Option<usize>) -> LineOutcome {
        let Some(acting) = self.tools_acting() else {
            return self.info("permissions-none", vec![]);
        };
        let l = self.localizer();
        let mut approvals = acting.approvals.lock().unwrap_or_else(|e| e.into_inner());
        let perms = approvals.permissions();
        if let Some(n) = revoke {
            let rules = perms.rules.len();
            let result = if n >= 1 && n <= rules {
                let entry = &perms.rules[n - 1];
                if !entry.revocable {
                    Err("permissions-not-revocable")
                } else {
                    approvals
                        .revoke_rule(entry)
                        .map_err(|_| "permissions-revoke-failed")
                }
            } else if n > rules && n <= rules + perms.grants.len() {
                let (id, _) = perms.grants[n - rules - 1];
                if approvals.revoke_grant(id) {
                    Ok(())
                } else {
                    Err("permissions-revoke-failed")
                }
            } else {
                Err("permissions-no-such")
            };
            drop(approvals);
            return match result {
                Ok(()) => self.info("permissions-revoked", vec![("n", Arg::from(n))]),
                Err(key) => self.warn(key, vec![("n", Arg::from(n))]),
            };
        }
        let mut lines = vec![Text::new(
            "permissions-policy",
            vec![("policy", Arg::from(perms.setup.policy.as_str()))],
        )];
        if perms.rules.is_empty() && perms.grants.is_empty() {
            lines.push(Text::new("permissions-empty", vec![]));
        }
        let mut n = 0usize;
        for e in &perms.rules {
            n += 1;
            lines.push(Text::new(
                "permissions-entry",
                vec![
                    ("n", Arg::from(n)),
                    ("text", Arg::from(rule_text(&e.rule, l))),
                ],
            ));
        }
        for (_, g) in &perms.grants {
            n += 1;
            lines.push(Text::new(
                "permissions-entry",
                vec![("n", Arg::from(n)), ("text", Arg::from(grant_text(g, l)))],
            ));
        }
        if n > 0 {
            lines.push(Text::new("permissions-revoke-hint", vec![]));
        }
        drop(approvals);
        self.output(lines)
    }
}

fn path_line(p: &std::path::Path) -> Text {
    Text::new(
        "sandbox-item",
        vec![("item", Arg::from(p.display().to_string()))],
    )
}
