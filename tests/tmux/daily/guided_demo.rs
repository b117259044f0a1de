//! Scenario: the guided demo end to end (SPEC §15.4) in the real binary under tmux at 80
//! and 120 columns in both languages. Started with no key and a prompt on the command
//! line in a project of the user's, it works in a copy of its sample project (named in
//! the banner): it reads the files, proposes the fix as an approval card with the diff, runs
//! `sh test.sh` in the sandbox after a second approval, reports and points at `/diff`,
//! `/undo` and Esc Esc. A request to write into the start directory runs in the copy
//! instead; the start directory is byte-identical at the end.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common;
use crate::common::tmux::{Tmux, chat_flat};

struct Texts {
    locale: &'static str,
    prompt: &'static str,
    waiting: &'static str,
    passed: &'static str,
    rewind: &'static str,
}

const EN: Texts = Texts {
    locale: "en-US",
    prompt: "fix the failing test",
    waiting: "waiting for you",
    passed: "passes now",
    rewind: "Esc Esc",
};

const ZH: Texts = Texts {
    locale: "zh-CN",
    prompt: "修复失败的测试",
    waiting: "等待你确认",
    passed: "现在通过了",
    rewind: "按两次 Esc",
};

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p.clone());
            }
            out.insert(p.clone(), std::fs::read(&p).unwrap_or_default());
        }
    }
    out
}

/// Chat as one line without spaces (Chinese wraps between any two characters).
fn flat(s: &str) -> String {
    chat_flat(s).replace(' ', "")
}

fn scenario(w: u16, t: &Texts) {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let ws = home.path().join("project");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("AGENTS.md"), "Be brief.\n").unwrap();
    std::fs::write(ws.join("calc.sh"), "# mine, not the sample's\n").unwrap();
    std::fs::create_dir_all(home.path().join("tmp")).unwrap();
    std::fs::write(home.path().join("config.toml"), "").unwrap();
    let before = snapshot(&ws);
    // No key and no `--demo`: demo mode, with the prompt given on the command line.
    let cmd = format!(
        "cd {ws} && env -u DEEPSEEK_API_KEY HOME={home} XDG_CONFIG_HOME={home}/c \
         XDG_DATA_HOME={home}/d TMPDIR={home}/tmp {bin} --session-dir {home}/s \
         --config {home}/config.toml --locale {loc} '{prompt}'; sleep 30",
        ws = common::shell_quote(&ws),
        home = common::shell_quote(home.path()),
        bin = common::shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        loc = t.locale,
        prompt = t.prompt,
    );
    let tmux = Tmux::start(&format!("dt-guided-{w}-{}", t.locale), w, 40, &cmd);
    // The copy is made before the first frame is drawn.
    tmux.wait_for("the first frame", |s| s.contains('›'));
    let copy = super::demo_copy(home.path());
    let name = copy.file_name().unwrap().to_string_lossy().into_owned();
    // The banner names it (at 80 columns the test's long temporary path is cut short).
    if w >= 100 {
        tmux.wait_for("the copy named in the banner", |s| {
            s.lines().next().is_some_and(|l| l.contains(&name))
        });
    }
    assert!(copy.join("test.sh").is_file(), "{copy:?}");

    // The edit: an approval card with the diff.
    tmux.wait_for("the edit's card with its diff", |s| {
        let f = flat(s);
        f.contains(&t.waiting.replace(' ', "")) && f.contains("+echo$(($1-$2))")
    });
    tmux.key("y");
    // The tests, in the sandbox: asked first under the demo's `untrusted` policy.
    tmux.wait_for("the test command's card", |s| {
        let f = flat(s);
        f.contains("$shtest.sh") && f.contains(&t.waiting.replace(' ', ""))
    });
    tmux.key("y");
    tmux.wait_for("the report with the way back", |s| {
        let f = flat(s);
        f.contains(&t.passed.replace(' ', ""))
            && f.contains("/diff")
            && f.contains("/undo")
            && f.contains(&t.rewind.replace(' ', ""))
    });
    let calc = std::fs::read_to_string(copy.join("calc.sh")).unwrap();
    assert!(calc.contains("echo $(($1 - $2))"), "{calc}");

    // A request aimed at the start directory runs in the copy.
    tmux.type_line(&format!(
        "please call shell \"touch {}/pwned\"",
        ws.display()
    ));
    tmux.wait_for("the shell card", |s| {
        flat(s).contains(&t.waiting.replace(' ', ""))
    });
    tmux.key("y");
    tmux.wait_for("ls in the copy", |s| flat(s).contains("$ls-la"));
    tmux.type_line("/quit");
    drop(tmux);
    assert_eq!(snapshot(&ws), before, "the start directory changed");
}

#[test]
fn the_guided_demo_fixes_the_sample_in_a_copy_at_80_en() {
    scenario(80, &EN);
}

#[test]
fn the_guided_demo_fixes_the_sample_in_a_copy_at_120_en() {
    scenario(120, &EN);
}

#[test]
fn the_guided_demo_fixes_the_sample_in_a_copy_at_80_zh() {
    scenario(80, &ZH);
}

#[test]
fn the_guided_demo_fixes_the_sample_in_a_copy_at_120_zh() {
    scenario(120, &ZH);
}
