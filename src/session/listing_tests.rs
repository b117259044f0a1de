//! The session directory may hold anything (docs/decisions/0034-hostile-session-directory.md):
//! directories, FIFOs and devices named `*.jsonl`, huge files, logs of a newer format. The
//! listing, `--resume`, the picker's summaries and the loader must neither hang, nor read
//! without bound, nor pick such an entry. Every check that could hang runs on a thread
//! with a deadline, so a regression fails instead of blocking the suite.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::listing::{LogSummary, SummaryCache, list_sessions, resolve_resume, summarize_log};
use super::store::tests::{joined, valid_lines};
use super::store::{MAX_FIRST_LINE_BYTES, Store, StoreError};
use crate::i18n::{Locale, Localizer};

/// Runs `f` on a thread; fails the test if it does not return within 10 s.
fn within_deadline<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(10))
        .unwrap_or_else(|_| panic!("{what} did not return within 10 s (blocked on the entry?)"))
}

fn write_log(dir: &Path, id: &str, n: usize) -> PathBuf {
    let path = dir.join(format!("{id}.jsonl"));
    std::fs::write(&path, joined(&valid_lines(id, n))).unwrap();
    path
}

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}

/// A session directory with one good log and, newer than it, every kind of entry that is
/// named like a log but is none.
fn hostile_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let good = write_log(dir.path(), "20260101-000000-good0000", 2);
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&good)
        .unwrap()
        .set_modified(old)
        .unwrap();
    std::fs::create_dir(dir.path().join("20270101-000000-adir0000.jsonl")).unwrap();
    mkfifo(&dir.path().join("20270101-000000-fifo0000.jsonl"));
    std::os::unix::fs::symlink(
        "/dev/zero",
        dir.path().join("20270101-000000-zero0000.jsonl"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        dir.path().join("missing"),
        dir.path().join("20270101-000000-dang0000.jsonl"),
    )
    .unwrap();
    (dir, good)
}

#[test]
fn the_listing_holds_only_regular_files_and_resume_last_skips_the_rest() {
    let (dir, good) = hostile_dir();
    let d = dir.path().to_path_buf();
    let listed = within_deadline("listing", move || list_sessions(&d).unwrap());
    let paths: Vec<&Path> = listed.iter().map(|s| s.path.as_path()).collect();
    assert_eq!(paths, vec![good.as_path()]);
    assert_eq!(listed[0].bytes, std::fs::metadata(&good).unwrap().len());
    let d = dir.path().to_path_buf();
    let last = within_deadline("resume last", move || resolve_resume(&d, "last").unwrap());
    assert_eq!(last, good);
}

#[test]
fn resume_by_the_id_of_an_entry_that_is_no_file_says_so() {
    let (dir, _) = hostile_dir();
    let en = Localizer::new(Locale::EnUs);
    for id in ["adir0000", "fifo0000", "zero0000"] {
        let d = dir.path().to_path_buf();
        let query = format!("20270101-000000-{id}");
        let err = within_deadline("open", move || {
            let path = resolve_resume(&d, &query).unwrap();
            Store::open(&path).unwrap_err()
        });
        assert!(matches!(err, StoreError::NotAFile { .. }), "{id}: {err}");
        let text = err.localized(en);
        assert!(text.contains("is not a regular file"), "{text}");
    }
}

#[test]
fn a_fifo_or_dev_zero_log_summarizes_as_empty_without_blocking() {
    let (dir, _) = hostile_dir();
    for id in ["fifo0000", "zero0000", "adir0000"] {
        let path = dir.path().join(format!("20270101-000000-{id}.jsonl"));
        let sum = within_deadline("summary", move || summarize_log(&path));
        assert_eq!(sum, LogSummary::default(), "{id}");
    }
}

#[test]
fn a_first_line_longer_than_any_session_start_is_refused_unread_and_the_file_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    // Sparse: all zeros and no newline, like a disk image or a copy of /dev/zero.
    let size = 64 * MAX_FIRST_LINE_BYTES as u64;
    std::fs::File::create(&path).unwrap().set_len(size).unwrap();
    let err = Store::open(&path).unwrap_err();
    match &err {
        StoreError::Corrupt { line, message, .. } => {
            assert_eq!(*line, 1);
            assert!(message.contains("longer than"), "{message}");
        }
        e => panic!("unexpected {e}"),
    }
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        size,
        "left as it was"
    );
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
    assert_eq!(names.len(), 1, "no torn tail was saved: {names:?}");
}

