//! With `network = false` (SPEC §14.2) a sandboxed command reaches no socket outside its
//! sandbox, the host's loopback included; Unix sockets inside writable roots keep working.
//! Each attack is also shown succeeding without the sandbox.

use deepterm::sandbox::SandboxMode;

use super::harness::{Site, backends, run, text};

#[tokio::test]
async fn a_loopback_listener_gets_no_connection_with_the_network_off() {
    let attack = |port: u16| format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo hello >&3");
    for backend in backends() {
        let site = Site::new();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let shell = site.shell(
            SandboxMode::WorkspaceWrite,
            Some(backend.clone()),
            false,
            "test",
        );
        let r = run(&shell, &site.ws, &attack(port)).await;
        assert!(
            r.outcome.is_error,
            "{}: {}",
            backend.name(),
            text(&r.outcome)
        );
        match listener.accept() {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            other => panic!("{}: the listener got {other:?}", backend.name()),
        }
    }
    let site = Site::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let open = site.shell(SandboxMode::FullAccess, None, false, "no backend");
    let r = run(&open, &site.ws, &attack(port)).await;
    assert!(!r.outcome.is_error, "{}", text(&r.outcome));
    assert!(
        listener.accept().is_ok(),
        "the connection arrives without the sandbox"
    );
}

/// A python3 one-liner connecting to the Unix socket `addr` (`@name` for an abstract one)
/// and sending a byte.
pub(super) fn unix_connect(addr: &str) -> String {
    let target = match addr.strip_prefix('@') {
        Some(name) => format!("'\\0{name}'"),
        None => format!("'{addr}'"),
    };
    format!(
        "python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect({target}); s.send(b'x')\""
    )
}

#[tokio::test]
async fn an_abstract_unix_socket_outside_is_unreachable_and_one_in_the_workspace_works() {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixListener};
    let python = std::process::Command::new("python3")
        .arg("-V")
        .output()
        .is_ok();
    if !crate::common::require_external("python3", python) {
        return;
    }
    let name = format!(
        "deepterm-sandbox-test-{}-{}",
        std::process::id(),
        fastrand::u64(..)
    );
    let abs = UnixListener::bind_addr(&SocketAddr::from_abstract_name(&name).unwrap()).unwrap();
    abs.set_nonblocking(true).unwrap();
    for backend in backends() {
        let site = Site::new();
        let shell = site.shell(
            SandboxMode::WorkspaceWrite,
            Some(backend.clone()),
            false,
            "test",
        );
        let r = run(&shell, &site.ws, &unix_connect(&format!("@{name}"))).await;
        assert!(
            r.outcome.is_error,
            "{}: {}",
            backend.name(),
            text(&r.outcome)
        );
        assert!(
            matches!(abs.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
            "{}: the abstract socket got a connection",
            backend.name()
        );
        let path = site.ws.join("app.sock");
        let inside = UnixListener::bind(&path).unwrap();
        inside.set_nonblocking(true).unwrap();
        let r = run(&shell, &site.ws, &unix_connect(&path.display().to_string())).await;
        if shell.status().unix_sockets_refused() {
            // The kernel cannot tell this socket from one outside: every
            // new Unix socket is refused, and /sandbox says so.
            assert!(
                r.outcome.is_error && text(&r.outcome).contains("Permission denied"),
                "{}: {}",
                backend.name(),
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
        assert!(
            inside.accept().is_ok(),
            "{}: the workspace socket works",
            backend.name()
        );
    }
    let site = Site::new();
    let open = site.shell(SandboxMode::FullAccess, None, false, "no backend");
    let r = run(&open, &site.ws, &unix_connect(&format!("@{name}"))).await;
    assert!(!r.outcome.is_error, "{}", text(&r.outcome));
    assert!(
        abs.accept().is_ok(),
        "the abstract socket is reachable without the sandbox"
    );
}
