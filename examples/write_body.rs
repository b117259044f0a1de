//! Writes one request body over and over, for profilers and for the memory-layout probe of
//! decision 0100: `cargo run --release --example write_body -- ROUTE MESSAGES [LAYOUT] [N]`,
//! where ROUTE is `deepseek` or `openai`, MESSAGES the history length (the request_path
//! bench's session), LAYOUT `session` (the history as the session holds it, the default)
//! or `packed` (the same messages cloned, one after another, into fresh allocations), and N
//! how many writes (default 200). It prints the body's size and the mean time per write.
//!
//! Instructions per body byte, independent of load:
//! ```text
//! cargo build --release --example write_body
//! valgrind --tool=callgrind --toggle-collect='deepterm::llm::client::wire::write_wire' \
//!     target/release/examples/write_body deepseek 20000 session 20
//! ```
//! then divide the "Collected" instruction count by N × the body bytes printed.
//! The layout probe: run `session` and `packed` alternately and compare the times.

use std::sync::Arc;
use std::time::Instant;

use deepterm::agent::request::plan_attempt;
use deepterm::agent::request::sample_session::{input, route, session};
use deepterm::llm::client::{with_request_parts, write_wire};
use deepterm::llm::types::ProviderKind;
use deepterm::session::message_list::MessageList;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: write_body deepseek|openai MESSAGES [session|packed] [N]";
    let kind = match args.first().map(String::as_str) {
        Some("deepseek") => ProviderKind::DeepseekMessages,
        Some("openai") => ProviderKind::OpenaiChat,
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    let Some(n) = args.get(1).and_then(|v| v.parse::<usize>().ok()) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let packed = match args.get(2).map(String::as_str) {
        None | Some("session") => false,
        Some("packed") => true,
        Some(_) => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    let writes: u32 = args
        .get(3)
        .and_then(|v| v.parse().ok())
        .filter(|&w| w > 0)
        .unwrap_or(200);
    let route = route(kind);
    let (mut s, mut series) = session(n, &route);
    let turn = s.derive_messages().len() as u64;
    let mut opts = plan_attempt(
        &mut s,
        &mut series,
        &route,
        input(Vec::new(), turn),
        &mut |_| {},
    )
    .expect("plan")
    .opts;
    if packed {
        // Each message deep-copied in order, so they sit in consecutive allocations.
        opts.messages = opts
            .messages
            .iter()
            .map(|m| Arc::new((**m).clone()))
            .collect::<MessageList>();
    }
    with_request_parts(&opts, |parts| {
        // Exactly `writes` calls, so a profiler's count divides by `writes`.
        let mut bytes = 0;
        let started = Instant::now();
        for _ in 0..writes {
            bytes = std::hint::black_box(write_wire(kind, parts).expect("wire").bytes.len());
        }
        let per = started.elapsed() / writes;
        let layout = if packed { "packed" } else { "session" };
        println!(
            "{layout}: {bytes} body bytes, {writes} writes, {per:?} per write, {:.1} MB/s",
            bytes as f64 / per.as_secs_f64() / 1e6
        );
    });
}
