//! The approval decision (§14.2) as a table: command strings (pipes, lists, substitutions,
//! quotes, subshells, redirections, here-documents, assignments, unparseable input)
//! against one rule set, under each policy and sandbox mode, with the expected outcome.

use std::path::PathBuf;

use deepterm::approval::{
    ApprovalPolicy, AskReason, Call, Context, Decision, RefusalKind, Rule, RuleDecision,
    RuleOrigin, RuleSet, SessionGrants, ShellCommand, decide, may_offer_unsandboxed_rerun,
    rerun_offer,
};
use deepterm::sandbox::SandboxMode;

use ApprovalPolicy::{Never, OnRequest, Untrusted};
use SandboxMode::{FullAccess, ReadOnly, WorkspaceWrite};

fn rules() -> RuleSet {
    let r = |p: &'static str, decision: RuleDecision| (p, decision);
    let list = [
        r("git status", RuleDecision::Allow),
        r("cargo test", RuleDecision::Allow),
        r("ls", RuleDecision::Allow),
        r("git push", RuleDecision::Prompt),
        r("rm -rf", RuleDecision::Forbidden),
        r("curl", RuleDecision::Forbidden),
    ];
    RuleSet {
        rules: list
            .iter()
            .enumerate()
            .map(|(index, (p, decision))| Rule {
                prefix: p.split(' ').map(String::from).collect(),
                decision: *decision,
                origin: RuleOrigin::User,
                file: PathBuf::from("/home/u/.config/deepterm/rules.toml"),
                index,
            })
            .collect(),
    }
}

/// Who answers: the TUI, `exec --approve all`, or `exec` without it.
#[derive(Clone, Copy, Debug)]
enum Run {
    Tui,
    ApproveAll,
    Headless,
}

fn label(d: &Decision) -> String {
    match d {
        Decision::Run { sandboxed: true } => "run".into(),
        Decision::Run { sandboxed: false } => "run-unsandboxed".into(),
        Decision::Ask(a) => {
            let r = match a.reason {
                AskReason::Untrusted => "untrusted",
                AskReason::Escalation => "escalation",
                AskReason::EscalationPastAllowRule => "escalation-past-rule",
                AskReason::FullAccess => "full-access",
                AskReason::PromptRule(_) => "prompt-rule",
                AskReason::MaybeForbidden(_) => "maybe-forbidden",
                AskReason::Unparseable => "unparseable",
                AskReason::SandboxDenied => "sandbox-denied",
            };
            format!("ask:{r}{}", if a.sandboxed { "" } else { ":unsandboxed" })
        }
        Decision::Refuse(r) => match r.kind {
            RefusalKind::Forbidden => "refuse:forbidden".into(),
            RefusalKind::EscalationUnderNever => "refuse:escalation".into(),
            RefusalKind::NeedsApproval => "refuse:needs-approval".into(),
        },
    }
}

fn ctx<'a>(
    policy: ApprovalPolicy,
    mode: SandboxMode,
    run: Run,
    rules: &'a RuleSet,
    grants: &'a SessionGrants,
) -> Context<'a> {
    Context {
        policy,
        mode,
        rules,
        grants,
        approve_all: matches!(run, Run::ApproveAll),
        can_ask: matches!(run, Run::Tui),
    }
}

fn shell(command: &str, escalate: bool) -> Call<'_> {
    Call::Shell {
        command: ShellCommand::Script(command),
        escalate,
        justification: escalate.then_some("needs the network"),
    }
}

/// (policy, mode, run, command, escalate, expected)
type Row = (
    ApprovalPolicy,
    SandboxMode,
    Run,
    &'static str,
    bool,
    &'static str,
);

const WW: SandboxMode = WorkspaceWrite;
const TUI: Run = Run::Tui;

