//! Cost of `Session::tool_history()` after one appended event, on logs of 1k, 10k and
//! 100k events with realistic tool churn, against the rejected baseline of a full
//! rescan (a fresh fold over every event) — see docs/benchmarks.md.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use deepterm::session::Session;
use deepterm::session::event::*;
use deepterm::session::tool_history::ToolHistoryFold;
use serde_json::json;

fn tool(name: &str) -> ToolSchema {
    ToolSchema {
        name: name.into(),
        description: format!("{name}: does one thing well and reports the result."),
        parameters: json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Workspace-relative path."},
                "limit": {"type": "integer", "minimum": 1}
            },
            "required": ["path"]
        }),
        defer_loading: None,
    }
}

fn header(tools: Vec<ToolSchema>, reason: HeaderReason) -> EventKind {
    EventKind::RequestHeader(RequestHeaderData {
        header: RequestHeader {
            config: CallConfig {
                provider: "deepseek".into(),
                model: "deepseek-flash".into(),
                reasoning_effort: None,
                temperature: None,
                max_tokens: Some(4096),
                stop: None,
            },
            adapter_defaults: None,
            tools: Some(tools),
        },
        reason,
        starts_series: None,
    })
}

fn msg(role: Role, text: &str, source: &str) -> Message {
    Message::text(role, text, Source::kind(source))
}

/// Tool churn: every 40 events the active extra tool is swapped (a `change` header and
/// a developer message `[+new, -old]`); every 2000 events a `series` header (what the
/// loop writes after compaction) restarts the declaration series.
struct Churn {
    k: u64,
    base: Vec<ToolSchema>,
}

impl Churn {
    fn new() -> Self {
        let base = [
            "read_file",
            "list_dir",
            "grep",
            "write_file",
            "run",
            "fs__stat",
            "web",
            "zip",
        ]
        .iter()
        .map(|n| tool(n))
        .collect();
        Churn { k: 0, base }
    }

    fn tools(&self, round: u64) -> Vec<ToolSchema> {
        let mut t = self.base.clone();
        t.push(tool(&format!("extra_{}", (round / 4) % 16)));
        t.sort_by(|a, b| a.name.cmp(&b.name));
        t
    }

    fn push_next(&mut self, s: &mut Session) {
        let (phase, round) = (self.k % 10, self.k / 10);
        self.k += 1;
        let (turn, step) = (round / 3 + 1, round % 3 + 1);
        let kind = match phase {
            0 if self.k == 1 => header(self.tools(round), HeaderReason::Initial),
            0 => EventKind::UserMessage(UserMessageData {
                message: msg(
                    Role::User,
                    "please look at src/main.rs and summarize",
                    "user",
                ),
            }),
            1 if round % 4 == 0 && round > 0 => header(self.tools(round), HeaderReason::Change),
            2 if round % 4 == 0 && round > 0 => {
                let (h, _) = s.latest_header().expect("header");
                let new = format!("extra_{}", (round / 4) % 16);
                let old = format!("extra_{}", (round / 4 + 15) % 16);
                EventKind::DeveloperMessage(DeveloperMessageData {
                    turn,
                    step,
                    message: Message::new(
                        Role::Developer,
                        vec![Block::addition(new), Block::removal(old)],
                        Source::kind("tool-registry"),
                    ),
                    header_seq: Some(h),
                })
            }
            9 if round % 200 == 199 => header(self.tools(round), HeaderReason::Series),
            1 | 2 | 9 => EventKind::StepStart(StepRef { turn, step }),
            3 => EventKind::AssistantMessage(AssistantMessageData {
                turn,
                step,
                message: Message::new(
                    Role::Assistant,
                    vec![Block::ToolCall {
                        id: format!("call_{}", self.k),
                        name: "read_file".into(),
                        arguments: r#"{"path":"src/main.rs"}"#.into(),
                    }],
                    Source::kind("model"),
                ),
                usage: None,
                timing: None,
                interrupted: None,
            }),
            4 => EventKind::ToolCall(ToolCallData {
                turn,
                step,
                call_id: format!("call_{}", self.k),
                name: "read_file".into(),
                arguments: r#"{"path":"src/main.rs"}"#.into(),
                bridged: None,
            }),
            5 => {
                let mut m = msg(Role::Tool, "fn main() { println!(\"hello\"); }", "tool");
                m.tool_call_id = Some(format!("call_{}", self.k - 1));
                EventKind::ToolResult(ToolResultData {
                    turn,
                    step,
                    message: m,
                    error: None,
                    sandbox_retry: None,
                })
            }
            6 => EventKind::StepEnd(StepRef { turn, step }),
            7 => EventKind::AssistantMessage(AssistantMessageData {
                turn,
                step,
                message: msg(Role::Assistant, "The file prints hello.", "model"),
                usage: None,
                timing: None,
                interrupted: None,
            }),
            _ => EventKind::TurnEnd(TurnEnd {
                turn,
                outcome: None,
            }),
        };
        s.push(kind).expect("valid churn event");
    }
}

/// A session of `n` events (including session/start) with the churn's state after it.
fn build(n: usize) -> (Vec<Event>, Churn) {
    let mut s = Session::new("bench", "/");
    let mut churn = Churn::new();
    while s.events().len() < n {
        churn.push_next(&mut s);
    }
    let events = s.events().iter().map(|e| Event::clone(e)).collect();
    (events, churn)
}

/// Real appends measured per sample; their mean is scaled to criterion's iteration
/// count. The log is rebuilt from the template every `CHUNK` appends so it stays within
/// `CHUNK` events of its nominal size.
const REAL_ITERS: u64 = 2_000;
/// Appends between rebuilds.
const CHUNK: u64 = 1_000;

fn incremental(c: &mut Criterion) {
    let mut g = c.benchmark_group("tool_history_after_one_append");
    for n in [1_000usize, 10_000, 100_000] {
        let (template, churn0) = build(n);
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter_custom(|iters| {
                // Always measure REAL_ITERS calls, whatever `iters` criterion asks for:
                // a handful of calls right after a 100k rebuild would only measure the
                // cold caches the rebuild left behind.
                let real = REAL_ITERS;
                let mut total = Duration::ZERO;
                let mut done = 0;
                while done < real {
                    // Fresh log of the nominal size for every chunk (untimed).
                    let mut s = Session::from_events(template.clone()).expect("valid log");
                    let mut churn = Churn {
                        k: churn0.k,
                        base: churn0.base.clone(),
                    };
                    s.tool_history().expect("fold");
                    for _ in 0..CHUNK.min(real - done) {
                        churn.push_next(&mut s);
                        let t = Instant::now();
                        black_box(s.tool_history().expect("fold"));
                        total += t.elapsed();
                        done += 1;
                    }
                }
                total.mul_f64(iters as f64 / real as f64)
            })
        });
    }
    g.finish();
}

fn rescan(c: &mut Criterion) {
    let mut g = c.benchmark_group("tool_history_full_rescan");
    for n in [1_000usize, 10_000, 100_000] {
        let (template, _) = build(n);
        let s = Session::from_events(template).expect("valid log");
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                let mut f = ToolHistoryFold::new();
                for e in s.events() {
                    f.apply(e).expect("fold");
                }
                black_box(f.snapshot())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, incremental, rescan);
criterion_main!(benches);
