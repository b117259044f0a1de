//! Planning and applying edits: all or nothing, match counts, modes, results.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::json;

use super::atomic::fail_writes_named;
use super::*;
use crate::sandbox::SandboxMode;

fn scope(ws: &Path) -> WriteScope {
    workspace_scope(ws, SandboxMode::WorkspaceWrite)
}

fn run(tool: &str, args: serde_json::Value, scope: &WriteScope) -> Result<String, String> {
    let plan = preview(tool, &args, scope).map_err(|e| e.to_string())?;
    apply(&plan, scope).map_err(|e| e.to_string())
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

/// Every file under `dir` with its content, sorted (what "nothing changed" compares).
fn snapshot(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in walk(dir) {
        let rel = e.strip_prefix(dir).unwrap().display().to_string();
        out.push((rel, std::fs::read_to_string(&e).unwrap_or_default()));
    }
    out.sort();
    out
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if e.file_type().unwrap().is_dir() {
            out.push(p.clone());
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

const MULTI: &str = "\
*** Begin Patch
*** Add File: docs/new.md
+hello
+world
*** Update File: src/lib.rs
@@ fn main() {
     let a = 1;
-    let b = 2;
+    let b = 3;
*** Delete File: old.txt
*** Update File: src/a.rs
*** Move to: src/b.rs
@@
-pub fn a() {}
+pub fn b() {}
*** End Patch";

fn multi_workspace() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("src")).unwrap();
    std::fs::write(
        d.path().join("src/lib.rs"),
        "fn main() {\n    let a = 1;\n    let b = 2;\n}\n",
    )
    .unwrap();
    std::fs::write(d.path().join("old.txt"), "gone\nsoon\n").unwrap();
    std::fs::write(d.path().join("src/a.rs"), "pub fn a() {}\n").unwrap();
    d
}

#[test]
fn a_multi_file_patch_adds_updates_deletes_and_moves() {
    let d = multi_workspace();
    let ws = d.path();
    let out = run("apply_patch", json!({ "patch": MULTI }), &scope(ws)).unwrap();
    assert_eq!(read(&ws.join("docs/new.md")), "hello\nworld\n");
    assert_eq!(
        read(&ws.join("src/lib.rs")),
        "fn main() {\n    let a = 1;\n    let b = 3;\n}\n"
    );
    assert!(!ws.join("old.txt").exists());
    assert!(!ws.join("src/a.rs").exists());
    assert_eq!(read(&ws.join("src/b.rs")), "pub fn b() {}\n");
    let head: Vec<&str> = out.lines().take(5).collect();
    assert_eq!(
        head,
        [
            "Changed 4 files:",
            "added docs/new.md (+2 -0)",
            "updated src/lib.rs (+1 -1)",
            "deleted old.txt (+0 -2)",
            "moved src/a.rs -> src/b.rs (+1 -1)",
        ]
    );
    assert!(
        out.contains("+++ b/docs/new.md\n@@ -0,0 +1,2 @@\n+hello\n+world\n"),
        "{out}"
    );
    assert!(out.contains("-    let b = 2;\n+    let b = 3;\n"), "{out}");
    // No temporary file is left behind.
    assert!(
        walk(ws)
            .iter()
            .all(|p| !p.to_string_lossy().contains(".deepterm-")),
        "{:?}",
        walk(ws)
    );
}

#[test]
fn a_patch_whose_third_operation_does_not_match_changes_no_file() {
    let d = multi_workspace();
    let ws = d.path();
    let before = snapshot(ws);
    let patch = "\
*** Begin Patch
*** Add File: docs/new.md
+hello
*** Update File: src/lib.rs
-    let b = 2;
+    let b = 3;
*** Update File: src/a.rs
@@
-pub fn not_there() {}
+pub fn b() {}
*** End Patch";
    let e = run("apply_patch", json!({ "patch": patch }), &scope(ws)).unwrap_err();
    assert!(
        e.contains("\"src/a.rs\"") && e.contains("\"pub fn not_there() {}\""),
        "{e}"
    );
    assert!(e.contains("patch line 8"), "{e}");
    assert!(e.ends_with("no file was changed"), "{e}");
    assert_eq!(snapshot(ws), before);
}

#[test]
fn a_write_failing_midway_is_rolled_back_so_no_file_changes() {
    let d = multi_workspace();
    let ws = d.path();
    let before = snapshot(ws);
    let s = scope(ws);
    let plan = preview("apply_patch", &json!({ "patch": MULTI }), &s).unwrap();
    // Writes go in path order: docs/new.md (and its new directory), old.txt, src/a.rs,
    // src/b.rs, src/lib.rs. The fourth fails after three were made.
    fail_writes_named(Some("b.rs"));
    let e = apply(&plan, &s).unwrap_err().to_string();
    fail_writes_named(None);
    assert!(e.contains("cannot write \"src/b.rs\""), "{e}");
    assert!(e.contains("every change was undone"), "{e}");
    assert_eq!(snapshot(ws), before, "the new directory is removed too");
    // Without the injected failure the same plan applies: the rollback, not a refusal,
    // is what kept the files.
    apply(&plan, &s).unwrap();
    assert_ne!(snapshot(ws), before);
}

#[test]
fn a_file_changed_after_the_plan_is_not_overwritten() {
    let d = multi_workspace();
    let ws = d.path();
    let s = scope(ws);
    let plan = preview("apply_patch", &json!({ "patch": MULTI }), &s).unwrap();
    std::fs::write(ws.join("src/lib.rs"), "someone else's edit\n").unwrap();
    let e = apply(&plan, &s).unwrap_err().to_string();
    assert!(
        e.contains("\"src/lib.rs\" changed since the edit was prepared"),
        "{e}"
    );
    assert_eq!(read(&ws.join("src/lib.rs")), "someone else's edit\n");
    assert!(!ws.join("docs").exists());
    assert!(ws.join("old.txt").exists());
}

#[test]
fn edit_file_with_zero_or_two_matches_says_how_many_and_changes_nothing() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("a.txt");
    std::fs::write(&f, "x = 1\ny = 2\nx = 1\n").unwrap();
    let s = scope(d.path());
    let e = run(
        "edit_file",
        json!({"path": "a.txt", "old_string": "z = 9", "new_string": "z = 0"}),
        &s,
    )
    .unwrap_err();
    assert!(
        e.starts_with("old_string occurs 0 times in \"a.txt\""),
        "{e}"
    );
    assert!(e.contains("was not changed"), "{e}");
    let e = run(
        "edit_file",
        json!({"path": "a.txt", "old_string": "x = 1", "new_string": "x = 5"}),
        &s,
    )
    .unwrap_err();
    assert!(
        e.starts_with("old_string occurs 2 times in \"a.txt\""),
        "{e}"
    );
    assert_eq!(read(&f), "x = 1\ny = 2\nx = 1\n");
    // Once, or with replace_all, it applies.
    let out = run(
        "edit_file",
        json!({"path": "a.txt", "old_string": "y = 2", "new_string": "y = 3"}),
        &s,
    )
    .unwrap();
    assert!(
        out.starts_with("Changed 1 file:\nupdated a.txt (+1 -1)\n"),
        "{out}"
    );
    let out = run(
        "edit_file",
        json!({"path": "a.txt", "old_string": "x = 1", "new_string": "x = 5", "replace_all": true}),
        &s,
    )
    .unwrap();
    assert!(
        out.starts_with("Changed 1 file (2 replacements):\nupdated a.txt (+2 -2)\n"),
        "{out}"
    );
    assert_eq!(read(&f), "x = 5\ny = 3\nx = 5\n");
}

#[test]
fn edits_keep_the_file_mode() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("run.sh");
    std::fs::write(&f, "echo one\n").unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o751)).unwrap();
    let s = scope(d.path());
    run(
        "edit_file",
        json!({"path": "run.sh", "old_string": "one", "new_string": "two"}),
        &s,
    )
    .unwrap();
    assert_eq!(
        std::fs::metadata(&f).unwrap().permissions().mode() & 0o777,
        0o751
    );
    run(
        "write_file",
        json!({"path": "run.sh", "content": "echo three\n"}),
        &s,
    )
    .unwrap();
    assert_eq!(
        std::fs::metadata(&f).unwrap().permissions().mode() & 0o777,
        0o751
    );
    let patch = "*** Begin Patch\n*** Update File: run.sh\n*** Move to: bin/run.sh\n@@\n-echo three\n+echo four\n*** End Patch";
    run("apply_patch", json!({ "patch": patch }), &s).unwrap();
    let moved = d.path().join("bin/run.sh");
    assert_eq!(read(&moved), "echo four\n");
    assert_eq!(
        std::fs::metadata(&moved).unwrap().permissions().mode() & 0o777,
        0o751
    );
}

