//! "Always" answers and `/permissions` (§14.2): `a` on a shell card saves the card's
//! prefix to the user's rules.toml (keeping what was there) or grants for the session,
//! `a` on an edit card grants edits for the session, and revoking either takes it back.

use std::path::{Path, PathBuf};

use deepterm::approval::{
    Approvals, Call, Decision, Grant, PolicySetup, RulesError, RunKind, ShellCommand,
    effective_policy,
};
use deepterm::sandbox::SandboxMode;

const WW: SandboxMode = SandboxMode::WorkspaceWrite;

fn untrusted_tui() -> PolicySetup {
    effective_policy(
        Some(deepterm::approval::ApprovalPolicy::Untrusted),
        RunKind::Tui,
    )
}

fn shell(command: &str) -> Call<'_> {
    Call::Shell {
        command: ShellCommand::Script(command),
        escalate: false,
        justification: None,
    }
}

fn asks(a: &Approvals, call: &Call<'_>) -> bool {
    matches!(a.decide(WW, call), Decision::Ask(_))
}

struct Dirs {
    _tmp: tempfile::TempDir,
    user: PathBuf,
    ws: PathBuf,
}

fn dirs(user_text: Option<&str>, project_text: Option<&str>) -> Dirs {
    let tmp = tempfile::tempdir().unwrap();
    let user = tmp.path().join("config/deepterm/rules.toml");
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(ws.join(".deepterm")).unwrap();
    if let Some(t) = user_text {
        std::fs::create_dir_all(user.parent().unwrap()).unwrap();
        std::fs::write(&user, t).unwrap();
    }
    if let Some(t) = project_text {
        std::fs::write(ws.join(".deepterm/rules.toml"), t).unwrap();
    }
    Dirs {
        _tmp: tmp,
        user,
        ws,
    }
}

fn load(d: &Dirs) -> Approvals {
    Approvals::load(untrusted_tui(), Some(d.user.clone()), Some(d.ws.clone()))
        .unwrap()
        .0
}

fn card_always(a: &Approvals, call: &Call<'_>) -> deepterm::approval::AlwaysOffer {
    match a.decide(WW, call) {
        Decision::Ask(card) => card.always,
        other => panic!("expected a card, got {other:?}"),
    }
}

const USER: &str = "# my rules\n[[rule]]\nprefix = [\"ls\"]\ndecision = \"allow\" # keep\n";

#[test]
fn always_on_a_shell_card_saves_the_prefix_and_later_calls_run_without_asking() {
    let d = dirs(Some(USER), None);
    let mut a = load(&d);
    let call = shell("cargo test --release -p x");
    assert!(asks(&a, &call));
    let offer = card_always(&a, &call);
    assert_eq!(
        offer.save_prefix,
        Some(vec!["cargo".to_string(), "test".to_string()])
    );
    let done = a.always(&offer);
    assert_eq!(done.saved, Some((d.user.clone(), 1)));
    assert!(done.save_error.is_none());
    assert!(!asks(&a, &call));
    assert!(
        !asks(&a, &shell("cargo test -q")),
        "the prefix covers other arguments"
    );
    assert!(
        asks(&a, &shell("cargo publish")),
        "but not another subcommand"
    );
    let text = std::fs::read_to_string(&d.user).unwrap();
    assert!(text.starts_with(USER), "{text}");

    // A new session reads the saved rule.
    assert!(!asks(&load(&d), &call));
}

#[test]
fn revoking_a_saved_rule_asks_again_and_keeps_the_rest_of_the_file() {
    let d = dirs(Some(USER), None);
    let mut a = load(&d);
    a.always(&card_always(&a, &shell("make test")));
    assert!(!asks(&a, &shell("make test")));
    let listed = a.permissions();
    assert_eq!(listed.rules.len(), 2);
    let entry = listed
        .rules
        .iter()
        .find(|e| e.rule.prefix == ["make", "test"])
        .unwrap()
        .clone();
    assert!(entry.revocable);
    a.revoke_rule(&entry).unwrap();
    assert!(asks(&a, &shell("make test")));
    assert!(!asks(&a, &shell("ls -la")));
    assert_eq!(std::fs::read_to_string(&d.user).unwrap(), USER);
}

#[test]
fn project_rules_are_listed_but_cannot_be_revoked() {
    let d = dirs(
        None,
        Some("[[rule]]\nprefix = [\"git\", \"push\"]\ndecision = \"forbidden\"\n"),
    );
    let mut a = load(&d);
    let entry = a.permissions().rules[0].clone();
    assert!(!entry.revocable);
    assert!(matches!(
        a.revoke_rule(&entry),
        Err(RulesError::Changed { .. })
    ));
    assert!(matches!(
        a.decide(WW, &shell("git push")),
        Decision::Refuse(_)
    ));
}

#[test]
fn a_project_allow_rule_is_ignored_with_a_warning_and_allows_nothing() {
    let allow = "[[rule]]\nprefix = [\"make\"]\ndecision = \"allow\"\n";
    let d = dirs(None, Some(allow));
    let (a, warnings) =
        Approvals::load(untrusted_tui(), Some(d.user.clone()), Some(d.ws.clone())).unwrap();
    assert_eq!(warnings.len(), 1);
    let en = warnings[0].localized(deepterm::i18n::Localizer::new(deepterm::i18n::Locale::EnUs));
    assert!(
        en.contains("make") && en.contains("only prompt or forbid"),
        "{en}"
    );
    assert!(asks(&a, &shell("make")));
    // The same rule in the user's file allows.
    let d = dirs(Some(allow), None);
    assert!(!asks(&load(&d), &shell("make")));
}

