//! Command tools: JSON on stdin, exit codes, timeouts, cancellation and output caps.

use super::*;

// ---------------------------------------------------------------- command tools

#[tokio::test]
async fn command_tool_receives_json_on_stdin_and_returns_stdout() {
    let mut r = ToolRegistry::new();
    r.set_source_tools(ToolSource::Command, vec![cmd("echo_args", &["cat"])]);
    let out = r
        .call(
            "echo_args",
            r#"{"path": "a b", "n": 2}"#,
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(
        (out.content.as_str(), out.is_error),
        ("{\"path\":\"a b\",\"n\":2}\n", false)
    );
    r.set_source_tools(ToolSource::Command, vec![cmd("silent", &["true"])]);
    let out = r.call("silent", "{}", &CancellationToken::new()).await;
    assert_eq!(out.content, "(no output)");
}

#[tokio::test]
async fn command_tool_non_zero_exit_is_an_error_with_stderr() {
    let mut r = ToolRegistry::new();
    r.set_source_tools(
        ToolSource::Command,
        vec![cmd(
            "fails",
            &[
                "sh",
                "-c",
                "cat >/dev/null; echo partial; echo 'bad input' >&2; exit 3",
            ],
        )],
    );
    let out = r.call("fails", "{}", &CancellationToken::new()).await;
    assert!(out.is_error);
    assert_eq!(
        out.content,
        "command tool \"fails\" exited with status 3\nstderr:\nbad input"
    );
}

#[tokio::test]
async fn command_tool_timeout_kills_the_child() {
    let tool = CommandTool::new(
        "slow",
        vec!["sleep".into(), "10".into()],
        Duration::from_millis(300),
    );
    let started = Instant::now();
    let out = tool
        .call(serde_json::json!({}), &CancellationToken::new())
        .await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(out.is_error);
    assert_eq!(
        out.content,
        "command tool \"slow\" timed out after 0.3 s and was killed"
    );
}

#[tokio::test]
async fn command_tool_cancel_kills_the_child() {
    let tool = CommandTool::new(
        "slow",
        vec!["sleep".into(), "10".into()],
        Duration::from_secs(30),
    );
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(150)).await;
        c2.cancel();
    });
    let started = Instant::now();
    let out = tool.call(serde_json::json!({}), &cancel).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(out.content, "command tool \"slow\" was cancelled");
}

#[tokio::test]
async fn command_tool_output_is_capped_and_missing_program_reported() {
    let mut r = ToolRegistry::new();
    r.set_source_tools(
        ToolSource::Command,
        vec![
            cmd(
                "loud",
                &["sh", "-c", "head -c 200000 /dev/zero | tr '\\0' a"],
            ),
            cmd("ghost", &["/nonexistent/deepterm-tool"]),
        ],
    );
    let out = r.call("loud", "{}", &CancellationToken::new()).await;
    assert!(!out.is_error);
    assert!(out.content.starts_with("aaaa"));
    assert!(out.content.ends_with("\n[output truncated at 65536 bytes]"));
    assert_eq!(
        out.content.len(),
        65536 + "\n[output truncated at 65536 bytes]".len()
    );
    let out = r.call("ghost", "{}", &CancellationToken::new()).await;
    assert!(out.is_error);
    assert!(
        out.content
            .starts_with("command tool \"ghost\" could not start \"/nonexistent/deepterm-tool\"")
    );
}

#[test]
fn tool_call_futures_are_send_for_spawning() {
    fn assert_send<T: Send>(_: T) {}
    let r = ToolRegistry::new();
    let cancel = CancellationToken::new();
    assert_send(r.call("x", "{}", &cancel));
    let mut r = ToolRegistry::new();
    r.set_source_tools(ToolSource::Command, vec![cmd("t", &["true"])]);
    let prepared = r
        .prepare_call("t", "{}")
        .unwrap_or_else(|_| panic!("t is active"));
    drop(r);
    assert_send(prepared.run(&cancel));
}
