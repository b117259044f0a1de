//! Simulator integration tests over loopback HTTP (SPEC §9, deepseek-wire.md §5).
use crate::common;
use deepterm::sim::{self, Fault, ScriptedReply, SimConfig, SimHandle};
use serde_json::{Value, json};

use std::time::Duration;

/// One parsed SSE event (comments dropped).
#[derive(Debug, Clone)]
struct Sse {
    event: Option<String>,
    data: String,
}

fn parse_sse(text: &str) -> (Vec<Sse>, usize) {
    let mut events = Vec::new();
    let mut comments = 0;
    for frame in text.split("\n\n") {
        if frame.trim().is_empty() {
            continue;
        }
        let mut event = None;
        let mut data = Vec::new();
        for line in frame.lines() {
            if line.starts_with(':') {
                comments += 1;
            } else if let Some(v) = line.strip_prefix("event: ") {
                event = Some(v.to_string());
            } else if let Some(v) = line.strip_prefix("data: ") {
                data.push(v.to_string());
            }
        }
        if event.is_some() || !data.is_empty() {
            events.push(Sse {
                event,
                data: data.join("\n"),
            });
        }
    }
    (events, comments)
}

async fn sim_with(cfg: SimConfig) -> SimHandle {
    sim::start(cfg).await.unwrap()
}

async fn sim() -> SimHandle {
    sim_with(SimConfig {
        seed: Some(1),
        ..SimConfig::default()
    })
    .await
}

