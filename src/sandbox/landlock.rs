//! The Landlock backend (SPEC §14.2), applied only in the re-executed helper
//! (`deepterm __sandbox POLICY -- ARGV…`), never in deepterm's own process.
//!
//! The helper reads the policy, restricts itself and then executes the command, which
//! inherits every restriction:
//! - Landlock: read and execute everywhere; every write right only under the writable roots
//!   and the private temporary directory; the character devices every program writes to
//!   (`/dev/null` …). A writable root holding a protected path is not granted as a tree:
//!   its entries are granted one by one, recursing into the directories on the way to a
//!   protected path, which gets nothing. So an existing protected file is never writable,
//!   and a missing one cannot be created (its parent has no directory rights). The price:
//!   entries directly in such a directory (the workspace root) cannot be created, removed or
//!   renamed; existing files there stay writable. Symlinks are never granted (they would
//!   grant their target). Where the kernel lets the helper make a private mount namespace
//!   (an unprivileged user namespace), it does instead what bubblewrap does: binds every
//!   protected path read-only in that namespace and grants the writable roots whole, so
//!   the workspace root behaves as under bubblewrap (decision 0112). Landlock itself cannot
//!   take a subtree back out of a granted tree, so without the namespace the per-entry
//!   grant stays, and `/sandbox`, the capability sentence and the refusal say so.
//! - TCP bind and connect denied when `network = false` and the ABI has them (v4); abstract
//!   Unix sockets and signals scoped to the sandbox (v6).
//! - seccomp: with `network = false`, `socket()` of any family but `AF_UNIX` and
//!   `io_uring_setup` (whose socket operation bypasses seccomp) fail with `EACCES`/`EPERM`;
//!   on a kernel whose Landlock cannot restrict pathname Unix sockets (ABI < 9),
//!   `socket(AF_UNIX)` fails too, so no socket outside the sandbox (an ssh-agent, Docker's)
//!   can be reached; `socketpair` still works. From ABI 9 the socket rule
//!   grants connecting to sockets beneath the writable roots and the temporary directory;
//!   always, `setsid` and `setpgid` fail with `EPERM`, so nothing leaves the process group
//!   deepterm kills on timeout.
//! - `no_new_privs` is set (the ruleset and the filter require it), and every capability is
//!   dropped first (it matters when deepterm runs as root).
//!
//! A ruleset the kernel does not enforce fully is an error: the command is not run.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::ExitCode;

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope,
};

use super::error::{HelperError, RuleError, SeccompError};
use super::policy::SandboxPolicy;

/// The hidden subcommand that runs the helper.
pub const HELPER_SUBCOMMAND: &str = "__sandbox";

/// The oldest Landlock ABI that can refuse every write to a protected file (v3 added
/// truncation; before it `truncate(2)` was not controlled).
pub const MIN_ABI: i32 = 3;

/// The prefix of every line the helper prints about itself (never the command's).
pub const HELPER_ERROR_PREFIX: &str = "deepterm sandbox: ";

/// The helper's exit status when the sandbox could not be applied (the command never ran).
pub const SETUP_FAILED_STATUS: u8 = 125;

/// The Landlock ABI version the kernel reports (`landlock_create_ruleset` version query),
/// or why there is none.
pub fn kernel_abi() -> Result<i32, HelperError> {
    // SAFETY: the version query takes no attribute (null, size 0) and only returns a number.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    if v >= 1 {
        return Ok(v as i32);
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::EOPNOTSUPP) => Err(HelperError::LandlockDisabled),
        _ => Err(HelperError::NoLandlock),
    }
}

/// The helper's argument list for `argv` under `policy` (after the subcommand).
pub fn helper_args(policy: &SandboxPolicy, argv: &[String]) -> Vec<OsString> {
    let mut a: Vec<OsString> = vec![
        HELPER_SUBCOMMAND.into(),
        serde_json::to_string(policy).unwrap_or_default().into(),
        "--".into(),
    ];
    a.extend(argv.iter().map(OsString::from));
    a
}

