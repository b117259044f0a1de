//! A sandbox that cannot be applied runs nothing (SPEC §14.2 "fail closed").

use std::path::Path;

use deepterm::sandbox::probe::{self, Backend};
use deepterm::sandbox::{BackendChoice, SandboxMode};

use super::harness::{Site, helper, run, text};

#[tokio::test]
async fn backend_bwrap_without_bwrap_on_path_runs_nothing_and_names_bubblewrap() {
    let empty = tempfile::tempdir().unwrap();
    let (backend, reason) = probe::choose(
        BackendChoice::Bwrap,
        Some(empty.path().as_os_str()),
        &helper(),
    );
    assert_eq!(backend, None);
    assert!(reason.contains("bubblewrap is not installed"), "{reason}");
    let site = Site::new();
    let shell = site.shell(SandboxMode::WorkspaceWrite, backend, false, &reason);
    let r = run(&shell, &site.ws, "touch marker").await;
    assert!(!r.ran && r.outcome.is_error);
    assert!(
        text(&r.outcome).contains("bubblewrap is not installed"),
        "{}",
        text(&r.outcome)
    );
    assert!(
        text(&r.outcome).contains("nothing was run"),
        "{}",
        text(&r.outcome)
    );
    assert!(!site.ws.join("marker").exists(), "the command ran");
    // The marker command itself works: without the sandbox it creates the file.
    let open = site.shell(SandboxMode::FullAccess, None, false, &reason);
    run(&open, &site.ws, "touch marker").await;
    assert!(site.ws.join("marker").exists());
}

#[tokio::test]
async fn read_only_mode_with_no_backend_runs_nothing_either() {
    let site = Site::new();
    let shell = site.shell(
        SandboxMode::ReadOnly,
        None,
        false,
        "no sandbox backend works: test",
    );
    let r = run(&shell, &site.ws, "touch marker").await;
    assert!(!r.ran && r.outcome.is_error, "{}", text(&r.outcome));
    assert!(!site.ws.join("marker").exists());
}

#[tokio::test]
async fn a_landlock_helper_that_cannot_apply_its_policy_runs_nothing() {
    let site = Site::new();
    // A policy naming a private tmp that does not exist: the rule cannot be added.
    let shell = site.shell(
        SandboxMode::WorkspaceWrite,
        Some(Backend::Landlock {
            abi: 7,
            helper: Path::new("/nonexistent/deepterm").into(),
            mount_ns: false,
        }),
        false,
        "test",
    );
    let r = run(&shell, &site.ws, "touch marker").await;
    assert!(!r.ran && r.outcome.is_error, "{}", text(&r.outcome));
    assert!(!site.ws.join("marker").exists());

    let out = std::process::Command::new(helper())
        .current_dir(&site.ws)
        .args(["__sandbox", "{not a policy", "--", "touch", "marker"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(125));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad sandbox policy"));
    assert!(!site.ws.join("marker").exists());
    let policy = serde_json::json!({
        "writable_roots": [site.ws], "protected": [], "network": false,
        "tmp_dir": site.ws.join("no-such-tmp"), "workdir": site.ws,
    })
    .to_string();
    let out = std::process::Command::new(helper())
        .current_dir(&site.ws)
        .args(["__sandbox", &policy, "--", "touch", "marker"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(125),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!site.ws.join("marker").exists());
}

#[test]
fn a_malformed_helper_call_prints_its_usage_and_runs_nothing() {
    let out = std::process::Command::new(helper())
        .args(["__sandbox", "{}"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(125));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "deepterm sandbox: usage: deepterm __sandbox POLICY -- COMMAND...\n"
    );
}
