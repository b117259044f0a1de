//! Both stream assemblers on arbitrary SSE input: never panic; a settled reply has unique,
//! non-empty tool-call ids.
#![no_main]

use std::collections::HashSet;

use deepterm::llm::adapter::Assemble;
use deepterm::llm::deepseek::stream::MessagesAssembler;
use deepterm::llm::openai::stream::ChatAssembler;
use deepterm::llm::sse::SseParser;
use deepterm::llm::types::Completion;
use deepterm::session::event::Block;
use libfuzzer_sys::fuzz_target;

fn check(c: &Completion) {
    let ids: Vec<&str> = c
        .content
        .iter()
        .filter_map(|b| match b {
            Block::ToolCall { id, .. } => Some(id.as_str()),
            _ => None,
        })
        .collect();
    assert!(ids.iter().all(|id| !id.is_empty()));
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());
}

fuzz_target!(|data: &[u8]| {
    let mut parser = SseParser::new();
    let mut frames = Vec::new();
    if parser.push(data, &mut frames).is_err() {
        return;
    }
    let mut messages = MessagesAssembler::with_max_reply_bytes(4096);
    if frames
        .iter()
        .all(|f| messages.on_frame(f, &mut |_| {}).is_ok())
    {
        if let Ok(c) = messages.finish() {
            check(&c);
        }
    }
    let mut chat = ChatAssembler::with_max_reply_bytes(4096);
    if frames.iter().all(|f| chat.on_frame(f, &mut |_| {}).is_ok()) {
        if let Ok(c) = chat.finish() {
            check(&c);
        }
    }
});
