//! The simulator's validation errors, scripted faults, output limits and key handling.

use super::*;

#[tokio::test]
async fn faults_http_error_with_retry_after_and_in_stream_error() {
    let h = sim().await;
    h.push_reply(ScriptedReply::fault(Fault::HttpError {
        status: 429,
        message: "Rate Limit Reached".into(),
        retry_after: Some(3),
    }));
    let r = post(
        &h,
        "/anthropic/v1/messages",
        &anth_body(json!([{"role": "user", "content": "x"}])),
    )
    .await;
    assert_eq!(r.status(), 429);
    assert_eq!(r.headers()["retry-after"], "3");
    let e: Value = r.json().await.unwrap();
    assert_eq!(e["error"]["message"], "Rate Limit Reached");

    h.push_reply(ScriptedReply::fault(Fault::StreamError {
        message: "overloaded mid-stream".into(),
    }));
    let s = collect_anthropic(
        &post(
            &h,
            "/anthropic/v1/messages",
            &anth_body(json!([{"role": "user", "content": "x"}])),
        )
        .await
        .text()
        .await
        .unwrap(),
    );
    let n = names(&s.events);
    assert_eq!(n.first().map(String::as_str), Some("message_start"));
    assert_eq!(n.last().map(String::as_str), Some("error"));
    assert!(!n.contains(&"message_stop".to_string()));

    h.push_reply(ScriptedReply::fault(Fault::StreamError {
        message: "boom".into(),
    }));
    let t = post(
        &h,
        "/chat/completions",
        &openai_body(json!([{"role": "user", "content": "x"}])),
    )
    .await
    .text()
    .await
    .unwrap();
    let (_, _, _, _, _, done, chunks) = collect_openai(&t);
    assert!(!done);
    assert_eq!(chunks.last().unwrap()["error"]["message"], "boom");
    assert_eq!(h.requests()[0].status, 429);
}

#[tokio::test]
async fn faults_cut_stall_truncate_and_empty() {
    let h = sim_with(SimConfig {
        keepalive: false,
        keepalive_interval: Duration::from_millis(20),
        ..SimConfig::default()
    })
    .await;
    let body = anth_body(json!([{"role": "user", "content": "x"}]));

    h.push_reply(ScriptedReply::text("hello there").with_fault(Fault::CutAfterEvents(3)));
    let s = collect_anthropic(&post_text(&h, "/anthropic/v1/messages", &body).await);
    assert_eq!(s.events.len(), 3);
    assert!(!names(&s.events).contains(&"message_stop".to_string()));

    h.push_reply(ScriptedReply::text("after stall").with_fault(Fault::Stall {
        ms: 120,
        close: false,
    }));
    let started = std::time::Instant::now();
    let s = collect_anthropic(&post_text(&h, "/anthropic/v1/messages", &body).await);
    assert!(started.elapsed() >= Duration::from_millis(120));
    assert!(
        s.comments >= 3,
        "keep-alives during the stall: {}",
        s.comments
    );
    assert_eq!(s.blocks.last().unwrap()["text"], "after stall");

    h.push_reply(ScriptedReply::fault(Fault::Stall {
        ms: 30,
        close: true,
    }));
    let s = collect_anthropic(&post_text(&h, "/anthropic/v1/messages", &body).await);
    assert!(s.events.is_empty() && s.comments >= 1);

    h.push_reply(
        ScriptedReply::tool_call("read_file", json!({"path": "some/long/path/file.txt"}))
            .with_fault(Fault::TruncateToolJson),
    );
    let s = collect_anthropic(&post_text(&h, "/anthropic/v1/messages", &body).await);
    assert_eq!(s.stop_reason.as_deref(), Some("max_tokens"));
    let tool = s.blocks.iter().find(|b| b["type"] == "tool_use").unwrap();
    assert!(
        tool["input"].get("_raw").is_some(),
        "truncated JSON does not parse: {tool}"
    );

    h.push_reply(ScriptedReply::fault(Fault::Empty));
    let s = collect_anthropic(&post_text(&h, "/anthropic/v1/messages", &body).await);
    assert!(s.blocks.is_empty());
    assert_eq!(s.stop_reason.as_deref(), Some("end_turn"));
    assert_eq!(
        names(&s.events).last().map(String::as_str),
        Some("message_stop")
    );
}

