use super::*;
use crate::i18n::Locale;

fn tools(names: &[&str]) -> Vec<ToolInfo> {
    names
        .iter()
        .map(|n| ToolInfo {
            name: n.to_string(),
            description: String::new(),
            schema: json!({}),
        })
        .collect()
}

fn all() -> Vec<ToolInfo> {
    tools(&["read_file", "edit_file", "shell", "write_file"])
}

fn names(r: &ScriptedReply) -> Vec<&str> {
    r.tool_calls.iter().map(|c| c.name.as_str()).collect()
}

/// The sample's files as the demo copies them (`assets/demo/`).
fn sample(name: &str) -> String {
    match name {
        "test.sh" => include_str!("../../assets/demo/test.sh"),
        _ => include_str!("../../assets/demo/calc.sh"),
    }
    .to_string()
}

#[test]
fn the_phrasings_a_user_tries_ask_for_a_fix_or_a_run_in_both_languages() {
    for t in [
        "fix the failing test",
        "Fix the bug",
        "make the tests pass",
        "can you repair calc.sh?",
        "修复失败的测试",
        "帮我修一下这个 bug",
        "让测试通过",
    ] {
        assert_eq!(intent(t), Some(Intent::Fix), "{t}");
    }
    for t in [
        "run the tests",
        "Run tests please",
        "运行测试",
        "跑一下测试",
    ] {
        assert_eq!(intent(t), Some(Intent::Run), "{t}");
    }
    for t in ["hello", "what is the weather", "你好"] {
        assert_eq!(intent(t), None, "{t}");
    }
}

#[test]
fn a_fix_reads_then_proposes_the_edit_then_runs_the_tests_then_reports_the_way_back() {
    let l = Localizer::new(Locale::EnUs);
    let first = start("fix the failing test", &all(), l).unwrap();
    assert_eq!(names(&first), ["read_file", "read_file"]);
    let reads = vec![
        ("read_file".to_string(), sample("test.sh")),
        ("read_file".to_string(), sample("calc.sh")),
    ];
    let edit = next(&reads, &all(), l).unwrap();
    assert_eq!(names(&edit), ["edit_file"]);
    let input = &edit.tool_calls[0].input;
    assert_eq!(input["path"], "calc.sh");
    assert_eq!(input["old_string"], DEMO_FIX.0);
    assert_eq!(input["new_string"], DEMO_FIX.1);
    let edited = vec![(
        "edit_file".to_string(),
        "Changed 1 file:\nM calc.sh (+1 -1)".to_string(),
    )];
    let run = next(&edited, &all(), l).unwrap();
    assert_eq!(names(&run), ["shell"]);
    assert_eq!(run.tool_calls[0].input["command"], TEST_COMMAND);
    let passed = vec![(
        "shell".to_string(),
        "exit status 0\nok   add 2 3\nok   sub 7 4\nok   sub 5 5\ndemo tests: all passed\n"
            .to_string(),
    )];
    let report = next(&passed, &all(), l).unwrap();
    assert!(report.tool_calls.is_empty());
    let text = report.text.unwrap();
    for want in ["/diff", "/undo", "Esc Esc", "passes"] {
        assert!(text.contains(want), "{want}: {text}");
    }
}

#[test]
fn a_run_reports_the_failing_test_and_offers_the_fix_in_chinese() {
    let l = Localizer::new(Locale::ZhCn);
    let run = start("运行测试", &all(), l).unwrap();
    assert_eq!(run.tool_calls[0].input["command"], TEST_COMMAND);
    let failed = vec![(
        "shell".to_string(),
        "exit status 1\nok   add 2 3\nFAIL sub 7 4: got -3, expected 3\nok   sub 5 5\ndemo tests: 1 failed\n"
            .to_string(),
    )];
    let text = next(&failed, &all(), l).unwrap().text.unwrap();
    assert!(text.contains("FAIL sub 7 4: got -3, expected 3"), "{text}");
    assert!(text.contains("修复失败的测试"), "{text}");
}

#[test]
fn a_declined_or_refused_edit_is_reported_and_nothing_more_runs() {
    let l = Localizer::new(Locale::EnUs);
    let denied = vec![(
        "edit_file".to_string(),
        "the user denied this call of \"edit_file\"; do not retry it unless asked".to_string(),
    )];
    let r = next(&denied, &all(), l).unwrap();
    assert!(r.tool_calls.is_empty());
    assert!(r.text.unwrap().contains("declined `edit_file`"));
    let refused = vec![(
        "edit_file".to_string(),
        "the sandbox mode is read-only: no file may be changed".to_string(),
    )];
    let r = next(&refused, &all(), l).unwrap();
    assert!(r.tool_calls.is_empty());
    assert!(r.text.unwrap().contains("read-only"));
}

#[test]
fn without_the_tools_it_needs_the_fix_is_not_started() {
    let l = Localizer::new(Locale::EnUs);
    assert!(start("fix the bug", &tools(&["read_file"]), l).is_none());
    assert!(start("hello", &all(), l).is_none());
}

#[test]
fn only_words_that_stay_inside_the_copy_are_taken_from_the_user() {
    for ok in ["cat demo.txt", "ls -la", "sh test.sh", "grep sub calc.sh"] {
        assert!(safe_command(ok), "{ok}");
    }
    for bad in [
        "touch /home/me/project/x",
        "cat ../secret",
        "rm -rf x",
        "echo hi > x",
        "cat $HOME/x",
        "sh -c touch",
        "cd ~",
    ] {
        assert!(!safe_command(bad), "{bad}");
    }
    for ok in ["demo.txt", "src/a.txt"] {
        assert!(safe_path(ok), "{ok}");
    }
    for bad in ["/etc/x", "../x", "a/../../x", "~/x", ""] {
        assert!(!safe_path(bad), "{bad}");
    }
}
