use super::*;
use crate::config::InstructionProblem;
use crate::fs_guard::Refusal;

/// A workspace `repo/a/b` inside a repository `repo` (a `.git` directory), under a
/// parent directory that has an `AGENTS.md` of its own, plus a user config directory.
struct Tree {
    _dir: tempfile::TempDir,
    parent: PathBuf,
    repo: PathBuf,
    ws: PathBuf,
    user: PathBuf,
}

fn tree(with_repo: bool) -> Tree {
    let dir = tempfile::tempdir().unwrap();
    let parent = dir.path().join("parent");
    let repo = parent.join("repo");
    let ws = repo.join("a").join("b");
    let user = dir.path().join("user-config");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&user).unwrap();
    if with_repo {
        std::fs::create_dir(repo.join(".git")).unwrap();
    }
    Tree {
        _dir: dir,
        parent,
        repo,
        ws,
        user,
    }
}

fn read(t: &Tree, files: &[PathBuf]) -> InstructionsRead {
    read_project_instructions(&InstructionSources {
        text: None,
        files,
        workspace: &t.ws,
        config_file: None,
        user_dir: Some(&t.user),
    })
}

#[test]
fn agents_files_are_read_from_the_repository_root_down_to_the_workspace_nearest_last() {
    let t = tree(true);
    std::fs::write(t.parent.join(AGENTS_FILE), "above the repository").unwrap();
    std::fs::write(t.repo.join(AGENTS_FILE), "repository rules").unwrap();
    std::fs::write(t.repo.join("a").join(AGENTS_FILE), "package rules").unwrap();
    std::fs::write(t.ws.join(AGENTS_FILE), "workspace rules").unwrap();
    std::fs::write(t.user.join(AGENTS_FILE), "my own rules").unwrap();
    let r = read(&t, &[]);
    assert_eq!(
        r.text.as_deref(),
        Some("my own rules\n\nrepository rules\n\npackage rules\n\nworkspace rules"),
        "the user's file first, then root to workspace; nothing above the repository"
    );
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    let used: Vec<&Path> = r.used.iter().map(|(p, _)| p.as_path()).collect();
    assert_eq!(used.len(), 4);
    assert_eq!(used[3], t.ws.join(AGENTS_FILE));
    assert_eq!(r.used[3].1, "workspace rules".len() as u64);
}

#[test]
fn outside_a_repository_only_the_workspaces_agents_file_is_read() {
    let t = tree(false);
    std::fs::write(t.repo.join(AGENTS_FILE), "a parent directory").unwrap();
    std::fs::write(t.ws.join(AGENTS_FILE), "workspace rules").unwrap();
    assert_eq!(repository_root(&t.ws), None);
    assert_eq!(read(&t, &[]).text.as_deref(), Some("workspace rules"));
}

#[test]
fn a_missing_agents_file_is_no_instruction_and_no_warning() {
    let t = tree(true);
    let r = read(&t, &[]);
    assert_eq!(r.text, None);
    assert!(r.problems.is_empty() && r.used.is_empty(), "{r:?}");
}

#[test]
fn a_file_named_in_instructions_files_is_read_once() {
    let t = tree(true);
    std::fs::write(t.ws.join(AGENTS_FILE), "workspace rules").unwrap();
    std::fs::write(t.ws.join("STYLE.md"), "tabs").unwrap();
    let r = read(&t, &[t.ws.join(AGENTS_FILE), t.ws.join("STYLE.md")]);
    assert_eq!(r.text.as_deref(), Some("workspace rules\n\ntabs"));
}

#[test]
fn an_edited_agents_file_is_read_again_on_the_next_read() {
    let t = tree(true);
    std::fs::write(t.ws.join(AGENTS_FILE), "first").unwrap();
    assert_eq!(read(&t, &[]).text.as_deref(), Some("first"));
    std::fs::write(t.ws.join(AGENTS_FILE), "second").unwrap();
    std::fs::write(t.repo.join(AGENTS_FILE), "created later").unwrap();
    assert_eq!(
        read(&t, &[]).text.as_deref(),
        Some("created later\n\nsecond")
    );
}