#[test]
fn write_file_creates_parent_directories_and_replaces_files() {
    let d = tempfile::tempdir().unwrap();
    let s = scope(d.path());
    let out = run(
        "write_file",
        json!({"path": "a/b/c.txt", "content": "one\ntwo\n"}),
        &s,
    )
    .unwrap();
    assert!(
        out.starts_with("Changed 1 file:\nadded a/b/c.txt (+2 -0)\n"),
        "{out}"
    );
    let abs = d.path().join("a/b/c.txt");
    assert_eq!(read(&abs), "one\ntwo\n");
    // An absolute path inside the workspace works the same.
    let out = run(
        "write_file",
        json!({"path": abs.display().to_string(), "content": "one\n"}),
        &s,
    )
    .unwrap();
    assert!(
        out.starts_with("Changed 1 file:\nupdated a/b/c.txt (+0 -1)\n"),
        "{out}"
    );
}

#[test]
fn read_only_mode_refuses_every_edit_naming_the_mode() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a.txt"), "a\n").unwrap();
    let ro = workspace_scope(d.path(), SandboxMode::ReadOnly);
    for (tool, args) in [
        ("write_file", json!({"path": "n.txt", "content": "x"})),
        (
            "edit_file",
            json!({"path": "a.txt", "old_string": "a", "new_string": "b"}),
        ),
        (
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch"}),
        ),
    ] {
        let e = run(tool, args, &ro).unwrap_err();
        assert!(
            e.starts_with(&format!("{tool}: the sandbox mode is read-only")),
            "{e}"
        );
    }
    assert_eq!(snapshot(d.path()), vec![("a.txt".into(), "a\n".into())]);
    // A plan made before a switch to read-only is refused when applied.
    let rw = scope(d.path());
    let plan = preview("write_file", &json!({"path": "n.txt", "content": "x"}), &rw).unwrap();
    let e = apply(&plan, &ro).unwrap_err().to_string();
    assert!(e.contains("read-only"), "{e}");
    assert!(!d.path().join("n.txt").exists());
}

