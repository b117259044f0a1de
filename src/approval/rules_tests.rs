//! Rules files: loading (hostile files included), the project's limits, matching, and
//! saving and revoking without losing the rest of the file.

use std::path::{Path, PathBuf};

use super::error::{Expected, RulesError, RulesWarning};
use super::rules::*;
use super::split::split_command;
use super::store::{revoke_rule, save_allow_rule};

fn words(s: &str) -> Vec<String> {
    s.split(' ').map(String::from).collect()
}

fn set(rules: &[(&str, RuleDecision)]) -> RuleSet {
    RuleSet {
        rules: rules
            .iter()
            .enumerate()
            .map(|(index, (p, decision))| Rule {
                prefix: words(p),
                decision: *decision,
                origin: RuleOrigin::User,
                file: PathBuf::from("rules.toml"),
                index,
            })
            .collect(),
    }
}

fn verdict(rules: &RuleSet, cmd: &str) -> &'static str {
    match rules.evaluate(&split_command(cmd), &[]) {
        Verdict::Forbidden { .. } => "forbidden",
        Verdict::Prompt(PromptCause::Rule(_)) => "prompt",
        Verdict::Prompt(PromptCause::MaybeForbidden(_)) => "maybe-forbidden",
        Verdict::Prompt(PromptCause::Unparseable) => "unparseable",
        Verdict::Allowed => "allowed",
        Verdict::Unmatched => "unmatched",
    }
}

#[test]
fn forbidden_wins_over_prompt_which_wins_over_allow() {
    use RuleDecision::*;
    let rules = set(&[
        ("git", Allow),
        ("git push", Prompt),
        ("git push --force", Forbidden),
    ]);
    assert_eq!(verdict(&rules, "git status"), "allowed");
    assert_eq!(verdict(&rules, "git push origin"), "prompt");
    assert_eq!(verdict(&rules, "git push --force origin"), "forbidden");
    assert_eq!(
        verdict(&rules, "git status && git push --force"),
        "forbidden"
    );
    // Every simple command must be allowed.
    assert_eq!(verdict(&rules, "git status | tee x"), "unmatched");
}

#[test]
fn a_path_to_a_forbidden_program_is_forbidden_but_does_not_satisfy_an_allow() {
    use RuleDecision::*;
    let rules = set(&[("rm", Forbidden), ("git", Allow)]);
    assert_eq!(verdict(&rules, "/bin/rm -rf x"), "forbidden");
    assert_eq!(verdict(&rules, "./git status"), "unmatched");
}

#[test]
fn a_wrapped_command_can_refuse_but_the_wrapper_alone_needs_the_allow() {
    use RuleDecision::*;
    let rules = set(&[("sudo", Allow), ("rm", Forbidden), ("git push", Prompt)]);
    assert_eq!(verdict(&rules, "sudo make install"), "allowed");
    assert_eq!(verdict(&rules, "sudo rm -rf /"), "forbidden");
    assert_eq!(verdict(&rules, "sudo git push"), "prompt");
    assert_eq!(verdict(&rules, "nohup make"), "unmatched");
    // Without the wrapper rule, the same strings are only what the wrapped program is.
    let plain = set(&[("rm", Forbidden)]);
    assert_eq!(verdict(&plain, "rm -rf /"), "forbidden");
    assert_eq!(verdict(&plain, "sudo ls"), "unmatched");
}

#[test]
fn an_unknown_word_cannot_be_allowed_and_may_be_forbidden() {
    use RuleDecision::*;
    let rules = set(&[("echo", Allow), ("rm -rf", Forbidden)]);
    assert_eq!(verdict(&rules, "echo hi"), "allowed");
    assert_eq!(verdict(&rules, "echo $HOME"), "unmatched");
    assert_eq!(verdict(&rules, "rm $FLAGS /"), "maybe-forbidden");
    assert_eq!(verdict(&rules, "rm -i x"), "unmatched");
    assert_eq!(verdict(&rules, "echo 'unterminated"), "unparseable");
}

