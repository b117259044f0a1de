//! The sandbox's fourth round (SPEC §15.5) on both backends: no Unix socket outside with
//! the network off, no agent socket variables, a process limit, and one private temporary
//! directory for the session. Each attack is also shown succeeding without the sandbox.

use deepterm::sandbox::SandboxMode;

use super::harness::{Site, backends, run, text};
use super::network::unix_connect;

fn python3() -> bool {
    let ok = std::process::Command::new("python3")
        .arg("-V")
        .output()
        .is_ok();
    crate::common::require_external("python3", ok)
}

#[tokio::test]
async fn a_unix_socket_outside_the_sandbox_is_unreachable_with_the_network_off() {
    use std::os::unix::net::UnixListener;
    if !python3() {
        return;
    }
    for backend in backends() {
        let site = Site::new();
        // Like an ssh-agent's or Docker's socket: outside every writable root.
        let path = site.outside.join("agent.sock");
        let listener = UnixListener::bind(&path).unwrap();
        listener.set_nonblocking(true).unwrap();
        let shell = site.shell(
            SandboxMode::WorkspaceWrite,
            Some(backend.clone()),
            false,
            "test",
        );
        let r = run(&shell, &site.ws, &unix_connect(&path.display().to_string())).await;
        assert!(
            r.outcome.is_error,
            "{}: {}",
            backend.name(),
            text(&r.outcome)
        );
        assert!(
            matches!(listener.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
            "{}: the socket outside got a connection: {}",
            backend.name(),
            text(&r.outcome)
        );
    }
    let site = Site::new();
    let path = site.outside.join("agent.sock");
    let listener = UnixListener::bind(&path).unwrap();
    let open = site.shell(SandboxMode::FullAccess, None, false, "no backend");
    let r = run(&open, &site.ws, &unix_connect(&path.display().to_string())).await;
    assert!(!r.outcome.is_error, "{}", text(&r.outcome));
    listener.set_nonblocking(true).unwrap();
    assert!(
        listener.accept().is_ok(),
        "the socket is reachable without the sandbox"
    );
}

const AGENT_MARK: &str = "DEEPTERM_SANDBOX_AGENT_PROBE";

#[test]
fn a_sandboxed_command_does_not_inherit_the_agent_socket_variables() {
    // The variables must be in the test process's own environment: run the probe in a
    // fresh copy of this test binary that has them.
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "suite::sandbox::hardening::agent_variables_probe",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("SSH_AUTH_SOCK", "/run/user/1000/ssh-agent.sock")
        .env("GPG_AGENT_INFO", "/run/user/1000/gnupg/S.gpg-agent:0:1")
        .env("DOCKER_HOST", "unix:///var/run/docker.sock")
        .env(AGENT_MARK, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("1 passed"), "{stdout}");
    assert!(
        stdout.contains("agent probe done") || stderr.contains("agent probe done"),
        "{stdout}\n{stderr}"
    );
}

#[tokio::test]
#[ignore = "run by a_sandboxed_command_does_not_inherit_the_agent_socket_variables"]
async fn agent_variables_probe() {
    if std::env::var(AGENT_MARK).is_err() {
        eprintln!(
            "skipped: run by a_sandboxed_command_does_not_inherit_the_agent_socket_variables"
        );
        return;
    }
    const VARS: [&str; 3] = ["SSH_AUTH_SOCK=", "GPG_AGENT_INFO=", "DOCKER_HOST="];
    let site = Site::new();
    // Without the sandbox (full-access runs as the user) the variables are passed on.
    let open = site.shell(SandboxMode::FullAccess, None, false, "no backend");
    let r = run(&open, &site.ws, "env").await;
    for v in VARS {
        assert!(text(&r.outcome).contains(v), "{v}: {}", text(&r.outcome));
    }
    for b in backends() {
        let name = b.name();
        let shell = site.shell(SandboxMode::WorkspaceWrite, Some(b), false, "test");
        let r = run(&shell, &site.ws, "env").await;
        assert!(
            text(&r.outcome).contains(&format!("{AGENT_MARK}=1")),
            "{name}: the rest is passed on"
        );
        for v in VARS {
            assert!(
                !text(&r.outcome).contains(v),
                "{name}: {v} reached the command: {}",
                text(&r.outcome)
            );
        }
    }
    eprintln!("agent probe done");
}

/// Forks up to 60 children that sleep 2 s each (a bounded storm), and prints how many
/// started and the error that stopped it.
const FORK_STORM: &str = "python3 -c \"
import os, time
n = 0
for i in range(60):
    try:
        pid = os.fork()
    except OSError as e:
        print('fork failed:', e)
        break
    if pid == 0:
        time.sleep(2)
        os._exit(0)
    n += 1
print('started', n)
\"";

fn started(out: &str) -> usize {
    out.lines()
        .find_map(|l| l.strip_prefix("started "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no count in {out}"))
}

#[tokio::test]
async fn a_bounded_fork_storm_stops_at_max_processes_and_the_result_says_why() {
    if !python3() {
        return;
    }
    for backend in backends() {
        let site = Site::new();
        let shell = site.shell_with_max(
            SandboxMode::WorkspaceWrite,
            Some(backend.clone()),
            false,
            "test",
            20,
        );
        let r = run(&shell, &site.ws, FORK_STORM).await;
        let out = text(&r.outcome);
        assert!(r.ran, "{}: {out}", backend.name());
        assert!(
            started(out) < 20,
            "{}: {} processes started: {out}",
            backend.name(),
            started(out)
        );
        assert!(
            out.contains("Resource temporarily unavailable")
                && out.contains(
                    "[the sandbox lets a command and its children run at most 20 processes \
                     ([sandbox] max_processes)"
                ),
            "{}: {out}",
            backend.name()
        );
        // The limit is per command: the next one starts afresh.
        let r = run(&shell, &site.ws, "echo fine").await;
        assert!(!r.outcome.is_error, "{}", text(&r.outcome));
    }
    let site = Site::new();
    let open = site.shell_with_max(SandboxMode::FullAccess, None, false, "no backend", 20);
    let r = run(&open, &site.ws, FORK_STORM).await;
    assert_eq!(
        started(text(&r.outcome)),
        60,
        "without the sandbox the storm is not bounded: {}",
        text(&r.outcome)
    );
}

#[tokio::test]
async fn files_in_the_private_tmp_last_for_the_session_and_go_with_it() {
    for backend in backends() {
        let site = Site::new();
        let shell = site.shell(
            SandboxMode::WorkspaceWrite,
            Some(backend.clone()),
            false,
            "test",
        );
        let r = run(&shell, &site.ws, "echo kept > \"$TMPDIR/note\"").await;
        assert!(!r.outcome.is_error, "{}", text(&r.outcome));
        let r = run(&shell, &site.ws, "cat \"$TMPDIR/note\"").await;
        assert!(
            text(&r.outcome).ends_with("output:\nkept\n"),
            "{}: a later command sees the file: {}",
            backend.name(),
            text(&r.outcome)
        );
        if backend.name() == "bwrap" {
            // bubblewrap mounts it as /tmp.
            let r = run(&shell, &site.ws, "cat /tmp/note && echo also > /tmp/two").await;
            assert!(!r.outcome.is_error, "{}", text(&r.outcome));
        }
        let dir = shell.session_tmp().unwrap().to_path_buf();
        assert!(dir.join("note").exists());
        assert!(!dir.starts_with(&site.ws), "not in the workspace");
        drop(shell);
        assert!(
            !dir.exists(),
            "{}: the directory goes with the session",
            backend.name()
        );
    }
}

#[tokio::test]
async fn entries_at_the_workspace_root_can_be_created_and_removed_on_both_backends() {
    use deepterm::sandbox::probe::Backend;
    let make = "echo hi > made.txt && mkdir made.d && mv made.txt made.d/ && rm -r made.d \
                && echo kept > kept.txt";
    for backend in backends() {
        let site = Site::new();
        let shell = site.shell(
            SandboxMode::WorkspaceWrite,
            Some(backend.clone()),
            false,
            "test",
        );
        let r = run(&shell, &site.ws, make).await;
        if let Backend::Landlock {
            mount_ns: false, ..
        } = backend
        {
            // Where the kernel refuses the private mount namespace, the refusal names the
            // limit.
            assert!(
                text(&r.outcome).contains(
                    "cannot create, remove or rename entries directly in the workspace root"
                ),
                "{}",
                text(&r.outcome)
            );
            continue;
        }
        assert!(
            !r.outcome.is_error,
            "{}: {}",
            backend.name(),
            text(&r.outcome)
        );
        assert!(site.ws.join("kept.txt").exists() && !site.ws.join("made.d").exists());
        // Every protected path at the root stays refused (the escape suite has the rest).
        let r = run(
            &shell,
            &site.ws,
            "echo x >> .git/config; rm -rf .git; mv .claude c2",
        )
        .await;
        assert!(r.outcome.is_error, "{}", text(&r.outcome));
        assert_eq!(
            std::fs::read_to_string(site.ws.join(".git/config")).unwrap(),
            super::harness::GIT_CONFIG,
            "{}",
            backend.name()
        );
        assert!(site.ws.join(".claude/commands").is_dir() && !site.ws.join("c2").exists());
    }
}

#[tokio::test]
async fn a_repository_a_command_creates_is_named_on_its_result_as_a_warning() {
    let make = "mkdir -p fresh && cd fresh && mkdir -p .git/hooks && \
                printf '#!/bin/sh\\n' > .git/hooks/post-checkout";
    for backend in backends() {
        let site = Site::new();
        let shell = site.shell(
            SandboxMode::WorkspaceWrite,
            Some(backend.clone()),
            false,
            "test",
        );
        let r = run(&shell, &site.ws, make).await;
        assert!(
            site.ws.join("fresh/.git/hooks/post-checkout").exists(),
            "{}: a new repository cannot be protected in advance: {}",
            backend.name(),
            text(&r.outcome)
        );
        assert!(
            text(&r.outcome).contains(
                "[warning: this command created version-control directories, which the \
                 sandbox could not protect in advance: fresh/.git;"
            ),
            "{}: {}",
            backend.name(),
            text(&r.outcome)
        );
        // A command that makes none gets no warning, and the next one sees it protected.
        let r = run(&shell, &site.ws, "echo x >> fresh/.git/hooks/post-checkout").await;
        assert!(
            !text(&r.outcome).contains("[warning"),
            "{}",
            text(&r.outcome)
        );
        assert_eq!(
            std::fs::read_to_string(site.ws.join("fresh/.git/hooks/post-checkout")).unwrap(),
            "#!/bin/sh\n",
            "{}",
            backend.name()
        );
    }
}