#[tokio::test]
async fn max_tokens_truncates_output() {
    let h = sim().await;
    h.push_reply(ScriptedReply::text("word ".repeat(200)));
    let mut b = anth_body(json!([{"role": "user", "content": "x"}]));
    b["max_tokens"] = json!(10);
    b["thinking"] = json!({"type": "disabled"});
    let s = collect_anthropic(&post_text(&h, "/anthropic/v1/messages", &b).await);
    assert_eq!(s.stop_reason.as_deref(), Some("max_tokens"));
    assert_eq!(s.blocks[0]["text"].as_str().unwrap().len(), 40);
    assert_eq!(s.delta_usage["output_tokens"], 10);
    h.push_reply(ScriptedReply::text("word ".repeat(200)));
    let mut o = openai_body(json!([{"role": "user", "content": "x"}]));
    o["max_tokens"] = json!(5);
    let (_, content, _, finish, _, _, _) =
        collect_openai(&post_text(&h, "/chat/completions", &o).await);
    assert_eq!(finish.as_deref(), Some("length"));
    assert!(content.len() <= 20);
}

#[tokio::test]
async fn auth_bearer_wins_and_keys_are_redacted() {
    let h = sim_with(SimConfig {
        api_key: Some("sk-right".into()),
        ..SimConfig::default()
    })
    .await;
    let url = format!("{}/anthropic/v1/messages", h.base_url());
    let body = anth_body(json!([{"role": "user", "content": "x"}]));
    let c = reqwest::Client::new();
    let r = c.post(&url).json(&body).send().await.unwrap();
    assert_eq!(r.status(), 401);
    let e: Value = r.json().await.unwrap();
    assert_eq!(e["error"]["type"], "authentication_error");
    // The status of one request with an `x-api-key` and/or a bearer token.
    let status = |api_key: &'static str, bearer: Option<&'static str>| {
        let mut req = c.post(&url).header("x-api-key", api_key).json(&body);
        if let Some(t) = bearer {
            req = req.bearer_auth(t);
        }
        async move { req.send().await.unwrap().status() }
    };
    assert_eq!(status("sk-wrong", None).await, 401);
    assert_eq!(status("sk-right", None).await, 200);
    // Bearer wins over x-api-key.
    assert_eq!(status("sk-right", Some("sk-wrong")).await, 401);
    assert_eq!(status("sk-wrong", Some("sk-right")).await, 200);
    let any = sim().await;
    assert_eq!(
        post(&any, "/anthropic/v1/messages", &body).await.status(),
        200
    );
    let raw = reqwest::get(format!("{}/_sim/requests", h.base_url()))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!raw.contains("sk-right") && !raw.contains("sk-wrong"));
    assert!(raw.contains("<redacted>"));
}

#[tokio::test]
async fn sim_requests_endpoint_shape_models_and_404() {
    let h = sim().await;
    let b = anth_body(json!([{"role": "user", "content": "hello"}]));
    let _ = post_text(&h, "/anthropic/v1/messages", &b).await;
    let v: Value = reqwest::get(format!("{}/_sim/requests", h.base_url()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let r = &v[0];
    assert_eq!(r["route"], "anthropic");
    assert_eq!(r["headers"]["anthropic-version"], "2023-06-01");
    assert_eq!(r["headers"]["x-api-key"], "<redacted>");
    assert_eq!(r["body"]["messages"][0]["content"], "hello");
    assert!(r["usage"]["input_tokens"].is_u64());
    assert!(r["cache"]["hitTokens"].is_u64() && r["cache"]["totalTokens"].is_u64());
    assert!(r["cache"]["firstDiffByte"].is_null());
    assert_eq!(r["effectiveTools"], json!(["read_file"]));
    assert_eq!(r["status"], 200);
    assert_eq!(r["replySource"], "demo");
    let m: Value = reqwest::Client::new()
        .get(format!("{}/models", h.base_url()))
        .bearer_auth("k")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(m["object"], "list");
    assert_eq!(
        reqwest::get(format!("{}/nope", h.base_url()))
            .await
            .unwrap()
            .status(),
        404
    );
    // Replies can also be queued over HTTP.
    let q = reqwest::Client::new()
        .post(format!("{}/_sim/replies", h.base_url()))
        .body(r#"[{"text": "queued"}]"#)
        .send()
        .await
        .unwrap();
    assert_eq!(q.status(), 200);
    assert_eq!(h.pending_replies(), 1);
}
