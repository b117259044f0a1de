//! Turning one command into the program and arguments that run it inside the chosen backend.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::WriteScope;
use super::bwrap::BwrapRun;
use super::error::LaunchError;
use super::landlock::helper_args;
use super::limits::PidsCgroup;
use super::policy::SandboxPolicy;
use super::probe::Backend;

/// What one sandboxed command runs under besides the scope: the session's private
/// temporary directory, the network setting and the process limit.
#[derive(Debug, Clone, Copy)]
pub struct RunLimits<'a> {
    /// The session's private temporary directory.
    pub tmp_dir: &'a Path,
    /// `[sandbox] network`.
    pub network: bool,
    /// `[sandbox] max_processes`.
    pub max_processes: u32,
}

/// A command ready to spawn inside the sandbox. Keep it alive until the command has exited:
/// dropping it removes bubblewrap's placeholders and the command's pids cgroup.
#[derive(Debug)]
pub struct Launch {
    /// The program to start (`bwrap` or the deepterm helper).
    pub program: PathBuf,
    /// Its arguments (the command's argv last).
    pub args: Vec<OsString>,
    /// The pids cgroup the child joins before it executes `program`, when root.
    pub cgroup: Option<PidsCgroup>,
    /// The bubblewrap seccomp program the child keeps open for `bwrap --seccomp`.
    pub seccomp_fd: Option<std::os::fd::OwnedFd>,
    /// The version-control walk stopped at its cap.
    pub vcs_walk_truncated: bool,
    /// The version-control entries that existed before the command (protected).
    pub vcs_before: Vec<PathBuf>,
    _bwrap: Option<BwrapRun>,
    _placeholders: Option<super::bwrap::Placeholders>,
}

/// Prepares `argv` to run in `workdir` under `scope` on `backend`.
pub fn prepare(
    backend: &Backend,
    scope: &WriteScope,
    limits: RunLimits<'_>,
    workdir: &Path,
    argv: &[String],
) -> Result<Launch, LaunchError> {
    let mut policy = SandboxPolicy::new(scope, limits.network, limits.tmp_dir, workdir);
    // Repositories at any depth, as they are now (one cloned since the start included).
    let found = super::vcs::discover(&policy.writable_roots, super::vcs::WALK_CAP);
    for p in &found.paths {
        if !policy.protected.contains(p) {
            policy.protected.push(p.clone());
        }
    }
    let cgroup = if super::limits::is_root() {
        PidsCgroup::create(limits.max_processes).ok()
    } else {
        None
    };
    let rlimit = cgroup.is_none() && !super::limits::is_root();
    match backend {
        Backend::Bwrap { program } => {
            let wrapped;
            let argv = if rlimit {
                wrapped = super::limits::sh_wrapper(limits.max_processes, argv);
                &wrapped[..]
            } else {
                argv
            };
            let seccomp_fd = if limits.network {
                None
            } else {
                Some(super::bwrap::seccomp_memfd()?)
            };
            let fd = seccomp_fd.as_ref().map(std::os::fd::AsRawFd::as_raw_fd);
            let run = BwrapRun::prepare(&policy, argv, fd).map_err(LaunchError::Bwrap)?;
            Ok(Launch {
                program: program.clone(),
                args: run.args.clone(),
                cgroup,
                seccomp_fd,
                vcs_walk_truncated: found.truncated,
                vcs_before: found.paths,
                _bwrap: Some(run),
                _placeholders: None,
            })
        }
        Backend::Landlock {
            helper, mount_ns, ..
        } => {
            if rlimit {
                policy.nproc = Some(limits.max_processes);
            }
            let mut placeholders = None;
            if *mount_ns {
                let (binds, guard) =
                    super::bwrap::read_only_binds(&policy, false).map_err(LaunchError::Landlock)?;
                policy.ro_binds = binds;
                policy.mount_ns = true;
                placeholders = Some(guard);
            }
            Ok(Launch {
                program: helper.clone(),
                args: helper_args(&policy, argv),
                cgroup,
                seccomp_fd: None,
                vcs_walk_truncated: found.truncated,
                vcs_before: found.paths,
                _bwrap: None,
                _placeholders: placeholders,
            })
        }
    }
}
