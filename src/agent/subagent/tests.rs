use super::*;

#[test]
fn task_arguments_default_to_read_only_and_reject_a_missing_prompt_or_unknown_mode() {
    let a =
        TaskArgs::parse(r#"{"description":"find uses","prompt":"List callers of f."}"#).unwrap();
    assert_eq!(a.mode, SubagentMode::ReadOnly);
    assert_eq!(a.prompt, "List callers of f.");
    let a = TaskArgs::parse(r#"{"description":"d","prompt":"p","mode":"inherit"}"#).unwrap();
    assert_eq!(a.mode, SubagentMode::Inherit);
    assert!(
        TaskArgs::parse(r#"{"description":"d"}"#)
            .unwrap_err()
            .contains("prompt")
    );
    assert!(
        TaskArgs::parse(r#"{"prompt":"p","mode":"full"}"#)
            .unwrap_err()
            .contains("mode")
    );
    assert!(TaskArgs::parse("not json").unwrap_err().contains("JSON"));
}

#[test]
fn a_subagent_answer_is_capped_like_any_result_and_never_empty() {
    assert_eq!(answer("done".into()), "done");
    assert!(answer("  ".into()).contains("without an answer"));
    let long = "x".repeat(MAX_ANSWER_BYTES + 10);
    let capped = answer(long);
    assert!(capped.len() <= MAX_ANSWER_BYTES + 32);
    assert!(capped.ends_with("[result truncated]"));
}
