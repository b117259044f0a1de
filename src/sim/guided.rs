//! The guided demo's scripted agent (SPEC §15.4, decision 0126): asked to fix the sample's
//! failing test (or to run its tests), in either language, it acts the way a real agent
//! does: reads the files, proposes an edit (an approval card with the diff under the
//! demo's `untrusted` policy), runs `sh test.sh` in the sandbox, reports, and points at
//! `/diff`, `/undo` and Esc Esc. Each step is read off the request itself (the latest
//! user text, or the tool results the previous step asked for), like every demo reply.

use serde_json::json;

use crate::i18n::{Arg, Localizer};

use super::script::{ScriptedReply, ScriptedToolCall};
use super::validate::ToolInfo;

/// The sample's bug and its fix: the line of `assets/demo/calc.sh` the edit replaces.
pub const DEMO_FIX: (&str, &str) = ("echo $(($2 - $1))", "echo $(($1 - $2))");
/// The sample's test command: POSIX `sh`, nothing else.
pub const TEST_COMMAND: &str = "sh test.sh";
/// Every sample file says it is one.
const SAMPLE_MARK: &str = "the deepterm demo sample";
/// The last line `test.sh` prints.
const TESTS_LINE: &str = "demo tests: ";
const PASSED: &str = "demo tests: all passed";
/// How the agent phrases a denied call's result (`agent::tool_runner::denied_result`).
const DENIED: &str = "the user denied this call";

/// What the user asked the guided demo for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Intent {
    /// Fix the failing test (read, edit, test, report).
    Fix,
    /// Run the tests and report.
    Run,
}

/// The phrasings a user tries, lower-cased: asking for a fix wins over asking for a run
/// ("fix the failing test" names the tests too).
pub fn intent(text: &str) -> Option<Intent> {
    let t = text.to_lowercase();
    let any = |words: &[&str]| words.iter().any(|w| t.contains(w));
    if any(&[
        "fix",
        "repair",
        "bug",
        "failing",
        "broken",
        "make the test",
        "make tests",
        "make the tests",
        "pass",
        "修",
        "改好",
        "解决",
        "失败",
        "通过",
        "错误",
    ]) {
        return Some(Intent::Fix);
    }
    if any(&["test", "测试", "跑一下", "运行"]) {
        return Some(Intent::Run);
    }
    None
}

fn offered(tools: &[ToolInfo], name: &str) -> bool {
    tools.iter().any(|t| t.name == name)
}

fn call(name: &str, input: serde_json::Value) -> ScriptedToolCall {
    ScriptedToolCall {
        name: name.into(),
        input,
        id: None,
    }
}

fn run_tests(thinking: String, text: String) -> ScriptedReply {
    ScriptedReply {
        thinking: Some(thinking),
        text: Some(text),
        tool_calls: vec![call("shell", json!({ "command": TEST_COMMAND }))],
        ..ScriptedReply::default()
    }
}

/// The first step for a request in the latest user text; `None` when the text asks for
/// neither, or a tool the step needs is not on offer (then the honest reply says what the
/// demo can show).
pub fn start(user: &str, tools: &[ToolInfo], l: Localizer) -> Option<ScriptedReply> {
    let needs: &[&str] = match intent(user)? {
        Intent::Fix => &["read_file", "edit_file", "shell"],
        Intent::Run => &["shell"],
    };
    if !needs.iter().all(|n| offered(tools, n)) {
        return None;
    }
    Some(match intent(user)? {
        Intent::Fix => ScriptedReply {
            thinking: Some(l.tr("demo-guided-thinking-read")),
            text: Some(l.tr("demo-guided-read")),
            tool_calls: vec![
                call("read_file", json!({ "path": "test.sh" })),
                call("read_file", json!({ "path": "calc.sh" })),
            ],
            ..ScriptedReply::default()
        },
        Intent::Run => run_tests(
            l.tr("demo-guided-thinking-run"),
            l.tra("demo-guided-run", &[("command", Arg::from(TEST_COMMAND))]),
        ),
    })
}

