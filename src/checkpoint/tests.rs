//! The store, the incremental walk, diffs and restores, on real temporary directories.

use std::path::Path;

use super::diff::{changed_paths, unified};
use super::restore::restore;
use super::store::Store;
use super::walk::{WalkSpec, snapshot};
use crate::sandbox::{SandboxMode, WriteScope};

fn spec(ws: &Path, store: &Path) -> WalkSpec {
    WalkSpec {
        workspace: ws.to_path_buf(),
        exclude: vec![store.to_path_buf()],
        max_file_bytes: 1024,
    }
}

fn scope(ws: &Path) -> WriteScope {
    WriteScope {
        mode: SandboxMode::WorkspaceWrite,
        workspace: ws.to_path_buf(),
        writable_roots: vec![ws.to_path_buf()],
        protected: vec![ws.join(".git")],
    }
}

fn setup() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    let ws = root.join("ws");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    (t, ws, root.join("store"))
}

#[test]
fn a_snapshot_keeps_files_respects_gitignore_and_lists_large_files_outside_git() {
    let (_t, ws, st) = setup();
    std::fs::write(ws.join("a.txt"), "one\n").unwrap();
    std::fs::write(ws.join("src/b.rs"), "fn b() {}\n").unwrap();
    std::fs::write(ws.join(".gitignore"), "target/\n*.log\n").unwrap();
    std::fs::create_dir_all(ws.join("target")).unwrap();
    std::fs::write(ws.join("target/out"), "built").unwrap();
    std::fs::write(ws.join("x.log"), "noise").unwrap();
    std::fs::write(ws.join("big.bin"), vec![7u8; 2048]).unwrap();
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    std::fs::write(ws.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    let store = Store::new(&st);
    let m = snapshot(&spec(&ws, &st), &store, None).unwrap();
    let names: Vec<&str> = m.files.keys().map(String::as_str).collect();
    assert_eq!(names, vec![".gitignore", "a.txt", "src/b.rs"]);
    assert_eq!(m.skipped.len(), 1);
    assert_eq!(m.skipped[0].path, "big.bin");
    let id = store.save_manifest(&m).unwrap();
    assert_eq!(store.load_manifest(&id).unwrap(), m);
}

#[test]
fn an_unchanged_file_keeps_its_hash_without_being_read_and_an_edit_is_seen() {
    let (_t, ws, st) = setup();
    std::fs::write(ws.join("a.txt"), "one\n").unwrap();
    let store = Store::new(&st);
    let sp = spec(&ws, &st);
    let mut first = snapshot(&sp, &store, None).unwrap();
    // Pretend the snapshot was long after the write, so the racy window does not apply.
    first.started_ns += 10_000_000_000;
    // Same size and time but other bytes: only a read would notice, and none happens.
    let meta = std::fs::metadata(ws.join("a.txt")).unwrap();
    std::fs::write(ws.join("a.txt"), "two\n").unwrap();
    let f = std::fs::File::options()
        .write(true)
        .open(ws.join("a.txt"))
        .unwrap();
    f.set_modified(meta.modified().unwrap()).unwrap();
    let second = snapshot(&sp, &store, Some(&first)).unwrap();
    assert_eq!(second.files["a.txt"].hash, first.files["a.txt"].hash);
    // A real edit changes the size or the time.
    std::fs::write(ws.join("a.txt"), "three\n").unwrap();
    let third = snapshot(&sp, &store, Some(&first)).unwrap();
    assert_ne!(third.files["a.txt"].hash, first.files["a.txt"].hash);
    assert_eq!(changed_paths(&first, &third), vec!["a.txt".to_string()]);
}

#[test]
fn restore_puts_back_edited_created_and_removed_files_byte_for_byte() {
    let (_t, ws, st) = setup();
    std::fs::write(ws.join("a.txt"), "alpha\n").unwrap();
    std::fs::write(ws.join("src/b.rs"), b"\x00bin\xff").unwrap();
    std::fs::write(ws.join("gone.txt"), "keep me").unwrap();
    let store = Store::new(&st);
    let sp = spec(&ws, &st);
    let before = snapshot(&sp, &store, None).unwrap();
    std::fs::write(ws.join("a.txt"), "changed\n").unwrap();
    std::fs::write(ws.join("src/b.rs"), "text now").unwrap();
    std::fs::create_dir_all(ws.join("new/dir")).unwrap();
    std::fs::write(ws.join("new/dir/c.txt"), "created").unwrap();
    std::fs::remove_file(ws.join("gone.txt")).unwrap();
    let after = snapshot(&sp, &store, Some(&before)).unwrap();
    let paths = changed_paths(&before, &after);
    assert_eq!(paths.len(), 4, "{paths:?}");
    let r = restore(&sp, &store, &scope(&ws), &paths, &before, &after, false);
    assert!(r.conflicts.is_empty() && r.failed.is_empty(), "{r:?}");
    assert_eq!(std::fs::read(ws.join("a.txt")).unwrap(), b"alpha\n");
    assert_eq!(std::fs::read(ws.join("src/b.rs")).unwrap(), b"\x00bin\xff");
    assert_eq!(std::fs::read(ws.join("gone.txt")).unwrap(), b"keep me");
    assert!(!ws.join("new/dir/c.txt").exists());
}

#[test]
fn a_file_edited_since_is_a_conflict_and_left_alone_unless_forced() {
    let (_t, ws, st) = setup();
    std::fs::write(ws.join("a.txt"), "alpha\n").unwrap();
    let store = Store::new(&st);
    let sp = spec(&ws, &st);
    let before = snapshot(&sp, &store, None).unwrap();
    std::fs::write(ws.join("a.txt"), "agent\n").unwrap();
    let after = snapshot(&sp, &store, Some(&before)).unwrap();
    std::fs::write(ws.join("a.txt"), "user\n").unwrap();
    let paths = vec!["a.txt".to_string()];
    let r = restore(&sp, &store, &scope(&ws), &paths, &before, &after, false);
    assert_eq!(r.conflicts, paths);
    assert_eq!(std::fs::read(ws.join("a.txt")).unwrap(), b"user\n");
    let r = restore(&sp, &store, &scope(&ws), &paths, &before, &after, true);
    assert_eq!(r.restored, paths);
    assert_eq!(std::fs::read(ws.join("a.txt")).unwrap(), b"alpha\n");
}

#[test]
fn a_restore_never_writes_through_a_symlink_or_into_a_protected_path() {
    let (_t, ws, st) = setup();
    let outside = ws.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(ws.join("src/x.txt"), "x").unwrap();
    let store = Store::new(&st);
    let sp = spec(&ws, &st);
    let before = snapshot(&sp, &store, None).unwrap();
    // The directory is swapped for a symlink to a directory outside the workspace.
    std::fs::remove_dir_all(ws.join("src")).unwrap();
    std::os::unix::fs::symlink(&outside, ws.join("src")).unwrap();
    let after = super::Manifest::default();
    let paths = vec!["src/x.txt".to_string()];
    let r = restore(&sp, &store, &scope(&ws), &paths, &before, &after, true);
    assert_eq!(r.failed.len(), 1, "{r:?}");
    assert!(!outside.join("x.txt").exists());
    // A record naming a path into `.git` is refused by the scope.
    let mut forged = before.clone();
    let entry = forged.files["src/x.txt"].clone();
    forged.files.insert(".git/config".into(), entry);
    let paths = vec![".git/config".to_string()];
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    let r = restore(&sp, &store, &scope(&ws), &paths, &forged, &after, true);
    assert_eq!(r.failed.len(), 1, "{r:?}");
    assert!(!ws.join(".git/config").exists());
}

#[test]
fn a_record_with_an_escaping_path_is_refused_on_load() {
    let (_t, ws, st) = setup();
    std::fs::write(ws.join("a.txt"), "a").unwrap();
    let store = Store::new(&st);
    let m = snapshot(&spec(&ws, &st), &store, None).unwrap();
    let mut forged = m.clone();
    let e = forged.files["a.txt"].clone();
    forged.files.insert("../../etc/passwd".into(), e);
    let id = store.save_manifest(&forged).unwrap();
    assert!(store.load_manifest(&id).is_err());
    assert!(store.load_manifest("../x").is_err());
}

#[test]
fn unified_diff_names_both_sides_and_dev_null_for_a_new_file() {
    let d = unified("a.txt", Some("one\ntwo\n"), Some("one\nthree\n"));
    assert!(d.starts_with("--- a/a.txt\n+++ b/a.txt\n@@"), "{d}");
    assert!(d.contains("-two\n+three\n"), "{d}");
    let d = unified("n.txt", None, Some("hi\n"));
    assert!(d.starts_with("--- /dev/null\n+++ b/n.txt\n"), "{d}");
}

#[test]
fn a_checkpoint_failure_reads_in_one_language_with_the_system_text_quoted() {
    use crate::i18n::{Arg, Locale, Localizer};
    let e = super::CheckpointError::Store {
        path: "/s/cp".into(),
        error: "Permission denied (os error 13)".into(),
    };
    let shown =
        |locale| Localizer::new(locale).tra("checkpoint-failed", &[("error", Arg::from(e.text()))]);
    assert_eq!(
        shown(Locale::ZhCn),
        "检查点失败：无法读写检查点存储 /s/cp（详情：“Permission denied (os error 13)”）"
    );
    assert_eq!(
        shown(Locale::EnUs),
        "Checkpoint failed: the checkpoint store /s/cp could not be read or written \
         (detail: \"Permission denied (os error 13)\")"
    );
}

#[cfg(unix)]
#[test]
fn stored_objects_get_the_usual_mode_of_a_new_file_and_leave_no_temp_file() {
    use std::os::unix::fs::PermissionsExt;
    let (_t, _ws, st) = setup();
    let store = Store::new(&st);
    let hash = store.put_object(b"contents\n").unwrap();
    let dir = st.join("objects").join(&hash[..2]);
    let object = dir.join(&hash[2..]);
    let probe = dir.join("probe");
    std::fs::File::create(&probe).unwrap();
    let usual = std::fs::metadata(&probe).unwrap().permissions().mode() & 0o777;
    std::fs::remove_file(probe).unwrap();
    let mode = std::fs::metadata(&object).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, usual);
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "only the object"
    );
    assert_eq!(store.get_object(&hash, 1024).unwrap(), b"contents\n");
}