/// The helper's entry point: `args` are what follows `__sandbox`. Only returns on failure
/// (the command replaces the process).
pub fn helper_main(args: &[OsString]) -> ExitCode {
    let fail = |msg: String| {
        eprintln!("{HELPER_ERROR_PREFIX}{msg}");
        ExitCode::from(SETUP_FAILED_STATUS)
    };
    let (policy, argv) = match parse_args(args) {
        Ok(x) => x,
        Err(e) => return fail(e.to_string()),
    };
    if let Err(e) = restrict(&policy) {
        return fail(format!(
            "the sandbox could not be applied, nothing was run: {e}"
        ));
    }
    let Some((program, rest)) = argv.split_first() else {
        return fail("no command".into());
    };
    let err = std::process::Command::new(program)
        .args(rest)
        .current_dir(&policy.workdir)
        .env("TMPDIR", &policy.tmp_dir)
        .exec();
    eprintln!("{HELPER_ERROR_PREFIX}could not run {program:?}: {err}");
    ExitCode::from(127)
}

fn parse_args(args: &[OsString]) -> Result<(SandboxPolicy, Vec<OsString>), HelperError> {
    let [policy, sep, argv @ ..] = args else {
        return Err(HelperError::Usage);
    };
    if sep != "--" {
        return Err(HelperError::Usage);
    }
    let policy: SandboxPolicy =
        serde_json::from_str(&policy.to_string_lossy()).map_err(HelperError::BadPolicy)?;
    Ok((policy, argv.to_vec()))
}

/// Restricts the calling process (the helper) to `policy`: Landlock, then seccomp.
fn restrict(policy: &SandboxPolicy) -> Result<(), HelperError> {
    if policy.mount_ns {
        private_mounts(&policy.ro_binds)?;
    }
    drop_capabilities()?;
    let v = kernel_abi()?;
    if v < MIN_ABI {
        return Err(HelperError::AbiTooOld {
            found: v,
            needed: MIN_ABI,
        });
    }
    let abi = ABI::from(v.min(10));
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(abi))
        .map_err(HelperError::Ruleset)?;
    if !policy.network && v >= 4 {
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(HelperError::Ruleset)?;
    }
    if v >= 6 {
        let scope: BitFlags<Scope> = if policy.network {
            Scope::Signal.into()
        } else {
            Scope::Signal | Scope::AbstractUnixSocket
        };
        ruleset = ruleset.scope(scope).map_err(HelperError::Ruleset)?;
    }
    let mut created = ruleset.create().map_err(HelperError::Ruleset)?;
    let mut read = AccessFs::from_read(abi);
    if policy.network && v >= 9 {
        // Pathname Unix sockets anywhere only with the network on (v9 handles them).
        read |= AccessFs::ResolveUnix;
    }
    created = add(created, Path::new("/"), read)?;
    for dev in [
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/random",
        "/dev/urandom",
    ] {
        if Path::new(dev).exists() {
            created = add(created, Path::new(dev), AccessFs::from_file(abi))?;
        }
    }
    created = add(created, &policy.tmp_dir, AccessFs::from_all(abi))?;
    if !policy.network && v >= 9 {
        // Sockets beneath the writable roots stay reachable (from_all has ResolveUnix for
        // the trees granted whole; the workspace root's entries get it below).
        for root in &policy.writable_roots {
            if root.exists() {
                created = add(created, root, AccessFs::ResolveUnix.into())?;
            }
        }
    }
    for root in &policy.writable_roots {
        if policy.mount_ns {
            // The protected paths inside are read-only mounts (private_mounts).
            let is_dir = std::fs::symlink_metadata(root).is_ok_and(|m| m.is_dir());
            if is_dir {
                created = add(created, root, AccessFs::from_all(abi))?;
            }
        } else {
            created = grant_tree(created, policy, root, abi)?;
        }
    }
    let status = created.restrict_self().map_err(HelperError::Ruleset)?;
    if status.ruleset != RulesetStatus::FullyEnforced {
        return Err(HelperError::NotEnforced(status.ruleset));
    }
    if !status.no_new_privs {
        return Err(HelperError::NoNewPrivs);
    }
    if let Some(n) = policy.nproc {
        // Counted from the user's processes now (see super::limits).
        // SAFETY: getuid has no failure mode.
        let uid = unsafe { libc::getuid() };
        super::limits::set_nproc(super::limits::tasks_of(uid) + u64::from(n))
            .map_err(HelperError::ProcessLimit)?;
    }
    Ok(seccomp(policy.network, v < 9)?)
}

