//! The trust question (SPEC §15.4, decision 0127): asked once per workspace, on the
//! terminal just before the TUI takes it over, when the workspace holds files deepterm
//! would load from it. The answer is remembered in `trusted.toml`.

use std::io::{BufRead, Write};
use std::path::Path;

use crate::config::trust::{TrustStore, project_files};
use crate::i18n::{Arg, Localizer};
use crate::safe_text::sanitize;

/// Whether the TUI loads `workspace`'s project files: yes when it holds none, else the
/// remembered answer, else the user's answer to the question (then remembered).
pub fn decide_for_tui(workspace: &Path, l: Localizer) -> bool {
    let stdin = std::io::stdin();
    decide(
        workspace,
        TrustStore::in_user_config().as_ref(),
        &mut stdin.lock(),
        &mut std::io::stderr(),
        l,
    )
}

/// [`decide_for_tui`] with its store, input and output given.
pub fn decide(
    workspace: &Path,
    store: Option<&TrustStore>,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    l: Localizer,
) -> bool {
    let files = project_files(workspace);
    if files.is_empty() {
        return true;
    }
    if let Some(known) = store.and_then(|s| s.get(workspace)) {
        return known;
    }
    let answer = ask(workspace, &files, input, out, l);
    if let Some(s) = store
        && let Err(e) = s.set(workspace, answer)
    {
        let _ = writeln!(
            out,
            "{}",
            sanitize(&l.tra(
                "first-run-trust-not-saved",
                &[
                    ("path", Arg::from(s.path().display().to_string())),
                    ("error", Arg::from(e.to_string())),
                ],
            ))
        );
    }
    answer
}

/// Asks; only `y`, `yes` (any case) or `是` trusts: Enter, anything else or the end of
/// input does not (nothing is loaded without a yes).
fn ask(
    workspace: &Path,
    files: &[std::path::PathBuf],
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    l: Localizer,
) -> bool {
    let shown = |p: &Path| Arg::from(sanitize(&p.display().to_string()));
    let _ = writeln!(
        out,
        "{}",
        l.tra("first-run-trust-intro", &[("folder", shown(workspace))])
    );
    for f in files {
        let rel = f.strip_prefix(workspace).unwrap_or(f);
        let _ = writeln!(out, "  {}", sanitize(&rel.display().to_string()));
    }
    let _ = write!(out, "{} ", l.tr("first-run-trust-ask"));
    let _ = out.flush();
    let mut line = String::new();
    if input.read_line(&mut line).is_err() {
        return false;
    }
    let a = line.trim().to_lowercase();
    let yes = matches!(a.as_str(), "y" | "yes" | "是");
    let _ = writeln!(
        out,
        "{}",
        l.tr(if yes {
            "first-run-trust-trusted"
        } else {
            "first-run-trust-untrusted"
        })
    );
    yes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Locale;

    fn workspace() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("AGENTS.md"), "Always answer in French.").unwrap();
        d
    }

    fn run(ws: &Path, store: &TrustStore, answer: &str) -> (bool, String) {
        let mut out = Vec::new();
        let got = decide(
            ws,
            Some(store),
            &mut answer.as_bytes(),
            &mut out,
            Localizer::new(Locale::EnUs),
        );
        (got, String::from_utf8(out).unwrap())
    }

    #[test]
    fn yes_trusts_the_folder_and_is_remembered_without_asking_again() {
        let (ws, home) = (workspace(), tempfile::tempdir().unwrap());
        let store = TrustStore::at(home.path().join("trusted.toml"));
        let (trusted, said) = run(ws.path(), &store, "y\n");
        assert!(trusted);
        assert!(
            said.contains("AGENTS.md") && said.contains("[y/N]"),
            "{said}"
        );
        let (again, said) = run(ws.path(), &store, "n\n");
        assert!(again, "the remembered yes wins");
        assert!(said.is_empty(), "not asked twice: {said}");
    }

    #[test]
    fn no_or_enter_or_no_answer_leaves_the_folder_untrusted_and_is_remembered() {
        for answer in ["n\n", "\n", "", "maybe\n"] {
            let (ws, home) = (workspace(), tempfile::tempdir().unwrap());
            let store = TrustStore::at(home.path().join("trusted.toml"));
            assert!(!run(ws.path(), &store, answer).0, "{answer:?}");
            let (again, said) = run(ws.path(), &store, "y\n");
            assert!(!again && said.is_empty(), "{answer:?}: {said}");
        }
    }

    #[test]
    fn a_folder_without_project_files_is_not_asked_about() {
        let (ws, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let store = TrustStore::at(home.path().join("trusted.toml"));
        let (trusted, said) = run(ws.path(), &store, "n\n");
        assert!(trusted && said.is_empty());
        assert!(!store.path().exists());
    }
}
