//! The simulator keeps a bounded ring of recorded requests (default 1,000,
//! `SimConfig::keep_requests` in process, `deepterm sim --keep-requests N` on the command
//! line), and `GET /_sim/requests` says how many it kept and dropped.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use deepterm::sim::{self, DEFAULT_KEEP_REQUESTS, SimConfig};
use serde_json::{Value, json};

/// Sends one small streamed Anthropic request with a distinct user text.
async fn ask(base: &str, n: usize) {
    let body = json!({"model": "deepseek-flash", "max_tokens": 64, "stream": true,
        "messages": [{"role": "user", "content": format!("question {n}")}]});
    let resp = reqwest::Client::new()
        .post(format!("{base}/anthropic/v1/messages"))
        .header("x-api-key", "sk-test")
        .header("anthropic-version", "2023-06-01")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    // Read the whole stream so the request is complete.
    resp.text().await.unwrap();
}

/// `GET /_sim/requests`: the body array and the kept/dropped/limit headers.
async fn recorded(base: &str) -> (Vec<Value>, [usize; 3]) {
    let resp = reqwest::get(format!("{base}/_sim/requests")).await.unwrap();
    let header = |name: &str| -> usize {
        resp.headers()[name]
            .to_str()
            .unwrap()
            .parse()
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let stats = [
        header("x-sim-requests-kept"),
        header("x-sim-requests-dropped"),
        header("x-sim-requests-limit"),
    ];
    let body: Value = resp.json().await.unwrap();
    (body.as_array().unwrap().clone(), stats)
}

fn user_texts(reqs: &[Value]) -> Vec<String> {
    reqs.iter()
        .map(|r| {
            r["body"]["messages"][0]["content"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[tokio::test]
async fn sim_keeps_only_the_newest_requests_and_counts_the_dropped() {
    let h = sim::start(SimConfig {
        keep_requests: 3,
        ..SimConfig::default()
    })
    .await
    .unwrap();
    for n in 0..5 {
        ask(&h.base_url(), n).await;
    }
    let (reqs, [kept, dropped, limit]) = recorded(&h.base_url()).await;
    assert_eq!((kept, dropped, limit), (3, 2, 3));
    assert_eq!(
        user_texts(&reqs),
        ["question 2", "question 3", "question 4"]
    );
    // Indices keep counting across dropped requests.
    let idx: Vec<u64> = reqs.iter().map(|r| r["index"].as_u64().unwrap()).collect();
    assert_eq!(idx, [2, 3, 4]);
    // The in-process API agrees.
    assert_eq!(h.requests().len(), 3);
    let s = h.request_stats();
    assert_eq!((s.kept, s.dropped, s.limit), (3, 2, 3));
}

#[tokio::test]
async fn sim_default_limit_is_one_thousand() {
    assert_eq!(DEFAULT_KEEP_REQUESTS, 1_000);
    let h = sim::start(SimConfig::default()).await.unwrap();
    ask(&h.base_url(), 0).await;
    let (reqs, stats) = recorded(&h.base_url()).await;
    assert_eq!(reqs.len(), 1);
    assert_eq!(stats, [1, 0, 1_000]);
}

/// Kills the `deepterm sim` child when the test ends, also on failure.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn sim_cli_keep_requests_flag() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_deepterm"))
        .args(["sim", "--keep-requests", "3"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let server = Server(child);
    let mut base = String::new();
    BufReader::new(stdout).read_line(&mut base).unwrap();
    let base = base.trim().to_string();
    assert!(base.starts_with("http://127.0.0.1:"), "{base}");
    for n in 0..5 {
        ask(&base, n).await;
    }
    let (reqs, stats) = recorded(&base).await;
    assert_eq!(stats, [3, 2, 3]);
    assert_eq!(
        user_texts(&reqs),
        ["question 2", "question 3", "question 4"]
    );
    drop(server);
}
