//! The bubblewrap backend (SPEC §14.2): the whole file system bound read-only, the writable
//! roots bound writable over it, the protected paths bound read-only again over those (the
//! nested version-control directories too, §15.5), the session's private `/tmp`, and new
//! PID, IPC and (unless `network = true`) network namespaces. With the network off, a
//! seccomp filter refuses new Unix sockets, since a read-only bind does not stop a connect
//! to a socket outside (decision 0111).
//!
//! A protected path that does not exist inside a writable root (a workspace that is not a
//! git repository has no `.git`; `.deepterm/` is often absent) cannot be bound, so the
//! command could create it. [`BwrapRun::prepare`] creates an empty directory there first and
//! binds it read-only, then removes it again after the command ([`BwrapRun`]'s drop, which
//! only removes it if still empty). See decision note 0040.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::policy::SandboxPolicy;

/// The flags every sandboxed run uses besides the binds; the probe runs `true` with them.
/// `--cap-drop ALL` matters when deepterm runs as root: with its capabilities a command
/// could remount a read-only bind writable (`mount -o remount,bind,rw .git`) or read
/// another process's environment.
pub const BASE_FLAGS: &[&str] = &[
    "--cap-drop",
    "ALL",
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-ipc",
];

/// The probe's argument list: the same namespaces a run uses, then `true`.
pub fn probe_args() -> Vec<OsString> {
    let mut a: Vec<OsString> = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        .iter()
        .map(OsString::from)
        .collect();
    a.extend(BASE_FLAGS.iter().map(OsString::from));
    a.push("--unshare-net".into());
    a.push("true".into());
    a
}

/// One prepared bubblewrap invocation; dropping it removes the placeholders it created.
#[derive(Debug)]
pub struct BwrapRun {
    /// Arguments for `bwrap` (the command's argv last).
    pub args: Vec<OsString>,
    _placeholders: Placeholders,
}

/// Empty directories made where missing protected paths would be created, so they can be
/// bound read-only; dropping it removes them (only while still empty).
#[derive(Debug, Default)]
pub struct Placeholders(Vec<PathBuf>);

impl Drop for Placeholders {
    fn drop(&mut self) {
        for p in self.0.iter().rev() {
            // Only an empty directory goes (it was bound read-only, so it still is).
            let _ = std::fs::remove_dir(p);
        }
    }
}

/// The paths to bind read-only over the writable roots: every existing protected path
/// inside one (and, with `tmp_too`, under `/tmp`, which bubblewrap replaces), and for a
/// missing one an empty placeholder at its first missing component, which stops the
/// creation of everything below it. Used by bubblewrap and by the
/// Landlock helper's private mount namespace.
pub fn read_only_binds(
    policy: &SandboxPolicy,
    tmp_too: bool,
) -> std::io::Result<(Vec<PathBuf>, Placeholders)> {
    let mut binds = Vec::new();
    let mut placeholders = Placeholders::default();
    for p in &policy.protected {
        let inside_writable = policy.writable_roots.iter().any(|r| p.starts_with(r));
        if std::fs::symlink_metadata(p).is_ok() {
            if inside_writable || (tmp_too && p.starts_with("/tmp")) {
                binds.push(p.clone());
            }
            continue;
        }
        if !inside_writable {
            continue;
        }
        let missing = first_missing(p);
        if let Err(e) = std::fs::create_dir(&missing) {
            if e.kind() != std::io::ErrorKind::AlreadyExists {
                return Err(e);
            }
        } else {
            placeholders.0.push(missing.clone());
        }
        if !binds.contains(&missing) {
            binds.push(missing);
        }
    }
    Ok((binds, placeholders))
}

impl BwrapRun {
    /// The arguments running `argv` under `policy`. Creates the empty read-only
    /// placeholders for missing protected paths inside writable roots.
    /// `seccomp_fd` is an open seccomp program ([`seccomp_memfd`]) the child inherits.
    pub fn prepare(
        policy: &SandboxPolicy,
        argv: &[String],
        seccomp_fd: Option<std::os::fd::RawFd>,
    ) -> std::io::Result<BwrapRun> {
        let mut a: Vec<OsString> = Vec::new();
        let mut push = |xs: &[&std::ffi::OsStr]| a.extend(xs.iter().map(|x| x.to_os_string()));
        push(&["--ro-bind".as_ref(), "/".as_ref(), "/".as_ref()]);
        push(&["--dev".as_ref(), "/dev".as_ref()]);
        push(&["--proc".as_ref(), "/proc".as_ref()]);
        push(&[
            "--bind".as_ref(),
            policy.tmp_dir.as_os_str(),
            "/tmp".as_ref(),
        ]);
        // The workdir (inside the workspace) must stay visible even when it lies under /tmp,
        // which the private /tmp hides: bound read-only first, writable roots over it.
        push(&[
            "--ro-bind".as_ref(),
            policy.workdir.as_os_str(),
            policy.workdir.as_os_str(),
        ]);
        for r in &policy.writable_roots {
            if r.exists() {
                push(&["--bind".as_ref(), r.as_os_str(), r.as_os_str()]);
            }
        }
        let (binds, placeholders) = read_only_binds(policy, true)?;
        for p in &binds {
            push(&["--ro-bind".as_ref(), p.as_os_str(), p.as_os_str()]);
        }
        a.extend(BASE_FLAGS.iter().map(OsString::from));
        if !policy.network {
            a.push("--unshare-net".into());
        }
        if let Some(fd) = seccomp_fd {
            a.push("--seccomp".into());
            a.push(fd.to_string().into());
        }
        a.extend(["--setenv", "TMPDIR", "/tmp", "--chdir"].map(OsString::from));
        a.push(policy.workdir.clone().into_os_string());
        a.push("--".into());
        a.extend(argv.iter().map(OsString::from));
        Ok(BwrapRun {
            args: a,
            _placeholders: placeholders,
        })
    }
}

/// The shallowest ancestor of `p` (or `p` itself) that does not exist.
fn first_missing(p: &Path) -> PathBuf {
    let mut cur = p.to_path_buf();
    while let Some(parent) = cur.parent() {
        if std::fs::symlink_metadata(parent).is_ok() {
            break;
        }
        cur = parent.to_path_buf();
    }
    cur
}

/// The seccomp program bubblewrap loads with the network off, in a memory file the child
/// keeps across `exec` (the caller clears close-on-exec in the child): `socket(AF_UNIX)`
/// and `io_uring_setup` fail with `EACCES`/`EPERM`. `socketpair` stays allowed.
pub fn seccomp_memfd() -> Result<std::os::fd::OwnedFd, super::error::SeccompError> {
    use std::io::{Seek, Write};
    use std::os::fd::FromRawFd;
    let prog = super::landlock::unix_socket_filter()?;
    let mut bytes = Vec::with_capacity(prog.len() * 8);
    for i in &prog {
        bytes.extend_from_slice(&i.code.to_ne_bytes());
        bytes.push(i.jt);
        bytes.push(i.jf);
        bytes.extend_from_slice(&i.k.to_ne_bytes());
    }
    // SAFETY: memfd_create takes a NUL-terminated name and returns a new descriptor.
    let fd = unsafe { libc::memfd_create(c"deepterm-seccomp".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error().into());
    }
    // SAFETY: fd was just created and is owned by nothing else.
    let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
    file.write_all(&bytes)?;
    file.rewind()?;
    Ok(file.into())
}