fn write(dir: &Path, rel: &str, text: &str) -> PathBuf {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

const ALLOW_CARGO: &str = "[[rule]]\nprefix = [\"cargo\", \"test\"]\ndecision = \"allow\"\n";

#[test]
fn the_project_file_cannot_allow_but_the_same_rule_in_the_user_file_does() {
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    write(&ws, ".deepterm/rules.toml", ALLOW_CARGO);
    let (project_only, warnings) = load_rules(None, Some(&ws)).unwrap();
    assert!(project_only.rules.is_empty());
    assert!(matches!(
        &warnings[..],
        [RulesWarning::ProjectAllowIgnored { index: 0, prefix, .. }] if prefix == &words("cargo test")
    ));
    assert_eq!(verdict(&project_only, "cargo test"), "unmatched");

    let user = write(d.path(), "cfg/rules.toml", ALLOW_CARGO);
    let (with_user, warnings) = load_rules(Some(&user), Some(&ws)).unwrap();
    assert_eq!(warnings.len(), 1);
    assert_eq!(verdict(&with_user, "cargo test"), "allowed");
}

#[test]
fn the_project_file_can_tighten() {
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    write(
        &ws,
        ".deepterm/rules.toml",
        "[[rule]]\nprefix = [\"cargo\", \"publish\"]\ndecision = \"forbidden\"\n",
    );
    let user = write(
        d.path(),
        "cfg/rules.toml",
        "[[rule]]\nprefix = [\"cargo\"]\ndecision = \"allow\"\n",
    );
    let (rules, _) = load_rules(Some(&user), Some(&ws)).unwrap();
    assert_eq!(verdict(&rules, "cargo build"), "allowed");
    assert_eq!(verdict(&rules, "cargo publish"), "forbidden");
}

#[cfg(unix)]
#[test]
fn a_project_rules_file_leading_outside_the_workspace_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    std::fs::create_dir_all(ws.join(".deepterm")).unwrap();
    let outside = write(
        d.path(),
        "outside.toml",
        "[[rule]]\nprefix = [\"x\"]\ndecision = \"prompt\"\n",
    );
    std::os::unix::fs::symlink(&outside, ws.join(".deepterm/rules.toml")).unwrap();
    let err = load_rules(None, Some(&ws)).unwrap_err();
    assert!(err.to_string().contains("outside the workspace"), "{err}");
    // The same file read as the user's (a symlinked user file is legitimate) loads.
    assert_eq!(
        load_file(&ws.join(".deepterm/rules.toml"), RuleOrigin::User, None)
            .unwrap()
            .0
            .len(),
        1
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_rules_file_is_refused_without_blocking() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("rules.toml");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let err = load_rules(Some(&fifo), None).unwrap_err();
    assert!(matches!(err, RulesError::NotRegular { .. }), "{err:?}");
    assert!(
        err.to_string().contains("rules.toml") && err.to_string().contains("FIFO"),
        "{err}"
    );
}

#[test]
fn a_huge_rules_file_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let big = "# padding\n".repeat((MAX_RULES_BYTES as usize / 10) + 10);
    let p = write(d.path(), "rules.toml", &big);
    assert!(matches!(
        load_rules(Some(&p), None),
        Err(RulesError::TooLarge { .. })
    ));
}

#[test]
fn invalid_toml_and_wrong_types_name_the_file_and_the_key() {
    let d = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str)] = &[
        ("[[rule]\nprefix = 1", "line 1"),
        ("rule = 3", "`rule`"),
        (
            "[[rule]]\nprefix = \"git\"\ndecision = \"allow\"",
            "`rule[0].prefix`",
        ),
        (
            "[[rule]]\nprefix = []\ndecision = \"allow\"",
            "`rule[0].prefix`",
        ),
        (
            "[[rule]]\nprefix = [\"git\", 3]\ndecision = \"allow\"",
            "`rule[0].prefix`",
        ),
        (
            "[[rule]]\nprefix = [\"git\"]\ndecision = \"yes\"",
            "`rule[0].decision`",
        ),
        (
            "[[rule]]\nprefix = [\"git\"]\ndecision = \"allow\"\n[[rule]]\nprefix = [\"x\"]",
            "`rule[1].decision`",
        ),
        ("\u{0}\u{1}", "invalid TOML"),
    ];
    for (text, needle) in cases {
        let p = write(d.path(), "rules.toml", text);
        let err = load_rules(Some(&p), None).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains(needle) && msg.contains("rules.toml"),
            "{text:?}: {msg}"
        );
    }
    let p = d.path().join("latin1.toml");
    std::fs::write(&p, b"# caf\xe9\n").unwrap();
    assert!(matches!(
        load_rules(Some(&p), None),
        Err(RulesError::Syntax { .. })
    ));
    let _ = Expected::Required;
}