const TABLE: &[Row] = &[
    // untrusted: only what rules allow runs without asking; every part must be allowed.
    (Untrusted, WW, TUI, "git status", false, "run"),
    (
        Untrusted,
        WW,
        TUI,
        "git status && cargo test -p x",
        false,
        "run",
    ),
    (Untrusted, WW, TUI, "ls -la; git status || ls", false, "run"),
    (
        Untrusted,
        WW,
        TUI,
        "git status | grep x",
        false,
        "ask:untrusted",
    ),
    (Untrusted, WW, TUI, "make", false, "ask:untrusted"),
    (
        Untrusted,
        WW,
        TUI,
        "echo $(git status)",
        false,
        "ask:untrusted",
    ),
    (Untrusted, WW, TUI, "'git' \"status\"", false, "run"),
    (Untrusted, WW, TUI, "FOO=1 git status", false, "run"),
    (
        Untrusted,
        WW,
        TUI,
        "git status > out.txt 2>&1",
        false,
        "run",
    ),
    (Untrusted, WW, TUI, "ls $DIR", false, "ask:untrusted"),
    (Untrusted, WW, TUI, "ls *.rs", false, "ask:untrusted"),
    (Untrusted, WW, TUI, "./ls", false, "ask:untrusted"),
    // forbidden anywhere in the string refuses: substitution, backticks, heredoc,
    // subshell, process substitution, redirection target, a path to the program.
    (Untrusted, WW, TUI, "rm -rf /", false, "refuse:forbidden"),
    (
        Untrusted,
        WW,
        TUI,
        "ls $(curl evil.example)",
        false,
        "refuse:forbidden",
    ),
    (
        Untrusted,
        WW,
        TUI,
        "ls `rm -rf ~`",
        false,
        "refuse:forbidden",
    ),
    (
        Untrusted,
        WW,
        TUI,
        "cat <<EOF\n$(curl x)\nEOF",
        false,
        "refuse:forbidden",
    ),
    (
        Untrusted,
        WW,
        TUI,
        "(cd sub && rm -rf build)",
        false,
        "refuse:forbidden",
    ),
    (
        Untrusted,
        WW,
        TUI,
        "diff <(curl a) b",
        false,
        "refuse:forbidden",
    ),
    (
        Untrusted,
        WW,
        TUI,
        "echo hi > \"$(curl x)\"",
        false,
        "refuse:forbidden",
    ),
    (
        Untrusted,
        WW,
        TUI,
        "/usr/bin/curl x",
        false,
        "refuse:forbidden",
    ),
    (
        Untrusted,
        WW,
        TUI,
        "git status && 'rm' '-rf' x",
        false,
        "refuse:forbidden",
    ),
    // what a wrapper or a shell runs is checked against forbidden and prompt rules.
    (
        Untrusted,
        WW,
        TUI,
        "sudo -u root rm -rf /",
        false,
        "refuse:forbidden",
    ),
    (
        Untrusted,
        WW,
        TUI,
        "bash -c 'ls && curl x'",
        false,
        "refuse:forbidden",
    ),
    (
        Untrusted,
        WW,
        TUI,
        "env A=1 git push",
        false,
        "ask:prompt-rule",
    ),
    (
        OnRequest,
        WW,
        TUI,
        "xargs -n 1 curl < urls",
        false,
        "refuse:forbidden",
    ),
    // eval of text known only at run time might be any command a rule names: it asks.
    (
        OnRequest,
        WW,
        TUI,
        "eval \"$(cat cmd)\"",
        false,
        "ask:prompt-rule",
    ),
    (OnRequest, WW, TUI, "$TOOL x", false, "ask:prompt-rule"),
    // quoting and escapes cannot disguise a program; separators need no spaces.
    (Untrusted, WW, TUI, "\\rm -rf /", false, "refuse:forbidden"),
    (Untrusted, WW, TUI, "r''m -rf /", false, "refuse:forbidden"),
    (
        Untrusted,
        WW,
        TUI,
        "\"r\"m '-rf' /",
        false,
        "refuse:forbidden",
    ),
    (
        Untrusted,
        WW,
        TUI,
        "command rm -rf /",
        false,
        "refuse:forbidden",
    ),
    (
        Untrusted,
        WW,
        TUI,
        "git status;rm -rf /",
        false,
        "refuse:forbidden",
    ),
    (
        Untrusted,
        WW,
        TUI,
        "git status\nrm -rf /",
        false,
        "refuse:forbidden",
    ),
    (
        Untrusted,
        WW,
        TUI,
        "git status & rm -rf /",
        false,
        "refuse:forbidden",
    ),
    (Untrusted, WW, TUI, "git status # && rm -rf /", false, "run"),
    (
        Untrusted,
        WW,
        TUI,
        "echo 'rm -rf /'",
        false,
        "ask:untrusted",
    ),
    // a word known only at run time may complete a forbidden prefix: ask, not guess.
    (
        Untrusted,
        WW,
        TUI,
        "rm $FLAGS x",
        false,
        "ask:maybe-forbidden",
    ),
    // prefixes match word by word, as written.
    (Untrusted, WW, TUI, "rm -r -f x", false, "ask:untrusted"),
    // prompt rules and unparseable input ask.
    (
        Untrusted,
        WW,
        TUI,
        "{ ls; git push; }",
        false,
        "ask:prompt-rule",
    ),
    (
        Untrusted,
        WW,
        TUI,
        "git 'push' origin",
        false,
        "ask:prompt-rule",
    ),
    (
        Untrusted,
        WW,
        TUI,
        "git status 'unterminated",
        false,
        "ask:unparseable",
    ),
    (Untrusted, WW, TUI, "ls &&", false, "ask:unparseable"),
    // on-request: sandboxed commands run; prompt rules and unparseable input still ask;
    // an escalation asks even for an allowed command, and runs unsandboxed.
    (OnRequest, WW, TUI, "grep -r x . | wc -l", false, "run"),
    (OnRequest, WW, TUI, "ls $(whoami)", false, "run"),
    (OnRequest, WW, TUI, "git push", false, "ask:prompt-rule"),
    (
        OnRequest,
        WW,
        TUI,
        "echo 'unterminated",
        false,
        "ask:unparseable",
    ),
    (
        OnRequest,
        WW,
        TUI,
        "ls `rm -rf /`",
        false,
        "refuse:forbidden",
    ),
    (
        OnRequest,
        WW,
        TUI,
        "make",
        true,
        "ask:escalation:unsandboxed",
    ),
    (
        OnRequest,
        WW,
        TUI,
        "git status",
        true,
        // The allow rule covers sandboxed runs only, and the card says so.
        "ask:escalation-past-rule:unsandboxed",
    ),
    (OnRequest, ReadOnly, TUI, "make", false, "run"),
    // never: never asks; escalation and prompt rules are refused, forbidden too.
    (Never, WW, TUI, "grep x y", false, "run"),
    (Never, WW, TUI, "make", true, "refuse:escalation"),
    (Never, WW, TUI, "git push", false, "refuse:needs-approval"),
    (Never, WW, TUI, "rm -rf /", false, "refuse:forbidden"),
    (Never, FullAccess, TUI, "make", false, "run-unsandboxed"),
    // full-access: every call asks under every policy but never; allow rules do not help.
    (
        OnRequest,
        FullAccess,
        TUI,
        "git status",
        false,
        "ask:full-access:unsandboxed",
    ),
    (
        Untrusted,
        FullAccess,
        TUI,
        "ls",
        false,
        "ask:full-access:unsandboxed",
    ),
    (
        OnRequest,
        FullAccess,
        TUI,
        "curl x",
        false,
        "refuse:forbidden",
    ),
    // --approve all answers every ask, but forbidden still refuses.
    (
        OnRequest,
        WW,
        Run::ApproveAll,
        "rm -rf /",
        false,
        "refuse:forbidden",
    ),
    (
        OnRequest,
        WW,
        Run::ApproveAll,
        "ls; $(curl x)",
        false,
        "refuse:forbidden",
    ),
    (Untrusted, WW, Run::ApproveAll, "git push", false, "run"),
    (
        OnRequest,
        WW,
        Run::ApproveAll,
        "make",
        true,
        "run-unsandboxed",
    ),
    (
        OnRequest,
        FullAccess,
        Run::ApproveAll,
        "make",
        false,
        "run-unsandboxed",
    ),
    // exec without --approve all: an ask becomes a refusal the model reads.
    (Never, WW, Run::Headless, "make", true, "refuse:escalation"),
    (
        Untrusted,
        WW,
        Run::Headless,
        "make",
        false,
        "refuse:needs-approval",
    ),
    (Untrusted, WW, Run::Headless, "git status", false, "run"),
];

