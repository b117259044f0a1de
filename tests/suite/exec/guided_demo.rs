//! The guided demo (SPEC §15.4): `deepterm exec --demo` works in a copy of its sample
//! project in a new temporary directory and never writes into the directory it was
//! started in, whatever the user asks and whatever the mode; asked to fix the failing test
//! it reads, edits, runs `sh test.sh` in the sandbox and reports, in both languages. Also
//! the prompt on the command line: `deepterm exec "PROMPT"` and `-` for standard input.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::*;

/// Every file under `dir` with its bytes (the start directory, to compare after).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p.clone());
            }
            out.insert(
                p.strip_prefix(dir).unwrap().to_path_buf(),
                std::fs::read(&p).unwrap_or_default(),
            );
        }
    }
    out
}

/// A start directory with a project of the user's, and a private temporary directory.
fn start_dir() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let home = tempfile::tempdir().unwrap();
    let ws = home.path().join("project");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("src/lib.rs"), "pub fn keep() {}\n").unwrap();
    std::fs::write(ws.join("demo.txt"), "Hello, mine\n").unwrap();
    let tmp = home.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    (home, ws, tmp)
}

/// `deepterm exec --demo` in `ws` with `args`, `TMPDIR=tmp`, no key.
fn demo_exec(home: &Path, ws: &Path, tmp: &Path, args: &[&str]) -> std::process::Output {
    std::fs::write(home.join("config.toml"), "").unwrap();
    std::process::Command::new(env!("CARGO_BIN_EXE_deepterm"))
        .arg("exec")
        .arg("--demo")
        .args(["--config", &home.join("config.toml").display().to_string()])
        .args([
            "--session-dir",
            &home.join("sessions").display().to_string(),
        ])
        .args(args)
        .current_dir(ws)
        .env_remove(KEY_VAR)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("c"))
        .env("XDG_DATA_HOME", home.join("d"))
        .env("TMPDIR", tmp)
        .output()
        .unwrap()
}

/// The one copy of the sample the demo made in `tmp`.
fn the_copy(tmp: &Path) -> PathBuf {
    let copies: Vec<PathBuf> = std::fs::read_dir(tmp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(deepterm::startup::demo_workspace::PREFIX)
        })
        .collect();
    assert_eq!(copies.len(), 1, "{copies:?}");
    copies[0].clone()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn fix_the_bug_on_the_command_line_fixes_the_sample_in_a_copy_and_says_the_way_back() {
    for (locale, prompt, done) in [
        ("en-US", "fix the bug", "/undo"),
        ("zh-CN", "修复失败的测试", "/undo"),
    ] {
        let (home, ws, tmp) = start_dir();
        let before = snapshot(&ws);
        let out = demo_exec(home.path(), &ws, &tmp, &["--locale", locale, prompt]);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{stderr}");
        let copy = the_copy(&tmp);
        assert!(
            stderr.contains(&copy.display().to_string()),
            "the copy is named: {stderr}"
        );
        let calc = std::fs::read_to_string(copy.join("calc.sh")).unwrap();
        assert!(calc.contains(deepterm::sim::DEMO_FIX.1), "{calc}");
        assert!(stdout.contains(done) && stdout.contains("Esc"), "{stdout}");
        assert_eq!(snapshot(&ws), before, "the start directory changed");
    }
}

#[test]
fn no_request_in_any_mode_writes_into_the_start_directory() {
    let (home, ws, tmp) = start_dir();
    let before = snapshot(&ws);
    let w = ws.display().to_string();
    let mut script = String::new();
    for mode in ["workspace-write", "read-only", "full-access"] {
        script.push_str(&format!(
            "/mode {mode}\n\
             please call shell \"touch {w}/pwned-shell\"\n\
             please call shell \"echo x > ../../project/pwned-relative\"\n\
             please use write_file \"{w}/pwned-write.txt\"\n\
             please use write_file \"../project/pwned-up.txt\"\n\
             please use edit_file \"{w}/demo.txt\"\n\
             please use apply_patch\n\
             fix the failing test\n"
        ));
    }
    let script_path = home.path().join("script.txt");
    std::fs::write(&script_path, script).unwrap();
    let out = demo_exec(
        home.path(),
        &ws,
        &tmp,
        &[
            "--approve",
            "all",
            "--script",
            &script_path.display().to_string(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(snapshot(&ws), before, "the start directory changed");
    // The requests did run, in the copy: the edits landed there.
    let copy = the_copy(&tmp);
    assert!(copy.join("demo.txt").exists() && copy.join("demo-patch.txt").exists());
}

#[test]
fn the_same_requests_outside_the_demo_do_reach_the_start_directory() {
    // Without the demo's copy and its guard, the request of the test above writes where
    // it names: the protection is what keeps the start directory unchanged.
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let env = TestEnv::new(deepterm::sim::SimConfig::default()).await;
        let cfg = env.config_builder().write(env.dir.path());
        let ws = env.dir.path().join("project");
        std::fs::create_dir_all(&ws).unwrap();
        let target = ws.join("pwned-write.txt");
        let mut cmd = env.exec_command(
            &cfg,
            &format!("please use write_file \"{}\"\n", target.display()),
        );
        cmd.arg("--approve")
            .arg("all")
            .current_dir(&ws)
            .env(KEY_VAR, TEST_KEY)
            .env("HOME", env.dir.path());
        let out = cmd.output().await.unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(target.exists(), "{}", stdout(&out));
    });
}

#[test]
fn a_prompt_comes_from_standard_input_with_a_dash() {
    let (home, ws, tmp) = start_dir();
    std::fs::write(home.path().join("config.toml"), "").unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_deepterm"))
        .args(["exec", "--demo", "--locale", "en-US", "-"])
        .args([
            "--config",
            &home.path().join("config.toml").display().to_string(),
        ])
        .args([
            "--session-dir",
            &home.path().join("sessions").display().to_string(),
        ])
        .current_dir(&ws)
        .env_remove(KEY_VAR)
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("d"))
        .env("TMPDIR", &tmp)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"what is this?\nsecond line of one prompt\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // One message, both lines: the honest reply quotes it whole, once.
    assert_eq!(stdout.matches("You asked").count(), 1, "{stdout}");
    assert!(stdout.contains("> second line of one prompt"), "{stdout}");
    assert!(stdout.contains("DEEPSEEK_API_KEY"), "{stdout}");
}

#[test]
fn a_stray_argument_is_named_in_the_error() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_deepterm"))
        .args(["--locale", "en-US", "exec", "one prompt", "stray"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("stray"), "{err}");
}
