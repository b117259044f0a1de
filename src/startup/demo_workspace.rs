//! The guided demo's workspace (SPEC §15.4, decision 0125): the sample project shipped in
//! `assets/demo/`, copied into a new temporary directory that the demo works in. The
//! directory deepterm was started in is never the workspace of a demo, whatever the user
//! asks and whatever the mode: the write scope, the shell's working directory and every
//! relative path the scripted model names are inside the copy.

use std::path::{Path, PathBuf};

use crate::agent::protocol::{Notice, NoticeLevel};
use crate::i18n::Arg;

/// The sample project's files, built into the binary.
pub const SAMPLE: &[(&str, &str)] = &[
    ("README.md", include_str!("../../assets/demo/README.md")),
    ("calc.sh", include_str!("../../assets/demo/calc.sh")),
    ("test.sh", include_str!("../../assets/demo/test.sh")),
];

/// The name every demo copy starts with (inside the system's temporary directory),
/// followed by five random characters: short, as the `/resume` picker shows it.
pub const PREFIX: &str = "demo-";

/// Copies the sample into a new private directory under `parent` and returns its path.
/// The directory is kept after deepterm exits, so the user can look at what the demo did.
pub fn create_in(parent: &Path) -> std::io::Result<PathBuf> {
    let dir = tempfile::Builder::new()
        .prefix(PREFIX)
        .tempdir_in(parent)?
        .keep();
    for (name, text) in SAMPLE {
        std::fs::write(dir.join(name), text)?;
    }
    Ok(dir.canonicalize().unwrap_or(dir))
}

/// Whether `dir` is a demo copy: directly inside the temporary directory, named like one.
pub fn is_demo_copy(dir: &Path) -> bool {
    let tmp = std::env::temp_dir();
    let tmp = tmp.canonicalize().unwrap_or(tmp);
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    dir.parent() == Some(tmp.as_path())
        && dir
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(PREFIX))
}

/// Makes the working directory a demo copy: stays in one already entered (a resumed demo
/// session continues in its copy), else copies the sample and enters the copy. Returns the
/// copy's path.
pub fn enter() -> std::io::Result<PathBuf> {
    if let Ok(here) = std::env::current_dir()
        && is_demo_copy(&here)
    {
        return Ok(here);
    }
    let dir = create_in(&std::env::temp_dir())?;
    std::env::set_current_dir(&dir)?;
    Ok(dir)
}

/// [`enter`] for a start: a failure is one line in the interface language, for a startup
/// error (the demo does not fall back to the start directory).
pub fn enter_at_start(l: crate::i18n::Localizer) -> Result<PathBuf, String> {
    enter().map_err(|e| {
        l.tra(
            "first-run-demo-copy-failed",
            &[("error", crate::i18n::Arg::from(e.to_string()))],
        )
    })
}

/// The start notice naming the copy (`exec` prints it on stderr; the TUI names the copy
/// in its banner, leaving Chat to the first-run hints).
pub fn notice(dir: &Path) -> crate::agent::protocol::Notice {
    crate::agent::protocol::Notice::new(
        crate::agent::protocol::NoticeLevel::Info,
        "first-run-demo-workspace",
        vec![(
            "dir",
            crate::i18n::Arg::from(crate::safe_text::sanitize(&dir.display().to_string())),
        )],
    )
}

/// Demo mode answers from the built-in simulator: a `--base-url`, and the provider a
/// `--model` names, are not contacted. Said once at start instead of silently; `None`
/// when the command line asked for nothing demo mode leaves out.
pub(super) fn demo_notice(
    args: &crate::cli::CliArgs,
    route: &crate::llm::types::Route,
) -> Option<Notice> {
    if args.base_url.is_none() && (args.demo || args.model.is_none()) {
        return None;
    }
    let mut flags = vec![];
    if args.model.is_some() && !args.demo {
        flags.push("--model");
    }
    if args.base_url.is_some() {
        flags.push("--base-url");
    }
    let (key, var) = match args.demo {
        true => ("app-demo-ignores", String::new()),
        false => ("app-demo-no-key", route.api_key_env.clone()),
    };
    Some(Notice::new(
        NoticeLevel::Warn,
        key,
        vec![
            ("flags", Arg::from(flags.join(" "))),
            ("var", Arg::from(var)),
            ("route", Arg::from(route.id())),
        ],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_is_copied_whole_into_a_new_directory_each_time() {
        let parent = tempfile::tempdir().unwrap();
        let a = create_in(parent.path()).unwrap();
        let b = create_in(parent.path()).unwrap();
        assert_ne!(a, b);
        for (name, text) in SAMPLE {
            assert_eq!(std::fs::read_to_string(a.join(name)).unwrap(), *text);
        }
        assert!(a.file_name().unwrap().to_string_lossy().starts_with(PREFIX));
    }

    #[test]
    fn the_samples_test_fails_until_the_bug_is_fixed_with_posix_sh_alone() {
        let parent = tempfile::tempdir().unwrap();
        let dir = create_in(parent.path()).unwrap();
        let run = || {
            std::process::Command::new("sh")
                .arg("test.sh")
                .current_dir(&dir)
                .env_clear()
                .output()
                .unwrap()
        };
        let out = run();
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stdout).contains("demo tests: 1 failed"));
        let calc = std::fs::read_to_string(dir.join("calc.sh")).unwrap();
        let (bug, fix) = crate::sim::DEMO_FIX;
        std::fs::write(dir.join("calc.sh"), calc.replace(bug, fix)).unwrap();
        let out = run();
        assert!(out.status.success(), "{out:?}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("demo tests: all passed"));
    }
}