#[test]
fn without_a_prefix_always_grants_the_exact_command_for_the_session() {
    let d = dirs(None, None);
    let mut a = load(&d);
    let call = shell("make build && ./run.sh");
    let offer = card_always(&a, &call);
    assert_eq!(offer.save_prefix, None);
    let done = a.always(&offer);
    assert!(done.saved.is_none() && done.grant.is_some());
    assert!(!asks(&a, &call));
    assert!(asks(&a, &shell("make build && ./run.sh --other")));
    assert!(!d.user.exists(), "nothing is saved");
    let id = a.permissions().grants[0].0;
    assert!(a.revoke_grant(id));
    assert!(asks(&a, &call));
}

#[test]
fn always_on_an_edit_card_allows_edits_for_the_session_until_revoked() {
    let d = dirs(None, None);
    let mut a = load(&d);
    let call = Call::Edit {
        tool: "write_file",
        inside_writable_roots: true,
    };
    let offer = card_always(&a, &call);
    assert_eq!(offer.grant, Some(Grant::Edits { unconfined: false }));
    a.always(&offer);
    assert!(!asks(&a, &call));
    // A grant given while edits were confined does not cover full-access.
    assert!(matches!(
        a.decide(SandboxMode::FullAccess, &call),
        Decision::Ask(_)
    ));
    let id = a.permissions().grants[0].0;
    a.revoke_grant(id);
    assert!(asks(&a, &call));
}

#[test]
fn always_on_an_escalation_grants_the_unsandboxed_run_for_the_session() {
    let d = dirs(None, None);
    let setup = effective_policy(None, RunKind::Tui);
    let mut a = Approvals::load(setup, Some(d.user.clone()), Some(d.ws.clone()))
        .unwrap()
        .0;
    let esc = Call::Shell {
        command: ShellCommand::Script("cargo test --offline"),
        escalate: true,
        justification: Some("the sandbox has no network"),
    };
    let offer = card_always(&a, &esc);
    a.always(&offer);
    assert_eq!(a.decide(WW, &esc), Decision::Run { sandboxed: false });
    // Only what the card offered: nothing is saved, so a new session asks again.
    assert!(!d.user.exists(), "a grant outside the sandbox is not saved");
    let next = Approvals::load(setup, Some(d.user.clone()), Some(d.ws.clone()))
        .unwrap()
        .0;
    assert!(matches!(next.decide(WW, &esc), Decision::Ask(_)));
}

/// `a` on a card for a sandboxed run saves the prefix; in a new session the same command
/// runs sandboxed without asking, while the escalated one still asks, and its card says
/// why: the saved rule covers the sandbox only (SPEC §15.5).
#[test]
fn a_saved_rule_runs_the_command_sandboxed_in_a_new_session_and_an_escalation_still_asks_why() {
    let d = dirs(None, None);
    let mut a = load(&d);
    let call = shell("echo hello");
    let offer = card_always(&a, &call);
    let l = deepterm::i18n::Localizer::new(deepterm::i18n::Locale::EnUs);
    let said = offer.localized(l).unwrap();
    assert!(
        said.contains("\"echo\"") && said.contains("in the sandbox") && said.contains("later"),
        "{said}"
    );
    assert!(a.always(&offer).saved.is_some());
    let next = load(&d);
    assert_eq!(next.decide(WW, &call), Decision::Run { sandboxed: true });
    let esc = Call::Shell {
        command: ShellCommand::Script("echo hello"),
        escalate: true,
        justification: Some("outside"),
    };
    let Decision::Ask(card) = next.decide(WW, &esc) else {
        panic!("an escalation asks")
    };
    assert_eq!(
        card.reason,
        deepterm::approval::AskReason::EscalationPastAllowRule
    );
    for locale in deepterm::i18n::Locale::ALL {
        let why = card
            .reason
            .localized(deepterm::i18n::Localizer::new(locale));
        assert!(!why.starts_with("approval-"), "{locale:?}: {why}");
    }
    assert!(card.reason.localized(l).contains("only inside the sandbox"));
}

#[test]
fn a_save_that_fails_still_grants_for_the_session_and_reports_why() {
    let d = dirs(None, None);
    // A directory where the rules file should be: the save cannot replace it.
    std::fs::create_dir_all(&d.user).unwrap();
    let mut a = Approvals::load(untrusted_tui(), None, Some(d.ws.clone()))
        .unwrap()
        .0;
    let call = shell("ls -la");
    let done = a.always(&card_always(&a, &call));
    assert!(done.save_error.is_some());
    assert!(!asks(&a, &call));
    let _ = Path::new(&d.user);
}

#[test]
fn hostile_rules_files_stop_the_load_with_an_error_naming_the_file() {
    let d = dirs(
        Some("[[rule]]\nprefix = \"rm\"\ndecision = \"forbidden\"\n"),
        None,
    );
    let err = Approvals::load(untrusted_tui(), Some(d.user.clone()), None).unwrap_err();
    assert!(
        err.to_string().contains(&d.user.display().to_string()),
        "{err}"
    );
    let zh = err.localized(deepterm::i18n::Localizer::new(deepterm::i18n::Locale::ZhCn));
    assert!(zh.contains("rule[0].prefix"), "{zh}");
}