fn read_file_tool() -> Value {
    json!({"name": "read_file", "description": "Read a UTF-8 file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}})
}

fn long_system() -> String {
    "You are a careful assistant working inside a terminal. ".repeat(30)
}

async fn post(h: &SimHandle, path: &str, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{}{path}", h.base_url()))
        .header("x-api-key", "sk-test")
        .header("anthropic-version", "2023-06-01")
        .json(body)
        .send()
        .await
        .unwrap()
}

/// The whole reply text of a POST of `body` to `path`.
async fn post_text(h: &SimHandle, path: &str, body: &Value) -> String {
    post(h, path, body).await.text().await.unwrap()
}

/// Parsed Anthropic stream: (events, reassembled content blocks, stop_reason, message_start usage, final usage).
struct AnthStream {
    events: Vec<Sse>,
    blocks: Vec<Value>,
    stop_reason: Option<String>,
    start_usage: Value,
    delta_usage: Value,
    comments: usize,
}

fn collect_anthropic(text: &str) -> AnthStream {
    let (events, comments) = parse_sse(text);
    let mut blocks: Vec<Value> = Vec::new();
    let mut partial: Vec<String> = Vec::new();
    let mut stop_reason = None;
    let mut start_usage = Value::Null;
    let mut delta_usage = Value::Null;
    for e in &events {
        let d: Value = serde_json::from_str(&e.data).unwrap();
        assert_eq!(
            d["type"].as_str(),
            e.event.as_deref(),
            "data type must equal the event name"
        );
        match e.event.as_deref().unwrap() {
            "message_start" => start_usage = d["message"]["usage"].clone(),
            "content_block_start" => {
                assert_eq!(d["index"].as_u64().unwrap() as usize, blocks.len());
                blocks.push(d["content_block"].clone());
                partial.push(String::new());
            }
            "content_block_delta" => {
                let i = d["index"].as_u64().unwrap() as usize;
                let delta = &d["delta"];
                match delta["type"].as_str().unwrap() {
                    "text_delta" => {
                        let t = blocks[i]["text"].as_str().unwrap().to_string()
                            + delta["text"].as_str().unwrap();
                        blocks[i]["text"] = json!(t);
                    }
                    "thinking_delta" => {
                        let t = blocks[i]["thinking"].as_str().unwrap().to_string()
                            + delta["thinking"].as_str().unwrap();
                        blocks[i]["thinking"] = json!(t);
                    }
                    "signature_delta" => blocks[i]["signature"] = delta["signature"].clone(),
                    "input_json_delta" => {
                        partial[i].push_str(delta["partial_json"].as_str().unwrap())
                    }
                    other => panic!("unknown delta {other}"),
                }
            }
            "content_block_stop" => {
                let i = d["index"].as_u64().unwrap() as usize;
                if blocks[i]["type"] == "tool_use" {
                    blocks[i]["input"] =
                        serde_json::from_str(&partial[i]).unwrap_or(json!({"_raw": partial[i]}));
                }
            }
            "message_delta" => {
                stop_reason = d["delta"]["stop_reason"].as_str().map(str::to_string);
                delta_usage = d["usage"].clone();
            }
            "message_stop" | "ping" | "error" => {}
            other => panic!("unexpected event {other}"),
        }
    }
    AnthStream {
        events,
        blocks,
        stop_reason,
        start_usage,
        delta_usage,
        comments,
    }
}

fn names(events: &[Sse]) -> Vec<String> {
    events.iter().filter_map(|e| e.event.clone()).collect()
}

fn anth_body(messages: Value) -> Value {
    json!({"model": "deepseek-flash", "max_tokens": 4096, "stream": true,
        "system": long_system(), "tools": [read_file_tool()], "messages": messages})
}

#[tokio::test]
async fn anthropic_stream_roundtrip_with_thinking_text_and_tool_call() {
    let h = sim().await;
    h.push_reply(
        ScriptedReply::text("Reading the manifest — ünïcødé ✓.")
            .with_thinking("Need the manifest first. 思考")
            .with_tool_call("read_file", json!({"path": "Cargo.toml"})),
    );
    let resp = post(
        &h,
        "/anthropic/v1/messages",
        &anth_body(json!([{"role": "user", "content": "What is in Cargo.toml?"}])),
    )
    .await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    assert!(resp.headers().contains_key("x-ds-trace-id"));
    let s = collect_anthropic(&resp.text().await.unwrap());
    let n = names(&s.events);
    assert_eq!(n.first().map(String::as_str), Some("message_start"));
    assert_eq!(n.last().map(String::as_str), Some("message_stop"));
    assert_eq!(n[n.len() - 2], "message_delta");
    assert!(s.comments >= 1, "keep-alive comments are emitted");
    let start: Value = serde_json::from_str(&s.events[0].data).unwrap();
    let m = &start["message"];
    for k in [
        "id",
        "type",
        "role",
        "model",
        "content",
        "stop_reason",
        "stop_sequence",
        "usage",
    ] {
        assert!(m.get(k).is_some(), "message_start.message.{k}");
    }
    assert!(m["id"].as_str().unwrap().starts_with("msg_"));
    assert_eq!(m["content"], json!([]));
    assert_eq!(m["model"], "deepseek-flash");
    assert_eq!(s.blocks.len(), 3);
    assert_eq!(s.blocks[0]["type"], "thinking");
    assert_eq!(s.blocks[0]["thinking"], "Need the manifest first. 思考");
    assert!(!s.blocks[0]["signature"].as_str().unwrap().is_empty());
    assert_eq!(s.blocks[1]["text"], "Reading the manifest — ünïcødé ✓.");
    assert_eq!(s.blocks[2]["name"], "read_file");
    assert!(s.blocks[2]["id"].as_str().unwrap().starts_with("call_00_"));
    assert_eq!(s.blocks[2]["input"], json!({"path": "Cargo.toml"}));
    assert_eq!(s.stop_reason.as_deref(), Some("tool_use"));
    assert_eq!(s.start_usage["output_tokens"], 0);
    assert_eq!(s.start_usage["cache_creation_input_tokens"], 0);
    assert!(s.delta_usage["output_tokens"].as_u64().unwrap() > 0);
    assert_eq!(s.delta_usage["input_tokens"], s.start_usage["input_tokens"]);
}

/// Parsed OpenAI stream: (reasoning, content, tool calls, finish_reason, usage, saw [DONE]).
fn collect_openai(
    text: &str,
) -> (
    String,
    String,
    Vec<Value>,
    Option<String>,
    Value,
    bool,
    Vec<Value>,
) {
    let (events, _) = parse_sse(text);
    let mut reasoning = String::new();
    let mut content = String::new();
    let mut calls: Vec<Value> = Vec::new();
    let mut finish = None;
    let mut usage = Value::Null;
    let mut done = false;
    let mut chunks = Vec::new();
    for e in &events {
        assert!(e.event.is_none(), "OpenAI route sends data-only frames");
        if e.data == "[DONE]" {
            done = true;
            continue;
        }
        assert!(!done, "nothing after [DONE]");
        let c: Value = serde_json::from_str(&e.data).unwrap();
        chunks.push(c.clone());
        if c.get("error").is_some() {
            continue;
        }
        assert_eq!(c["object"], "chat.completion.chunk");
        let ch = &c["choices"][0];
        let d = &ch["delta"];
        if let Some(r) = d["reasoning_content"].as_str() {
            reasoning.push_str(r);
        }
        if let Some(t) = d["content"].as_str() {
            content.push_str(t);
        }
        for tc in d["tool_calls"].as_array().into_iter().flatten() {
            let i = tc["index"].as_u64().unwrap() as usize;
            if i == calls.len() {
                calls
                    .push(json!({"id": tc["id"], "name": tc["function"]["name"], "arguments": ""}));
            }
            let a = calls[i]["arguments"].as_str().unwrap().to_string()
                + tc["function"]["arguments"].as_str().unwrap_or("");
            calls[i]["arguments"] = json!(a);
        }
        if let Some(f) = ch["finish_reason"].as_str() {
            finish = Some(f.to_string());
        }
        if !c["usage"].is_null() {
            usage = c["usage"].clone();
        }
    }
    (reasoning, content, calls, finish, usage, done, chunks)
}

fn openai_body(messages: Value) -> Value {
    json!({"model": "deepseek-flash", "stream": true, "stream_options": {"include_usage": true},
        "tools": [{"type": "function", "function": {"name": "read_file", "description": "Read.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}],
        "messages": messages})
}

#[tokio::test]
async fn openai_stream_roundtrip_with_reasoning_tool_calls_and_usage() {
    let h = sim().await;
    h.push_reply(
        ScriptedReply::text("Calling two tools.")
            .with_thinking("Plan: read both.")
            .with_tool_call("read_file", json!({"path": "a.rs"}))
            .with_tool_call("read_file", json!({"path": "b.rs"})),
    );
    let resp = reqwest::Client::new()
        .post(format!("{}/chat/completions", h.base_url()))
        .bearer_auth("sk-test")
        .json(&openai_body(json!([{"role": "system", "content": long_system()}, {"role": "user", "content": "read a and b"}])))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let (reasoning, content, calls, finish, usage, done, chunks) =
        collect_openai(&resp.text().await.unwrap());
    assert!(done);
    assert_eq!(reasoning, "Plan: read both.");
    assert_eq!(content, "Calling two tools.");
    assert_eq!(calls.len(), 2);
    assert!(calls[1]["id"].as_str().unwrap().starts_with("call_01_"));
    assert_eq!(
        serde_json::from_str::<Value>(calls[1]["arguments"].as_str().unwrap()).unwrap(),
        json!({"path": "b.rs"})
    );
    assert_eq!(finish.as_deref(), Some("tool_calls"));
    // usage only on the last chunk before [DONE]
    assert!(
        chunks[..chunks.len() - 1]
            .iter()
            .all(|c| c["usage"].is_null())
    );
    let total = usage["prompt_tokens"].as_u64().unwrap();
    assert_eq!(
        usage["prompt_cache_hit_tokens"].as_u64().unwrap()
            + usage["prompt_cache_miss_tokens"].as_u64().unwrap(),
        total
    );
    assert_eq!(
        usage["prompt_tokens_details"]["cached_tokens"],
        usage["prompt_cache_hit_tokens"]
    );
    assert!(
        usage["completion_tokens_details"]["reasoning_tokens"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert_eq!(
        usage["total_tokens"].as_u64().unwrap(),
        total + usage["completion_tokens"].as_u64().unwrap()
    );
}

#[tokio::test]
async fn non_streaming_responses_on_both_routes() {
    let h = sim().await;
    h.push_reply(ScriptedReply::text("plain").with_thinking("t"));
    h.push_reply(ScriptedReply::text("plain").with_thinking("t"));
    let mut b = anth_body(json!([{"role": "user", "content": "hi"}]));
    b["stream"] = json!(false);
    let r = post(&h, "/anthropic/messages", &b).await;
    assert_eq!(r.headers()["content-type"], "application/json");
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["type"], "message");
    assert_eq!(v["content"][0]["type"], "thinking");
    assert_eq!(v["content"][1]["text"], "plain");
    assert_eq!(v["stop_reason"], "end_turn");
    assert!(v["usage"]["cache_read_input_tokens"].is_u64());
    let mut o = openai_body(json!([{"role": "user", "content": "hi"}]));
    o["stream"] = json!(false);
    let v: Value = post(&h, "/v1/chat/completions", &o)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(v["choices"][0]["message"]["content"], "plain");
    assert_eq!(v["choices"][0]["message"]["reasoning_content"], "t");
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
}

#[tokio::test]
async fn cache_hit_grows_with_extension_and_breaks_at_system_change() {
    let h = sim().await;
    h.push_reply(ScriptedReply::text("First answer.").with_thinking("ok"));
    let msgs1 = json!([{"role": "user", "content": "Tell me something."}]);
    let s1 = collect_anthropic(
        &post(&h, "/anthropic/v1/messages", &anth_body(msgs1.clone()))
            .await
            .text()
            .await
            .unwrap(),
    );
    assert_eq!(s1.start_usage["cache_read_input_tokens"], 0);
    let total1 = s1.start_usage["input_tokens"].as_u64().unwrap();

    // Replay the assistant turn exactly and append a user turn.
    let mut msgs2 = msgs1.as_array().unwrap().clone();
    msgs2.push(json!({"role": "assistant", "content": s1.blocks}));
    msgs2.push(json!({"role": "user", "content": "And more?"}));
    h.push_reply(ScriptedReply::text("Second."));
    let s2 = collect_anthropic(
        &post(
            &h,
            "/anthropic/v1/messages",
            &anth_body(json!(msgs2.clone())),
        )
        .await
        .text()
        .await
        .unwrap(),
    );
    let hit2 = s2.start_usage["cache_read_input_tokens"].as_u64().unwrap();
    assert!(
        hit2 >= total1,
        "hit {hit2} should cover the previous request ({total1} tokens)"
    );

    // Change the system prompt: the prefix breaks where the system text starts.
    let mut b3 = anth_body(json!(msgs2));
    b3["system"] = json!(format!("{} Changed.", "You are a sloppy assistant."));
    h.push_reply(ScriptedReply::text("Third."));
    let s3 = collect_anthropic(&post_text(&h, "/anthropic/v1/messages", &b3).await);
    let reqs = h.requests();
    let c1 = reqs[0].cache.as_ref().unwrap();
    let c2 = reqs[1].cache.as_ref().unwrap();
    let c3 = reqs[2].cache.as_ref().unwrap();
    assert_eq!(c1.first_diff_byte, None);
    assert!(
        c2.first_diff_byte.unwrap() > c1.render_bytes,
        "request 2 extends request 1's output unit"
    );
    assert_eq!(c2.matched_unit.as_deref(), Some("output"));
    let fd3 = c3.first_diff_byte.unwrap();
    assert!(fd3 < 600, "system change breaks early, at byte {fd3}");
    assert!(s3.start_usage["cache_read_input_tokens"].as_u64().unwrap() <= (fd3 / 4) as u64);
    assert_eq!(
        reqs[2].effective_system.as_deref(),
        Some("You are a sloppy assistant. Changed.")
    );
}

#[tokio::test]
async fn a_deferred_tool_addition_keeps_the_prefix() {
    let h = sim().await;
    h.push_reply(ScriptedReply::text("Noted.").with_thinking("fine"));
    let msgs1 = json!([{"role": "user", "content": "A long unique history. ".repeat(40)}]);
    let s1 = collect_anthropic(
        &post(&h, "/anthropic/v1/messages", &anth_body(msgs1.clone()))
            .await
            .text()
            .await
            .unwrap(),
    );
    let total1 = s1.start_usage["input_tokens"].as_u64().unwrap();

    let mut msgs2 = msgs1.as_array().unwrap().clone();
    msgs2.push(json!({"role": "assistant", "content": s1.blocks}));
    msgs2.push(json!({"role": "user", "content": "Now run the tests."}));
    let mut b2 = anth_body(json!(msgs2.clone()));
    b2["tools"].as_array_mut().unwrap().push(
        json!({"name": "run_tests", "description": "Run cargo test.",
        "input_schema": {"type": "object", "properties": {}}, "defer_loading": true}),
    );

    // Without the addition the deferred tool is not offered: a scripted call to it is a 500.
    h.push_reply(ScriptedReply::tool_call("run_tests", json!({})));
    let r = post(&h, "/anthropic/v1/messages", &b2).await;
    assert_eq!(r.status(), 500);
    let e: Value = r.json().await.unwrap();
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("forget a tool_addition")
    );
    assert_eq!(h.pending_replies(), 1, "the reply stays queued");

    msgs2.push(json!({"role": "system", "content": [
        {"type": "text", "text": "You may now run tests."},
        {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "run_tests"}}]}));
    b2["messages"] = json!(msgs2);
    let s2 = collect_anthropic(&post_text(&h, "/anthropic/v1/messages", &b2).await);
    assert_eq!(s2.blocks[0]["name"], "run_tests");
    let hit = s2.start_usage["cache_read_input_tokens"].as_u64().unwrap();
    assert!(hit + 64 >= total1, "hit {hit} vs previous total {total1}");
    let last = h.requests().pop().unwrap();
    assert_eq!(last.effective_tools, ["read_file", "run_tests"]);
    assert_eq!(
        last.effective_system.as_deref(),
        Some("You may now run tests.")
    );
    let c = last.cache.unwrap();
    let r0 = h.requests()[0].cache.clone().unwrap();
    assert_eq!(c.matched_request, Some(0));
    assert_eq!(c.matched_unit.as_deref(), Some("output"));
    assert!(
        c.first_diff_byte.unwrap() > r0.render_bytes,
        "the replayed assistant turn is part of the prefix"
    );
}

#[tokio::test]
async fn thinking_passback_rule_over_http() {
    let h = sim().await;
    h.push_reply(
        ScriptedReply::tool_call("read_file", json!({"path": "x"})).with_thinking("need x"),
    );
    let s1 = collect_anthropic(
        &post(
            &h,
            "/anthropic/v1/messages",
            &anth_body(json!([{"role": "user", "content": "read x"}])),
        )
        .await
        .text()
        .await
        .unwrap(),
    );
    let tool = s1
        .blocks
        .iter()
        .find(|b| b["type"] == "tool_use")
        .unwrap()
        .clone();
    let result = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool["id"], "content": "data"}]});
    let without = json!([{"role": "user", "content": "read x"}, {"role": "assistant", "content": [tool]}, result]);
    let r = post(&h, "/anthropic/v1/messages", &anth_body(without)).await;
    assert_eq!(r.status(), 400);
    let e: Value = r.json().await.unwrap();
    assert_eq!(e["error"]["type"], "invalid_request_error");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("must be passed back")
    );
    let with = json!([{"role": "user", "content": "read x"}, {"role": "assistant", "content": s1.blocks}, result]);
    let r = post(&h, "/anthropic/v1/messages", &anth_body(with)).await;
    assert_eq!(r.status(), 200);
    // The demo policy summarises the tool result.
    let s = collect_anthropic(&r.text().await.unwrap());
    let text = s.blocks.iter().find(|b| b["type"] == "text").unwrap()["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.contains("read_file"), "{text}");
}

