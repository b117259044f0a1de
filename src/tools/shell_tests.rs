//! Unit tests of the `shell` tool's argument validation and output capping.

use super::*;

fn ws() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("ws/sub")).unwrap();
    let ws = std::fs::canonicalize(d.path().join("ws")).unwrap();
    (d, ws)
}

#[test]
fn a_string_command_runs_through_a_shell_with_the_default_timeout() {
    let (_d, ws) = ws();
    let r = parse_request(&json!({"command": "echo hi | wc -c"}), &ws).unwrap();
    assert_eq!(
        r.argv[1..],
        ["-c".to_string(), "echo hi | wc -c".to_string()]
    );
    assert!(r.argv[0].ends_with("sh"), "{:?}", r.argv);
    assert_eq!(r.workdir, ws);
    assert_eq!(r.timeout, Duration::from_millis(DEFAULT_TIMEOUT_MS));
    assert!(!r.escalate);
    let a = parse_request(&json!({"command": ["ls", "-l"], "workdir": "sub"}), &ws).unwrap();
    assert_eq!(a.argv, ["ls", "-l"]);
    assert_eq!(a.display, "ls -l");
    assert_eq!(a.workdir, ws.join("sub"));
}

#[test]
fn timeouts_outside_one_ms_to_ten_minutes_are_refused() {
    let (_d, ws) = ws();
    for bad in [
        json!(0),
        json!(MAX_TIMEOUT_MS + 1),
        json!(-5),
        json!(1.5),
        json!("10"),
    ] {
        let e = parse_request(&json!({"command": "true", "timeout_ms": bad}), &ws).unwrap_err();
        assert!(e.contains("timeout_ms"), "{bad}: {e}");
    }
    let max = parse_request(
        &json!({"command": "true", "timeout_ms": MAX_TIMEOUT_MS}),
        &ws,
    )
    .unwrap();
    assert_eq!(max.timeout, Duration::from_millis(MAX_TIMEOUT_MS));
}

#[test]
fn a_workdir_escaping_the_workspace_is_refused() {
    let (d, ws) = ws();
    std::os::unix::fs::symlink(d.path(), ws.join("out")).unwrap();
    for w in ["..", "../", "sub/../..", "/etc", "out", "missing"] {
        let e = parse_request(&json!({"command": "true", "workdir": w}), &ws).unwrap_err();
        assert!(e.contains("workdir"), "{w}: {e}");
    }
}

#[test]
fn bad_commands_and_unknown_arguments_are_refused() {
    let (_d, ws) = ws();
    for (args, want) in [
        (json!({}), "required"),
        (json!({"command": ""}), "empty"),
        (json!({"command": []}), "empty"),
        (json!({"command": [1]}), "string"),
        (json!({"command": 3}), "string"),
        (
            json!({"command": "x", "sandbox": false}),
            "unknown argument \"sandbox\"",
        ),
        (json!({"command": "x", "escalate": "yes"}), "escalate"),
    ] {
        let e = parse_request(&args, &ws).unwrap_err();
        assert!(e.contains(want), "{args}: {e}");
    }
    let r = parse_request(
        &json!({"command": "x", "escalate": true, "justification": "needs the network"}),
        &ws,
    )
    .unwrap();
    assert!(r.escalate);
    assert_eq!(r.justification.as_deref(), Some("needs the network"));
}

#[test]
fn output_beyond_the_cap_keeps_head_and_tail_and_says_what_was_cut() {
    let mut c = CappedOutput::default();
    c.push(b"START");
    for _ in 0..100 {
        c.push(&[b'x'; 4096]);
    }
    c.push(b"END");
    let total = 5 + 100 * 4096 + 3;
    let s = c.render();
    assert!(s.starts_with("START"));
    assert!(s.ends_with("END"));
    let cut = total - 2 * OUTPUT_HALF;
    assert!(
        s.contains(&format!(
            "[… {cut} bytes cut from the middle of {total} bytes of output …]"
        )),
        "{}",
        &s[OUTPUT_HALF - 10..OUTPUT_HALF + 100]
    );
    assert!(s.len() < 2 * OUTPUT_HALF + 200);

    let mut small = CappedOutput::default();
    small.push(b"a\n");
    small.push(&[b'b'; OUTPUT_HALF]);
    small.push(b"c");
    let s = small.render();
    assert_eq!(s.len(), 2 + OUTPUT_HALF + 1, "nothing cut below the cap");
    assert!(!s.contains("cut"));
}

#[test]
fn denial_markers_are_recognized() {
    assert!(looks_like_denial(
        "touch: cannot touch '/x': Read-only file system"
    ));
    assert!(looks_like_denial("bash: socket: Permission denied"));
    assert!(looks_like_denial("curl: (7) Network is unreachable"));
    assert!(!looks_like_denial("error[E0308]: mismatched types"));
}