/// A repository controls its files: an `AGENTS.md` linked to `/proc/self/environ` or to a
/// file outside the repository would put the environment (the API key) or that file into
/// the system prompt, which is logged and sent. Without the confinement a plain read
/// follows the link (shown first); discovery refuses it and says where it points.
#[cfg(unix)]
#[test]
fn a_discovered_agents_file_linked_out_of_the_repository_is_refused_and_named() {
    let t = tree(true);
    let secret = t.parent.join("secret.txt");
    std::fs::write(&secret, "outside words").unwrap();
    std::os::unix::fs::symlink(&secret, t.ws.join(AGENTS_FILE)).unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", t.repo.join(AGENTS_FILE)).unwrap();
    // The attack without the protection: a plain read follows both links.
    assert_eq!(
        std::fs::read_to_string(t.ws.join(AGENTS_FILE)).unwrap(),
        "outside words"
    );
    assert!(std::fs::read(t.repo.join(AGENTS_FILE)).is_ok());
    let r = read(&t, &[]);
    assert_eq!(r.text, None, "nothing of either target reaches the prompt");
    assert_eq!(r.problems.len(), 2, "{:?}", r.problems);
    for p in &r.problems {
        assert!(
            matches!(
                p,
                InstructionProblem::Refused {
                    reason: Refusal::Outside { .. },
                    ..
                }
            ),
            "{p:?}"
        );
    }
    let l = crate::i18n::Localizer::new(crate::i18n::Locale::EnUs);
    let text: Vec<String> = r.problems.iter().map(|p| p.localized(l)).collect();
    assert!(text.iter().any(|t| t.contains("environ")), "{text:?}");
    assert!(text.iter().any(|t| t.contains("secret.txt")), "{text:?}");
}

/// A link inside the repository is fine: the root's `AGENTS.md` may point at a file in a
/// subdirectory (a common layout), even though the root lies above the workspace.
#[cfg(unix)]
#[test]
fn a_discovered_agents_file_linked_within_the_repository_is_read() {
    let t = tree(true);
    std::fs::create_dir(t.repo.join("docs")).unwrap();
    std::fs::write(t.repo.join("docs").join("agents.md"), "linked rules").unwrap();
    std::os::unix::fs::symlink("docs/agents.md", t.repo.join(AGENTS_FILE)).unwrap();
    assert_eq!(read(&t, &[]).text.as_deref(), Some("linked rules"));
}

#[cfg(unix)]
#[test]
fn a_discovered_agents_fifo_is_refused_instead_of_hanging_and_a_huge_one_is_cut() {
    let t = tree(true);
    let fifo = t.ws.join(AGENTS_FILE);
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let big = t.repo.join(AGENTS_FILE);
    std::fs::write(
        &big,
        "y".repeat(instructions::MAX_INSTRUCTION_BYTES as usize + 100),
    )
    .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let ws = t.ws.clone();
    let user = t.user.clone();
    std::thread::spawn(move || {
        let _ = tx.send(read_project_instructions(&InstructionSources {
            text: None,
            files: &[],
            workspace: &ws,
            config_file: None,
            user_dir: Some(&user),
        }));
    });
    let r = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("discovery returned instead of hanging on the FIFO");
    assert!(
        r.problems.iter().any(|p| matches!(
            p,
            InstructionProblem::Refused {
                reason: Refusal::NotRegular(_),
                ..
            }
        )),
        "{:?}",
        r.problems
    );
    assert!(
        r.problems
            .iter()
            .any(|p| matches!(p, InstructionProblem::Truncated { .. })),
        "{:?}",
        r.problems
    );
    let text = r.text.unwrap();
    assert!(text.len() < instructions::MAX_INSTRUCTION_BYTES as usize + 200);
    assert!(
        text.ends_with("bytes of AGENTS.md are included]"),
        "{}",
        &text[text.len() - 80..]
    );
}