#[tokio::test]
async fn validation_errors_are_400_with_openai_style_bodies() {
    let h = sim().await;
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"model": "gpt-4o", "max_tokens": 10, "messages": [{"role": "user", "content": "x"}]}),
            "Model Not Exist",
        ),
        (
            json!({"model": "deepseek-flash", "messages": [{"role": "user", "content": "x"}]}),
            "max_tokens",
        ),
        (
            json!({"model": "deepseek-flash", "max_tokens": 10, "messages": []}),
            "at least one message",
        ),
        (
            json!({"model": "deepseek-v4-pro", "max_tokens": 10, "messages": [{"role": "user", "content": "x"}, {"role": "system", "content": "y"}]}),
            "unknown variant `system`, expected `user` or `assistant`",
        ),
        (
            json!({"model": "deepseek-flash", "max_tokens": 10, "tools": [read_file_tool()], "messages": [{"role": "user", "content": "x"}, {"role": "system", "content": [{"type": "tool_addition", "tool": {"type": "tool_reference", "name": "nope"}}]}]}),
            "Tool reference 'nope' not found",
        ),
        (
            json!({"model": "deepseek-flash", "max_tokens": 10, "tools": [read_file_tool()], "messages": [{"role": "user", "content": "x"}, {"role": "system", "content": [{"type": "tool_removal", "tool": {"type": "tool_reference", "name": "read_file"}}]}]}),
            "tool_removal",
        ),
        (
            json!({"model": "deepseek-flash", "max_tokens": 10, "messages": [{"role": "user", "content": [{"type": "document", "source": {}}]}]}),
            "not supported",
        ),
        (
            json!({"model": "deepseek-flash", "max_tokens": 10, "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "read_file", "input": {}}]}]}),
            "without `tool_result`",
        ),
    ];
    for (body, needle) in cases {
        let r = post(&h, "/anthropic/v1/messages", &body).await;
        assert_eq!(r.status(), 400, "{needle}");
        let e: Value = r.json().await.unwrap();
        assert!(
            e["error"]["message"].as_str().unwrap().contains(needle),
            "{needle}: {e}"
        );
        assert!(e["error"].get("param").is_some() && e["error"]["code"].is_string());
    }
    let r = reqwest::Client::new()
        .post(format!("{}/anthropic/v1/messages", h.base_url()))
        .header("x-api-key", "k")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("Failed to deserialize the JSON body")
    );
    let tool_removal_ok = sim_with(SimConfig {
        tool_removal_ok: true,
        ..SimConfig::default()
    })
    .await;
    let body = json!({"model": "deepseek-flash", "max_tokens": 10, "tools": [read_file_tool()], "messages": [{"role": "user", "content": "x"}, {"role": "system", "content": [{"type": "tool_removal", "tool": {"type": "tool_reference", "name": "read_file"}}]}]});
    assert_eq!(
        post(&tool_removal_ok, "/anthropic/v1/messages", &body)
            .await
            .status(),
        200
    );
    assert!(tool_removal_ok.requests()[0].effective_tools.is_empty());
}

