//! Writes that try to leave the writable roots or reach a protected path: through
//! symlinks, onto FIFOs, and by swapping a directory between the check and the write.
//! Each refusal is paired with the same write succeeding without the protection (a
//! full-access scope, or a plain write through the path), so the test cannot pass
//! vacuously.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;

use super::*;
use crate::sandbox::SandboxMode;

/// A workspace `ws` with a `.git` directory, beside a directory `outside` with a file.
struct Setup {
    _root: tempfile::TempDir,
    ws: PathBuf,
    outside: PathBuf,
}

fn setup() -> Setup {
    let root = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(root.path()).unwrap();
    let ws = base.join("ws");
    let outside = base.join("outside");
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    std::fs::write(ws.join(".git/config"), "[core]\n").unwrap();
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "original\n").unwrap();
    Setup {
        _root: root,
        ws,
        outside,
    }
}

fn write_file(path: &str, content: &str, scope: &WriteScope) -> Result<String, String> {
    let plan = preview(
        "write_file",
        &json!({"path": path, "content": content}),
        scope,
    )
    .map_err(|e| e.to_string())?;
    apply(&plan, scope).map_err(|e| e.to_string())
}

fn rw(ws: &Path) -> WriteScope {
    workspace_scope(ws, SandboxMode::WorkspaceWrite)
}