#[test]
fn command_strings_against_rules_give_the_expected_decision_under_each_policy() {
    let rules = rules();
    let grants = SessionGrants::new();
    let mut failures = vec![];
    for (policy, mode, run, command, escalate, expected) in TABLE {
        let c = ctx(*policy, *mode, *run, &rules, &grants);
        let got = label(&decide(&c, &shell(command, *escalate)));
        if got != *expected {
            failures.push(format!(
                "{policy:?} {mode:?} {run:?} {command:?} escalate={escalate}: expected {expected}, got {got}"
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn without_rules_the_allowed_rows_ask_so_the_table_is_not_vacuous() {
    let empty = RuleSet::default();
    let grants = SessionGrants::new();
    let c = ctx(Untrusted, WW, TUI, &empty, &grants);
    for cmd in [
        "git status",
        "git status && cargo test -p x",
        "'git' \"status\"",
    ] {
        assert_eq!(
            label(&decide(&c, &shell(cmd, false))),
            "ask:untrusted",
            "{cmd}"
        );
    }
    let c = ctx(OnRequest, WW, Run::ApproveAll, &empty, &grants);
    assert_eq!(label(&decide(&c, &shell("rm -rf /", false))), "run");
}

#[test]
fn argv_commands_are_one_simple_command() {
    let rules = rules();
    let grants = SessionGrants::new();
    let c = ctx(Untrusted, WW, TUI, &rules, &grants);
    let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let call = |a: &[String]| {
        label(&decide(
            &c,
            &Call::Shell {
                command: ShellCommand::Argv(a),
                escalate: false,
                justification: None,
            },
        ))
    };
    assert_eq!(call(&argv(&["git", "status"])), "run");
    assert_eq!(call(&argv(&["rm", "-rf", "/"])), "refuse:forbidden");
    // An argv word is passed as is: `$(…)` in it is not a substitution.
    assert_eq!(call(&argv(&["ls", "$(curl x)"])), "run");
    assert_eq!(call(&argv(&["bash", "-c", "ls"])), "ask:untrusted");
}

#[test]
fn a_refusal_tells_the_model_why_in_english() {
    let rules = rules();
    let grants = SessionGrants::new();
    let never = ctx(Never, WW, TUI, &rules, &grants);
    let Decision::Refuse(r) = decide(&never, &shell("make", true)) else {
        panic!()
    };
    assert!(
        r.reason.contains("\"never\"") && r.reason.contains("escalate"),
        "{}",
        r.reason
    );
    let Decision::Refuse(r) = decide(&never, &shell("ls && rm -rf /tmp/x", false)) else {
        panic!()
    };
    assert!(
        r.reason.contains("rm -rf /tmp/x") && r.reason.contains("forbidden"),
        "{}",
        r.reason
    );
    let headless = ctx(Untrusted, WW, Run::Headless, &rules, &grants);
    let Decision::Refuse(r) = decide(&headless, &shell("make", false)) else {
        panic!()
    };
    assert!(r.reason.contains("--approve all"), "{}", r.reason);
}

#[test]
fn an_escalation_card_shows_the_justification_and_runs_unsandboxed() {
    let rules = rules();
    let grants = SessionGrants::new();
    let c = ctx(OnRequest, WW, TUI, &rules, &grants);
    let Decision::Ask(a) = decide(&c, &shell("cargo test --release -p x", true)) else {
        panic!()
    };
    assert_eq!(a.justification.as_deref(), Some("needs the network"));
    assert!(!a.sandboxed);
    // `a` on a card for a run outside the sandbox grants that, for this session only: a
    // saved rule would cover sandboxed runs only.
    assert_eq!(a.always.save_prefix, None);
    assert_eq!(
        a.always.grant,
        Some(deepterm::approval::Grant::Prefix {
            prefix: vec!["cargo".to_string(), "test".to_string()],
            unsandboxed: true,
        })
    );
}

#[test]
fn a_prompt_rule_card_offers_no_always() {
    let rules = rules();
    let grants = SessionGrants::new();
    let c = ctx(OnRequest, WW, TUI, &rules, &grants);
    let Decision::Ask(a) = decide(&c, &shell("git push origin", false)) else {
        panic!()
    };
    assert!(!a.always.is_available());
}

fn edit(inside: bool) -> Call<'static> {
    Call::Edit {
        tool: "apply_patch",
        inside_writable_roots: inside,
    }
}

#[test]
fn edits_ask_under_untrusted_and_full_access_and_run_in_roots_under_on_request() {
    let rules = RuleSet::default();
    let grants = SessionGrants::new();
    let rows: &[(ApprovalPolicy, SandboxMode, Run, bool, &str)] = &[
        (Untrusted, WW, TUI, true, "ask:untrusted"),
        (OnRequest, WW, TUI, true, "run"),
        (Never, WW, TUI, true, "run"),
        (
            OnRequest,
            FullAccess,
            TUI,
            true,
            "ask:full-access:unsandboxed",
        ),
        (
            Untrusted,
            FullAccess,
            TUI,
            false,
            "ask:full-access:unsandboxed",
        ),
        (Never, FullAccess, TUI, false, "run-unsandboxed"),
        (
            OnRequest,
            FullAccess,
            Run::ApproveAll,
            false,
            "run-unsandboxed",
        ),
        (Untrusted, WW, Run::Headless, true, "refuse:needs-approval"),
        // The edit tool's own scope check refuses these with the mode or the path.
        (Untrusted, ReadOnly, TUI, true, "run"),
        (Untrusted, WW, TUI, false, "run"),
    ];
    for (policy, mode, run, inside, expected) in rows {
        let c = ctx(*policy, *mode, *run, &rules, &grants);
        assert_eq!(
            label(&decide(&c, &edit(*inside))),
            *expected,
            "{policy:?} {mode:?} {run:?} inside={inside}"
        );
    }
}

#[test]
fn an_unsandboxed_rerun_is_offered_except_under_never_or_full_access() {
    let rules = rules();
    let grants = SessionGrants::new();
    let call = shell("make", false);
    let on_request = ctx(OnRequest, WW, TUI, &rules, &grants);
    assert!(may_offer_unsandboxed_rerun(&on_request));
    let offer = rerun_offer(&on_request, &call).unwrap();
    assert_eq!(offer.reason, AskReason::SandboxDenied);
    assert!(!offer.sandboxed);
    assert!(may_offer_unsandboxed_rerun(&ctx(
        Untrusted, WW, TUI, &rules, &grants
    )));
    assert!(!may_offer_unsandboxed_rerun(&ctx(
        Never, WW, TUI, &rules, &grants
    )));
    assert!(!may_offer_unsandboxed_rerun(&ctx(
        OnRequest, FullAccess, TUI, &rules, &grants
    )));
    assert!(!may_offer_unsandboxed_rerun(&ctx(
        OnRequest,
        WW,
        Run::ApproveAll,
        &rules,
        &grants
    )));
    assert!(rerun_offer(&on_request, &edit(true)).is_none());
}

#[test]
fn a_test_expression_asks_only_because_nothing_allows_it() {
    let rules = rules();
    let grants = SessionGrants::new();
    let on_request = ctx(OnRequest, WW, TUI, &rules, &grants);
    assert_eq!(
        label(&decide(&on_request, &shell("[[ -f x ]] && make", false))),
        "run"
    );
    let untrusted = ctx(Untrusted, WW, TUI, &rules, &grants);
    assert_eq!(
        label(&decide(&untrusted, &shell("[[ -f x ]] && ls", false))),
        "ask:untrusted"
    );
}

#[test]
fn an_exact_grant_for_an_argv_command_does_not_cover_a_string_that_splits_differently() {
    let rules = RuleSet::default();
    let mut grants = SessionGrants::new();
    let argv = vec!["sudo".to_string(), "a b".to_string()];
    let call = Call::Shell {
        command: ShellCommand::Argv(&argv),
        escalate: false,
        justification: None,
    };
    let offer = match decide(&ctx(Untrusted, WW, TUI, &rules, &grants), &call) {
        Decision::Ask(a) => a.always,
        other => panic!("{other:?}"),
    };
    // `sudo` runs other programs, so there is no prefix to save: a session grant.
    grants.add(offer.grant.clone().unwrap());
    let c = ctx(Untrusted, WW, TUI, &rules, &grants);
    assert_eq!(label(&decide(&c, &call)), "run");
    assert_eq!(
        label(&decide(&c, &shell("sudo a b", false))),
        "ask:untrusted"
    );
    assert_eq!(label(&decide(&c, &shell("sudo 'a b'", false))), "run");
}
