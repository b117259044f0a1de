//! A provider that cannot be reached (§14.5): each retry is one short line that says the
//! cause, and the final error says it in plain words with a hint, not the transport's
//! whole error chain.

use crate::common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_port_gives_one_short_line_per_retry_and_a_final_error_with_a_hint() {
    // A port that was just free: nothing listens on it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.toml");
    std::fs::write(
        &cfg,
        format!(
            "model = \"dead/deepseek-flash\"\n[providers.dead]\nkind = \"deepseek-messages\"\n\
             base_url = \"http://127.0.0.1:{port}/anthropic\"\napi_key_env = \"DEEPTERM_DEAD_KEY\"\n"
        ),
    )
    .unwrap();
    let script = dir.path().join("s.txt");
    std::fs::write(&script, "hi\n").unwrap();
    for (locale, retrying, refused, hint) in [
        (
            "en-US",
            "reconnecting 1/",
            "connection refused",
            "nothing listening at",
        ),
        ("zh-CN", "正在重连 1/", "连接被拒绝", "没有服务在监听"),
    ] {
        let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_deepterm"))
            .args(["exec", "--locale", locale, "--script"])
            .arg(&script)
            .arg("--config")
            .arg(&cfg)
            .arg("--session-dir")
            .arg(dir.path().join("sessions"))
            .env("DEEPTERM_DEAD_KEY", "sk-dead")
            .output()
            .await
            .unwrap();
        assert!(!out.status.success());
        let err = stderr(&out);
        let retries: Vec<&str> = err.lines().filter(|l| l.contains(refused)).collect();
        assert!(retries.iter().any(|l| l.contains(retrying)), "{err}");
        let last = err.lines().last().unwrap_or("");
        assert!(last.contains(hint), "{locale}: {err}");
        assert!(last.contains(&format!("http://127.0.0.1:{port}")), "{err}");
        assert!(
            !last.contains("/anthropic"),
            "the hint names the origin: {err}"
        );
        // The transport's chain stays in the log, not on the screen.
        assert!(!err.contains("tcp connect error"), "{err}");
        assert!(!err.contains("sk-dead"), "{err}");
    }
}