fn full(ws: &Path) -> WriteScope {
    workspace_scope(ws, SandboxMode::FullAccess)
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

#[test]
fn write_file_through_a_symlink_leading_outside_is_refused() {
    let s = setup();
    symlink(s.outside.join("secret.txt"), s.ws.join("link.txt")).unwrap();
    let e = write_file("link.txt", "pwned\n", &rw(&s.ws)).unwrap_err();
    assert!(e.contains("is outside the workspace"), "{e}");
    assert_eq!(read(&s.outside.join("secret.txt")), "original\n");
    // `..` and absolute paths are refused the same way.
    for p in [
        "../outside/secret.txt".to_string(),
        s.outside.join("secret.txt").display().to_string(),
    ] {
        let e = write_file(&p, "pwned\n", &rw(&s.ws)).unwrap_err();
        assert!(e.contains("is outside the workspace"), "{p}: {e}");
    }
    assert_eq!(read(&s.outside.join("secret.txt")), "original\n");
    // The attack is real: without the scope's limit the link is followed and the file
    // outside is written (the link itself stays a link).
    write_file("link.txt", "pwned\n", &full(&s.ws)).unwrap();
    assert_eq!(read(&s.outside.join("secret.txt")), "pwned\n");
    assert!(
        std::fs::symlink_metadata(s.ws.join("link.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn a_symlink_into_git_is_refused_for_writes_patches_and_deletes() {
    let s = setup();
    symlink(".git/config", s.ws.join("innocent.cfg")).unwrap();
    symlink(".git", s.ws.join("dotgit")).unwrap();
    let scope = rw(&s.ws);
    let e = write_file("innocent.cfg", "[core]\nhooksPath = /tmp/evil\n", &scope).unwrap_err();
    assert!(e.contains("is protected"), "{e}");
    let e = write_file("dotgit/hooks/pre-commit", "#!/bin/sh\n", &scope).unwrap_err();
    assert!(e.contains("is protected"), "{e}");
    let e = write_file(".git/hooks/pre-commit", "#!/bin/sh\n", &scope).unwrap_err();
    assert!(e.contains("is protected"), "{e}");
    for patch in [
        "*** Begin Patch\n*** Delete File: innocent.cfg\n*** End Patch",
        "*** Begin Patch\n*** Update File: innocent.cfg\n@@\n-[core]\n+[evil]\n*** End Patch",
        "*** Begin Patch\n*** Add File: notes.txt\n+x\n*** Update File: README\n*** Move to: .git/config2\n*** End Patch",
    ] {
        std::fs::write(s.ws.join("README"), "r\n").unwrap();
        let e = preview("apply_patch", &json!({ "patch": patch }), &scope)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is protected"), "{e}");
        assert!(!s.ws.join("notes.txt").exists());
    }
    assert_eq!(read(&s.ws.join(".git/config")), "[core]\n");
    assert!(!s.ws.join(".git/hooks").exists());
    // The attack is real: under full-access the link leads into .git.
    write_file("innocent.cfg", "[evil]\n", &full(&s.ws)).unwrap();
    assert_eq!(read(&s.ws.join(".git/config")), "[evil]\n");
}

#[test]
fn a_fifo_is_refused_without_blocking_even_under_full_access() {
    let s = setup();
    let fifo = s.ws.join("pipe");
    mkfifo(&fifo);
    symlink("pipe", s.ws.join("to-pipe")).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let ws = s.ws.clone();
    std::thread::spawn(move || {
        let r: Vec<Result<String, String>> = ["pipe", "to-pipe"]
            .iter()
            .flat_map(|p| [write_file(p, "x", &rw(&ws)), write_file(p, "x", &full(&ws))])
            .chain([preview(
                "edit_file",
                &json!({"path": "pipe", "old_string": "a", "new_string": "b"}),
                &rw(&ws),
            )
            .map(|_| String::new())
            .map_err(|e| e.to_string())])
            .collect();
        tx.send(r).unwrap();
    });
    let results = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the edit tools return instead of blocking on the FIFO");
    for r in results {
        let e = r.unwrap_err();
        assert!(e.contains("is not a regular file (it is a FIFO)"), "{e}");
    }
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    // The danger is real: a plain open for writing blocks until a reader comes.
    let (tx, rx) = std::sync::mpsc::channel();
    let f = fifo.clone();
    std::thread::spawn(move || {
        let _ = std::fs::OpenOptions::new().write(true).open(&f);
        tx.send(()).unwrap();
    });
    assert!(
        rx.recv_timeout(Duration::from_millis(300)).is_err(),
        "a plain open blocks"
    );
    let _reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags_nonblock()
        .open(&fifo)
        .unwrap();
    rx.recv_timeout(Duration::from_secs(20)).unwrap();
}

trait NonBlock {
    fn custom_flags_nonblock(&mut self) -> &mut Self;
}

impl NonBlock for std::fs::OpenOptions {
    fn custom_flags_nonblock(&mut self) -> &mut Self {
        use std::os::unix::fs::OpenOptionsExt;
        self.custom_flags(libc::O_NONBLOCK)
    }
}

use std::os::unix::fs::FileTypeExt;

#[test]
fn a_directory_swapped_for_a_symlink_after_the_check_is_not_written_through() {
    let s = setup();
    let sub = s.ws.join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join("f.txt"), "inside\n").unwrap();
    let scope = rw(&s.ws);
    let plan = preview(
        "write_file",
        &json!({"path": "sub/new.txt", "content": "pwned\n"}),
        &scope,
    )
    .unwrap();
    let edit = preview(
        "edit_file",
        &json!({"path": "sub/f.txt", "old_string": "inside", "new_string": "pwned"}),
        &scope,
    )
    .unwrap();
    // The swap: `sub` now leads outside, where a file of the same name waits.
    std::fs::rename(&sub, s.ws.join("sub-moved")).unwrap();
    symlink(&s.outside, &sub).unwrap();
    std::fs::write(s.outside.join("f.txt"), "inside\n").unwrap();
    let e = apply(&plan, &scope).unwrap_err().to_string();
    assert!(
        e.contains("changed while the edit was being written"),
        "{e}"
    );
    let e = apply(&edit, &scope).unwrap_err().to_string();
    assert!(
        e.contains("changed while the edit was being written"),
        "{e}"
    );
    assert!(!s.outside.join("new.txt").exists());
    assert_eq!(read(&s.outside.join("f.txt")), "inside\n");
    // The attack is real: writing to the checked path by name follows the new link.
    std::fs::write(s.ws.join("sub/new.txt"), "pwned\n").unwrap();
    assert_eq!(read(&s.outside.join("new.txt")), "pwned\n");
}

#[test]
fn a_file_swapped_for_a_symlink_after_the_check_is_not_written_through() {
    let s = setup();
    let f = s.ws.join("a.txt");
    std::fs::write(&f, "one\n").unwrap();
    let scope = rw(&s.ws);
    let plan = preview(
        "write_file",
        &json!({"path": "a.txt", "content": "pwned\n"}),
        &scope,
    )
    .unwrap();
    std::fs::remove_file(&f).unwrap();
    symlink(s.ws.join(".git/config"), &f).unwrap();
    let e = apply(&plan, &scope).unwrap_err().to_string();
    assert!(e.contains("is now a symbolic link"), "{e}");
    assert_eq!(read(&s.ws.join(".git/config")), "[core]\n");
    // The attack is real: a write by name goes through the link into .git.
    std::fs::write(&f, "pwned\n").unwrap();
    assert_eq!(read(&s.ws.join(".git/config")), "pwned\n");
}

#[test]
fn a_dangling_symlink_is_not_followed_to_create_its_target() {
    let s = setup();
    let target = s.outside.join("created.txt");
    symlink(&target, s.ws.join("dangling")).unwrap();
    let e = write_file("dangling", "x\n", &rw(&s.ws)).unwrap_err();
    assert!(e.contains("symbolic link that cannot be resolved"), "{e}");
    let e = write_file("dangling", "x\n", &full(&s.ws)).unwrap_err();
    assert!(e.contains("symbolic link that cannot be resolved"), "{e}");
    assert!(!target.exists());
    // The danger is real: a plain write through the link creates the file outside.
    std::fs::write(s.ws.join("dangling"), "x\n").unwrap();
    assert!(target.exists());
}

#[test]
fn the_workspace_scope_protects_git_deepterm_and_a_gitdir() {
    let s = setup();
    let ws2 = s.ws.join("wt");
    std::fs::create_dir(&ws2).unwrap();
    std::fs::write(ws2.join(".git"), "gitdir: ../.git/worktrees/wt\n").unwrap();
    let scope = rw(&ws2);
    assert!(scope.protected.contains(&ws2.join(".git")));
    assert!(scope.protected.contains(&ws2.join(".deepterm")));
    assert!(
        scope.protected.contains(&s.ws.join(".git/worktrees/wt")),
        "{:?}",
        scope.protected
    );
    let e = write_file(".deepterm/rules.toml", "x", &scope).unwrap_err();
    assert!(e.contains("is protected"), "{e}");
    assert!(!ws2.join(".deepterm").exists());
}

#[test]
fn nested_repositories_and_claude_are_refused_to_every_edit_tool() {
    let s = setup();
    for d in [
        "sub/.git/hooks",
        "hg/.hg",
        "svn/.svn",
        "jj/.jj/repo",
        ".claude/commands",
    ] {
        std::fs::create_dir_all(s.ws.join(d)).unwrap();
    }
    std::fs::write(s.ws.join("sub/.git/config"), "[core]\n").unwrap();
    std::fs::write(s.ws.join("hg/.hg/hgrc"), "[ui]\n").unwrap();
    let scope = rw(&s.ws);
    let writes = [
        "sub/.git/hooks/post-checkout",
        "hg/.hg/hgrc",
        "svn/.svn/wc.db",
        "jj/.jj/repo/config.toml",
        ".claude/commands/evil.md",
        // A repository that does not exist yet is refused by name too.
        "later/.git/hooks/post-checkout",
    ];
    for path in writes {
        let e = write_file(path, "#!/bin/sh\necho pwned\n", &scope).unwrap_err();
        assert!(e.contains("is protected"), "{path}: {e}");
    }
    let e = preview(
        "edit_file",
        &json!({"path": "sub/.git/config", "old_string": "[core]", "new_string": "[core]\n\thooksPath = /tmp/x"}),
        &scope,
    )
    .unwrap_err();
    assert!(e.to_string().contains("is protected"), "{e}");
    let e = preview(
        "apply_patch",
        &json!({"patch": "*** Begin Patch\n*** Update File: hg/.hg/hgrc\n@@\n-[ui]\n+[hooks]\n*** End Patch"}),
        &scope,
    )
    .unwrap_err();
    assert!(e.to_string().contains("is protected"), "{e}");
    assert_eq!(read(&s.ws.join("sub/.git/config")), "[core]\n");
    assert!(!s.ws.join("sub/.git/hooks/post-checkout").exists());
    assert!(!s.ws.join(".claude/commands/evil.md").exists());
    // A repository's name inside a file name is not a repository.
    write_file("docs/.github-notes.md", "ok\n", &scope).unwrap();
    // The attack is real: without the protection every write lands.
    for path in writes {
        write_file(path, "#!/bin/sh\n", &full(&s.ws)).unwrap();
        assert!(s.ws.join(path).exists(), "{path}");
    }
}
