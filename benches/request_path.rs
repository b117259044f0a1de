//! The whole per-attempt request path (plan → project → serialize → bytes) on sessions of
//! 200 and 20,000 messages, both wire protocols: `plan_attempt` over an unchanged session
//! (nothing to log) followed by `build_wire`. It is split in two: `overhead` is
//! everything except writing the body bytes (plan, options from the log, tool-id repair,
//! projection, request parts) and `serialization` writes the body bytes from the prepared
//! parts, the part that grows with the bytes sent.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use deepterm::agent::request::plan_attempt;
use deepterm::agent::request::sample_session::{input, route, session};
use deepterm::llm::client::{build_wire, with_request_parts, write_wire};
use deepterm::llm::types::ProviderKind;

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