#[tokio::test]
async fn demo_policy_calls_a_named_tool_then_answers() {
    let h = sim().await;
    let o =
        openai_body(json!([{"role": "user", "content": "Please use read_file on src/main.rs"}]));
    let (reasoning, _, calls, finish, _, _, _) =
        collect_openai(&post_text(&h, "/chat/completions", &o).await);
    assert!(!reasoning.is_empty());
    assert_eq!(finish.as_deref(), Some("tool_calls"));
    assert_eq!(calls[0]["name"], "read_file");
    assert_eq!(
        serde_json::from_str::<Value>(calls[0]["arguments"].as_str().unwrap()).unwrap(),
        json!({"path": "src/main.rs"})
    );
    let plain = openai_body(json!([{"role": "user", "content": "What is Rust?"}]));
    let (_, content, calls, _, _, _, _) =
        collect_openai(&post_text(&h, "/chat/completions", &plain).await);
    assert!(calls.is_empty());
    assert!(
        content.contains("What is Rust?") && content.contains("demo simulator"),
        "{content}"
    );
}

#[tokio::test]
async fn openai_route_adding_a_tool_breaks_the_cache_after_the_tools() {
    let h = sim().await;
    h.push_reply(ScriptedReply::text("One.").with_thinking("a"));
    let msgs =
        json!([{"role": "system", "content": long_system()}, {"role": "user", "content": "first"}]);
    let b1 = openai_body(msgs.clone());
    let (_, content, _, _, usage1, _, _) =
        collect_openai(&post_text(&h, "/chat/completions", &b1).await);
    let mut m2 = msgs.as_array().unwrap().clone();
    m2.push(json!({"role": "assistant", "content": content}));
    m2.push(json!({"role": "user", "content": "second"}));
    h.push_reply(ScriptedReply::text("Two."));
    let (_, _, _, _, usage2, _, _) = collect_openai(
        &post(&h, "/chat/completions", &openai_body(json!(m2.clone())))
            .await
            .text()
            .await
            .unwrap(),
    );
    assert!(
        usage2["prompt_cache_hit_tokens"].as_u64().unwrap()
            >= usage1["prompt_tokens"].as_u64().unwrap()
    );
    let mut b3 = openai_body(json!(m2));
    b3["tools"].as_array_mut().unwrap().push(
        json!({"type": "function", "function": {"name": "run_tests", "parameters": {"type": "object"}}}),
    );
    h.push_reply(ScriptedReply::text("Three."));
    let (_, _, _, _, usage3, _, _) = collect_openai(&post_text(&h, "/chat/completions", &b3).await);
    let reqs = h.requests();
    let fd = reqs[2].cache.as_ref().unwrap().first_diff_byte.unwrap();
    assert!(
        fd < 300,
        "the new tool changes bytes right after the first tool (offset {fd})"
    );
    assert_eq!(usage3["prompt_cache_hit_tokens"], 0);
    assert_eq!(reqs[2].effective_tools, ["read_file", "run_tests"]);
}

/// The official Anthropic and OpenAI Python SDKs stream from the simulator without error
/// (tests/sdk/check_sdk.py). Skipped, with a message, when the SDKs are not installed, or
/// failed under `DEEPTERM_REQUIRE_EXTERNAL=1` (`.ci/run` sets it and installs them).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn official_sdks_stream_from_the_simulator() {
    let probe = std::process::Command::new("python3")
        .args(["-c", "import anthropic, openai"])
        .output();
    let found = matches!(&probe, Ok(o) if o.status.success());
    if !common::require_external("python3 with the anthropic and openai packages", found) {
        return;
    }
    let sim = deepterm::sim::start(deepterm::sim::SimConfig::default())
        .await
        .expect("sim starts");
    let base = sim.base_url();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sdk/check_sdk.py");
    let out = tokio::process::Command::new("python3")
        .arg(script)
        .arg(&base)
        .output()
        .await
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "SDK check failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("ok"), "{stdout}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
}

mod faults;
