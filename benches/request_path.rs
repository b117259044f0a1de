//! The whole per-attempt request path (plan → project → serialize → bytes) on sessions of
//! 200 and 20,000 messages, both wire protocols: `plan_attempt` over an unchanged session
//! (nothing to log) followed by `build_wire`. It is split in two: `overhead` is
//! everything except writing the body bytes (plan, options from the log, tool-id repair,
//! projection, request parts) and `serialization` writes the body bytes from the prepared
//! parts, the part that grows with the bytes sent.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use deepterm::agent::prompt::RequestSeries;
use deepterm::agent::request::{AttemptInput, plan_attempt};
use deepterm::llm::client::{build_wire, with_request_parts, write_wire};
use deepterm::llm::types::{ProviderKind, Route};
use deepterm::session::Session;
use deepterm::session::event::*;
use serde_json::json;

fn route(kind: ProviderKind) -> Route {
    let messages = kind == ProviderKind::DeepseekMessages;
    Route {
        provider: "deepseek".into(),
        model: "deepseek-flash".into(),
        kind,
        base_url: "http://127.0.0.1:1".into(),
        api_key_env: "KEY".into(),
        caps: deepterm::llm::types::Capabilities {
            context_window: 1_000_000,
            system_prompt_update: messages.then_some(SystemPromptUpdate::InHistory),
            tool_update: messages.then_some(ToolUpdateMode::InHistory),
            tool_removal: Default::default(),
            image_input: false,
            max_tools: 128,
            prices: None,
        },
    }
}

fn tools() -> Vec<ToolSchema> {
    (0..20)
        .map(|i| ToolSchema {
            name: format!("tool_{i:02}"),
            description: format!("tool {i}: does one thing."),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            defer_loading: None,
        })
        .collect()
}

const PROMPT: &str = "You are a helpful assistant.";

fn input(pending: Vec<Message>, turn: u64) -> AttemptInput<'static> {
    AttemptInput {
        rendered: PROMPT,
        tools: tools(),
        pending_user: pending,
        turn,
        step: 1,
        explicit_series_start: false,
        effort: None,
    }
}

/// A session of about `n` messages: turns of user → assistant tool call → tool result →
/// assistant answer (~100-byte texts), planned once so the header is logged.
fn session(n: usize, route: &Route) -> (Session, RequestSeries) {
    let mut s = Session::new("bench", "/");
    let mut series = RequestSeries::attach(&s);
    let mut turn = 0;
    let text =
        "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt";
    while (turn as usize) * 4 < n {
        turn += 1;
        let user = Message::text(Role::User, format!("{turn}: {text}"), Source::kind("user"));
        plan_attempt(
            &mut s,
            &mut series,
            route,
            input(vec![user], turn),
            &mut |_| {},
        )
        .expect("plan");
        let call = Message::new(
            Role::Assistant,
            vec![Block::ToolCall {
                id: format!("call_{turn}"),
                name: "tool_01".into(),
                arguments: "{\"path\":\"/tmp/x\"}".into(),
            }],
            Source::kind("model"),
        );
        let push = |s: &mut Session, message: Message, kind: &str| {
            let ev = match kind {
                "assistant" => EventKind::AssistantMessage(AssistantMessageData {
                    turn,
                    step: 1,
                    message,
                    usage: None,
                    timing: None,
                    interrupted: None,
                }),
                _ => EventKind::ToolResult(ToolResultData {
                    turn,
                    step: 1,
                    message,
                    error: None,
                }),
            };
            s.push(ev).expect("push");
        };
        push(&mut s, call, "assistant");
        let mut result = Message::text(Role::Tool, text, Source::kind("tool"));
        result.tool_call_id = Some(format!("call_{turn}"));
        push(&mut s, result, "tool");
        push(
            &mut s,
            Message::text(Role::Assistant, text, Source::kind("model")),
            "assistant",
        );
    }
    (s, series)
}

fn bench(c: &mut Criterion) {
    for (name, kind) in [
        ("deepseek", ProviderKind::DeepseekMessages),
        ("openai", ProviderKind::OpenaiChat),
    ] {
        let route = route(kind);
        for n in [200usize, 20_000] {
            let (mut s, mut series) = session(n, &route);
            let turn = s.derive_messages().len() as u64;
            let mut plan = || {
                plan_attempt(
                    &mut s,
                    &mut series,
                    &route,
                    input(Vec::new(), turn),
                    &mut |_| {},
                )
                .expect("plan")
            };
            // Everything but writing the body: plan, options from the log, tool-id
            // repair, projection, the borrowed request parts.
            c.bench_function(&format!("overhead/{name}/{n}"), |b| {
                b.iter(|| {
                    let planned = plan();
                    with_request_parts(&planned.opts, |parts| black_box(parts.messages.len()))
                })
            });
            c.bench_function(&format!("request_path/{name}/{n}"), |b| {
                b.iter(|| {
                    let planned = plan();
                    let wire = build_wire(&planned.opts).expect("wire");
                    black_box(wire.bytes.len())
                })
            });
            let planned = plan();
            let wire = build_wire(&planned.opts).expect("wire");
            let bytes = wire.bytes.len() as u64;
            eprintln!("{name}/{n}: {bytes} body bytes");
            // Writing the body bytes from the prepared parts, alone, in MB/s.
            let mut group = c.benchmark_group("serialization");
            group.throughput(Throughput::Bytes(bytes));
            with_request_parts(&planned.opts, |parts| {
                group.bench_function(format!("{name}/{n}"), |b| {
                    b.iter(|| black_box(write_wire(kind, parts).expect("wire").bytes.len()))
                });
            });
            group.finish();
            // The baseline, measured in the same run: `serde_json::to_vec` of the same body
            // as a `serde_json::Value` tree (built once, outside the timing).
            let tree: serde_json::Value = serde_json::from_slice(&wire.bytes).expect("json");
            let mut group = c.benchmark_group("serde_baseline");
            group.throughput(Throughput::Bytes(bytes));
            group.bench_function(format!("{name}/{n}"), |b| {
                b.iter(|| black_box(serde_json::to_vec(&tree).expect("json").len()))
            });
            group.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
