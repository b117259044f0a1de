//! Property test of the session-log loader ([`parse_log`]): valid logs are
//! mutated with arbitrary extra lines, truncations, duplicated and reordered lines and
//! random bytes. The loader never panics; it either loads or names a line that exists;
//! a failed load leaves the file byte-identical (checked through [`Store::open`]); a load
//! after a truncation keeps every complete line before the cut; and a repaired log
//! loads again unchanged. Cases: `DEEPTERM_PROPTEST_CASES`, else 10,000.

use proptest::prelude::*;

use super::Session;
use super::event::*;
use super::store::{Store, StoreError, parse_log};

thread_local! {
    /// One scratch directory per test thread.
    static DIR: tempfile::TempDir = tempfile::tempdir().expect("tempdir");
    /// Cases checked on this thread: each case's file gets a name of its own.
    static CASE: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// One event the generator may append after `session/start`.
#[derive(Debug, Clone)]
enum Gen {
    User(String),
    TurnStart(u64),
    TurnEnd(u64),
    StepStart(u64, u64),
    Assistant(String),
}

fn gen_event() -> impl Strategy<Value = Gen> {
    prop_oneof![
        any::<String>().prop_map(Gen::User),
        (0u64..5).prop_map(Gen::TurnStart),
        (0u64..5).prop_map(Gen::TurnEnd),
        ((0u64..5), (1u64..4)).prop_map(|(t, s)| Gen::StepStart(t, s)),
        "[a-z \n\"\\\\{}]{0,40}".prop_map(Gen::Assistant),
    ]
}

/// The lines (without newlines) of a valid log.
fn valid_lines(steps: &[Gen]) -> Vec<Vec<u8>> {
    let mut s = Session::new("p", "/tmp");
    for st in steps {
        let kind = match st {
            Gen::User(t) => EventKind::UserMessage(UserMessageData {
                message: Message::text(Role::User, t, Source::kind("user")),
            }),
            Gen::TurnStart(t) => EventKind::TurnStart(TurnRef { turn: *t }),
            Gen::TurnEnd(t) => EventKind::TurnEnd(TurnEnd {
                turn: *t,
                outcome: Some(TurnOutcome::Completed),
            }),
            Gen::StepStart(t, n) => EventKind::StepStart(StepRef { turn: *t, step: *n }),
            Gen::Assistant(t) => EventKind::AssistantMessage(AssistantMessageData {
                turn: 1,
                step: 1,
                message: Message::text(Role::Assistant, t, Source::kind("model")),
                usage: None,
                timing: None,
                interrupted: None,
            }),
        };
        s.push(kind).expect("generated events are valid");
    }
    s.events()
        .iter()
        .map(|e| serde_json::to_vec(&**e).expect("serializes"))
        .collect()
}

/// How a valid log is damaged.
#[derive(Debug, Clone)]
enum Mutation {
    /// Insert arbitrary bytes (no newline) as a line before line `at` (modulo).
    ExtraLine(usize, Vec<u8>),
    /// Insert a copy of line `from` before line `at` (a duplicated seq).
    Duplicate(usize, usize),
    /// Swap two lines (reordered seqs).
    Swap(usize, usize),
    /// Overwrite bytes at `at` (modulo the length) with random bytes.
    Bytes(usize, Vec<u8>),
    /// Append random bytes at the end.
    Append(Vec<u8>),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let bytes = proptest::collection::vec(any::<u8>(), 0..24);
    prop_oneof![
        (any::<usize>(), bytes.clone()).prop_map(|(a, mut b)| {
            b.retain(|&c| c != b'\n');
            Mutation::ExtraLine(a, b)
        }),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Duplicate(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        (any::<usize>(), bytes.clone()).prop_map(|(a, b)| Mutation::Bytes(a, b)),
        bytes.prop_map(Mutation::Append),
    ]
}

fn join(lines: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(l);
        out.push(b'\n');
    }
    out
}

fn apply(lines: &[Vec<u8>], mutations: &[Mutation]) -> Vec<u8> {
    let mut lines = lines.to_vec();
    let mut tail: Vec<u8> = Vec::new();
    let mut overwrites = Vec::new();
    for m in mutations {
        let n = lines.len();
        match m {
            Mutation::ExtraLine(at, b) => lines.insert(at % (n + 1), b.clone()),
            Mutation::Duplicate(from, at) => {
                let l = lines[from % n].clone();
                lines.insert(at % (n + 1), l);
            }
            Mutation::Swap(a, b) => lines.swap(a % n, b % n),
            Mutation::Bytes(at, b) => overwrites.push((*at, b.clone())),
            Mutation::Append(b) => tail.extend_from_slice(b),
        }
    }
    let mut bytes = join(&lines);
    for (at, b) in overwrites {
        let start = at % (bytes.len() + 1);
        for (i, c) in b.into_iter().enumerate() {
            match bytes.get_mut(start + i) {
                Some(slot) => *slot = c,
                None => bytes.push(c),
            }
        }
    }
    bytes.extend_from_slice(&tail);
    bytes
}

/// Checks the loader's contract on `bytes`; returns the number of loaded events.
fn check_contract(bytes: &[u8]) -> Result<Option<usize>, TestCaseError> {
    let line_count = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
    match parse_log(bytes) {
        Err(e) => {
            prop_assert!(
                e.line >= 1 && e.line <= line_count,
                "line {} of {line_count}",
                e.line
            );
            prop_assert!(!e.message.is_empty());
            // The same verdict from the file loader, which leaves the file as it was.
            // A file per case, never one a previous case locked: a process another test
            // starts meanwhile holds a copy of every open descriptor, and so that lock,
            // until it execs (`flock` locks belong to the open file).
            let n = CASE.with(|c| c.replace(c.get() + 1));
            let path = DIR.with(|d| d.path().join(format!("p{n}.jsonl")));
            std::fs::write(&path, bytes).expect("write");
            match Store::open(&path) {
                Err(StoreError::Corrupt { line, .. }) => prop_assert_eq!(line, e.line),
                other => prop_assert!(false, "file loader disagrees: {:?}", other.err()),
            }
            prop_assert_eq!(std::fs::read(&path).expect("read"), bytes);
            std::fs::remove_file(&path).expect("remove");
            Ok(None)
        }
        Ok(p) => {
            prop_assert!(p.keep <= bytes.len());
            let kept = &bytes[..p.keep];
            if p.torn_line.is_some() {
                prop_assert!(kept.is_empty() || kept.ends_with(b"\n"));
            } else {
                prop_assert_eq!(p.keep, bytes.len());
            }
            prop_assert!(!(p.missing_newline && p.torn_line.is_some()));
            let events = p.session.as_ref().map_or(0, |s| s.events().len());
            // The repaired log loads again, unchanged and with nothing left to repair.
            let mut repaired = kept.to_vec();
            if p.missing_newline {
                repaired.push(b'\n');
            }
            match parse_log(&repaired) {
                Ok(again) => {
                    prop_assert!(again.torn_line.is_none() && !again.missing_newline);
                    let n = again.session.as_ref().map_or(0, |s| s.events().len());
                    prop_assert_eq!(n, events);
                }
                Err(e) => prop_assert!(
                    false,
                    "repaired log fails at line {}: {}",
                    e.line,
                    e.message
                ),
            }
            Ok(Some(events))
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::testing::proptest_cases(10_000), ..ProptestConfig::default() })]

    #[test]
    fn store_loader_mutated_logs(
        steps in proptest::collection::vec(gen_event(), 0..6),
        mutations in proptest::collection::vec(mutation(), 0..3),
    ) {
        let lines = valid_lines(&steps);
        let bytes = apply(&lines, &mutations);
        check_contract(&bytes)?;
        if mutations.is_empty() {
            prop_assert_eq!(check_contract(&bytes)?, Some(lines.len()));
        }
    }

    #[test]
    fn store_loader_truncation_keeps_every_complete_line(
        steps in proptest::collection::vec(gen_event(), 0..6),
        cut in any::<usize>(),
    ) {
        let lines = valid_lines(&steps);
        let bytes = join(&lines);
        let cut = cut % (bytes.len() + 1);
        let truncated = &bytes[..cut];
        // Lines whose content lies wholly before the cut (with or without their newline).
        let mut end = 0;
        let mut complete = 0;
        for l in &lines {
            end += l.len();
            if end <= cut {
                complete += 1;
            }
            end += 1;
        }
        let parsed = parse_log(truncated)
            .map_err(|e| TestCaseError::fail(format!("line {}: {}", e.line, e.message)))?;
        let loaded = parsed.session.as_ref().map_or(0, |s| s.events().len());
        prop_assert_eq!(loaded, complete);
        if let Some(s) = &parsed.session {
            for (ev, line) in s.events().iter().zip(&lines) {
                prop_assert_eq!(&serde_json::to_vec(&**ev).expect("serializes"), line);
            }
        }
        check_contract(truncated)?;
    }
}
