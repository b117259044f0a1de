//! Sessions belong to a workspace (SPEC §14.4): the directory a session was started in,
//! recorded as `session/start`'s `cwd`. The `/resume` listings put this workspace's
//! sessions first, and `--resume` from elsewhere continues in the session's workspace.

use std::path::{Path, PathBuf};

use super::Session;
use super::event::EventKind;
use crate::i18n::Localizer;

/// The workspace `session` was started in (`session/start`'s `cwd`); `None` when the log
/// recorded none.
pub fn session_workspace(session: &Session) -> Option<PathBuf> {
    session.events().iter().find_map(|e| match &e.kind {
        EventKind::SessionStart(s) if !s.cwd.is_empty() => Some(PathBuf::from(&s.cwd)),
        _ => None,
    })
}

/// Whether two directories are the same workspace (canonically when both exist).
pub fn same_workspace(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Where a resumed session continues.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResumeWorkspace {
    /// In the current directory: it is the session's workspace, or the log names none.
    Here,
    /// In the session's workspace, another existing directory.
    Switch(PathBuf),
    /// The session's workspace no longer exists (or is no directory): here, with a note.
    Gone(PathBuf),
}

/// Decides where a session started in `recorded` continues when resumed from `here`.
pub fn resume_workspace(recorded: Option<&Path>, here: &Path) -> ResumeWorkspace {
    match recorded {
        None => ResumeWorkspace::Here,
        Some(w) if same_workspace(w, here) => ResumeWorkspace::Here,
        Some(w) if w.is_absolute() && w.is_dir() => ResumeWorkspace::Switch(w.to_path_buf()),
        Some(w) => ResumeWorkspace::Gone(w.to_path_buf()),
    }
}

/// Tells whether a directory is one workspace ([`same_workspace`]'s rule), with that
/// workspace resolved once.
#[derive(Debug, Clone)]
pub struct WorkspaceMatch {
    workspace: PathBuf,
    resolved: Option<PathBuf>,
}

impl WorkspaceMatch {
    /// A matcher for `workspace`.
    pub fn new(workspace: &Path) -> Self {
        WorkspaceMatch {
            workspace: workspace.to_path_buf(),
            resolved: std::fs::canonicalize(workspace).ok(),
        }
    }

    /// Whether `dir` is the workspace (canonically when both exist).
    pub fn contains(&self, dir: &str) -> bool {
        match (&self.resolved, std::fs::canonicalize(dir)) {
            (Some(h), Ok(x)) => *h == x,
            _ => Path::new(dir) == self.workspace,
        }
    }
}

/// Orders `items` so that those of `workspace` come first, keeping the order within each
/// group (newest first, as listed). Each item's path is resolved once ([`same_workspace`]'s
/// rule), not once per comparison.
pub fn this_workspace_first<T>(items: &mut [T], workspace: &Path, of: impl Fn(&T) -> Option<&str>) {
    let m = WorkspaceMatch::new(workspace);
    items.sort_by_cached_key(|t| !of(t).is_some_and(|w| m.contains(w)));
}

/// `--resume` from another directory (SPEC §14.4): a session continues in the workspace
/// it belongs to, so its sandbox, tools and `AGENTS.md` are that workspace's. Changes the
/// process's directory when the session's workspace exists elsewhere; returns the line
/// that says so (or that the workspace is gone and the session continues here). Call it
/// before the agent is built (`app::build_agent` reads the directory).
pub fn enter_session_workspace(session: &Session, l: Localizer) -> Option<String> {
    let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let recorded = session_workspace(session);
    let shown =
        |p: &Path| crate::i18n::Arg::from(crate::safe_text::sanitize(&p.display().to_string()));
    match resume_workspace(recorded.as_deref(), &here) {
        ResumeWorkspace::Here => None,
        ResumeWorkspace::Switch(w) => match std::env::set_current_dir(&w) {
            Ok(()) => Some(l.tra("resume-other-workspace", &[("workspace", shown(&w))])),
            Err(_) => Some(l.tra(
                "resume-workspace-missing",
                &[("workspace", shown(&w)), ("here", shown(&here))],
            )),
        },
        ResumeWorkspace::Gone(w) => Some(l.tra(
            "resume-workspace-missing",
            &[("workspace", shown(&w)), ("here", shown(&here))],
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_is_the_directory_the_session_started_in() {
        let s = Session::new("w", "/work/project");
        assert_eq!(session_workspace(&s), Some(PathBuf::from("/work/project")));
        assert_eq!(session_workspace(&Session::new("w", "")), None);
    }

    #[test]
    fn resuming_from_elsewhere_switches_to_an_existing_workspace_only() {
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (d.path().join("a"), d.path().join("b"));
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        assert_eq!(resume_workspace(Some(&a), &a), ResumeWorkspace::Here);
        assert_eq!(resume_workspace(None, &a), ResumeWorkspace::Here);
        assert_eq!(
            resume_workspace(Some(&b), &a),
            ResumeWorkspace::Switch(b.clone())
        );
        let gone = d.path().join("gone");
        assert_eq!(
            resume_workspace(Some(&gone), &a),
            ResumeWorkspace::Gone(gone)
        );
        assert_eq!(
            resume_workspace(Some(Path::new("relative")), &a),
            ResumeWorkspace::Gone(PathBuf::from("relative"))
        );
    }

    #[test]
    fn this_workspaces_sessions_come_first_in_listed_order() {
        let mut v = vec![
            ("n1", Some("/other")),
            ("n2", Some("/here")),
            ("n3", None),
            ("n4", Some("/here")),
        ];
        this_workspace_first(&mut v, Path::new("/here"), |t| t.1);
        let ids: Vec<&str> = v.iter().map(|t| t.0).collect();
        assert_eq!(ids, ["n2", "n4", "n1", "n3"]);
    }
}