/// The next step after the tool results of a guided step; `None` for results of other
/// calls (the plain demo summary answers those).
pub fn next(
    results: &[(String, String)],
    tools: &[ToolInfo],
    l: Localizer,
) -> Option<ScriptedReply> {
    let first_line = |c: &str| c.lines().next().unwrap_or("").trim().replace('`', "'");
    let text = |t: String| ScriptedReply {
        text: Some(t),
        ..ScriptedReply::default()
    };
    if let Some((name, _)) = results.iter().find(|(_, c)| c.starts_with(DENIED)) {
        return Some(text(l.tra(
            "demo-guided-declined",
            &[("tool", Arg::from(format!("`{name}`")))],
        )));
    }
    // The tests ran: report what they printed.
    if let Some((_, out)) = results
        .iter()
        .find(|(n, c)| n == "shell" && c.contains(TESTS_LINE))
    {
        let failures: Vec<String> = out
            .lines()
            .filter(|l| l.starts_with("FAIL "))
            .map(|l| format!("- `{}`", l.trim().replace('`', "'")))
            .collect();
        if out.contains(PASSED) {
            return Some(ScriptedReply {
                thinking: Some(l.tr("demo-guided-thinking-passed")),
                text: Some(format!(
                    "{}\n\n- {}\n- {}\n- {}\n\n{}",
                    l.tra(
                        "demo-guided-passed",
                        &[("command", Arg::from(TEST_COMMAND))]
                    ),
                    l.tr("demo-guided-way-diff"),
                    l.tr("demo-guided-way-undo"),
                    l.tr("demo-guided-way-rewind"),
                    l.tr("demo-guided-real-model"),
                )),
                ..ScriptedReply::default()
            });
        }
        return Some(ScriptedReply {
            thinking: Some(l.tr("demo-guided-thinking-failed")),
            text: Some(format!(
                "{}\n\n{}\n\n{}",
                l.tra(
                    "demo-guided-failed",
                    &[
                        ("command", Arg::from(TEST_COMMAND)),
                        ("count", Arg::from(failures.len().max(1))),
                    ]
                ),
                failures.join("\n"),
                l.tr("demo-guided-ask-fix"),
            )),
            ..ScriptedReply::default()
        });
    }
    // Both files read: propose the fix (or, already fixed, run the tests).
    let reads: Vec<&String> = results
        .iter()
        .filter(|(n, c)| n == "read_file" && c.contains(SAMPLE_MARK))
        .map(|(_, c)| c)
        .collect();
    if reads.len() >= 2 {
        let calc = reads.iter().find(|c| c.contains("sub()"))?;
        if calc.contains(DEMO_FIX.0) && offered(tools, "edit_file") {
            return Some(ScriptedReply {
                thinking: Some(l.tr("demo-guided-thinking-edit")),
                text: Some(l.tr("demo-guided-edit")),
                tool_calls: vec![call(
                    "edit_file",
                    json!({ "path": "calc.sh", "old_string": DEMO_FIX.0, "new_string": DEMO_FIX.1 }),
                )],
                ..ScriptedReply::default()
            });
        }
        return Some(run_tests(
            l.tr("demo-guided-thinking-run"),
            l.tr("demo-guided-already-fixed"),
        ));
    }
    // The edit: applied, run the tests; refused (a mode, the sandbox), say so.
    if let Some((_, c)) = results.iter().find(|(n, _)| n == "edit_file") {
        if c.starts_with("Changed ") && c.contains("calc.sh") {
            return Some(run_tests(
                l.tr("demo-guided-thinking-run"),
                l.tra(
                    "demo-guided-edited",
                    &[("command", Arg::from(TEST_COMMAND))],
                ),
            ));
        }
        if !c.starts_with("Changed ") {
            return Some(text(l.tra(
                "demo-guided-edit-failed",
                &[("reason", Arg::from(first_line(c)))],
            )));
        }
    }
    None
}

/// A command of the user's the guided demo runs as asked: one plain command from a short
/// list of ones that only read, with plain words (no paths out of the copy, no expansion,
/// no redirection). Anything else runs `ls -la` instead: the demo never runs what it was
/// told to when that could reach outside its copy.
pub fn safe_command(cmd: &str) -> bool {
    const READERS: &[&str] = &[
        "ls", "cat", "head", "tail", "wc", "grep", "echo", "pwd", "date", "true",
    ];
    let plain = cmd
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '.' | '_' | '-'))
        && !cmd.contains("..");
    let first = cmd.split_whitespace().next().unwrap_or("");
    (plain && READERS.contains(&first)) || cmd.trim() == TEST_COMMAND
}

/// A path of the user's the guided demo writes to: relative and inside the copy.
pub fn safe_path(path: &str) -> bool {
    let p = std::path::Path::new(path);
    !path.is_empty()
        && !path.starts_with('~')
        && !path.starts_with('-')
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

#[cfg(test)]
#[path = "guided_tests.rs"]
mod tests;
