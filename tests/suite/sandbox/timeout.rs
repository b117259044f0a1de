//! No process outlives a `shell` call's timeout: the whole process group goes, and in the
//! sandbox a process that tries to leave the group (`setsid`) goes too.

use std::time::Duration;

use deepterm::sandbox::SandboxMode;
use deepterm::tools::shell::{RunAs, parse_request};
use futures_util::future::join_all;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::harness::{Site, backends, text};

/// Pids of processes whose command line holds `token`.
fn pids_with(token: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(cmd) = std::fs::read(e.path().join("cmdline"))
            && String::from_utf8_lossy(&cmd).contains(token)
        {
            // A zombie has an empty cmdline, so a match is a live process.
            out.push(pid);
        }
    }
    out
}

/// A `sleep` argument no other process has.
fn token() -> String {
    format!(
        "{}.{:06}",
        90_000 + fastrand::u32(..9_000),
        fastrand::u32(..1_000_000)
    )
}

/// Runs `command` (which must start `sleep TOKEN` somewhere) with a 3 s timeout; checks
/// that the sleeper was seen running, then returns the sleepers left after the call.
async fn survivors(
    shell: &deepterm::tools::shell::Shell,
    site: &Site,
    command: &str,
    tok: &str,
) -> Vec<u32> {
    let req = parse_request(&json!({"command": command, "timeout_ms": 3000}), &site.ws).unwrap();
    let cancel = CancellationToken::new();
    let call = shell.run(&req, RunAs::Sandboxed, &cancel);
    let watch = async {
        for _ in 0..280 {
            if !pids_with(tok).is_empty() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    };
    let (r, seen) = tokio::join!(call, watch);
    assert!(seen, "the sleeper never ran: {}", text(&r.outcome));
    assert!(
        text(&r.outcome).starts_with("timed out after 3000 ms"),
        "{}",
        text(&r.outcome)
    );
    // SIGKILL is immediate, but reaping by init may lag a moment.
    for _ in 0..50 {
        if pids_with(tok).is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    pids_with(tok)
}

#[tokio::test]
async fn a_background_child_does_not_survive_the_timeout_in_any_mode() {
    let site = Site::new();
    let mut shells = vec![(
        "no sandbox".to_string(),
        site.shell(SandboxMode::FullAccess, None, false, "no backend"),
    )];
    for b in backends() {
        shells.push((
            b.name().to_string(),
            site.shell(SandboxMode::WorkspaceWrite, Some(b), false, "test"),
        ));
    }
    // Each mode waits out its own 3 s timeout, all at once.
    let site = &site;
    let lefts = join_all(shells.iter().map(|(name, shell)| async move {
        let tok = token();
        let cmd = format!("sleep {tok} & sleep {tok}; wait");
        (name, survivors(shell, site, &cmd, &tok).await)
    }))
    .await;
    for (name, left) in lefts {
        assert!(left.is_empty(), "{name}: {left:?} survived");
    }
}

#[tokio::test]
async fn a_child_that_starts_its_own_session_does_not_survive_in_the_sandbox() {
    let site = Site::new();
    let sandboxed = backends()
        .into_iter()
        .map(|b| {
            let name = b.name();
            (
                name,
                site.shell(SandboxMode::WorkspaceWrite, Some(b), false, "test"),
            )
        })
        .collect::<Vec<_>>();
    // Without the sandbox the same escape works: the group kill alone does not reach it.
    let open = site.shell(SandboxMode::FullAccess, None, false, "no backend");
    // Every backend and the open shell wait out their 3 s timeouts at once.
    let site = &site;
    let in_sandbox = join_all(sandboxed.iter().map(|(name, shell)| async move {
        let tok = token();
        let cmd = format!("(setsid sleep {tok} || sleep {tok}) & sleep {tok}; wait");
        (name, survivors(shell, site, &cmd, &tok).await)
    }));
    let escaped = async {
        let tok = token();
        // Started from a subshell that exits at once, so the escaped sleeper is not even a
        // child of the command that the kill could find.
        let cmd = format!("(setsid sleep {tok} &); sleep {tok}; wait");
        survivors(&open, site, &cmd, &tok).await
    };
    let (in_sandbox, left) = tokio::join!(in_sandbox, escaped);
    for (name, left) in in_sandbox {
        assert!(left.is_empty(), "{name}: {left:?} survived");
    }
    for pid in &left {
        // SAFETY: kill only sends a signal to the escaped sleeper this test started.
        unsafe {
            libc::kill(*pid as libc::pid_t, libc::SIGKILL);
        }
    }
    assert!(
        !left.is_empty(),
        "setsid escapes the process group without the sandbox"
    );
}

#[tokio::test]
async fn cancelling_a_call_kills_its_process_group() {
    let site = Site::new();
    let mut shells = vec![site.shell(SandboxMode::FullAccess, None, false, "no backend")];
    for b in backends() {
        shells.push(site.shell(SandboxMode::WorkspaceWrite, Some(b), false, "test"));
    }
    for (i, shell) in shells.iter().enumerate() {
        let tok = token();
        let cmd = format!("sleep {tok} & sleep {tok}; wait");
        let req = parse_request(&json!({"command": cmd}), &site.ws).unwrap();
        let cancel = CancellationToken::new();
        let call = shell.run(&req, RunAs::Sandboxed, &cancel);
        let watch = async {
            for _ in 0..200 {
                if pids_with(&tok).len() >= 2 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            cancel.cancel();
        };
        let (r, ()) = tokio::join!(call, watch);
        assert!(
            text(&r.outcome).starts_with("cancelled;"),
            "{}",
            text(&r.outcome)
        );
        // The sleepers would live for a day; a loaded machine may take a moment to tear
        // down a sandbox's PID namespace, so allow 5 s.
        for _ in 0..250 {
            if pids_with(&tok).is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let left: Vec<String> = pids_with(&tok)
            .iter()
            .map(|p| {
                let cmd = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
                format!("{p}: {}", String::from_utf8_lossy(&cmd).replace('\0', " "))
            })
            .collect();
        assert!(
            left.is_empty(),
            "shell {i} of {}: a sleeper survived the cancel: {left:?}",
            shells.len()
        );
    }
}

#[tokio::test]
async fn a_background_child_does_not_outlive_a_command_that_exited() {
    let site = Site::new();
    let mut shells = vec![(
        "no sandbox".to_string(),
        site.shell(SandboxMode::FullAccess, None, false, "no backend"),
    )];
    for b in backends() {
        let name = b.name().to_string();
        shells.push((
            name,
            site.shell(SandboxMode::WorkspaceWrite, Some(b), false, "test"),
        ));
    }
    for (name, shell) in &shells {
        let tok = token();
        // The sleeper keeps the output pipe open too, so the call waits its grace period.
        let cmd = format!("sleep {tok} & echo started");
        let req = parse_request(&json!({"command": cmd}), &site.ws).unwrap();
        let r = shell
            .run(&req, RunAs::Sandboxed, &CancellationToken::new())
            .await;
        assert!(
            text(&r.outcome).contains("started"),
            "{name}: {}",
            text(&r.outcome)
        );
        for _ in 0..50 {
            if pids_with(&tok).is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(
            pids_with(&tok).is_empty(),
            "{name}: the background sleeper survived"
        );
    }
}