#[test]
fn the_preview_lists_each_file_with_counts_and_diff_and_writes_nothing() {
    let d = multi_workspace();
    let ws = d.path();
    let before = snapshot(ws);
    let plan = preview("apply_patch", &json!({ "patch": MULTI }), &scope(ws)).unwrap();
    assert_eq!(snapshot(ws), before);
    let rows: Vec<(ChangeKind, &str, Option<&str>, usize, usize)> = plan
        .files
        .iter()
        .map(|f| {
            (
                f.kind,
                f.display.as_str(),
                f.from.as_deref(),
                f.added,
                f.removed,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (ChangeKind::Add, "docs/new.md", None, 2, 0),
            (ChangeKind::Update, "src/lib.rs", None, 1, 1),
            (ChangeKind::Delete, "old.txt", None, 0, 2),
            (ChangeKind::Move, "src/b.rs", Some("src/a.rs"), 1, 1),
        ]
    );
    assert!(
        plan.files[2]
            .diff
            .contains("--- a/old.txt\n+++ /dev/null\n")
    );
    assert!(
        plan.files[3]
            .diff
            .contains("rename from src/a.rs\nrename to src/b.rs\n")
    );
}

#[test]
fn a_logged_result_gives_back_the_cards_it_was_made_from() {
    let d = multi_workspace();
    let plan = preview("apply_patch", &json!({ "patch": MULTI }), &scope(d.path())).unwrap();
    let text = plan.result_text();
    let back = parse_result(&text).expect("an edit result");
    assert!(!back.diff_cut);
    assert_eq!(back.files.len(), 4);
    for (f, b) in plan.files.iter().zip(&back.files) {
        assert_eq!(
            (f.kind, &f.display, &f.from, f.added, f.removed, &f.diff),
            (b.kind, &b.path, &b.from, b.added, b.removed, &b.diff)
        );
    }
    // A diff line that starts like a header (a removed `-- comment`) does not split it.
    let change = report::change(ChangeKind::Update, "q.sql", None, "-- old\n", "-- new\n");
    assert!(change.diff.contains("\n--- old\n"), "{}", change.diff);
    let back = parse_result(&report::result_text(std::slice::from_ref(&change), None)).unwrap();
    assert_eq!(back.files[0].diff, change.diff);
    // Other text is not an edit result.
    assert_eq!(parse_result("old_string occurs 0 times in \"a\""), None);
    assert_eq!(parse_result("Changed 1 file:\nfrobbed x (+1 -1)\n"), None);
}

#[test]
fn a_huge_diff_is_cut_in_the_result_but_not_in_the_plan() {
    let d = tempfile::tempdir().unwrap();
    let content: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
    let plan = preview(
        "write_file",
        &json!({"path": "big.txt", "content": content}),
        &scope(d.path()),
    )
    .unwrap();
    assert!(plan.files[0].diff.len() > MAX_RESULT_DIFF_BYTES);
    let text = plan.result_text();
    assert!(text.len() < MAX_RESULT_DIFF_BYTES + 1000);
    let back = parse_result(&text).unwrap();
    assert!(back.diff_cut);
    assert_eq!(back.files[0].added, 20_000);
    assert!(plan.files[0].diff.starts_with(&back.files[0].diff));
}

#[test]
fn files_over_the_size_limit_and_binary_files_are_not_edited() {
    let d = tempfile::tempdir().unwrap();
    let big = d.path().join("big.txt");
    std::fs::write(&big, vec![b'a'; MAX_EDIT_BYTES as usize + 1]).unwrap();
    std::fs::write(d.path().join("bin.dat"), b"a\0b").unwrap();
    let s = scope(d.path());
    let e = run(
        "edit_file",
        json!({"path": "big.txt", "old_string": "a", "new_string": "b", "replace_all": true}),
        &s,
    )
    .unwrap_err();
    assert!(e.contains("too large to edit"), "{e}");
    let e = run(
        "edit_file",
        json!({"path": "bin.dat", "old_string": "a", "new_string": "b"}),
        &s,
    )
    .unwrap_err();
    assert!(e.contains("binary file"), "{e}");
    assert_eq!(std::fs::metadata(&big).unwrap().len(), MAX_EDIT_BYTES + 1);
}

#[test]
fn a_diff_cut_inside_a_multibyte_character_does_not_panic() {
    // Every line is one 4-byte character, so the cap falls inside one unless the cut
    // looks for a character boundary first.
    let content = "𝄞\n".repeat(MAX_RESULT_DIFF_BYTES / 3);
    for shift in 0..4 {
        let text = format!("{}{content}", "x".repeat(shift));
        let change = report::change(ChangeKind::Add, "music.txt", None, "", &text);
        let out = report::result_text(std::slice::from_ref(&change), None);
        let back = parse_result(&out).unwrap();
        assert!(back.diff_cut, "shift {shift}");
        assert!(change.diff.starts_with(&back.files[0].diff));
    }
}

#[test]
fn a_failed_patch_operation_names_the_tool_the_file_and_that_nothing_changed() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a.txt"), "a\n").unwrap();
    let s = scope(d.path());
    let patch = "*** Begin Patch\n*** Delete File: a.txt\n*** Update File: gone.txt\n@@\n-x\n+y\n*** End Patch";
    let e = run("apply_patch", json!({ "patch": patch }), &s).unwrap_err();
    assert_eq!(
        e,
        "apply_patch: cannot update \"gone.txt\": it does not exist (use '*** Add File:'); \
         no file was changed"
    );
    assert_eq!(read(&d.path().join("a.txt")), "a\n");
    let e = run("edit_file", json!({"path": "a.txt", "old_string": "a"}), &s).unwrap_err();
    assert_eq!(e, "missing required argument \"new_string\"");
    let e = run("write_file", json!({"path": "x\ny", "content": ""}), &s).unwrap_err();
    assert_eq!(e, "path \"x\\ny\" contains a control character");
}
