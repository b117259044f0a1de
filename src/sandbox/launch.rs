//! Turning one command into the program and arguments that run it inside the chosen backend.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::WriteScope;
use super::bwrap::BwrapRun;
use super::landlock::helper_args;
use super::policy::{PrivateTmp, SandboxPolicy};
use super::probe::Backend;

/// A command ready to spawn inside the sandbox. Keep it alive until the command has exited:
/// dropping it removes the private temporary directory and bubblewrap's placeholders.
#[derive(Debug)]
pub struct Launch {
    /// The program to start (`bwrap` or the deepterm helper).
    pub program: PathBuf,
    /// Its arguments (the command's argv last).
    pub args: Vec<OsString>,
    _bwrap: Option<BwrapRun>,
    _tmp: PrivateTmp,
}

/// Prepares `argv` to run in `workdir` under `scope` on `backend`.
pub fn prepare(
    backend: &Backend,
    scope: &WriteScope,
    network: bool,
    workdir: &Path,
    argv: &[String],
) -> Result<Launch, String> {
    let tmp = PrivateTmp::create()
        .map_err(|e| format!("the sandbox's private temporary directory: {e}"))?;
    let policy = SandboxPolicy::new(scope, network, tmp.path(), workdir);
    match backend {
        Backend::Bwrap { program } => {
            let run = BwrapRun::prepare(&policy, argv)
                .map_err(|e| format!("bubblewrap could not be prepared: {e}"))?;
            Ok(Launch {
                program: program.clone(),
                args: run.args.clone(),
                _bwrap: Some(run),
                _tmp: tmp,
            })
        }
        Backend::Landlock { helper, .. } => Ok(Launch {
            program: helper.clone(),
            args: helper_args(&policy, argv),
            _bwrap: None,
            _tmp: tmp,
        }),
    }
}