/// Enters a private user and mount namespace and binds each of `binds` read-only over
/// itself. The command cannot undo it: Landlock forbids mounting and every
/// capability is dropped afterwards.
fn private_mounts(binds: &[std::path::PathBuf]) -> Result<(), HelperError> {
    use std::ffi::CString;
    let os = std::io::Error::last_os_error;
    // SAFETY: getuid/getgid have no failure mode; unshare only changes this process's
    // namespaces; mount and statvfs read NUL-terminated paths and a struct that outlive
    // the calls.
    unsafe {
        let (uid, gid) = (libc::getuid(), libc::getgid());
        if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) != 0 {
            return Err(HelperError::NoNamespace(os()));
        }
        let _ = std::fs::write("/proc/self/setgroups", "deny");
        std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1\n")).map_err(|source| {
            HelperError::IdMap {
                map: "uid_map",
                source,
            }
        })?;
        std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1\n")).map_err(|source| {
            HelperError::IdMap {
                map: "gid_map",
                source,
            }
        })?;
        let root = CString::new("/").unwrap_or_default();
        if libc::mount(
            std::ptr::null(),
            root.as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ) != 0
        {
            return Err(HelperError::PrivateMounts(os()));
        }
        for p in binds {
            let c = CString::new(p.as_os_str().as_encoded_bytes())
                .map_err(|_| HelperError::NulInPath(p.clone()))?;
            if libc::mount(
                c.as_ptr(),
                c.as_ptr(),
                std::ptr::null(),
                libc::MS_BIND | libc::MS_REC,
                std::ptr::null(),
            ) != 0
            {
                return Err(HelperError::Bind {
                    path: p.clone(),
                    source: os(),
                });
            }
            // A remount in a user namespace must keep the flags the mount is locked with.
            let mut st: libc::statvfs = std::mem::zeroed();
            let mut keep: libc::c_ulong = 0;
            if libc::statvfs(c.as_ptr(), &mut st) == 0 {
                for (st_flag, ms_flag) in [
                    (libc::ST_NOSUID, libc::MS_NOSUID),
                    (libc::ST_NODEV, libc::MS_NODEV),
                    (libc::ST_NOEXEC, libc::MS_NOEXEC),
                    (libc::ST_NOATIME, libc::MS_NOATIME),
                    (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
                    (libc::ST_RELATIME, libc::MS_RELATIME),
                ] {
                    if st.f_flag & st_flag != 0 {
                        keep |= ms_flag;
                    }
                }
            }
            if libc::mount(
                std::ptr::null(),
                c.as_ptr(),
                std::ptr::null(),
                libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | keep,
                std::ptr::null(),
            ) != 0
            {
                return Err(HelperError::ReadOnly {
                    path: p.clone(),
                    source: os(),
                });
            }
        }
    }
    Ok(())
}

/// Drops every capability (bounding, ambient, effective, permitted, inheritable), so a
/// command run as root cannot regain them on exec, read a non-dumpable process's memory or
/// environment (deepterm's holds the API key, see [`super::hide_process_memory`]), or
/// override file permissions. A root helper that cannot drop them fails.
fn drop_capabilities() -> Result<(), HelperError> {
    use rustix::thread::{
        CapabilitySet, CapabilitySets, clear_ambient_capability_set,
        remove_capability_from_bounding_set, set_capabilities,
    };
    // Every number the kernel might know, not only the ones this build's headers name: a
    // newer kernel's capability left in the bounding set would come back on exec. Unknown
    // numbers fail with EINVAL, which is expected, hence the errors are ignored here and the
    // result checked below.
    for cap in 0..64 {
        let _ = remove_capability_from_bounding_set(CapabilitySet::from_bits_retain(1 << cap));
    }
    let _ = clear_ambient_capability_set();
    let none = CapabilitySets {
        effective: CapabilitySet::empty(),
        permitted: CapabilitySet::empty(),
        inheritable: CapabilitySet::empty(),
    };
    set_capabilities(None, none).map_err(|e| HelperError::Capabilities(e.into()))?;
    let root = rustix::process::geteuid().is_root();
    if root
        && matches!(
            rustix::thread::capability_is_in_bounding_set(CapabilitySet::SYS_ADMIN),
            Ok(true)
        )
    {
        // CAP_SYS_ADMIN still in the bounding set: exec would give it back to root.
        return Err(HelperError::BoundingSet);
    }
    Ok(())
}