#[test]
fn a_log_of_a_newer_format_says_so_in_both_locales() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = valid_lines("n", 1);
    lines[0] = lines[0].replace("\"format\":1", "\"format\":2");
    assert!(lines[0].contains("\"format\":2"), "{}", lines[0]);
    let content = joined(&lines);
    let path = dir.path().join("n.jsonl");
    std::fs::write(&path, &content).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::NewerFormat {
                found: 2,
                supported: 1,
                ..
            }
        ),
        "{err}"
    );
    let en = err.localized(Localizer::new(Locale::EnUs));
    assert!(
        en.contains("written by a newer deepterm (format 2); this one reads format 1"),
        "{en}"
    );
    assert!(!en.contains("damaged"), "{en}");
    let zh = err.localized(Localizer::new(Locale::ZhCn));
    assert!(
        zh.contains("更新版本") && zh.contains("格式 2") && zh.contains("格式 1"),
        "{zh}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), content);
    // A newer format may change the start event's other fields as well.
    std::fs::write(
        &path,
        "{\"type\":\"session/start\",\"seq\":0,\"data\":{\"format\":3,\"shape\":[1]}}\n",
    )
    .unwrap();
    assert!(matches!(
        Store::open(&path).unwrap_err(),
        StoreError::NewerFormat { found: 3, .. }
    ));
}

#[test]
fn summaries_are_read_again_only_when_a_log_changes() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(dir.path(), "s", 2);
    let cache = SummaryCache::default();
    let first = cache.summaries(&list_sessions(dir.path()).unwrap());
    assert_eq!(first[0].messages, 2);
    assert_eq!(first[0].first_prompt.as_deref(), Some("message 0"));
    // Same size and time, other content: the cached summary stands (nothing was re-read).
    let meta = std::fs::metadata(&path).unwrap();
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("message 0", "MESSAGE 0");
    std::fs::write(&path, text).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(meta.modified().unwrap())
        .unwrap();
    let again = cache.summaries(&list_sessions(dir.path()).unwrap());
    assert_eq!(again, first);
    // A log that grew is read again.
    let path2 = write_log(dir.path(), "s", 3);
    assert_eq!(path2, path);
    let grown = cache.summaries(&list_sessions(dir.path()).unwrap());
    assert_eq!(grown[0].messages, 3);
    // Logs no longer listed leave the cache.
    std::fs::remove_file(&path).unwrap();
    assert!(
        cache
            .summaries(&list_sessions(dir.path()).unwrap())
            .is_empty()
    );
    assert!(cache.is_empty());
}

#[test]
fn a_message_line_over_the_cap_is_counted_but_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = valid_lines("c", 2);
    let huge = "x".repeat(super::listing::LISTING_LINE_CAP + 10);
    lines[1] = lines[1].replace("message 0", &huge);
    std::fs::write(dir.path().join("c.jsonl"), joined(&lines)).unwrap();
    let sum = summarize_log(&dir.path().join("c.jsonl"));
    assert_eq!(sum.messages, 2);
    assert_eq!(sum.first_prompt.as_deref(), Some("message 1"));
}

#[test]
fn resume_last_and_prefix() {
    let dir = tempfile::tempdir().unwrap();
    for id in ["20260101-000000-aaaa", "20260102-000000-bbbb"] {
        let mut s = Store::create(dir.path(), id).unwrap();
        s.append(&super::Session::new(id, "/tmp").events()[0])
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let last = resolve_resume(dir.path(), "last").unwrap();
    assert!(last.ends_with("20260102-000000-bbbb.jsonl"));
    let p = resolve_resume(dir.path(), "20260101").unwrap();
    assert!(p.ends_with("20260101-000000-aaaa.jsonl"));
    assert!(matches!(
        resolve_resume(dir.path(), "2026").unwrap_err(),
        StoreError::Ambiguous { .. }
    ));
    assert!(matches!(
        resolve_resume(dir.path(), "zzz").unwrap_err(),
        StoreError::NotFound { .. }
    ));
}

/// A long log is summarized from its start only, and its count says "at
/// least"; a log within the bound is counted exactly.
#[test]
fn a_log_longer_than_the_scan_bound_is_counted_from_its_start_as_at_least() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = valid_lines("c", 2);
    let line = lines[1].clone();
    let per = line.len() as u64 + 1;
    let n = (super::listing::SUMMARY_SCAN_BYTES / per) as usize + 100;
    lines.extend(std::iter::repeat_n(line, n));
    std::fs::write(dir.path().join("c.jsonl"), joined(&lines)).unwrap();
    let sum = summarize_log(&dir.path().join("c.jsonl"));
    assert!(sum.messages_partial);
    assert_eq!(sum.first_prompt.as_deref(), Some("message 0"));
    assert!(sum.messages < n, "{} of {n}", sum.messages);
    assert!(sum.messages > n - 200, "{} of {n}", sum.messages);
    let small = summarize_log(&write_log(dir.path(), "d", 2));
    assert!(!small.messages_partial);
    assert_eq!(small.messages, 2);
}
