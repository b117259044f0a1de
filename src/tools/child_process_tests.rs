//! The shared child runner on real processes.

use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::*;

fn sh(script: &str) -> Vec<String> {
    vec!["sh".into(), "-c".into(), script.into()]
}

fn spec<'a>(command: &'a [String], env: &'a ChildEnvPolicy, timeout: Duration) -> ChildSpec<'a> {
    ChildSpec {
        command,
        cwd: None,
        env,
        extra_env: &[],
        stdin: String::new(),
        timeout,
        stdout_cap: 4,
        stderr_cap: 64,
    }
}

#[tokio::test]
async fn output_beyond_its_cap_is_cut_and_marked_and_the_rest_is_kept_whole() {
    let env = ChildEnvPolicy::default();
    let cmd = sh("printf abcdefgh; printf oops >&2; exit 3");
    let run = run(
        spec(&cmd, &env, Duration::from_secs(10)),
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert!(
        matches!(run.ended, Ended::Exited(s) if s.code() == Some(3)),
        "{run:?}"
    );
    assert_eq!(
        run.stdout,
        Captured {
            bytes: b"abcd".to_vec(),
            cut: true
        }
    );
    assert_eq!(
        run.stderr,
        Captured {
            bytes: b"oops".to_vec(),
            cut: false
        }
    );
}

#[tokio::test]
async fn the_child_gets_its_stdin_directory_and_extra_variables() {
    let env = ChildEnvPolicy::default();
    let dir = tempfile::tempdir().unwrap();
    let cmd = sh("read line; echo \"$line $(pwd) $MARK\"");
    let extra = [("MARK".to_string(), "yes".to_string())];
    let real = dir.path().canonicalize().unwrap();
    let run = run(
        ChildSpec {
            cwd: Some(&real),
            extra_env: &extra,
            stdin: "hello\n".into(),
            stdout_cap: 4096,
            ..spec(&cmd, &env, Duration::from_secs(10))
        },
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(run.stdout.text(), format!("hello {} yes\n", real.display()));
}

#[tokio::test]
async fn a_cancel_kills_the_child_and_what_it_started_at_once() {
    let env = ChildEnvPolicy::default();
    let cmd = sh("sleep 30 & sleep 30");
    let cancel = CancellationToken::new();
    let fire = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        fire.cancel();
    });
    let started = Instant::now();
    let run = run(spec(&cmd, &env, Duration::from_secs(60)), &cancel)
        .await
        .unwrap();
    assert!(
        matches!(run.ended, Ended::Interrupted(Interrupted::Cancelled)),
        "{run:?}"
    );
    // Long before the sleepers' 30 s (a loaded machine gets a few seconds).
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn an_empty_command_or_a_missing_program_is_not_started() {
    let env = ChildEnvPolicy::default();
    let none: Vec<String> = Vec::new();
    let r = run(
        spec(&none, &env, Duration::from_secs(5)),
        &CancellationToken::new(),
    )
    .await;
    assert!(matches!(r, Err(StartError::Empty)), "{r:?}");
    let missing = vec!["/nonexistent/program".to_string()];
    let r = run(
        spec(&missing, &env, Duration::from_secs(5)),
        &CancellationToken::new(),
    )
    .await;
    assert!(matches!(r, Err(StartError::Spawn(_))), "{r:?}");
}

#[tokio::test]
async fn a_cancel_kills_a_child_that_left_the_process_group() {
    // `setsid` takes the sleeper out of the command's process group, as bubblewrap's
    // sandboxed side does; the group kill alone would leave it running for a day.
    let tok = format!(
        "{}.{}",
        86_000 + std::process::id() % 1000,
        std::process::id()
    );
    let env = ChildEnvPolicy::default();
    let cmd = sh(&format!("setsid sleep {tok} & wait"));
    let cancel = CancellationToken::new();
    let fire = cancel.clone();
    let watch_tok = tok.clone();
    tokio::spawn(async move {
        for _ in 0..500 {
            if !sleepers(&watch_tok).is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        fire.cancel();
    });
    let run = run(spec(&cmd, &env, Duration::from_secs(60)), &cancel)
        .await
        .unwrap();
    assert!(
        matches!(run.ended, Ended::Interrupted(Interrupted::Cancelled)),
        "{run:?}"
    );
    let mut left = sleepers(&tok);
    for _ in 0..250 {
        if left.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        left = sleepers(&tok);
    }
    for pid in &left {
        // SAFETY: kill only sends a signal, to the sleeper this test started.
        unsafe {
            libc::kill(*pid, libc::SIGKILL);
        }
    }
    assert!(left.is_empty(), "the sleeper outside the group survived");
}

/// Pids of the `sleep` processes whose arguments are `tok`.
fn sleepers(tok: &str) -> Vec<libc::pid_t> {
    let want = format!("sleep\0{tok}\0");
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter(|p| {
            std::fs::read(format!("/proc/{p}/cmdline")).is_ok_and(|c| c.ends_with(want.as_bytes()))
        })
        .collect()
}