#[test]
fn a_missing_rules_file_has_no_rules() {
    let d = tempfile::tempdir().unwrap();
    let (rules, w) = load_rules(Some(&d.path().join("none.toml")), Some(d.path())).unwrap();
    assert!(rules.rules.is_empty() && w.is_empty());
}

const EXISTING: &str = "# My rules, kept by hand.\n\n# never push by accident\n[[rule]]\nprefix = [\"git\", \"push\"] # trailing\ndecision = \"prompt\"\n\n[[rule]]\nprefix = [\"ls\"]\ndecision = \"allow\"\n";

#[test]
fn saving_an_allow_rule_appends_it_and_keeps_everything_else() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "rules.toml", EXISTING);
    let i = save_allow_rule(&p, &words("cargo test")).unwrap();
    assert_eq!(i, 2);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.starts_with(EXISTING), "{text}");
    let (rules, _) = load_file(&p, RuleOrigin::User, None).unwrap();
    assert_eq!(rules.len(), 3);
    assert_eq!(rules[2].prefix, words("cargo test"));
    assert_eq!(rules[2].decision, RuleDecision::Allow);
    // Saving the same rule again adds nothing.
    assert_eq!(save_allow_rule(&p, &words("cargo test")).unwrap(), 2);
    assert_eq!(std::fs::read_to_string(&p).unwrap(), text);
}

#[test]
fn saving_creates_the_file_and_its_directory() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("deepterm/rules.toml");
    assert_eq!(save_allow_rule(&p, &words("make test")).unwrap(), 0);
    let (rules, _) = load_file(&p, RuleOrigin::User, None).unwrap();
    assert_eq!(rules[0].prefix, words("make test"));
}

#[test]
fn saving_into_a_broken_file_changes_nothing() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "rules.toml", "rule = \"oops\"\n# keep me\n");
    assert!(save_allow_rule(&p, &words("ls")).is_err());
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        "rule = \"oops\"\n# keep me\n"
    );
}

#[cfg(unix)]
#[test]
fn saving_keeps_the_file_mode_and_writes_through_a_symlink() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let real = write(d.path(), "dotfiles/rules.toml", EXISTING);
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = d.path().join("cfg/rules.toml");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    save_allow_rule(&link, &words("ls")).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o600
    );
}

#[test]
fn revoking_a_rule_removes_only_it_and_keeps_the_header_comment() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "rules.toml", EXISTING);
    revoke_rule(&p, 0, &words("git push"), RuleDecision::Prompt).unwrap();
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(
        text.starts_with("# My rules, kept by hand.\n\n[[rule]]"),
        "{text}"
    );
    assert!(!text.contains("never push by accident"), "{text}");
    assert!(!text.contains("push"), "{text}");
    let (rules, _) = load_file(&p, RuleOrigin::User, None).unwrap();
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0].prefix, words("ls"));
}

#[test]
fn revoking_a_rule_that_moved_since_it_was_listed_changes_nothing() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "rules.toml", EXISTING);
    let err = revoke_rule(&p, 1, &words("git push"), RuleDecision::Prompt).unwrap_err();
    assert!(matches!(err, RulesError::Changed { index: 1, .. }));
    assert!(revoke_rule(&p, 7, &words("ls"), RuleDecision::Allow).is_err());
    assert_eq!(std::fs::read_to_string(&p).unwrap(), EXISTING);
}

#[test]
fn inline_rule_arrays_are_saved_and_revoked_in_their_own_style() {
    let d = tempfile::tempdir().unwrap();
    let text = "rule = [ { prefix = [\"ls\"], decision = \"allow\" } ] # mine\n";
    let p = write(d.path(), "rules.toml", text);
    assert_eq!(save_allow_rule(&p, &words("cargo test")).unwrap(), 1);
    revoke_rule(&p, 0, &words("ls"), RuleDecision::Allow).unwrap();
    let after = std::fs::read_to_string(&p).unwrap();
    assert!(after.contains("# mine"), "{after}");
    let (rules, _) = load_file(&p, RuleOrigin::User, None).unwrap();
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0].prefix, words("cargo test"));
}
