//! Choosing the backend once per start (SPEC §14.2) and what `/sandbox` is told.

use deepterm::sandbox::probe::{self, Backend};
use deepterm::sandbox::{BackendChoice, SandboxMode};

use super::harness::{Site, backends, helper};

#[test]
fn auto_prefers_bubblewrap_and_falls_back_to_landlock_when_bwrap_is_missing() {
    let found = backends();
    let site = Site::new();
    let scope = site.scope(SandboxMode::WorkspaceWrite);
    let path = std::env::var_os("PATH");
    if found.iter().any(|b| matches!(b, Backend::Bwrap { .. })) {
        let s = probe::probe(
            BackendChoice::Auto,
            false,
            &scope,
            path.as_deref(),
            &helper(),
        );
        assert!(
            matches!(s.backend, Some(Backend::Bwrap { .. })),
            "{}",
            s.describe()
        );
        assert!(s.reason.contains("bubblewrap runs here"), "{}", s.reason);
    }
    if found.iter().any(|b| matches!(b, Backend::Landlock { .. })) {
        let empty = tempfile::tempdir().unwrap();
        let s = probe::probe(
            BackendChoice::Auto,
            false,
            &scope,
            Some(empty.path().as_os_str()),
            &helper(),
        );
        let Some(Backend::Landlock { abi, mount_ns, .. }) = s.backend else {
            panic!("{}", s.describe());
        };
        assert!(abi >= 3);
        assert!(
            s.reason.contains("bubblewrap is not installed"),
            "{}",
            s.reason
        );
        let d = s.describe();
        assert!(d.contains("backend landlock"), "{d}");
        // The workspace root's limit is said exactly where the helper has no private mount
        // namespace to bind the protected paths in.
        assert_eq!(
            d.contains("cannot be created, removed or renamed"),
            !mount_ns,
            "the limit is said where it applies: {d}"
        );
    }
}

#[test]
fn the_status_lists_mode_roots_and_protected_paths() {
    let site = Site::new();
    let scope = site.scope(SandboxMode::ReadOnly);
    let empty = tempfile::tempdir().unwrap();
    let s = probe::probe(
        BackendChoice::Bwrap,
        false,
        &scope,
        Some(empty.path().as_os_str()),
        &helper(),
    );
    assert_eq!(s.backend, None);
    assert_eq!(s.mode, SandboxMode::ReadOnly);
    assert_eq!(s.writable_roots, vec![site.ws.clone(), site.state.clone()]);
    assert!(s.protected.contains(&site.ws.join(".git")));
    assert!(s.protected.contains(&site.ws.join(".deepterm")));
    assert!(s.protected.contains(&site.config));
    assert!(s.protected.contains(&site.sessions));
    let d = s.describe();
    assert!(
        d.starts_with(
            "sandbox: mode read-only, network off, backend none (bubblewrap is not installed"
        ),
        "{d}"
    );
    assert!(d.contains(&site.config.display().to_string()), "{d}");
}

#[tokio::test]
async fn start_builds_the_scope_and_status_a_shell_runs_with() {
    use deepterm::sandbox::SandboxSettings;
    use deepterm::tools::child_env::ChildEnvPolicy;
    use deepterm::tools::shell::shell_tool;
    let site = Site::new();
    let settings = SandboxSettings {
        writable_roots: vec![site.state.clone()],
        ..SandboxSettings::default()
    };
    let (scope, status) = probe::start(
        &settings,
        &site.ws,
        Some(&site.config),
        &site.sessions,
        &helper(),
    );
    assert_eq!(scope.read().unwrap().mode, SandboxMode::WorkspaceWrite);
    assert_eq!(
        status.writable_roots,
        vec![site.ws.clone(), site.state.clone()]
    );
    assert!(status.protected.contains(&site.config));
    let tool = shell_tool(scope.clone(), status.clone(), ChildEnvPolicy::default());
    assert_eq!(tool.schema.name, "shell");
    assert!(!tool.parallel_safe);
    let cancel = tokio_util::sync::CancellationToken::new();
    let out = tool
        .executor
        .call(
            serde_json::json!({"command": "echo x >> .git/config; echo ok > src/f"}),
            &cancel,
        )
        .await;
    if status.backend.is_none() {
        // Fail closed: nothing ran.
        assert!(
            out.is_error && !site.ws.join("src/f").exists(),
            "{}",
            out.content
        );
        crate::common::require_external("a sandbox backend", false);
        return;
    }
    assert!(site.ws.join("src/f").exists(), "{}", out.content);
    assert_eq!(
        std::fs::read_to_string(site.ws.join(".git/config")).unwrap(),
        "[core]\n\tbare = false\n"
    );
}
