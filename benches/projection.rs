//! `project_tool_updates` on a 2,000-message request (target: well under 1 ms).

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use deepterm::llm::projection::project_tool_updates;
use deepterm::llm::types::{ToolHistory, ToolHistoryUpdate};
use deepterm::session::event::*;
use serde_json::json;

fn tool(name: &str) -> ToolSchema {
    ToolSchema {
        name: name.into(),
        description: format!("{name}: does one thing."),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        defer_loading: None,
    }
}

/// 2,000 messages with 40 developer updates (each `[+extra_i, -extra_{i-1}]`), the
/// matching history, and the current tools.
fn request() -> (Vec<Arc<Message>>, ToolHistory, Vec<ToolSchema>) {
    let base: Vec<ToolSchema> = (0..20).map(|i| tool(&format!("tool_{i:02}"))).collect();
    let mut messages = Vec::with_capacity(2_000);
    let mut updates = Vec::new();
    let mut d = 0;
    while messages.len() < 2_000 {
        let i = messages.len();
        let m = if i % 50 == 25 && d < 40 {
            let mut blocks = vec![Block::addition(format!("extra_{d}"))];
            if d > 0 {
                blocks.push(Block::removal(format!("extra_{}", d - 1)));
            }
            let m = Message::new(Role::Developer, blocks, Source::kind("tool-registry"));
            updates.push(ToolHistoryUpdate {
                message_id: m.id.clone(),
                additions: vec![tool(&format!("extra_{d}"))],
            });
            d += 1;
            m
        } else {
            let role = [Role::User, Role::Assistant, Role::Tool][i % 3];
            Message::text(
                role,
                "some ordinary conversation text of modest length",
                Source::kind("x"),
            )
        };
        messages.push(Arc::new(m));
    }
    let mut current = base.clone();
    current.push(tool(&format!("extra_{}", d - 1)));
    (
        messages,
        ToolHistory {
            tools: base,
            updates,
        },
        current,
    )
}

fn bench(c: &mut Criterion) {
    let (messages, history, tools) = request();
    let mut g = c.benchmark_group("project_tool_updates_2000_messages");
    for (label, mode) in [
        ("in-history", Some(ToolUpdateMode::InHistory)),
        ("addition-only", Some(ToolUpdateMode::AdditionOnly)),
        ("unsupported", None),
    ] {
        g.bench_function(label, |b| {
            b.iter(|| {
                black_box(project_tool_updates(
                    black_box(&messages),
                    Some(&tools),
                    mode,
                    Some(&history),
                ))
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