fn add(
    c: RulesetCreated,
    path: &Path,
    access: BitFlags<AccessFs>,
) -> Result<RulesetCreated, HelperError> {
    let at = |source: RuleError| HelperError::Rule {
        path: path.to_path_buf(),
        source,
    };
    let fd = PathFd::new(path).map_err(|e| at(e.into()))?;
    c.add_rule(PathBeneath::new(fd, access))
        .map_err(|e| at(e.into()))
}

/// Grants write rights under `path` except to protected paths: the whole tree when no
/// protected path lies inside it, otherwise each entry on its own (see the module doc).
fn grant_tree(
    mut c: RulesetCreated,
    policy: &SandboxPolicy,
    path: &Path,
    abi: ABI,
) -> Result<RulesetCreated, HelperError> {
    if policy.is_protected(path) {
        return Ok(c);
    }
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(c);
    };
    if meta.file_type().is_symlink() {
        return Ok(c);
    }
    if meta.is_dir() && policy.protects_inside(path) {
        let entries = std::fs::read_dir(path).map_err(|e| HelperError::Rule {
            path: path.to_path_buf(),
            source: e.into(),
        })?;
        for entry in entries.flatten() {
            c = grant_tree(c, policy, &entry.path(), abi)?;
        }
        return Ok(c);
    }
    let access = if meta.is_dir() {
        AccessFs::from_all(abi)
    } else {
        AccessFs::from_file(abi)
    };
    add(c, path, access)
}

/// The seccomp filter (see the module doc). seccompiler sets nothing itself: the caller
/// already has `no_new_privs` from Landlock.
fn seccomp(network: bool, deny_unix: bool) -> Result<(), SeccompError> {
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule, TargetArch,
    };
    use std::collections::BTreeMap;
    let arch = TargetArch::try_from(std::env::consts::ARCH)?;
    let eperm = SeccompAction::Errno(libc::EPERM as u32);
    let always: Vec<SeccompRule> = Vec::new();
    let mut denied: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    denied.insert(libc::SYS_setsid, always.clone());
    denied.insert(libc::SYS_setpgid, always.clone());
    let mut filters = vec![SeccompFilter::new(
        denied,
        SeccompAction::Allow,
        eperm.clone(),
        arch,
    )?];
    if !network {
        let not_unix = SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Ne,
            libc::AF_UNIX as u64,
        )?;
        let mut sockets: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
        let rules = if deny_unix {
            Vec::new()
        } else {
            vec![SeccompRule::new(vec![not_unix])?]
        };
        sockets.insert(libc::SYS_socket, rules);
        filters.push(SeccompFilter::new(
            sockets,
            SeccompAction::Allow,
            SeccompAction::Errno(libc::EACCES as u32),
            arch,
        )?);
        let mut uring: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
        uring.insert(libc::SYS_io_uring_setup, always);
        filters.push(SeccompFilter::new(
            uring,
            SeccompAction::Allow,
            eperm,
            arch,
        )?);
    }
    for f in filters {
        let prog: BpfProgram = f.try_into()?;
        seccompiler::apply_filter(&prog)?;
    }
    Ok(())
}

/// bubblewrap's filter with the network off (its own namespace already isolates the other
/// families and abstract sockets): `socket(AF_UNIX)` fails with `EACCES`, `io_uring_setup`
/// with `EPERM`.
pub fn unix_socket_filter() -> Result<seccompiler::BpfProgram, SeccompError> {
    use seccompiler::{
        SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule, TargetArch,
    };
    use std::collections::BTreeMap;
    let arch = TargetArch::try_from(std::env::consts::ARCH)?;
    let unix = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Eq,
        libc::AF_UNIX as u64,
    )?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_socket, vec![SeccompRule::new(vec![unix])?]);
    rules.insert(libc::SYS_io_uring_setup, Vec::new());
    let f = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        arch,
    )?;
    Ok(f.try_into()?)
}
